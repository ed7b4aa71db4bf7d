"""RUN-3: the run command starts a local Redis with persistence, and data survives a restart."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.fixtures.servers import ROOT, free_port

pytestmark = pytest.mark.e2e


def start(workdir: Path, port: int) -> subprocess.Popen[bytes]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"REDIS_URL", "ANTHROPIC_API_KEY", "HEARTH_ADMIN_TOKEN"}
    }
    env |= {
        "PORT": str(port),
        "HEARTH_PERSONAS": str(ROOT / "config" / "personas"),
        "HEARTH_OFFLINE_DELAY_MS": "0",
        "HEARTH_HOST": "127.0.0.1",
        "PYTHONPATH": str(ROOT),
    }
    log = workdir / "run.log"
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "adapters.devrun"],
            cwd=workdir,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, log.read_text()
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise AssertionError("make run did not become healthy")


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=30)


def test_run_3_local_redis_persists_across_restarts(tmp_path: Path) -> None:
    port = free_port()
    proc = start(tmp_path, port)
    try:
        # with no HEARTH_ADMIN_TOKEN the REST API answers on loopback
        sent = httpx.post(
            f"http://127.0.0.1:{port}/api/chats/kept/messages",
            json={"user": "alice", "text": "remember this message"},
            timeout=30,
        )
        assert sent.status_code == 200, sent.text
    finally:
        stop(proc)
    assert (tmp_path / "var" / "redis").is_dir()
    assert not (tmp_path / "var" / "redis.sock").exists(), "Redis was stopped with the web process"
    proc = start(tmp_path, port)
    try:
        history = httpx.get(f"http://127.0.0.1:{port}/api/chats/kept/messages", timeout=10).json()
        assert "remember this message" in [m["text"] for m in history["messages"]]
    finally:
        stop(proc)
