"""RUN-1..3: ``make run`` runs the Procfile's web *and* worker processes on a local Redis with
persistence; one Ctrl-C, SIGINT or SIGTERM stops everything and leaves no process behind.

``make`` is run for real (the README's command) with ``PY`` set to this interpreter and the
install stamp taken as up to date, and ``HEARTH_VAR_DIR`` points its Redis and logs at a
temporary folder, so the tests never touch the checkout's ``./var``.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import signal
import subprocess
import sys
import termios
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.fixtures.servers import ROOT, free_port

pytestmark = pytest.mark.e2e

_DROPPED = {"REDIS_URL", "ANTHROPIC_API_KEY", "HEARTH_ADMIN_TOKEN", "TELEGRAM_BOT_TOKEN", "MAKEFLAGS"}


class MakeRun:
    """``make run`` in its own session, with a marker in its environment to find every child."""

    def __init__(self, workdir: Path, *, ignore_sigint: bool = False, tty: bool = False) -> None:
        self.port = free_port()
        self.mark = secrets.token_hex(8)
        self.log = workdir / "make-run.log"
        env = {k: v for k, v in os.environ.items() if k not in _DROPPED}
        env |= {
            "PORT": str(self.port),
            "HEARTH_HOST": "127.0.0.1",
            "HEARTH_VAR_DIR": str(workdir / "var"),
            "HEARTH_OFFLINE_DELAY_MS": "0",
            "HEARTH_TEST_MARK": self.mark,
        }
        argv = ["make", "--no-print-directory", "-C", str(ROOT), "run", f"PY={sys.executable}"]
        argv += ["-o", ".venv/.hearth-run-installed"]
        self.master: int | None = None
        if tty:
            self.master, slave = os.openpty()
            out: int = slave
            preexec = _take_tty
        else:
            out = os.open(self.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
            preexec = _ignore_sigint if ignore_sigint else None
        self.proc = subprocess.Popen(
            argv, env=env, stdin=out, stdout=out, stderr=out, start_new_session=True, preexec_fn=preexec
        )
        os.close(out)
        self.base = f"http://127.0.0.1:{self.port}"
        self._wait_healthy()

    def output(self) -> str:
        if self.master is not None:
            chunks = []
            while True:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                chunks.append(chunk)
            with self.log.open("ab") as f:
                f.write(b"".join(chunks))
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def _wait_healthy(self) -> None:
        if self.master is not None:
            os.set_blocking(self.master, False)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.output()
            try:
                if httpx.get(f"{self.base}/readyz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            self.output()
            time.sleep(0.2)
        self.kill()
        raise AssertionError(f"make run did not become healthy:\n{self.output()}")

    def _pids(self) -> list[int]:
        """Processes still running with this run's marker in their environment."""
        needle = f"HEARTH_TEST_MARK={self.mark}".encode()
        pids = []
        for entry in Path("/proc").iterdir():
            with contextlib.suppress(OSError):
                if entry.name.isdigit() and needle in (entry / "environ").read_bytes().split(b"\0"):
                    pids.append(int(entry.name))
        return pids

    def left_behind(self) -> list[str]:
        """The command lines of this run's processes that are still alive."""
        found = []
        for pid in self._pids():
            with contextlib.suppress(OSError):
                found.append(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode())
        return found

    def kill(self) -> None:
        for pid in self._pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    def wait_stopped(self, timeout: float = 40) -> int:
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"make run did not stop:\n{self.output()}") from None
        deadline = time.monotonic() + 10
        while self.left_behind() and time.monotonic() < deadline:
            time.sleep(0.1)
        return code


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _take_tty() -> None:
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


@pytest.fixture
def runs(tmp_path: Path) -> Callable[..., MakeRun]:
    started: list[MakeRun] = []

    def start(**kwargs: bool) -> MakeRun:
        started.append(MakeRun(tmp_path, **kwargs))
        return started[-1]

    yield start  # type: ignore[misc]
    for run in started:
        if run.proc.poll() is None:  # clean-up only: stopping itself is asserted by the tests above
            os.killpg(run.proc.pid, signal.SIGINT)
            with contextlib.suppress(AssertionError):
                run.wait_stopped(timeout=60)
        run.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            run.proc.wait(timeout=10)
        if run.master is not None:
            os.close(run.master)


