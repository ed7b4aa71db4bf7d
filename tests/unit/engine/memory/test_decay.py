"""DEC-1..10: counters, active and dormant."""

from __future__ import annotations

import pytest

from engine.memory import (
    SEARCH_FAILED,
    MemoryPolicy,
    MemoryRecord,
    global_list,
    memory_state,
    personal_list,
    plan_decay,
    scopes_in_play,
    select_carried,
    space_list,
)

from .helpers import ALICE, BOB, POLICY, S2, SPACE, P, S, at, by_id, hits, mem, reply, save, turn

NO_HITS = hits()


def test_dec_2_a_new_memory_starts_at_zero_unused_days() -> None:
    plan = save([], "m", SPACE, text="Juno's cat is Mochi")
    assert plan.record.unused_days == 0
    assert memory_state(plan.record, POLICY) == "active"


def test_dec_3_search_covers_only_memories_in_play_minus_hidden() -> None:
    records = [
        mem("here", SPACE),
        mem("other-space", space_list(P, S2)),
        mem("hidden", SPACE, hidden=True),
        mem("bob", personal_list(P, BOB, S)),
    ]
    after, plan = reply(records, at(1), hits(("other-space", 0.9), ("hidden", 0.9)), ALICE)
    assert plan.matches == ()
    assert [c.memory_id for c in plan.changes] == ["here"]
    assert [r.unused_days for r in after] == [1, 0, 0, 0]


def test_dec_4_three_best_matches_across_scopes_count_as_used() -> None:
    records = [
        mem("a", SPACE, unused_days=4),
        mem("b", personal_list(P, ALICE, S), unused_days=4),
        mem("c", global_list(ALICE), unused_days=4),
        mem("d", SPACE, unused_days=4),
        mem("e", SPACE, unused_days=4),
    ]
    search = hits(("d", 0.5), ("a", 0.9), ("b", 0.8), ("c", 0.7), ("e", 0.1))
    after, plan = reply(records, at(1, 9), search, ALICE)
    assert [h.memory_id for h in plan.matches] == ["a", "b", "c"]
    assert [(r.id, r.unused_days) for r in after] == [
        ("a", 0),
        ("b", 0),
        ("c", 0),
        ("d", 5),
        ("e", 5),
    ]
    assert [r.last_matched_at for r in after] == [at(1, 9)] * 3 + [None, None]


def test_dec_4_threshold_from_policy_filters_weak_hits() -> None:
    policy = MemoryPolicy(match_threshold=0.5)
    records = [mem("weak", SPACE, unused_days=2), mem("strong", SPACE, unused_days=2)]
    after, plan = reply(records, at(1), hits(("weak", 0.49), ("strong", 0.5)), policy=policy)
    assert [h.memory_id for h in plan.matches] == ["strong"]
    assert [r.unused_days for r in after] == [3, 0]


def test_dec_5_one_day_at_most_once_per_utc_day() -> None:
    records: tuple[MemoryRecord, ...] = (mem("m", SPACE),)
    for hour in (0, 9, 15, 23):
        records, _ = reply(records, at(1, hour), NO_HITS)
    assert records[0].unused_days == 1
    records, _ = reply(records, at(2, 0, 1), NO_HITS)
    assert records[0].unused_days == 2


def test_dec_5_a_day_the_memory_was_used_is_not_an_unused_day() -> None:
    records: tuple[MemoryRecord, ...] = (mem("m", SPACE, unused_days=3),)
    records, _ = reply(records, at(1, 9), hits(("m", 0.9)))
    records, plan = reply(records, at(1, 18), NO_HITS)
    assert plan.changes == ()
    assert records[0].unused_days == 0


def test_dec_5_a_second_match_the_same_day_writes_nothing_and_the_next_day_notes_it_again() -> None:
    """The last match is kept to the day (as the counters are, DEC-5): a memory matched again
    the same day needs no write (a turn that recalls it costs no extra round trip)."""
    records: tuple[MemoryRecord, ...] = (mem("m", SPACE, unused_days=3),)
    records, first = reply(records, at(1, 9), hits(("m", 0.9)))
    assert [c.memory_id for c in first.changes] == ["m"] and records[0].last_matched_at == at(1, 9)
    records, again = reply(records, at(1, 18), hits(("m", 0.9)))
    assert again.changes == () and [h.memory_id for h in again.matches] == ["m"]  # still used
    assert records[0].last_matched_at == at(1, 9) and records[0].unused_days == 0
    records, next_day = reply(records, at(2, 8), hits(("m", 0.9)))
    assert [c.memory_id for c in next_day.changes] == ["m"] and records[0].last_matched_at == at(2, 8)


