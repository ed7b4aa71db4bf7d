"""Hypothesis strategies for memory records and reply histories (STYLE T2)."""

from __future__ import annotations

from datetime import datetime

import msgspec
from hypothesis import strategies as st

from engine.memory import (
    SEARCH_FAILED,
    MemoryRecord,
    ScopeList,
    SearchHit,
    SearchResult,
    global_list,
    global_personal_list,
    personal_list,
    space_list,
)

from .helpers import ALICE, BOB, S2, SPACE, P, S, at, mem

__all__ = ["KEYS", "Step", "histories", "record_lists", "searches"]

KEYS: tuple[ScopeList, ...] = (
    SPACE,
    space_list(P, S2),
    personal_list(P, ALICE, S),
    global_personal_list(P, ALICE),
    global_list(ALICE),
    personal_list(P, BOB, S),
    global_personal_list(P, BOB),
    global_list(BOB),
)


class Step(msgspec.Struct, frozen=True, kw_only=True):
    """One reply of a generated history."""

    when: datetime
    participants: tuple[str, ...]
    search: SearchResult


@st.composite
def _record(draw: st.DrawFn, index: int) -> MemoryRecord:
    key = draw(st.sampled_from(KEYS))
    counted = draw(st.none() | st.integers(-3, 3))
    matched = draw(st.none() | st.integers(-40, 0))
    return mem(
        f"m{index:02}",
        key,
        day=draw(st.integers(-30, 0)),
        updated_at=at(draw(st.integers(-30, 0)), draw(st.integers(0, 23))),
        pinned=draw(st.booleans()),
        protected=draw(st.booleans()),
        hidden=draw(st.integers(0, 5)) == 0,
        unused_days=draw(st.integers(0, 12)),
        last_counted_day=None if counted is None else at(counted).date(),
        last_matched_at=None if matched is None else at(matched),
    )


@st.composite
def record_lists(draw: st.DrawFn, max_size: int = 12) -> list[MemoryRecord]:
    """Memories with distinct ids spread over several spaces, owners and lists."""
    size = draw(st.integers(0, max_size))
    return [draw(_record(i)) for i in range(size)]


def searches(ids: list[str]) -> st.SearchStrategy[SearchResult]:
    """A failed search, or one that found some of ``ids`` (and perhaps an unknown id)."""
    hit = st.builds(
        SearchHit,
        memory_id=st.sampled_from([*ids, "unknown"]),
        similarity=st.floats(0, 1, allow_nan=False),
    )
    found = st.lists(hit, max_size=6).map(lambda hs: SearchResult(hits=tuple(hs)))
    return st.just(SEARCH_FAILED) | found


@st.composite
def histories(draw: st.DrawFn) -> tuple[list[MemoryRecord], list[Step]]:
    """Memories and a run of replies on non-decreasing days, by Alice, Bob or both."""
    records = draw(record_lists())
    ids = [r.id for r in records]
    steps: list[Step] = []
    day = 0
    for _ in range(draw(st.integers(1, 12))):
        day += draw(st.sampled_from([0, 0, 1, 2, 9]))
        steps.append(
            Step(
                when=at(day, draw(st.integers(0, 23)), draw(st.integers(0, 59))),
                participants=draw(st.sampled_from([(ALICE,), (BOB,), (ALICE, BOB)])),
                search=draw(searches(ids)),
            )
        )
    return records, steps
