"""Saved memories on a real Redis: round trips, per-list atomicity, concurrency, vectors, versions."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import numpy as np
import pytest
import redis.asyncio as aioredis

from adapters.vector import FaissVectorIndex, load_memory_vectors, memory_key
from engine.errors import Conflict
from engine.memory import (
    Deleted,
    MemoryPolicy,
    MemoryRecord,
    MemoryWrite,
    NewMemory,
    Saved,
    ScopeList,
    SearchHit,
    SearchResult,
    global_list,
    global_personal_list,
    personal_list,
    plan_clear_all,
    plan_decay,
    plan_persona_deletion,
    plan_rollback,
    plan_save,
    plan_update,
    space_list,
)
from storage.keys import KeyBuilder
from storage.redis_memory import MemoryKeys, RedisMemoryStore
from tests.fixtures.servers import RedisServer, fresh_db

pytestmark = pytest.mark.integration

DB = 5
KEYS = KeyBuilder(prefix="t")
P, S = "default", "web:room1"
ALICE = "web:alice"
SPACE = space_list(P, S)
LOCAL = personal_list(P, ALICE, S)
GPERSONAL = global_personal_list(P, ALICE)
GLOBAL = global_list(ALICE)
TURN_SCOPES = (SPACE, LOCAL, GPERSONAL, GLOBAL)
SMALL = MemoryPolicy(max_unpinned=3, max_pinned=1)


def at(day: int, hour: int = 12) -> datetime:
    """A UTC moment on chat day ``day`` (day 0 is 2025-03-03)."""
    return datetime(2025, 3, 3, hour, tzinfo=UTC) + timedelta(days=day)


def mem(memory_id: str, target: ScopeList = SPACE, text: str | None = None, **fields: Any) -> MemoryRecord:
    """A record of ``target`` saved on day 0."""
    record = MemoryRecord(
        id=memory_id,
        persona=target.persona or P,
        scope=target.scope,
        text=text or f"fact {memory_id}",
        space=target.space,
        owner=target.owner,
        is_global=target.is_global,
        created_at=at(0),
        updated_at=at(0),
        last_counted_day=at(0).date(),
    )
    return msgspec.structs.replace(record, **fields)


@pytest.fixture
async def redis(redis_server: RedisServer) -> AsyncIterator[aioredis.Redis]:
    async with fresh_db(redis_server, DB) as client:
        yield client


@pytest.fixture
async def other(redis_server: RedisServer, redis: aioredis.Redis) -> AsyncIterator[RedisMemoryStore]:
    """A second "process": its own client and store on the same database."""
    async with redis_server.client(DB) as client:
        yield RedisMemoryStore(client, KEYS)


@pytest.fixture
def store(redis: aioredis.Redis) -> RedisMemoryStore:
    return RedisMemoryStore(redis, KEYS)


async def seed(store: RedisMemoryStore, *records: MemoryRecord) -> None:
    result = await store.apply_writes([Saved(after=r) for r in records])
    assert result.ok


def by_id(records: Sequence[MemoryRecord]) -> dict[str, MemoryRecord]:
    return {r.id: r for r in records}


# --- records -------------------------------------------------------------------------------


async def test_records_round_trip_in_list_then_save_order(store: RedisMemoryStore) -> None:
    saved = [
        mem("s1", pinned=True, protected=True, source="person"),
        mem("g1", GLOBAL, text="Alice is allergic to peanuts"),
        mem("s2", unused_days=4, last_matched_at=at(-3, 9), created_turn="t7"),
        mem("p1", LOCAL, hidden=True),  # hidden is decided per turn: never stored
        mem("gp1", GPERSONAL, text="Prefers to be called Ali ✨"),
    ]
    await seed(store, *saved)
    loaded = await store.load(TURN_SCOPES)
    assert [r.id for r in loaded] == ["s1", "s2", "p1", "gp1", "g1"]
    expected = by_id(saved)
    expected["p1"] = msgspec.structs.replace(expected["p1"], hidden=False)
    assert by_id(loaded) == expected
    assert await store.load([global_list("web:bob")]) == []


async def test_mem_1_every_list_lives_under_its_own_hash_tag(
    redis: aioredis.Redis, store: RedisMemoryStore
) -> None:
    odd = space_list("p|x", "web:{weird}")
    await seed(store, mem("s1"), mem("o1", odd))
    keys = sorted([k.decode() async for k in redis.scan_iter(match="t:mem:*")])
    tags = {k[k.index("{") + 1 : k.index("}")] for k in keys}
    assert tags == {MemoryKeys(keys=KEYS).list_id(SPACE), MemoryKeys(keys=KEYS).list_id(odd)}
    assert all(k.count("{") == 1 and k.count("}") == 1 for k in keys)
    lists = {
        space_list("a|b", "c"),
        space_list("a", "b|c"),
        personal_list("a", "b", "c"),
        global_list("a|b|c"),
    }
    assert len({MemoryKeys(keys=KEYS).list_id(s) for s in lists}) == len(lists)


async def test_one_turn_is_at_most_three_round_trips(
    redis_server: RedisServer, redis: aioredis.Redis
) -> None:
    if redis_server.cluster:
        pytest.skip("round trips are counted on one server; a cluster client splits pipelines per node")
    counter = RoundTrips()
    client = aioredis.Redis.from_pool(counter.pool(redis_server.db(DB)))
    store = RedisMemoryStore(client, KEYS)
    await seed(store, mem("s1"), mem("g1", GLOBAL), mem("p1", LOCAL))
    await store.load(TURN_SCOPES)  # warm: connection made, scripts cached by the server
    counter.sent = 0
    snap = await store.snapshot(TURN_SCOPES)
    decay = plan_decay(snap.records, TURN_SCOPES, SearchResult(), at(1), MemoryPolicy())
    await store.apply_decay(decay, snap.records)
    new = NewMemory(id="n1", persona=P, target=LOCAL, text="Alice has a cat", source="model")
    plan = plan_save(snap.records, new, now=at(1), policy=MemoryPolicy())
    assert (await store.apply_save(plan, snap.versions)).ok
    assert counter.sent == 3
    counter.sent = 0
    await load_memory_vectors(store, FaissVectorIndex(), TURN_SCOPES, "hash")
    assert counter.sent == 1
    await client.aclose()


class RoundTrips:
    """Counts the packets a client sends: one per command or pipeline, i.e. one per round trip."""

    def __init__(self) -> None:
        self.sent = 0

    def pool(self, url: str) -> aioredis.ConnectionPool:
        counter = self

        class Counting(aioredis.Connection):
            async def send_packed_command(self, command: Any, check_health: bool = True) -> None:
                counter.sent += 1
                await super().send_packed_command(command, check_health)

        return aioredis.ConnectionPool.from_url(url, connection_class=Counting)


async def test_a_lost_script_cache_is_reloaded(redis: aioredis.Redis, store: RedisMemoryStore) -> None:
    await seed(store, mem("s1"))
    await redis.script_flush()
    assert [r.id for r in await store.load([SPACE])] == ["s1"]


# --- decay: at most once per UTC day, with several workers -----------------------------------


async def test_dec_5_two_workers_applying_the_same_days_decay_age_each_memory_once(
    store: RedisMemoryStore, other: RedisMemoryStore
) -> None:
    await seed(store, *(mem(f"s{i}") for i in range(5)), mem("pin", pinned=True))
    for day, expected in ((1, 1), (2, 2)):
        snaps = await asyncio.gather(store.snapshot([SPACE]), other.snapshot([SPACE]))
        plans = [plan_decay(s.records, [SPACE], SearchResult(), at(day), MemoryPolicy()) for s in snaps]
        assert plans[0] == plans[1]
        results = await asyncio.gather(
            store.apply_decay(plans[0], snaps[0].records), other.apply_decay(plans[1], snaps[1].records)
        )
        advanced = [i for r in results for i in r.advanced]
        assert sorted(advanced) == [f"s{i}" for i in range(5)]  # each once, by one worker or the other
        loaded = by_id(await store.load([SPACE]))
        assert {i: loaded[f"s{i}"].unused_days for i in range(5)} == dict.fromkeys(range(5), expected)
        assert loaded["pin"].unused_days == 0


async def test_dec_5_a_later_message_the_same_day_changes_nothing(store: RedisMemoryStore) -> None:
    await seed(store, mem("s1"))
    for hour in (9, 23):
        snap = await store.snapshot([SPACE])
        plan = plan_decay(snap.records, [SPACE], SearchResult(), at(1, hour), MemoryPolicy())
        await store.apply_decay(plan, snap.records)
    assert (await store.load([SPACE]))[0].unused_days == 1


@pytest.mark.parametrize("match_first", [False, True])
async def test_dec_4_a_match_resets_whichever_worker_counts_the_day_first(
    store: RedisMemoryStore, other: RedisMemoryStore, match_first: bool
) -> None:
    await seed(store, mem("s1", unused_days=3), mem("s2", unused_days=3))
    snap = await store.snapshot([SPACE])
    unused = plan_decay(snap.records, [SPACE], SearchResult(), at(1), MemoryPolicy())
    hit = SearchResult(hits=(SearchHit(memory_id="s1", similarity=0.9),))
    matched = plan_decay(snap.records, [SPACE], hit, at(1, 13), MemoryPolicy())
    steps = [(other, matched), (store, unused)] if match_first else [(store, unused), (other, matched)]
    results = [await worker.apply_decay(plan, snap.records) for worker, plan in steps]
    assert [i for r in results for i in r.reset] == ["s1"]
    loaded = by_id(await store.load([SPACE]))
    assert (loaded["s1"].unused_days, loaded["s1"].last_matched_at) == (0, at(1, 13))
    assert loaded["s1"].last_counted_day == at(1).date()
    assert loaded["s2"].unused_days == 4  # counted once although both plans advance it


async def test_dec_4_a_late_older_match_does_not_move_last_matched_back(store: RedisMemoryStore) -> None:
    await seed(store, mem("s1"))
    snap = await store.snapshot([SPACE])
    hit = SearchResult(hits=(SearchHit(memory_id="s1", similarity=0.9),))
    late, early = (plan_decay(snap.records, [SPACE], hit, at(1, h), MemoryPolicy()) for h in (15, 9))
    await store.apply_decay(late, snap.records)
    await store.apply_decay(early, snap.records)  # a slower worker answering an earlier message
    (loaded,) = await store.load([SPACE])
    assert loaded.last_matched_at == at(1, 15)


async def test_dec_8_a_failed_search_changes_nothing(store: RedisMemoryStore) -> None:
    await seed(store, mem("s1"))
    snap = await store.snapshot([SPACE])
    failed = plan_decay(snap.records, [SPACE], SearchResult(ok=False), at(1), MemoryPolicy())
    assert (await store.apply_decay(failed, snap.records)).advanced == ()
    assert await store.load([SPACE]) == list(snap.records)


async def test_decay_skips_a_memory_deleted_meanwhile(
    store: RedisMemoryStore, other: RedisMemoryStore
) -> None:
    await seed(store, mem("s1"), mem("s2"))
    snap = await store.snapshot([SPACE])
    assert (await other.apply_writes([Deleted(before=mem("s1"))])).ok
    plan = plan_decay(snap.records, [SPACE], SearchResult(), at(1), MemoryPolicy())
    assert (await store.apply_decay(plan, snap.records)).advanced == ("s2",)
    assert [r.id for r in await store.load([SPACE])] == ["s2"]


# --- saves and writes: all or nothing per list, optimistic concurrency -----------------------


async def full_list(store: RedisMemoryStore) -> None:
    """SPACE full under SMALL: two active memories and one dormant one that can be forgotten."""
    await seed(store, mem("a1"), mem("dormant", unused_days=7, last_matched_at=at(-20)), mem("a2"))


def save_new(records: Sequence[MemoryRecord], memory_id: str = "new") -> Any:
    new = NewMemory(id=memory_id, persona=P, target=SPACE, text="Juno's cat is named Mochi", source="model")
    return plan_save(records, new, now=at(1), policy=SMALL)


async def test_dec_11_a_save_into_a_full_list_and_its_forgetting_happen_together(
    store: RedisMemoryStore,
) -> None:
    await full_list(store)
    snap = await store.snapshot([SPACE])
    plan = save_new(snap.records)
    assert plan.forgotten is not None and plan.forgotten.id == "dormant"
    result = await store.apply_save(plan, snap.versions)
    assert result.ok and result.versions == {SPACE: snap.versions[SPACE] + 1}
    assert [r.id for r in await store.load([SPACE])] == ["a1", "a2", "new"]


async def test_dec_11_a_change_between_plan_and_apply_refuses_the_whole_save(
    store: RedisMemoryStore, other: RedisMemoryStore
) -> None:
    await full_list(store)
    snap = await store.snapshot([SPACE])
    plan = save_new(snap.records)
    edit = plan_update(snap.records, "a1", writer="person", now=at(1), policy=SMALL, text="edited")
    assert (await other.apply_writes(edit, snap.versions)).ok  # another worker wins the race
    refused = await store.apply_save(plan, snap.versions)
    assert not refused.ok
    (conflict,) = refused.conflicts
    assert (conflict.scope, conflict.code, conflict.version) == (
        SPACE,
        "memory_changed",
        snap.versions[SPACE] + 1,
    )
    after = await store.snapshot([SPACE])
    assert [r.id for r in after.records] == ["a1", "dormant", "a2"]  # nothing half-written
    assert after.versions == {SPACE: conflict.version}
    retried = save_new(after.records)  # the caller re-plans from fresh records
    assert (await store.apply_save(retried, after.versions)).ok
    first = (await store.load([SPACE]))[0]
    assert (first.id, first.text) == ("a1", "edited")


async def test_dec_11_a_concurrent_match_of_the_memory_to_forget_refuses_the_save(
    store: RedisMemoryStore, other: RedisMemoryStore
) -> None:
    await full_list(store)
    snap = await store.snapshot([SPACE])
    plan = save_new(snap.records)
    hit = SearchResult(hits=(SearchHit(memory_id="dormant", similarity=0.9),))
    recall = plan_decay(snap.records, [SPACE], hit, at(1), SMALL)
    await other.apply_decay(recall, snap.records)  # another reply recalls it: it is active again
    refused = await store.apply_save(plan, snap.versions)
    assert [(c.code, c.memory_id) for c in refused.conflicts] == [("memory_changed", "dormant")]
    loaded = by_id(await store.load([SPACE]))
    assert set(loaded) == {"a1", "dormant", "a2"} and loaded["dormant"].unused_days == 0


async def test_mem_2_two_workers_saving_the_last_free_place_at_once_cannot_overfill(
    store: RedisMemoryStore, other: RedisMemoryStore
) -> None:
    await seed(store, mem("a1"), mem("a2"))  # room for one more under SMALL
    snaps = await asyncio.gather(store.snapshot([SPACE]), other.snapshot([SPACE]))
    plans = [save_new(snaps[0].records, "x"), save_new(snaps[1].records, "y")]
    results = await asyncio.gather(
        store.apply_save(plans[0], snaps[0].versions), other.apply_save(plans[1], snaps[1].versions)
    )
    assert sorted(r.ok for r in results) == [False, True]
    loser = results.index(next(r for r in results if not r.ok))
    fresh = await store.snapshot([SPACE])
    with pytest.raises(Conflict) as full:  # re-planned: the list is full now, nothing to forget
        save_new(fresh.records, "xy"[loser])
    assert full.value.code == "memory_full"
    assert len(fresh.records) == 3


async def test_a_batch_that_fails_a_check_writes_nothing(store: RedisMemoryStore) -> None:
    await seed(store, mem("a1"), mem("a2"))
    writes: list[MemoryWrite] = [Deleted(before=mem("a1")), Saved(after=mem("a2", text="again"))]
    refused = await store.apply_writes(writes)
    assert [(c.code, c.memory_id) for c in refused.conflicts] == [("memory_exists", "a2")]
    assert [r.id for r in await store.load([SPACE])] == ["a1", "a2"]


async def test_an_update_keeps_the_counters_a_concurrent_decay_set(store: RedisMemoryStore) -> None:
    await seed(store, mem("a1"))
    snap = await store.snapshot([SPACE])
    decay = plan_decay(snap.records, [SPACE], SearchResult(), at(1), MemoryPolicy())
    await store.apply_decay(decay, snap.records)
    edit = plan_update(snap.records, "a1", writer="model", now=at(1), policy=MemoryPolicy(), text="changed")
    assert (await store.apply_writes(edit, snap.versions)).ok  # decay does not bump the version
    (loaded,) = await store.load([SPACE])
    assert (loaded.text, loaded.unused_days, loaded.last_counted_day) == ("changed", 1, at(1).date())


async def test_mem_7_rolling_back_a_turns_writes_restores_its_lists(store: RedisMemoryStore) -> None:
    await seed(store, mem("a1"), mem("a2"), mem("pin", pinned=True), mem("g1", GLOBAL))
    before = await store.load(TURN_SCOPES)
    snap = await store.snapshot(TURN_SCOPES)
    journal: list[MemoryWrite] = []
    saved = plan_save(
        snap.records,
        NewMemory(id="n1", persona=P, target=GLOBAL, text="Alice moved to Oslo", source="model", turn="t1"),
        now=at(1),
        policy=MemoryPolicy(),
    ).writes
    journal += saved
    journal += plan_update(
        snap.records, "a1", writer="model", now=at(1), policy=MemoryPolicy(), text="new"
    ).writes
    journal += [Deleted(before=by_id(snap.records)["a2"])]
    assert (await store.apply_writes(journal, snap.versions)).ok
    undo = plan_rollback(journal, await store.load(TURN_SCOPES))
    assert (await store.apply_writes(undo, (await store.snapshot(TURN_SCOPES)).versions)).ok
    assert by_id(await store.load(TURN_SCOPES)) == by_id(before)


async def test_mem_9_clear_all_keeps_pinned_entries_until_confirmed(store: RedisMemoryStore) -> None:
    await seed(store, mem("a1"), mem("a2"), mem("pin", pinned=True))
    first = plan_clear_all(await store.load([SPACE]), SPACE)
    assert (await store.apply_writes(first.writes)).ok
    assert [r.id for r in await store.load([SPACE])] == ["pin"]
    second = plan_clear_all(await store.load([SPACE]), SPACE, pinned_confirmed=True)
    assert (await store.apply_writes(second.writes)).ok
    assert await store.load([SPACE]) == []


async def test_mem_10_a_move_between_lists_removes_from_one_and_adds_to_the_other(
    store: RedisMemoryStore,
) -> None:
    await seed(store, mem("p1", LOCAL, unused_days=2), mem("s1"))
    plan = plan_persona_deletion(await store.load(TURN_SCOPES), P)
    assert (await store.apply_writes(plan)).ok
    assert await store.load([LOCAL, SPACE]) == []
    (moved,) = await store.load([GLOBAL])
    assert (moved.id, moved.scope, moved.unused_days) == ("p1", "global", 2)


# --- vectors and versions --------------------------------------------------------------------


def vectors(n: int, seed: int = 0) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((n, 8)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


async def test_vectors_are_stored_with_their_model_and_an_embedder_change_is_detected(
    store: RedisMemoryStore,
) -> None:
    await seed(store, mem("s1"), mem("s2"), mem("g1", GLOBAL))
    records = await store.load([SPACE, GLOBAL])
    assert [r.id for r in await store.missing_vectors([SPACE, GLOBAL], "e5")] == ["s1", "s2", "g1"]
    rows = vectors(3)
    assert await store.put_vectors("e5", records, rows) == ("s1", "s2", "g1")
    assert await store.missing_vectors([SPACE, GLOBAL], "e5") == []
    snap = await store.snapshot([SPACE], model="e5")
    stored = snap.lists[SPACE].vectors
    assert stored is not None and stored.ids == ("s1", "s2")
    np.testing.assert_array_equal(stored.matrix, rows[:2])
    assert [r.id for r in await store.missing_vectors([SPACE], "use")] == ["s1", "s2"]
    assert await store.put_vectors("use", records[:1], vectors(1, seed=1)) == ("s1",)
    assert [r.id for r in await store.missing_vectors([SPACE], "e5")] == ["s1", "s2"]  # e5's are gone
    assert [r.id for r in await store.missing_vectors([SPACE], "use")] == ["s2"]


async def test_a_text_edit_drops_the_vector_and_a_stale_vector_is_never_stored(
    store: RedisMemoryStore,
) -> None:
    await seed(store, mem("s1", text="old text"))
    old = await store.load([SPACE])
    await store.put_vectors("e5", old, vectors(1))
    edit = plan_update(old, "s1", writer="person", now=at(1), policy=MemoryPolicy(), text="new text")
    assert (await store.apply_writes(edit)).ok
    assert [r.text for r in await store.missing_vectors([SPACE], "e5")] == ["new text"]
    assert await store.put_vectors("e5", old, vectors(1)) == ()  # computed from the old text
    assert await store.put_vectors("e5", await store.load([SPACE]), vectors(1)) == ("s1",)


async def test_versions_bump_on_writes_and_vector_changes_but_not_on_decay(store: RedisMemoryStore) -> None:
    async def now() -> tuple[int, int]:
        state = (await store.versions([SPACE]))[SPACE]
        return state.version, state.vector_version

    assert await now() == (0, 0)
    await seed(store, mem("s1"), mem("s2"))
    assert await now() == (1, 0)
    await store.put_vectors("e5", await store.load([SPACE]), vectors(2))
    assert await now() == (1, 1)
    snap = await store.snapshot([SPACE])
    await store.apply_decay(
        plan_decay(snap.records, [SPACE], SearchResult(), at(1), MemoryPolicy()), snap.records
    )
    assert await now() == (1, 1)
    pin = plan_update(snap.records, "s1", writer="person", now=at(1), policy=MemoryPolicy(), pinned=True)
    assert (await store.apply_writes(pin)).ok
    assert await now() == (2, 1)  # same text: the vector stays
    assert (await store.apply_writes([Deleted(before=mem("s2"))])).ok
    assert await now() == (3, 2)


async def test_dec_3_the_index_is_rebuilt_only_when_the_vector_version_changes(
    store: RedisMemoryStore, other: RedisMemoryStore
) -> None:
    await seed(store, mem("s1"), mem("s2"))
    index = FaissVectorIndex()
    first = await load_memory_vectors(store, index, [SPACE], "e5")
    assert index.version(memory_key(SPACE, "e5")) == 0  # nothing embedded yet: cached empty
    await other.put_vectors("e5", list(first.records), vectors(2))
    second = await load_memory_vectors(store, index, [SPACE], "e5")
    assert second.lists[SPACE].vectors is not None and index.version(memory_key(SPACE, "e5")) == 1
    third = await load_memory_vectors(store, index, [SPACE], "e5")
    assert third.lists[SPACE].vectors is None  # up to date: no vectors sent again
    hits = index.search([memory_key(SPACE, "e5")], vectors(2)[1], 1, allowed_ids=None)
    assert hits[0][0] == "s2" and hits[0][1] == pytest.approx(1.0, abs=1e-5)
    await other.put_vectors("use", list(first.records), vectors(2, seed=3))  # the embedder changed
    await load_memory_vectors(store, index, [SPACE], "e5")
    assert index.search([memory_key(SPACE, "e5")], vectors(2)[1], 1, allowed_ids=None) == []


# --- copies of lists read before (issue 12) ------------------------------------------------


async def test_a_list_read_before_shows_another_processs_decay_and_writes_on_the_next_read(
    store: RedisMemoryStore, other: RedisMemoryStore
) -> None:
    await seed(store, mem("s1"), mem("s2"))
    first = await store.snapshot([SPACE])
    assert await store.snapshot([SPACE]) == first  # unchanged: the copy stands
    hit = SearchResult(hits=(SearchHit(memory_id="s1", similarity=0.9),))
    seen = await other.snapshot([SPACE])
    await other.apply_decay(plan_decay(seen.records, [SPACE], hit, at(1, 13), MemoryPolicy()), seen.records)
    decayed = by_id((await store.snapshot([SPACE])).records)
    assert (decayed["s1"].unused_days, decayed["s1"].last_matched_at) == (0, at(1, 13))
    assert (decayed["s2"].unused_days, decayed["s2"].last_counted_day) == (1, at(1).date())
    assert by_id(await store.load([SPACE])) == by_id(await other.load([SPACE]))
    await seed(other, mem("s3", text="Alice moved to Lyon"))
    assert (await other.apply_writes([Deleted(before=decayed["s1"])])).ok
    assert [r.id for r in await store.load([SPACE])] == ["s2", "s3"]


async def test_a_list_wiped_and_written_again_to_the_same_revision_is_read_afresh(
    redis: aioredis.Redis, store: RedisMemoryStore
) -> None:
    await seed(store, mem("s1", text="Alice keeps bees"))
    assert [r.text for r in await store.load([SPACE])] == ["Alice keeps bees"]
    await redis.flushdb()  # e.g. a restore from an older backup, or another deployment's flush
    await seed(store, mem("s1", text="Alice keeps goats"))  # the same revision as before
    assert [r.text for r in await store.load([SPACE])] == ["Alice keeps goats"]
