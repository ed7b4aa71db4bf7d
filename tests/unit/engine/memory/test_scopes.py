"""MEM-4 scopes in play, MEM-8 memory switches, DEC-10 privacy opt-out."""

from __future__ import annotations

from typing import Any

import pytest

from engine.errors import Conflict
from engine.memory import (
    check_turn_write,
    global_list,
    global_personal_list,
    memory_enabled,
    personal_list,
    records_in_play,
    scopes_in_play,
    select_carried,
    space_list,
)

from .helpers import ALICE, BOB, POLICY, S2, SPACE, P, S, at, mem, turn

ALICE_LISTS = (
    personal_list(P, ALICE, S),
    global_personal_list(P, ALICE),
    global_list(ALICE),
)
BOB_LISTS = (personal_list(P, BOB, S), global_personal_list(P, BOB), global_list(BOB))


def test_mem_4_one_participant_reads_space_personal_global_and_global_lists() -> None:
    assert scopes_in_play(turn(ALICE)) == (SPACE, *ALICE_LISTS)


def test_mem_4_group_turn_is_the_union_over_participants() -> None:
    assert scopes_in_play(turn(ALICE, BOB, ALICE)) == (SPACE, *ALICE_LISTS, *BOB_LISTS)


def test_mem_4_records_in_play_leave_out_other_spaces_and_absent_users() -> None:
    records = [
        mem("here", SPACE),
        mem("elsewhere", space_list(P, S2)),
        mem("alice-local", personal_list(P, ALICE, S)),
        mem("alice-other-space", personal_list(P, ALICE, S2)),
        mem("alice-everywhere", global_personal_list(P, ALICE)),
        mem("alice-all-personas", global_list(ALICE)),
        mem("bob", personal_list(P, BOB, S)),
        mem("other-persona", space_list("other", S)),
    ]
    ids = [r.id for r in records_in_play(records, scopes_in_play(turn(ALICE)))]
    assert ids == ["here", "alice-local", "alice-everywhere", "alice-all-personas"]


@pytest.mark.parametrize(
    "switches", [{"learn_from_chat": False}, {"chat_memory_off": True}, {"guests": (ALICE,)}]
)
def test_mem_8_memory_off_neither_reads_nor_writes(switches: dict[str, Any]) -> None:
    off = turn(ALICE, **switches)
    assert not memory_enabled(off)
    assert scopes_in_play(off) == ()
    carried = select_carried([mem("m", SPACE), mem("p", SPACE, pinned=True)], (), at(0), POLICY)
    assert carried.ids == frozenset()
    with pytest.raises(Conflict) as caught:
        check_turn_write(off, SPACE)
    assert caught.value.code == "memory_off"


def test_mem_8_guest_in_a_group_gets_no_lists_and_nothing_saved() -> None:
    group = turn(ALICE, BOB, guests=(BOB,))
    assert scopes_in_play(group) == (SPACE, *ALICE_LISTS)
    check_turn_write(group, SPACE)
    with pytest.raises(Conflict) as caught:
        check_turn_write(group, personal_list(P, BOB, S))
    assert caught.value.code == "scope_not_in_play"


def test_dec_10_user_who_opted_out_brings_no_memories() -> None:
    assert scopes_in_play(turn(ALICE, BOB, opted_out=(BOB,))) == (SPACE, *ALICE_LISTS)
    with pytest.raises(Conflict):
        check_turn_write(turn(BOB, opted_out=(BOB,)), global_list(BOB))


def test_dec_10_hidden_memories_are_not_in_play() -> None:
    records = [mem("shown", SPACE), mem("hidden", SPACE, hidden=True)]
    assert [r.id for r in records_in_play(records, (SPACE,))] == ["shown"]


def test_mem_4_turn_cannot_write_to_another_space() -> None:
    with pytest.raises(Conflict) as caught:
        check_turn_write(turn(ALICE), space_list(P, S2))
    assert caught.value.code == "scope_not_in_play"