def test_dec_5_the_save_day_is_not_an_unused_day() -> None:
    saved = save([], "m", SPACE, when=at(0, 10)).record
    records, _ = reply([saved], at(0, 20), NO_HITS)
    assert records[0].unused_days == 0
    records, _ = reply(records, at(1), NO_HITS)
    assert records[0].unused_days == 1


@pytest.mark.parametrize(("days", "state"), [(0, "active"), (6, "active"), (7, "dormant")])
def test_dec_6_dormant_at_seven_counted_days(days: int, state: str) -> None:
    assert memory_state(mem("m", SPACE, unused_days=days), POLICY) == state


def test_dec_6_seventh_day_switches_to_dormant_and_leaves_the_desk() -> None:
    records, plan = reply([mem("m", SPACE, unused_days=6)], at(1), NO_HITS)
    assert plan.went_dormant == ("m",)
    assert plan.switched
    assert memory_state(records[0], POLICY) == "dormant"
    assert select_carried(records, (SPACE,), at(2), POLICY).ids == frozenset()


def test_dec_7_dormant_match_is_recalled_and_active_again() -> None:
    records = [mem("m", SPACE, unused_days=12)]
    after, plan = reply(records, at(1), hits(("m", 0.8)))
    assert plan.recalled == ("m",)
    assert after[0].unused_days == 0
    assert memory_state(after[0], POLICY) == "active"


def test_dec_8_failed_search_changes_nothing() -> None:
    records = [mem("m", SPACE, unused_days=6)]
    after, plan = reply(records, at(1), SEARCH_FAILED)
    assert not plan.searched
    assert plan.changes == plan.matches == ()
    assert after == tuple(records)


def test_dec_8_days_without_conversation_do_not_count() -> None:
    records, _ = reply([mem("m", SPACE, unused_days=5)], at(1), NO_HITS)
    records, _ = reply(records, at(40), NO_HITS)
    assert records[0].unused_days == 7


def test_dec_9_personal_memories_age_only_when_their_owner_takes_part() -> None:
    records: tuple[MemoryRecord, ...] = (mem("space", SPACE), mem("bob", personal_list(P, BOB, S)))
    for day in range(1, 11):
        records, _ = reply(records, at(day), NO_HITS, ALICE)
    assert by_id(records, "space").unused_days == 10
    assert by_id(records, "bob").unused_days == 0
    records, _ = reply(records, at(11), NO_HITS, BOB)
    assert by_id(records, "bob").unused_days == 1


def test_dec_9_space_memories_age_only_on_days_the_persona_chats_in_that_space() -> None:
    records = [mem("room1", SPACE)]
    other_space = scopes_in_play(turn(ALICE, space=S2))
    for day in range(1, 5):
        plan = plan_decay(records, other_space, NO_HITS, at(day), POLICY)
        assert plan.changes == ()


def test_dec_10_hidden_memory_neither_ages_nor_comes_back() -> None:
    hidden = mem("m", SPACE, unused_days=9, hidden=True)
    after, plan = reply([hidden], at(1), hits(("m", 0.99)))
    assert plan.recalled == plan.changes == ()
    assert after == (hidden,)


def test_dec_1_without_decay_everything_is_active_and_no_counter_moves() -> None:
    off = MemoryPolicy(decay_enabled=False)
    old = mem("m", SPACE, unused_days=30)
    assert memory_state(old, off) == "active"
    assert select_carried([old], (SPACE,), at(1), off).ids == {"m"}
    after, plan = reply([old, mem("n", SPACE)], at(1), hits(("n", 0.9)), policy=off)
    assert plan.changes == ()
    assert [h.memory_id for h in plan.matches] == ["n"]
    assert after[0] == old


def test_mem_5_pinned_memory_never_goes_dormant_and_does_not_age() -> None:
    pinned = mem("p", SPACE, pinned=True, unused_days=2)
    after, plan = reply([pinned], at(1), NO_HITS)
    assert after == (pinned,)
    assert plan.changes == ()
    assert memory_state(mem("p", SPACE, pinned=True, unused_days=50), POLICY) == "active"
    after, _ = reply([pinned], at(2), hits(("p", 0.9)))
    assert after[0].unused_days == 0
    assert after[0].last_matched_at == at(2)