def test_run_3_background_make_run_stops_on_sigterm(runs: Callable[..., MakeRun]) -> None:
    """It also prints the address only once the web process answers ``/readyz``."""
    run = runs(ignore_sigint=True)
    announced = f"hearth: open http://localhost:{run.port}"
    deadline = time.monotonic() + 15
    while announced not in run.output() and time.monotonic() < deadline:
        time.sleep(0.2)
    started = run.output()
    assert started.index("its address follows when it answers") < started.index(announced), started
    assert len(run.left_behind()) >= 4  # make, the supervisor, web, worker (and Redis)
    run.proc.send_signal(signal.SIGTERM)
    run.wait_stopped()
    assert run.left_behind() == []
    out = run.output()
    assert "hearth: stopped" in out
    assert "Traceback" not in out and "ModuleNotFoundError" not in out


def test_run_3_background_make_run_stops_on_sigint_though_it_came_ignored(
    runs: Callable[..., MakeRun],
) -> None:
    run = runs(ignore_sigint=True)
    os.killpg(run.proc.pid, signal.SIGINT)  # the whole job, as `kill -INT -- -PGID` does
    assert run.wait_stopped() == 0
    assert run.left_behind() == []
    out = run.output()
    assert "make: ***" not in out and "hearth: stopped" in out


def test_run_3_one_ctrl_c_on_a_terminal_stops_both_and_make_exits_0(runs: Callable[..., MakeRun]) -> None:
    run = runs(tty=True)
    assert run.master is not None
    os.write(run.master, b"\x03")  # the terminal turns it into SIGINT for its foreground group
    code = run.wait_stopped()
    out = run.output()
    assert code == 0, out
    assert run.left_behind() == []
    assert "make: ***" not in out and "hearth: stopped" in out


def test_run_3_local_redis_persists_across_restarts(runs: Callable[..., MakeRun]) -> None:
    run = runs(ignore_sigint=True)
    # with no HEARTH_ADMIN_TOKEN the REST API answers on loopback
    sent = httpx.post(
        f"{run.base}/api/chats/kept/messages", json={"user": "alice", "text": "remember this"}, timeout=30
    )
    assert sent.status_code == 200, sent.text
    os.killpg(run.proc.pid, signal.SIGINT)
    assert run.wait_stopped() == 0
    var = Path(os.path.dirname(run.log)) / "var"
    assert (var / "redis").is_dir() and not (var / "redis.sock").exists()
    again = runs()
    history = httpx.get(f"{again.base}/api/chats/kept/messages", timeout=10).json()
    assert "remember this" in [m["text"] for m in history["messages"]]


def test_sum_1_make_run_summarizes_a_long_chat_by_itself(runs: Callable[..., MakeRun]) -> None:
    """The worker runs under ``make run``: what leaves the window is summarized, nothing else started."""
    run = runs()
    names = ("Juno", "Bau", "Mira", "Tomas")
    with httpx.Client(base_url=run.base, timeout=30) as http:
        for i in range(80):
            who = names[i % len(names)]
            text = f"{who} here: day {i // 10 + 1}, we talked about the lighthouse and the tide, part {i}."
            body = {"user": who.lower(), "name": who, "text": text}
            sent = http.post("/api/chats/longchat/messages", json=body)
            assert sent.status_code == 200 and sent.json()["reply"], sent.text
        deadline = time.monotonic() + 120
        summary: dict[str, object] = {}
        while time.monotonic() < deadline:
            summary = http.get("/api/chats/longchat/summary").json()
            if summary["recent"] or summary["merged"] or summary["long_term"]:
                break
            time.sleep(1)
    tiers = [t for tier in ("recent", "merged", "long_term") for t in summary[tier]]  # type: ignore[union-attr]
    assert tiers, f"no summary within 120 s: {summary}\n{run.output()[-3000:]}"
    assert all(t["text"].strip() for t in tiers)
    assert "worker |" in run.output()  # the worker's log is shown under make run
