"""RUN-1 / issue 32: the web process answers ``/healthz`` within 5 s of starting, with the default
embedder still loading behind the port; ``/readyz`` turns 200 later, and a chat message sent in
between is answered once the app is up (it waits; it is not refused)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests.fixtures.servers import ROOT, RedisServer, free_port, procfile_command

pytestmark = pytest.mark.e2e

DB = 14


def test_healthz_within_5_s_and_a_message_sent_while_loading_is_answered(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    port = free_port()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ANTHROPIC_", "TELEGRAM_", "HEARTH_EMBEDDER"))
    }
    env |= {**redis_server.env(DB), "PORT": str(port), "HEARTH_HOST": "127.0.0.1", "HEARTH_NAMESPACE": "boot"}
    base = f"http://127.0.0.1:{port}"
    log = tmp_path / "web.log"
    with log.open("wb") as out:
        started = time.monotonic()
        proc = subprocess.Popen(
            procfile_command("web"), cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        live = None
        while time.monotonic() - started < 30:
            assert proc.poll() is None, log.read_text()
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    live = time.monotonic() - started
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        assert live is not None and live <= 5.0, (live, log.read_text())
        ready_now = httpx.get(f"{base}/readyz", timeout=5)
        sent = httpx.post(
            f"{base}/api/chats/boot/messages",
            json={"user": "ann", "text": "Hello! I'm Ann."},
            timeout=120,
        )
        ready = time.monotonic() - started
        assert sent.status_code == 200 and sent.json()["reply"], sent.text
        assert httpx.get(f"{base}/readyz", timeout=5).status_code == 200
        # with the default embedder the app is not up when the port is: the message waited for it
        assert ready_now.status_code == 503 or ready < live + 1.0, (ready_now.text, live, ready)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert "Traceback" not in log.read_text()
