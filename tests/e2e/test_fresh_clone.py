"""RUN-1: a fresh clone with nothing beside it passes its tests (issue 10).

The repository is cloned into a temporary folder that has no ``shared/`` next to it, and the
unit tests run there: the project's own card fixtures stand in for the third-party corpus, whose
tests are skipped with one clear reason. Nothing may reach outside the checkout.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.corpus import SKIP_REASON
from tests.fixtures.servers import ROOT

pytestmark = pytest.mark.e2e


def _clone(into: Path) -> Path:
    target = into / "hearth"
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(target)], check=True)
    return target


def test_run_1_unit_tests_pass_in_a_clone_with_nothing_beside_it(tmp_path: Path) -> None:
    clone = _clone(tmp_path)
    assert not (clone.parent / "shared").exists()
    env = {k: v for k, v in os.environ.items() if k not in {"HEARTH_COMPAT_CORPUS", "PYTHONPATH"}}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    where = subprocess.run(
        [sys.executable, "-c", "import engine, tests.corpus as c; print(engine.__file__); print(c.CORPUS)"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert where == [str(clone / "engine" / "__init__.py"), "None"]  # the clone's code, no corpus
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rsfE", "-p", "no:cacheprovider", "tests/unit"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    tail = run.stdout[-4000:]
    marks = ("FAILED", "ERROR", "E  ", "___")  # which test failed, and why, before the tail
    failures = [line for line in run.stdout.splitlines() if line.startswith(marks)]
    assert run.returncode == 0, "\n".join(failures[:60]) + "\n" + tail + run.stderr[-2000:]
    assert " passed" in tail and " failed" not in tail and " error" not in tail
    assert SKIP_REASON in run.stdout  # the corpus tests say why they did not run
