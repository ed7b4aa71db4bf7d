"""RUN-3 (issue 31): ``make run`` starts a crashed process again and keeps the others serving;
a process that keeps crashing stops everything with status 1."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from adapters import devrun


@pytest.fixture(autouse=True)
def _logs_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(devrun, "VAR", tmp_path)


def _python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_a_crashed_process_is_started_again_while_the_other_keeps_running(tmp_path: Path) -> None:
    starts = tmp_path / "starts"
    # crashes on its first start, then stays up
    flaky = _python(
        f"import pathlib, sys, time; p = pathlib.Path({str(starts)!r}); n = len(p.read_text()) if p.exists() "
        "else 0; p.write_text('x' * (n + 1)); sys.exit(3) if n == 0 else time.sleep(60)"
    )
    steady = _python("import time; time.sleep(60)")
    supervisor = devrun.Supervisor(["web", "worker"], {}, {"web": steady, "worker": flaky})
    supervisor.start()
    web = supervisor.procs["web"]
    result: list[int] = []
    waiter = threading.Thread(target=lambda: result.append(supervisor.wait()))
    waiter.start()
    try:
        for _ in range(100):
            if starts.exists() and len(starts.read_text()) == 2:
                break
            supervisor.stopping.wait(0.1)
        assert starts.exists() and len(starts.read_text()) == 2  # started again after the crash
        assert supervisor.procs["web"] is web and web.poll() is None  # the other never stopped
    finally:
        supervisor.stopping.set()
        waiter.join(timeout=30)
    assert result == [0]  # a signal still stops everything with status 0
    assert all(p.poll() is not None for p in supervisor.procs.values())


def test_a_process_that_keeps_crashing_stops_everything_with_status_1(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(devrun, "MAX_RESTART_PAUSE_SECONDS", 0.0)
    supervisor = devrun.Supervisor(
        ["web", "worker"],
        {},
        {"web": _python("import time; time.sleep(60)"), "worker": _python("raise SystemExit(2)")},
    )
    supervisor.start()
    assert supervisor.wait() == 1
    assert supervisor.procs["web"].poll() is not None  # stopped with it


def test_the_pause_doubles_up_to_its_cap() -> None:
    assert [devrun.restart_pause(n) for n in (1, 2, 3, 4)] == [1.0, 2.0, 4.0, 8.0]
    assert devrun.restart_pause(20) == devrun.MAX_RESTART_PAUSE_SECONDS
