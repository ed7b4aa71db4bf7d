"""MEM-3 what a turn carries, MEM-5 pinned always sent, DEC-15 stable part and recalled tail."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

from engine.memory import (
    CarriedMemories,
    MemoryPolicy,
    MemoryRecord,
    ScopeList,
    apply_decay,
    global_list,
    memories_for_reply,
    personal_list,
    plan_decay,
    scope_list_of,
    scopes_in_play,
    select_carried,
)

from .helpers import ALICE, POLICY, SPACE, P, S, at, hits, mem, turn

ALICE_LOCAL = personal_list(P, ALICE, S)
SCOPES = scopes_in_play(turn(ALICE))


def _many(prefix: str, count: int, key: ScopeList = SPACE) -> list[MemoryRecord]:
    """``count`` memories of ``key``, one updated per hour, newest last."""
    return [mem(f"{prefix}{i:03}", key, updated_at=at(0) + timedelta(hours=i)) for i in range(count)]


def _per_scope(carried: CarriedMemories) -> Counter[str]:
    return Counter(c.record.scope for c in carried.active)


def _shown(carried: CarriedMemories) -> list[tuple[str, str, bool]]:
    """What the prompt renders of the carried memories."""
    return [(c.record.id, c.record.text, c.recent) for c in (*carried.pinned, *carried.active)]


def test_mem_3_pinned_whole_and_active_newest_first() -> None:
    long_text = "x" * 500
    records = [
        mem("old", SPACE, day=1),
        mem("pin", SPACE, pinned=True, text=long_text),
        mem("new", ALICE_LOCAL, day=3),
        mem("mid", global_list(ALICE), day=2),
    ]
    carried = select_carried(records, SCOPES, at(4), POLICY)
    assert [c.record.text for c in carried.pinned] == [long_text]
    assert [c.record.id for c in carried.active] == ["new", "mid", "old"]


def test_mem_3_recent_means_updated_within_the_last_seven_days() -> None:
    now = at(10)
    records = [
        mem("fresh", SPACE, updated_at=now - timedelta(days=7) + timedelta(seconds=1)),
        mem("stale", SPACE, updated_at=now - timedelta(days=7)),
    ]
    carried = select_carried(records, SCOPES, now, POLICY)
    assert {c.record.id: c.recent for c in carried.active} == {"fresh": True, "stale": False}


def test_mem_3_at_most_100_active_spread_evenly_across_scopes() -> None:
    records = _many("s", 80) + _many("p", 80, ALICE_LOCAL)
    carried = select_carried(records, SCOPES, at(9), POLICY)
    assert _per_scope(carried) == {"space": 50, "personal": 50}
    newest_space = sorted((r for r in records if r.scope == "space"), key=lambda r: r.updated_at)
    assert {c.record.id for c in carried.active if c.record.scope == "space"} == {
        r.id for r in newest_space[-50:]
    }


def test_mem_3_unused_share_flows_to_other_scopes() -> None:
    records = _many("s", 150) + _many("p", 10, ALICE_LOCAL)
    carried = select_carried(records, SCOPES, at(9), POLICY)
    assert _per_scope(carried) == {"space": 90, "personal": 10}


def test_mem_3_last_uneven_round_goes_to_the_newest() -> None:
    policy = MemoryPolicy(carry_limit=3)
    records = [
        mem("s1", SPACE, day=1),
        mem("s2", SPACE, day=2),
        mem("p1", ALICE_LOCAL, day=3),
        mem("p2", ALICE_LOCAL, day=4),
    ]
    carried = select_carried(records, SCOPES, at(5), policy)
    assert [c.record.id for c in carried.active] == ["p2", "p1", "s2"]


def test_mem_3_dormant_memories_are_not_carried() -> None:
    records = [mem("awake", SPACE, unused_days=6), mem("asleep", SPACE, unused_days=7)]
    assert select_carried(records, SCOPES, at(1), POLICY).ids == {"awake"}


def test_mem_5_pinned_are_never_displaced_by_newer_entries() -> None:
    pinned = [mem(f"pin{i:02}", SPACE, pinned=True, unused_days=40) for i in range(20)]
    newer = _many("new", 120)
    carried = select_carried(pinned + newer, SCOPES, at(9), POLICY)
    assert [c.record.id for c in carried.pinned] == [r.id for r in pinned]
    assert len(carried.active) == 100
    assert all(scope_list_of(c.record) == SPACE for c in carried.active)


def test_dec_15_stable_part_uses_states_before_the_search() -> None:
    records = [mem("aging", SPACE, unused_days=6), mem("asleep", SPACE, unused_days=9)]
    plan = plan_decay(records, SCOPES, hits(("asleep", 0.8)), at(1), POLICY)
    assert plan.went_dormant == ("aging",)
    assert plan.recalled == ("asleep",)
    this_reply = memories_for_reply(records, SCOPES, plan, at(1), POLICY)
    assert this_reply.stable.ids == {"aging"}
    assert [(m.record.id, m.similarity) for m in this_reply.recalled] == [("asleep", 0.8)]


def test_dec_15_beginning_changes_only_on_the_reply_after_a_switch() -> None:
    records: tuple[MemoryRecord, ...] = (mem("a", SPACE, unused_days=4), mem("b", SPACE))
    stables = []
    for day in range(1, 6):
        plan = plan_decay(records, SCOPES, hits(("b", 0.9)), at(day), POLICY)
        stables.append(_shown(memories_for_reply(records, SCOPES, plan, at(day), POLICY).stable))
        records = apply_decay(records, plan)
    # "a" reaches 7 on day 3: reply 3 still carries it, reply 4 is the first without it.
    assert stables[0] == stables[1] == stables[2]
    assert stables[3] != stables[2]
    assert stables[3] == stables[4]


def test_dec_15_active_match_that_did_not_fit_is_recalled() -> None:
    policy = MemoryPolicy(carry_limit=1)
    records = [mem("older", SPACE, day=0), mem("newer", SPACE, day=1)]
    plan = plan_decay(records, SCOPES, hits(("older", 0.7), ("newer", 0.6)), at(2), policy)
    result = memories_for_reply(records, SCOPES, plan, at(2), policy)
    assert result.stable.ids == {"newer"}
    assert [m.record.id for m in result.recalled] == ["older"]
