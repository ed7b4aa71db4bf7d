"""MEM-7 rolling back a turn's memory writes; journal entries as data."""

from __future__ import annotations

import msgspec

from engine.memory import (
    Deleted,
    Forgotten,
    MemoryPolicy,
    MemoryRecord,
    MemoryWrite,
    Saved,
    Updated,
    apply_writes,
    plan_delete,
    plan_rollback,
    plan_update,
)

from .helpers import POLICY, SPACE, at, mem, save


def test_mem_7_rollback_restores_the_state_before_the_turn() -> None:
    before = [
        mem("kept", SPACE),
        mem("dormant", SPACE, unused_days=9),
        mem("doomed", SPACE, pinned=False),
    ]
    policy = MemoryPolicy(max_unpinned=3)
    journal: list[MemoryWrite] = []
    state: tuple[MemoryRecord, ...] = tuple(before)
    for writes in (
        save(state, "new", policy=policy, turn="t1").writes,
        plan_update(state, "kept", writer="model", now=at(1), policy=POLICY, text="v2").writes,
        plan_delete(state, "doomed", writer="model").writes,
    ):
        journal.extend(writes)
        state = apply_writes(state, writes)
    assert [type(w) for w in journal] == [Forgotten, Saved, Updated, Deleted]
    undone = apply_writes(state, plan_rollback(journal, state).writes)
    assert sorted(undone, key=lambda r: r.id) == sorted(before, key=lambda r: r.id)


def test_mem_7_rollback_keeps_counters_that_moved_since() -> None:
    original = mem("m", SPACE)
    update = plan_update([original], "m", writer="model", now=at(1), policy=POLICY, text="v2")
    (changed,) = apply_writes([original], update.writes)
    later = msgspec.structs.replace(changed, unused_days=4, last_matched_at=at(2))
    (restored,) = apply_writes([later], plan_rollback(update.writes, [later]).writes)
    assert restored.text == original.text
    assert (restored.unused_days, restored.last_matched_at) == (4, at(2))


def test_mem_7_rollback_never_touches_pinned_entries() -> None:
    saved = save([], "m", turn="t1")
    pinned_later = msgspec.structs.replace(saved.record, pinned=True)
    assert plan_rollback(saved.writes, [pinned_later]).writes == ()
    pinned = mem("p", SPACE, pinned=True)
    person_edit = plan_update([pinned], "p", writer="person", now=at(1), policy=POLICY, text="x")
    (edited,) = apply_writes([pinned], person_edit.writes)
    assert plan_rollback(person_edit.writes, [edited]).writes == ()
    assert plan_rollback([Deleted(before=pinned)], []).writes == ()


def test_mem_7_save_then_update_in_one_turn_rolls_back_to_nothing() -> None:
    saved = save([], "m", turn="t1")
    state = apply_writes([], saved.writes)
    update = plan_update(state, "m", writer="model", now=at(1), policy=POLICY, text="v2")
    state = apply_writes(state, update.writes)
    journal = [*saved.writes, *update.writes]
    assert apply_writes(state, plan_rollback(journal, state).writes) == ()


def test_mem_7_memory_removed_since_is_not_resurrected_by_undoing_an_update() -> None:
    original = mem("m", SPACE)
    update = plan_update([original], "m", writer="model", now=at(1), policy=POLICY, text="v2")
    assert plan_rollback(update.writes, []).writes == ()


def test_journal_entries_round_trip_as_a_tagged_union() -> None:
    record = mem("m", SPACE, last_counted_day=at(0).date())
    entries: list[MemoryWrite] = [
        Saved(after=record),
        Updated(before=record, after=record),
        Deleted(before=record),
        Forgotten(before=record),
    ]
    raw = msgspec.json.encode(entries)
    assert b'"type":"memory_forgotten"' in raw
    assert msgspec.json.decode(raw, type=list[MemoryWrite]) == entries
