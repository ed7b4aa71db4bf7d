"""Invariants of decay and carrying, checked with Hypothesis."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from engine.memory import (
    MemoryPolicy,
    MemoryRecord,
    apply_decay,
    is_dormant,
    personal_list,
    plan_decay,
    records_in_play,
    scope_list_of,
    scopes_in_play,
    select_carried,
)

from .helpers import ALICE, BOB, POLICY, SPACE, P, S, at, by_id, hits, mem, turn
from .strategies import Step, histories, record_lists, searches


def _counters(records: tuple[MemoryRecord, ...]) -> list[tuple[str, int, object]]:
    return [(r.id, r.unused_days, r.last_counted_day) for r in records]


@given(histories())
def test_property_counters_never_negative(
    history: tuple[list[MemoryRecord], list[Step]],
) -> None:
    records, steps = history
    state = tuple(records)
    for step in steps:
        scopes = scopes_in_play(turn(*step.participants))
        plan = plan_decay(state, scopes, step.search, step.when, POLICY)
        assert all(change.unused_days >= 0 for change in plan.changes)
        state = apply_decay(state, plan)
        assert all(r.unused_days >= 0 for r in state)


@given(histories())
def test_property_dormant_iff_counter_at_least_seven_and_unpinned(
    history: tuple[list[MemoryRecord], list[Step]],
) -> None:
    records, steps = history
    state = tuple(records)
    for step in steps:
        scopes = scopes_in_play(turn(*step.participants))
        plan = plan_decay(state, scopes, step.search, step.when, POLICY)
        after = apply_decay(state, plan)
        for old, new in zip(state, after, strict=True):
            assert is_dormant(new, POLICY) == (new.unused_days >= 7 and not new.pinned)
            assert (new.id in plan.went_dormant) == (not is_dormant(old, POLICY) and is_dormant(new, POLICY))
            assert (new.id in plan.recalled) == (is_dormant(old, POLICY) and not is_dormant(new, POLICY))
        state = after


@given(st.data(), record_lists(), st.integers(0, 23), st.integers(0, 23))
def test_property_a_day_is_counted_at_most_once_per_memory(
    data: st.DataObject, records: list[MemoryRecord], hour: int, later_hour: int
) -> None:
    ids = [r.id for r in records]
    first, second = data.draw(searches(ids)), data.draw(searches(ids))
    scopes = scopes_in_play(turn(ALICE, BOB))
    once = apply_decay(records, plan_decay(records, scopes, first, at(1, hour), POLICY))
    twice = apply_decay(once, plan_decay(once, scopes, first, at(1, hour), POLICY))
    assert _counters(twice) == _counters(once)
    other = apply_decay(once, plan_decay(once, scopes, second, at(1, later_hour), POLICY))
    for before, after in zip(records, other, strict=True):
        assert after.unused_days <= before.unused_days + 1


@given(record_lists(max_size=30), st.integers(0, 8), st.sampled_from([(ALICE,), (ALICE, BOB)]))
def test_property_pinned_always_carried_and_active_shared_fairly(
    records: list[MemoryRecord], limit: int, participants: tuple[str, ...]
) -> None:
    policy = MemoryPolicy(carry_limit=limit)
    scopes = scopes_in_play(turn(*participants))
    carried = select_carried(records, scopes, at(1), policy)
    in_play = records_in_play(records, scopes)
    assert {c.record.id for c in carried.pinned} == {r.id for r in in_play if r.pinned}
    active = [r for r in in_play if not r.pinned and not is_dormant(r, policy)]
    assert len(carried.active) == min(limit, len(active))
    assert all(not c.record.pinned and not is_dormant(c.record, policy) for c in carried.active)
    available = Counter(scope_list_of(r) for r in active)
    taken = Counter(scope_list_of(c.record) for c in carried.active)
    for key in available:
        if taken[key] < available[key]:  # a scope that was cut short got a fair share
            assert all(taken[other] <= taken[key] + 1 for other in available)


@given(st.lists(st.tuples(st.integers(0, 4), st.booleans()), min_size=1, max_size=14))
def test_property_dec_9_monthly_visitor(months: list[tuple[int, bool]]) -> None:
    """Bob visits once a month; Alice chats on other days. Only Bob's visits age his memory."""
    bobs = mem("bob", personal_list(P, BOB, S))
    state: tuple[MemoryRecord, ...] = (mem("space", SPACE), bobs)
    regulars = scopes_in_play(turn(ALICE))
    visit = scopes_in_play(turn(BOB, ALICE))
    expected = 0
    for month, (alice_days, mentioned) in enumerate(months):
        for day in range(1, alice_days + 1):
            plan = plan_decay(state, regulars, hits(), at(30 * month + day), POLICY)
            assert by_id(apply_decay(state, plan), "bob") == by_id(state, "bob")
            state = apply_decay(state, plan)
        search = hits(("bob", 0.9)) if mentioned else hits()
        state = apply_decay(state, plan_decay(state, visit, search, at(30 * month + 29), POLICY))
        expected = 0 if mentioned else expected + 1
        assert by_id(state, "bob").unused_days == expected
        assert is_dormant(by_id(state, "bob"), POLICY) == (expected >= 7)
