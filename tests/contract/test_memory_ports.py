"""Contract: ``MemoryStore`` and ``Directory`` behave alike on the fakes and on Redis: per-list
versions and all-or-nothing writes, the checks a write makes, and the DEC-4/5/8 counters."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from engine.errors import InvalidInput
from engine.memory import (
    Deleted,
    Forgotten,
    MemoryPolicy,
    MemoryRecord,
    NewMemory,
    Saved,
    SavePlan,
    ScopeList,
    SearchHit,
    SearchResult,
    Updated,
    global_list,
    personal_list,
    plan_decay,
    plan_save,
)
from engine.memory.model import Buried, MemoryUse
from engine.ports import MemoryStore
from tests.contract.stores import Stores
from tests.unit.engine.memory import helpers
from tests.unit.engine.memory.helpers import ALICE, SPACE, P, S, at

pytestmark = pytest.mark.contract

LOCAL = personal_list(P, ALICE, S)
GLOBAL = global_list(ALICE)
SMALL = MemoryPolicy(max_unpinned=3, max_pinned=1)


def mem(memory_id: str, target: ScopeList = SPACE, **fields: Any) -> MemoryRecord:
    """A record of ``target`` saved and counted on day 0."""
    return helpers.mem(memory_id, target, **{"last_counted_day": at(0).date(), **fields})


async def seed(store: MemoryStore, *records: MemoryRecord) -> None:
    assert (await store.apply_writes([Saved(after=r) for r in records])).ok


def save_new(records: tuple[MemoryRecord, ...]) -> SavePlan:
    new = NewMemory(id="new", persona=P, target=SPACE, text="Juno's cat is named Mochi", source="model")
    return plan_save(records, new, now=at(1), policy=SMALL)


async def test_records_come_back_in_list_then_save_order_with_versions(stores: Stores) -> None:
    store = stores.memory()
    empty = await store.snapshot([SPACE, LOCAL])
    assert (empty.records, empty.versions) == ((), {SPACE: 0, LOCAL: 0})
    await seed(store, mem("b"), mem("a"), mem("l1", LOCAL, hidden=True))
    snap = await store.snapshot([LOCAL, SPACE, LOCAL])
    assert [r.id for r in snap.records] == ["l1", "b", "a"]
    assert snap.versions == {LOCAL: 1, SPACE: 1}
    assert snap.records[0] == mem("l1", LOCAL)  # ``hidden`` is per turn, never stored


async def test_a_save_into_a_full_list_forgets_together_with_it(stores: Stores) -> None:
    store = stores.memory()
    await seed(store, mem("a1"), mem("dormant", unused_days=7, last_matched_at=at(-20)), mem("a2"))
    snap = await store.snapshot([SPACE])
    plan = save_new(snap.records)
    assert plan.forgotten is not None and plan.forgotten.id == "dormant"
    assert (await store.apply_save(plan, snap.versions)).ok
    assert [r.id for r in (await store.snapshot([SPACE])).records] == ["a1", "a2", "new"]


async def test_a_list_changed_since_it_was_read_is_refused_whole(stores: Stores) -> None:
    store, other = stores.memory(), stores.memory()
    await seed(store, mem("a1"))
    snap = await store.snapshot([SPACE, LOCAL])
    await seed(other, mem("a2"))
    writes = [Saved(after=mem("x")), Saved(after=mem("l1", LOCAL))]
    result = await store.apply_writes(writes, snap.versions)
    assert not result.ok
    after = await store.snapshot([SPACE, LOCAL])
    assert [r.id for r in after.records] == ["a1", "a2", "l1"]  # the unchanged list was written
    assert after.versions == {SPACE: 2, LOCAL: 1}


@pytest.mark.parametrize(
    ("writes", "survivors"),
    [
        ([Saved(after=mem("b")), Saved(after=mem("a"))], ["a"]),  # an id taken
        ([Saved(after=mem("b")), Updated(before=mem("gone"), after=mem("gone", text="x"))], ["a"]),
        ([Saved(after=mem("b")), Forgotten(before=mem("gone"))], ["a"]),  # a forgotten id missing
    ],
)
async def test_a_batch_that_fails_a_check_writes_nothing(
    stores: Stores, writes: list[Saved | Updated | Forgotten], survivors: list[str]
) -> None:
    store = stores.memory()
    await seed(store, mem("a"))
    assert not (await store.apply_writes(writes)).ok
    snap = await store.snapshot([SPACE])
    assert ([r.id for r in snap.records], snap.versions) == (survivors, {SPACE: 1})


async def test_a_memory_matched_since_it_was_planned_is_not_forgotten(stores: Stores) -> None:
    store = stores.memory()
    await seed(store, mem("a1"), mem("dormant", unused_days=7, last_matched_at=at(-20)), mem("a2"))
    snap = await store.snapshot([SPACE])
    plan = save_new(snap.records)
    hit = SearchResult(hits=(SearchHit(memory_id="dormant", similarity=0.9),))
    await store.apply_decay(plan_decay(snap.records, [SPACE], hit, at(1), MemoryPolicy()), snap.records)
    assert not (await store.apply_save(plan)).ok
    assert [r.id for r in (await store.snapshot([SPACE])).records] == ["a1", "dormant", "a2"]


async def test_a_save_plan_must_stay_in_one_list(stores: Stores) -> None:
    store = stores.memory()
    record = mem("new")
    plan = SavePlan(record=record, writes=(Saved(after=record), Forgotten(before=mem("l1", LOCAL))))
    with pytest.raises(InvalidInput) as refused:
        await store.apply_save(plan)
    assert refused.value.code == "save_plan_spans_lists"


async def test_updates_keep_counters_and_moves_and_deletes_work_per_list(stores: Stores) -> None:
    store = stores.memory()
    await seed(store, mem("s1"), mem("s2"))
    snap = await store.snapshot([SPACE])
    await store.apply_decay(
        plan_decay(snap.records, [SPACE], SearchResult(), at(1), MemoryPolicy()), snap.records
    )
    edited = msgspec.structs.replace(mem("s1"), text="edited", unused_days=0)
    moved = msgspec.structs.replace(mem("s2"), persona=P, scope="global", space=None, owner=ALICE)
    result = await store.apply_writes(
        [Updated(before=mem("s1"), after=edited), Updated(before=mem("s2"), after=moved)]
    )
    assert result.ok
    (s1,) = (await store.snapshot([SPACE])).records
    assert (s1.text, s1.unused_days) == ("edited", 1)  # the counter the decay set stays
    (g,) = (await store.snapshot([GLOBAL])).records
    assert (g.id, g.scope) == ("s2", "global")
    assert (await store.apply_writes([Deleted(before=s1)])).ok
    assert (await store.snapshot([SPACE])).records == ()


async def test_dec_5_a_day_counts_once_and_dec_4_a_match_resets(stores: Stores) -> None:
    store = stores.memory()
    await seed(store, mem("s1", unused_days=3), mem("s2", unused_days=3), mem("pin", pinned=True))
    snap = await store.snapshot([SPACE])
    unused = plan_decay(snap.records, [SPACE], SearchResult(), at(1), MemoryPolicy())
    hit = SearchResult(hits=(SearchHit(memory_id="s1", similarity=0.9),))
    matched = plan_decay(snap.records, [SPACE], hit, at(1, 13), MemoryPolicy())
    first = await store.apply_decay(unused, snap.records)
    second = await store.apply_decay(matched, snap.records)
    assert (sorted(first.advanced), first.reset) == (["s1", "s2"], ())
    assert (second.advanced, second.reset) == ((), ("s1",))
    loaded = {r.id: r for r in (await store.snapshot([SPACE])).records}
    assert (loaded["s1"].unused_days, loaded["s1"].last_matched_at) == (0, at(1, 13))
    assert (loaded["s2"].unused_days, loaded["pin"].unused_days) == (4, 0)
    assert (await store.snapshot([SPACE])).versions == {SPACE: 1}  # decay moves no version
    older = plan_decay(snap.records, [SPACE], hit, at(1, 9), MemoryPolicy())
    await store.apply_decay(older, snap.records)
    assert {r.id: r for r in (await store.snapshot([SPACE])).records}["s1"].last_matched_at == at(1, 13)


async def test_dec_8_a_failed_search_and_a_deleted_memory_change_nothing(stores: Stores) -> None:
    store = stores.memory()
    await seed(store, mem("s1"), mem("s2"))
    snap = await store.snapshot([SPACE])
    failed = plan_decay(snap.records, [SPACE], SearchResult(ok=False), at(1), MemoryPolicy())
    assert (await store.apply_decay(failed, snap.records)).advanced == ()
    assert (await store.apply_writes([Deleted(before=mem("s1"))])).ok
    plan = plan_decay(snap.records, [SPACE], SearchResult(), at(1), MemoryPolicy())
    assert (await store.apply_decay(plan, snap.records)).advanced == ("s2",)


async def test_the_directory_locates_memories_and_filters_people(stores: Stores) -> None:
    directory, settings = stores.directory(), stores.memory_directory()
    assert await directory.locate("m1") is None
    await directory.record([("m1", SPACE), ("m2", LOCAL), ("m3", GLOBAL)], [])
    await directory.record([("m2", SPACE)], ["m1", "m2"])  # placed wins over removed
    assert (await directory.locate("m1"), await directory.locate("m2")) == (None, SPACE)
    assert sorted(await directory.lists_of(P), key=repr) == [SPACE]
    await settings.set_privacy("web:bob", personal_memory=False)
    await settings.set_privacy(ALICE, personal_memory=False)
    await settings.set_privacy(ALICE, personal_memory=True)
    await settings.set_blocked(S, ["m2", "m9"])
    opted, blocked = await directory.filters(["web:bob", ALICE, "web:bob"], S)
    assert (opted, blocked) == (("web:bob",), frozenset({"m2", "m9"}))
    assert await directory.filters([], "web:elsewhere") == ((), frozenset())
    assert await directory.notice_level(S) == "brief"
    await settings.set_notice_level(S, "full")
    assert await directory.notice_level(S) == "full"


async def test_the_directory_keeps_last_uses_and_forgotten_memories(stores: Stores) -> None:
    """Issue 31: a memory's last use (the panel's "why") is kept until the memory is removed; a
    forgotten memory buried for Undo comes back once, whole (on a Redis Cluster too)."""
    directory = stores.directory()
    await directory.record([("m1", SPACE), ("m2", LOCAL)], [])
    use = MemoryUse(turn="t1", chat="web:room", at=at(1), excerpt="When does the tavern open?")
    await directory.note_use(["m1", "m2"], use)
    assert await directory.uses(["m1", "m2", "m3"]) == {"m1": use, "m2": use}
    await directory.record([], ["m1"])
    assert await directory.uses(["m1", "m2"]) == {"m2": use}
    record = mem("m1", LOCAL, pinned=True, text="Alice is afraid of bats")
    await directory.bury(Buried(record=record, use=use), 30)
    assert await directory.unbury("m1") == Buried(record=record, use=use)
    assert await directory.unbury("m1") is None
    assert await directory.unbury("never") is None
