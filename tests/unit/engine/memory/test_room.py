"""DEC-11..14 making room in a full list; MEM-2 allowances, MEM-5 pinned never forgotten."""

from __future__ import annotations

from typing import Any

import pytest

from engine.errors import Conflict
from engine.memory import (
    Forgotten,
    MemoryPolicy,
    MemoryRecord,
    Saved,
    ScopeList,
    global_personal_list,
    memory_state,
    personal_list,
    plan_update,
)

from .helpers import ALICE, POLICY, SPACE, P, S, at, hits, mem, reply, save

SMALL = MemoryPolicy(max_unpinned=3, max_pinned=1)


def _full(*extra: MemoryRecord, key: ScopeList = SPACE) -> list[MemoryRecord]:
    """A list of ``key`` filled to ``SMALL.max_unpinned`` with active memories plus ``extra``."""
    fillers = [mem(f"active{i}", key) for i in range(SMALL.max_unpinned - len(extra))]
    return [*fillers, *extra]


def _forgotten(records: list[MemoryRecord], **options: Any) -> str | None:
    plan = save(records, policy=SMALL, **options)
    return plan.forgotten.id if plan.forgotten else None


def test_dec_11_never_matched_dormant_memory_goes_first() -> None:
    records = _full(
        mem("matched-long-ago", SPACE, unused_days=30, last_matched_at=at(-60)),
        mem("never-matched", SPACE, unused_days=7),
    )
    assert _forgotten(records) == "never-matched"


def test_dec_11_then_the_one_matched_longest_ago() -> None:
    records = _full(
        mem("recently", SPACE, unused_days=9, last_matched_at=at(-10)),
        mem("long-ago", SPACE, unused_days=7, last_matched_at=at(-40)),
    )
    assert _forgotten(records) == "long-ago"


def test_dec_11_ties_go_to_the_oldest_created_then_the_smallest_id() -> None:
    records = [
        mem("b", SPACE, day=-5, unused_days=7),
        mem("a", SPACE, day=-5, unused_days=7),
        mem("c", SPACE, day=-3, unused_days=7),
    ]
    assert _forgotten(records) == "a"
    assert _forgotten([records[0], records[2], mem("x", SPACE)]) == "b"


def test_dec_11_plan_says_what_was_saved_and_what_was_forgotten() -> None:
    dormant = mem("dormant", SPACE, unused_days=8)
    plan = save(_full(dormant), policy=SMALL)
    assert plan.forgotten == dormant
    assert plan.writes == (Forgotten(before=dormant), Saved(after=plan.record))


def test_dec_11_active_memories_are_never_forgotten() -> None:
    with pytest.raises(Conflict) as caught:
        save(_full(mem("almost", SPACE, unused_days=6)), policy=SMALL)
    assert caught.value.code == "memory_full"


def test_dec_11_list_with_room_forgets_nothing() -> None:
    plan = save([mem("dormant", SPACE, unused_days=9)], policy=SMALL)
    assert plan.forgotten is None
    assert plan.writes == (Saved(after=plan.record),)


@pytest.mark.parametrize(
    "keeper",
    [
        mem("global", global_personal_list(P, ALICE), unused_days=20),
        mem("protected", personal_list(P, ALICE, S), unused_days=20, protected=True),
        mem("pinned", personal_list(P, ALICE, S), unused_days=20, pinned=True),
    ],
    ids=["global-personal", "protected", "pinned"],
)
def test_dec_12_mem_5_never_forgotten_for_room(keeper: MemoryRecord) -> None:
    target = global_personal_list(P, ALICE) if keeper.is_global else personal_list(P, ALICE, S)
    records = [*_full(key=target), keeper] if keeper.pinned else _full(keeper, key=target)
    with pytest.raises(Conflict) as caught:
        save(records, target=target, policy=SMALL)
    assert caught.value.code == "memory_full"
    assert "none of them can be forgotten" in caught.value.message


def test_dec_12_imported_memory_is_unprotected_until_a_person_edits_it() -> None:
    imported = save([], source="import").record
    assert not imported.protected
    edited = plan_update([imported], "new", writer="person", now=at(1), policy=POLICY, text="x")
    assert edited.writes[0].after.protected  # type: ignore[union-attr]


def test_dec_12_protected_memory_still_goes_dormant_and_comes_back() -> None:
    records, plan = reply([mem("m", SPACE, protected=True, unused_days=6)], at(1), hits())
    assert plan.went_dormant == ("m",)
    records, plan = reply(records, at(2), hits(("m", 0.9)))
    assert plan.recalled == ("m",)
    assert memory_state(records[0], POLICY) == "active"


def test_dec_13_full_list_without_a_candidate_refuses() -> None:
    with pytest.raises(Conflict) as caught:
        save(_full(), policy=SMALL)
    assert caught.value.code == "memory_full"
    assert "3 of 3" in caught.value.message


def test_dec_13_search_unavailable_refuses_instead_of_forgetting() -> None:
    with pytest.raises(Conflict) as caught:
        save(_full(mem("dormant", SPACE, unused_days=9)), policy=SMALL, search_available=False)
    assert caught.value.code == "memory_full"
    assert "search is unavailable" in caught.value.message


def test_dec_13_search_unavailable_does_not_matter_when_there_is_room() -> None:
    assert save([], policy=SMALL, search_available=False).forgotten is None


def test_dec_14_decay_off_full_list_refuses_and_forgets_nothing() -> None:
    off = MemoryPolicy(max_unpinned=3, decay_enabled=False)
    records = _full(mem("old", SPACE, unused_days=99, last_matched_at=at(-99)))
    with pytest.raises(Conflict) as caught:
        save(records, policy=off)
    assert caught.value.code == "memory_full"
    assert "decay is off" in caught.value.message


def test_mem_2_pinned_entries_have_their_own_allowance() -> None:
    unpinned_full = _full()
    assert save(unpinned_full, policy=SMALL, source="person", pinned=True).forgotten is None
    pinned_full = [mem("pin", SPACE, pinned=True)]
    with pytest.raises(Conflict) as caught:
        save(pinned_full, policy=SMALL, source="person", pinned=True)
    assert caught.value.code == "memory_full"


def test_mem_2_other_lists_do_not_count_towards_the_limit() -> None:
    elsewhere = _full(key=personal_list(P, ALICE, S))
    assert save(elsewhere, policy=SMALL).forgotten is None


def test_dec_11_forgets_only_from_the_target_list() -> None:
    other = mem("other-dormant", personal_list(P, ALICE, S), unused_days=30)
    records = [*_full(mem("mine", SPACE, unused_days=7, last_matched_at=at(-1))), other]
    assert _forgotten(records) == "mine"
