"""The fault suite's own parts: a Redis it may kill -9 and restart, its own fake Anthropic server,
and web and worker processes started and killed per test (PLT-6, SUM-5)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fakes.anthropic_server import FakeAnthropic
from tests.fixtures.servers import (
    ADMIN_TOKEN,
    API_KEY,
    ROOT,
    WebApp,
    free_port,
    procfile_command,
    redis_binary,
    redis_cli,
)


class KillableRedis:
    """A redis-server with an fsync-always AOF on a fixed port: ``kill()`` is a kill -9, ``restart()``
    brings it back on the same port with everything it acknowledged."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.dir = workdir
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None
        self.restart()

    def restart(self) -> None:
        """Start (again) and wait until it answers PING (the AOF is loaded by then)."""
        self.proc = subprocess.Popen(
            [
                redis_binary(), "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.dir),
                "--save", "", "--appendonly", "yes", "--appendfsync", "always",
            ],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            out = subprocess.run(
                [redis_cli(), "-p", str(self.port), "PING"], capture_output=True, timeout=5, check=False
            )
            if out.stdout.strip() == b"PONG":
                return
            time.sleep(0.05)
        raise RuntimeError("redis-server did not come back")

    def kill(self) -> None:
        """kill -9: no shutdown, no release of anything."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


@pytest.fixture
def killable_redis(tmp_path: Path) -> Iterator[KillableRedis]:
    server = KillableRedis(tmp_path)
    yield server
    server.stop()


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    """A fake Anthropic server of this test alone (its script is not shared with other suites)."""
    with FakeAnthropic() as server:
        yield server


def hearth_env(redis_url: str, fake: FakeAnthropic, **extra: str) -> dict[str, str]:
    """The environment of a web or worker process of the fault suite."""
    return {
        "REDIS_URL": redis_url,
        "HEARTH_REDIS_CLUSTER": "false",
        "HEARTH_ADMIN_TOKEN": ADMIN_TOKEN,
        "ANTHROPIC_API_KEY": API_KEY,
        "ANTHROPIC_BASE_URL": fake.base_url,
        "HEARTH_EMBEDDER": "hash",
        "HEARTH_LLM_MAX_RETRIES": "2",
        **extra,
    }


class Processes:
    """Web and worker processes of one test, stopped (or already killed) at its end."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.webs: list[WebApp] = []
        self.workers: list[subprocess.Popen[bytes]] = []

    def web(self, env: dict[str, str]) -> WebApp:
        app = WebApp(env, self.folder / f"web{len(self.webs)}.log")
        self.webs.append(app)
        return app

    def worker(self, env: dict[str, str]) -> subprocess.Popen[bytes]:
        full = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "TELEGRAM_"))} | env
        log = (self.folder / f"worker{len(self.workers)}.log").open("wb")
        proc = subprocess.Popen(
            procfile_command("worker"), cwd=ROOT, env=full, stdout=log, stderr=subprocess.STDOUT
        )
        log.close()
        self.workers.append(proc)
        return proc

    def log(self, name: str) -> str:
        return (self.folder / name).read_text(errors="replace")

    def stop(self) -> None:
        for proc in self.workers:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.workers:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
        for app in self.webs:
            app.stop()


@pytest.fixture
def procs(tmp_path: Path) -> Iterator[Processes]:
    running = Processes(tmp_path)
    yield running
    running.stop()


def messages_requests(fake: FakeAnthropic) -> list[Any]:
    """The Messages API calls the fake received (token counting aside)."""
    return [r for r in fake.requests if r.path == "/v1/messages"]


def wait_until(predicate: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(0.05)


def healthy(app: WebApp) -> bool:
    try:
        return httpx.get(f"{app.base_url}/readyz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False
