"""RUN-1: ``make run`` installs only what running needs; ``make test`` adds the test tools.

The real Makefile runs in a scratch copy of the checkout's ``Makefile`` and ``pyproject.toml``
with a stand-in Python that records its command lines (and makes the venv when asked), so the
test sees which installs each target performs without installing anything.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.fixtures.servers import ROOT

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")

_FAKE_PYTHON = """#!/bin/sh
echo "$*" >> "{log}"
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
    mkdir -p "$3/bin" && cp "$0" "$3/bin/python"
fi
"""


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy2(ROOT / name, tmp_path / name)
    python = tmp_path / "python3"
    python.write_text(_FAKE_PYTHON.format(log=tmp_path / "calls.log"))
    python.chmod(0o755)
    return tmp_path


def _make(folder: Path, target: str) -> list[str]:
    """The stand-in Python's command lines during ``make target``."""
    return _make_with(folder, target)


def _make_with(folder: Path, target: str, **extra_env: str) -> list[str]:
    """``_make`` with more environment variables."""
    log = folder / "calls.log"
    log.unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "HEARTH_CHECK"))} | extra_env
    subprocess.run(
        ["make", "--no-print-directory", "-C", str(folder), target, f"PYTHON={folder / 'python3'}"],
        check=True,
        capture_output=True,
        env=env,
        timeout=60,
    )
    return log.read_text().splitlines() if log.exists() else []


def _installs(calls: list[str]) -> list[str]:
    return [c for c in calls if c.startswith("-m pip install") and "-e" in c.split()]


def test_make_run_installs_runtime_only_and_make_test_adds_the_test_extras(scratch: Path) -> None:
    """RUN-1: a fresh ``make run`` creates the venv and installs ``.[local]``, not the test tools."""
    first = _make(scratch, "run")
    assert first[0] == "-m venv .venv"
    assert _installs(first) == ["-m pip install --progress-bar on -e .[local]"]
    assert first[-1] == "-m adapters.devrun"

    again = _make(scratch, "run")
    assert again == ["-m adapters.devrun"]  # nothing is installed twice

    tested = _make(scratch, "test")
    assert _installs(tested) == ["-m pip install --progress-bar on -e .[test,local]"]
    assert tested[-4:] == ["-m ruff check .", "-m mypy", "-m tests.fixtures.browser", "-m pytest -n auto"]

    assert _installs(_make(scratch, "test")) == []
    assert _make(scratch, "run") == ["-m adapters.devrun"]  # the test install covers running


def test_a_changed_pyproject_reinstalls(scratch: Path) -> None:
    """RUN-1: editing ``pyproject.toml`` (a new dependency) reinstalls before the next run."""
    _make(scratch, "run")
    pyproject = scratch / "pyproject.toml"
    later = (scratch / ".venv" / ".hearth-run-installed").stat().st_mtime + 5
    os.utime(pyproject, (later, later))
    assert _installs(_make(scratch, "run")) == ["-m pip install --progress-bar on -e .[local]"]


def test_make_test_runs_every_test_on_parallel_workers(scratch: Path) -> None:
    """``make test`` runs pytest on ``-n auto`` workers and selects nothing away: no ``-m``,
    ``-k`` or ``--deselect`` (CI runs it, so every test must run there)."""
    (pytest_line,) = [c for c in _make(scratch, "test") if c.startswith("-m pytest")]
    assert pytest_line.split() == ["-m", "pytest", "-n", "auto"]


def test_make_check_is_lint_types_and_the_quick_tests(scratch: Path) -> None:
    """``make check``: ruff check, ruff format --check, mypy, then the unit tests and the contract
    suites on their fakes (the Redis runs deselected), on two workers and fewer Hypothesis examples."""
    calls = _make(scratch, "check")
    assert calls[-4:-1] == ["-m ruff check .", "-m ruff format --check .", "-m mypy"]
    assert calls[-1] == (
        "-m pytest tests/unit tests/contract -m not (contract and integration) "
        "--hypothesis-profile=check -n 2 -q"
    )
    env_calls = _make_with(scratch, "check", HEARTH_CHECK_WORKERS="0")
    assert env_calls[-1].endswith("--hypothesis-profile=check -n 0 -q")


def test_the_tests_keep_compiled_bytecode(scratch: Path) -> None:
    """``make test`` and ``make check`` run Python with bytecode writing on even where
    ``PYTHONDONTWRITEBYTECODE=1`` is set (each worker and each process the tests start would
    compile the project again); ``make run`` leaves the setting alone."""
    python = scratch / "python3"
    python.write_text(
        _FAKE_PYTHON.format(log=scratch / "calls.log").replace(
            'echo "$*"', 'echo "[$PYTHONDONTWRITEBYTECODE] $*"'
        )
    )
    for target in ("test", "check"):
        runs = [c for c in _make_with(scratch, target, PYTHONDONTWRITEBYTECODE="1") if "-m pytest" in c]
        assert runs and all(c.startswith("[] ") for c in runs), runs
    assert _make_with(scratch, "run", PYTHONDONTWRITEBYTECODE="1")[-1] == "[1] -m adapters.devrun"
