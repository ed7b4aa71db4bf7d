"""EPI-13: pin_first, include_related, include_superseded; EPI-2: every page returned is read."""

from __future__ import annotations

import pytest

from engine.archive import (
    QueryItem,
    QueryOptions,
    apply_query_options,
    pinned_first,
    record_reads,
    related_items,
    retention_score,
    superseded_items,
)
from engine.errors import InvalidInput

from .helpers import POLICY, day, page


def test_epi_13_pin_first_puts_up_to_ten_pinned_pages_before_results() -> None:
    pinned = [page(f"pin{n:02}", n, pinned=True) for n in range(12)]
    pages = (page("r1"), page("r2"), *pinned, page("gone", 99, pinned=True, status="evicted"))
    result = apply_query_options(["r1", "pin03", "r2"], pages, QueryOptions(pin_first=True))
    ids = [item.id for item in result.items]
    assert ids[:10] == [
        "pin03",
        "pin11",
        "pin10",
        "pin09",
        "pin08",
        "pin07",
        "pin06",
        "pin05",
        "pin04",
        "pin02",
    ]
    assert ids[10:] == ["r1", "r2"]
    assert [item.source for item in result.items][9:] == ["pinned", "result", "result"]
    assert "gone" not in ids


def test_epi_13_pinned_first_limit() -> None:
    pages = [page(f"p{n}", n, pinned=True) for n in range(3)]
    assert pinned_first([], pages, limit=2) == ("p2", "p1")
    assert pinned_first([], pages, limit=50) == ("p2", "p1", "p0")


def _graph() -> tuple:
    return (
        page("a", links=("b",)),
        page("b", links=("c",)),
        page("c", links=("d",)),
        page("d", links=("e",)),
        page("e"),
        page("back", links=("a",)),
        page("old", links=("a",), status="evicted"),
        page("merged", status="superseded", superseded_by="a"),
        page("merged2", status="superseded", superseded_by="merged"),
    )


def test_epi_13_include_related_follows_links_and_backlinks_up_to_3_hops() -> None:
    items = related_items(["a"], _graph(), edges=[("mem1", "b")])
    assert [(i.id, i.hops, i.via, i.is_page) for i in items] == [
        ("b", 1, "a", True),
        ("back", 1, "a", True),
        ("c", 2, "b", True),
        ("mem1", 2, "b", False),
        ("d", 3, "c", True),
    ]


def test_epi_13_hops_are_limited() -> None:
    assert [i.id for i in related_items(["a"], _graph(), hops=1)] == ["b", "back"]
    for hops in (0, 4):
        with pytest.raises(InvalidInput) as err:
            related_items(["a"], _graph(), hops=hops)
        assert err.value.code == "invalid_hops"
    with pytest.raises(InvalidInput):
        QueryOptions(related_hops=4)


def test_epi_13_include_superseded_adds_flagged_pages() -> None:
    assert superseded_items(["a"], _graph()) == (
        QueryItem(id="merged", source="superseded", via="a", superseded=True),
        QueryItem(id="merged2", source="superseded", via="merged", superseded=True),
    )


def test_epi_13_options_are_off_by_default() -> None:
    result = apply_query_options(["a", "mem9", "a"], _graph(), QueryOptions())
    assert [(i.id, i.source, i.is_page) for i in result.items] == [
        ("a", "result", True),
        ("mem9", "result", False),
    ]
    assert result.reads == ("a",)


def test_epi_2_every_page_a_query_returns_is_read() -> None:
    pages = _graph()
    options = QueryOptions(include_related=True, related_hops=1, include_superseded=True)
    result = apply_query_options(["a"], pages, options)
    assert result.reads == ("a", "b", "back", "merged", "merged2")
    after = record_reads(pages, result.reads, day(50), POLICY)
    for before, now in zip(pages, after, strict=True):
        raised = retention_score(now, day(50), POLICY) > retention_score(before, day(50), POLICY)
        assert raised == (before.id in result.reads)
