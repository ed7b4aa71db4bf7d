"""RUN-1: a fresh clone with nothing beside it passes its tests (issue 10).

The repository is cloned into a temporary folder that has no ``shared/`` next to it, and its
tests run there under the checkout guard (``tests/fixtures/checkout_guard``: every Python process
of the run, pytest's and the ones the tests start, fails and logs any file it opens or folder it
lists outside the clone, its venv and the system's folders; temporary files go inside the clone).
The project's own card fixtures stand in for the third-party corpus, whose tests are skipped with
one clear reason.

What runs in the clone, and why that is enough:

- the **whole suite is collected**: every test module of every folder imports without
  ``../shared`` and reads nothing outside the checkout while it is imported;
- the unit and contract-on-fakes tests that **can reach a file** run: those whose module (or a
  helper module of ``tests/`` it imports) names a path or a file API (``__file__``, ``ROOT``,
  ``open(``, ``read_text``, ``glob``, ``importlib.resources``, the corpus...). They are chosen
  by that pattern when the test runs, so a new test that reads a file joins by itself, and the
  guard catches it if it reaches outside. A test that names no path can only differ in a clone
  through the code it calls, which the chosen tests and the main run exercise.

The other unit tests (pure logic over what they build themselves) run in the main suite only:
a clone cannot change what they do, and running the whole unit suite again, serially, would make
this the suite's longest test.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.corpus import SKIP_REASON
from tests.fixtures.servers import ROOT

pytestmark = pytest.mark.e2e

# A module that names one of these can open a file by a path it builds (the corpus helpers, the
# repository's own files, installed package data).
READS_FILES = re.compile(
    r"__file__|\bROOT\b|parents\[|\bopen\(|read_text|read_bytes|\.glob\(|iterdir|listdir|scandir"
    r"|importlib\.resources|COMPAT_CORPUS|\.\./|shared/"
)
RUN_FOLDERS = ("tests/unit", "tests/contract")


def _clone(into: Path) -> Path:
    target = into / "hearth"
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(target)], check=True)
    return target


def _module(path: Path, root: Path) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts)


def _tests_that_can_read_files(root: Path) -> tuple[list[str], list[str]]:
    """The test modules of ``RUN_FOLDERS`` that name a path or a file API, themselves or through
    a helper module of ``tests/`` they import, and the other test modules (relative paths)."""
    helpers = [
        _module(path, root)
        for path in (root / "tests").rglob("*.py")
        if not path.name.startswith("test_") and READS_FILES.search(path.read_text(encoding="utf-8"))
    ]
    imports = re.compile(r"(?:from|import)\s+(" + "|".join(re.escape(h) for h in helpers) + r")\b")
    chosen, others = [], []
    for path in sorted((root / "tests").rglob("test_*.py")):
        name = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        reads = READS_FILES.search(text) or imports.search(text)
        (chosen if name.startswith(RUN_FOLDERS) and reads else others).append(name)
    return chosen, others


def test_run_1_tests_pass_in_a_clone_with_nothing_beside_it(tmp_path: Path) -> None:
    clone = _clone(tmp_path)
    assert not (clone.parent / "shared").exists()
    (clone / ".tmp").mkdir()
    env = {k: v for k, v in os.environ.items() if k not in {"HEARTH_COMPAT_CORPUS", "PYTHONPATH"}}
    env.update(
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONPATH=str(clone / "tests" / "fixtures" / "checkout_guard"),  # its sitecustomize
        HEARTH_CHECKOUT=str(clone),
        TMPDIR=str(clone / ".tmp"),
    )
    where = subprocess.run(
        [sys.executable, "-c", "import engine, tests.corpus as c; print(engine.__file__); print(c.CORPUS)"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert where == [str(clone / "engine" / "__init__.py"), "None"]  # the clone's code, no corpus
    (tmp_path / "beside.txt").write_text("a file next to the clone")
    probe = subprocess.run(
        [sys.executable, "-c", "open('../beside.txt')"], cwd=clone, env=env, capture_output=True, text=True
    )
    assert probe.returncode != 0 and "OutsideCheckout" in probe.stderr  # the guard is on
    (clone / ".outside-checkout.log").unlink()
    chosen, others = _tests_that_can_read_files(clone)
    assert "tests/unit/cards/test_fixtures.py" in chosen and "tests/unit/test_config.py" in chosen
    # one pytest: collects every folder's tests, runs the chosen ones (fewer Hypothesis examples:
    # the main run has the full count; here the files and paths are what is checked)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-rsfE",
            "-p",
            "no:cacheprovider",
            "--hypothesis-profile=check",
            "-m",
            "not (contract and integration)",
            "tests",
            *(f"--deselect={name}" for name in others),
        ],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    tail = run.stdout[-4000:]
    marks = ("FAILED", "ERROR", "E  ", "___")  # which test failed, and why, before the tail
    failures = [line for line in run.stdout.splitlines() if line.startswith(marks)]
    outside = clone / ".outside-checkout.log"
    assert not outside.exists(), "opened outside the checkout:\n" + outside.read_text()[-4000:]
    assert run.returncode == 0, "\n".join(failures[:60]) + "\n" + tail + run.stderr[-2000:]
    summary = tail.strip().splitlines()[-1]
    assert " passed" in summary and " deselected" in summary, summary
    assert " failed" not in summary and " error" not in summary, summary
    assert SKIP_REASON in run.stdout  # the corpus tests say why they did not run
    skipped = [line for line in run.stdout.splitlines() if line.startswith("SKIPPED")]
    assert all(SKIP_REASON in line for line in skipped if "tests/unit/cards/" in line), skipped
