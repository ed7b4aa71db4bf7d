"""MEM-2 limits, MEM-5/MEM-6 who may write what, MEM-9 clear all, MEM-10 persona deletion."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from engine.errors import Conflict, InvalidInput, NotFound
from engine.memory import (
    Deleted,
    MemoryPolicy,
    MemoryRecord,
    NewMemory,
    Updated,
    WritePlan,
    Writer,
    apply_writes,
    global_list,
    global_personal_list,
    personal_list,
    plan_clear_all,
    plan_delete,
    plan_persona_deletion,
    plan_save,
    plan_space_deletion,
    plan_third_person,
    plan_update,
    scope_list_of,
    space_list,
)

from .helpers import ALICE, BOB, POLICY, SPACE, P, S, at, mem, save


def _update(records: list[MemoryRecord], key: str, writer: Writer, **change: Any) -> WritePlan:
    return plan_update(records, key, writer=writer, now=at(5), policy=POLICY, **change)


def _edited(record: MemoryRecord, text: str) -> MemoryRecord:
    """``record`` as a person's edit at ``at(5)`` leaves it."""
    return msgspec.structs.replace(record, text=text, protected=True, updated_at=at(5))


def test_mem_2_text_up_to_500_characters_is_kept_whole() -> None:
    assert save([], text="é" * 500).record.text == "é" * 500


def test_mem_2_text_over_500_characters_is_refused() -> None:
    with pytest.raises(InvalidInput) as caught:
        save([], text="x" * 501)
    assert caught.value.code == "memory_too_long"
    assert "501" in caught.value.message


@pytest.mark.parametrize("text", ["", "   \n\t "])
def test_mem_2_empty_text_is_refused(text: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        save([], text=text)
    assert caught.value.code == "memory_empty"


def test_mem_2_limits_are_configurable_per_persona() -> None:
    strict = MemoryPolicy(max_chars=10, max_unpinned=1)
    with pytest.raises(InvalidInput):
        save([], text="eleven char", policy=strict)
    with pytest.raises(Conflict):
        save([mem("one", SPACE)], text="short", policy=strict)


def test_mem_2_updated_text_is_checked_too() -> None:
    with pytest.raises(InvalidInput) as caught:
        _update([mem("m", SPACE)], "m", "model", text="x" * 501)
    assert caught.value.code == "memory_too_long"


@pytest.mark.parametrize("writer", ["model", "deep"])
def test_mem_5_model_and_deep_pass_cannot_change_or_delete_pinned(writer: Writer) -> None:
    records = [mem("pin", SPACE, pinned=True)]
    for attempt in (
        lambda: _update(records, "pin", writer, text="rewritten"),
        lambda: plan_delete(records, "pin", writer=writer),
    ):
        with pytest.raises(Conflict) as caught:
            attempt()
        assert caught.value.code == "memory_pinned"


def test_mem_5_a_person_can_change_and_delete_pinned() -> None:
    records = [mem("pin", SPACE, pinned=True)]
    (write,) = _update(records, "pin", "person", text="rewritten").writes
    assert write == Updated(before=records[0], after=_edited(records[0], "rewritten"))
    assert plan_delete(records, "pin", writer="person").writes == (Deleted(before=records[0]),)


def test_mem_6a_model_updates_and_deletes_unpinned_including_its_own() -> None:
    own = save([], "own", source="model", turn="turn-1").record
    records = [own, mem("someone-elses", SPACE, source="person", protected=True)]
    plan = _update(records, "own", "model", text="Juno's cat is Mochi, a tabby")
    (write,) = plan.writes
    assert isinstance(write, Updated)
    assert write.after.text == "Juno's cat is Mochi, a tabby"
    assert write.after.updated_at == at(5)
    assert not write.after.protected
    assert plan_delete(records, "someone-elses", writer="model").writes == (Deleted(before=records[1]),)


@pytest.mark.parametrize("source", ["model", "deep"])
def test_mem_6a_model_cannot_pin(source: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        save([], source=source, pinned=True)  # type: ignore[arg-type]
    assert caught.value.code == "pin_not_allowed"
    with pytest.raises(InvalidInput):
        _update([mem("m", SPACE)], "m", "model", pinned=True)


def test_mem_6b_memory_a_person_adds_is_protected() -> None:
    record = save([], source="person").record
    assert record.protected
    assert record.source == "person"


def test_mem_6d_saved_from_dialogue_arrives_pinned() -> None:
    record = save([], source="dialogue").record
    assert record.pinned
    assert record.protected


def test_mem_6_save_records_who_when_and_where() -> None:
    record = save([], "m", personal_list(P, ALICE, S), when=at(3, 9), turn="t9").record
    assert scope_list_of(record) == personal_list(P, ALICE, S)
    assert (record.created_at, record.updated_at, record.created_turn) == (at(3, 9),) * 2 + ("t9",)


def test_save_refuses_a_taken_id_and_another_personas_list() -> None:
    with pytest.raises(Conflict) as caught:
        save([mem("m", SPACE)], "m")
    assert caught.value.code == "memory_exists"
    with pytest.raises(InvalidInput) as caught_scope:
        save([], target=space_list("someone-else", S))
    assert caught_scope.value.code == "scope_mismatch"


def test_update_without_a_change_is_an_empty_plan_and_unknown_id_is_not_found() -> None:
    records = [mem("m", SPACE)]
    assert _update(records, "m", "person", text="  fact m ").writes == ()
    with pytest.raises(NotFound) as caught:
        _update(records, "missing", "person", text="x")
    assert caught.value.code == "memory_not_found"


def test_mem_2_pinning_into_a_full_pinned_allowance_is_refused() -> None:
    policy = MemoryPolicy(max_pinned=1)
    records = [mem("pin", SPACE, pinned=True), mem("m", SPACE)]
    with pytest.raises(Conflict) as caught:
        plan_update(records, "m", writer="person", now=at(1), policy=policy, pinned=True)
    assert caught.value.code == "memory_full"


def test_mem_9_clear_all_first_pass_keeps_pinned() -> None:
    records = [
        mem("a", SPACE),
        mem("pin", SPACE, pinned=True),
        mem("b", SPACE, unused_days=9),
        mem("other-list", personal_list(P, ALICE, S)),
    ]
    first = plan_clear_all(records, SPACE)
    assert [w.before.id for w in first.writes] == ["a", "b"]  # type: ignore[union-attr]
    assert first.pinned_left == 1
    left = apply_writes(records, first.writes)
    assert [r.id for r in left] == ["pin", "other-list"]
    second = plan_clear_all(left, SPACE, pinned_confirmed=True)
    assert [r.id for r in apply_writes(left, second.writes)] == ["other-list"]
    assert second.pinned_left == 0


def test_mem_10_deleting_a_persona_turns_its_personal_memories_into_global_ones() -> None:
    records = [
        mem("local", personal_list(P, ALICE, S), pinned=True, unused_days=3),
        mem("everywhere", global_personal_list(P, BOB)),
        mem("space", SPACE),
        mem("already-global", global_list(ALICE)),
        mem("other-persona", personal_list("other", ALICE, S)),
    ]
    after = apply_writes(records, plan_persona_deletion(records, P).writes)
    kept = {r.id: r for r in after}
    assert set(kept) == {"local", "everywhere", "already-global", "other-persona"}
    assert scope_list_of(kept["local"]) == global_list(ALICE)
    assert scope_list_of(kept["everywhere"]) == global_list(BOB)
    assert kept["local"].pinned and kept["local"].unused_days == 3
    assert kept["local"].text == records[0].text
    assert kept["other-persona"] == records[4]


def test_issue_31_deleting_a_room_keeps_memories_about_people_and_drops_the_rooms_own() -> None:
    """Issue 31, after MEM-10: a deleted room's local personal memories become Global personal
    ones of the same owner and persona (pin and counters kept); its space list goes; other
    spaces, Global and ``global`` lists are untouched."""
    records = [
        mem("local", personal_list(P, ALICE, S), pinned=True, unused_days=3),
        mem("room", SPACE),
        mem("everywhere", global_personal_list(P, BOB)),
        mem("global", global_list(ALICE)),
        mem("elsewhere", personal_list(P, ALICE, "web:other-room")),
    ]
    after = {r.id: r for r in apply_writes(records, plan_space_deletion(records, frozenset({S})).writes)}
    assert set(after) == {"local", "everywhere", "global", "elsewhere"}
    assert scope_list_of(after["local"]) == global_personal_list(P, ALICE)
    assert after["local"].pinned and after["local"].unused_days == 3
    assert [after[k] for k in ("everywhere", "global", "elsewhere")] == [records[2], records[3], records[4]]


# --- issue 28: memories say whose they are ---------------------------------------------------


def test_issue_28_a_first_person_personal_memory_is_saved_in_the_third_person() -> None:
    mine = personal_list(P, ALICE, S)
    new = NewMemory(id="n", persona=P, target=mine, text="  I love jazz ", source="person", author="Alice")
    assert plan_save([], new, now=at(1), policy=POLICY).record.text == "Alice loves jazz"
    theirs = NewMemory(
        id="g", persona=P, target=global_list(ALICE), text="My cat is Mochi", source="model", author="Alice"
    )
    assert plan_save([], theirs, now=at(1), policy=POLICY).record.text == "Alice's cat is Mochi"


def test_issue_28_space_memories_and_texts_without_an_author_are_saved_as_sent() -> None:
    room = NewMemory(id="r", persona=P, target=SPACE, text="I love jazz", source="person", author="Alice")
    assert plan_save([], room, now=at(1), policy=POLICY).record.text == "I love jazz"
    plain = NewMemory(
        id="p", persona=P, target=personal_list(P, ALICE, S), text="I love jazz", source="person"
    )
    assert plan_save([], plain, now=at(1), policy=POLICY).record.text == "I love jazz"


def test_issue_28_a_rewrite_that_would_pass_the_length_limit_keeps_the_text_as_sent() -> None:
    tight = MemoryPolicy(max_chars=11)
    new = NewMemory(
        id="n",
        persona=P,
        target=personal_list(P, ALICE, S),
        text="I love jazz",
        source="person",
        author="Alexandra",
    )
    assert plan_save([], new, now=at(1), policy=tight).record.text == "I love jazz"


def test_issue_28_stored_first_person_memories_are_planned_in_the_third_person_once() -> None:
    first = mem("a", personal_list(P, ALICE, S), text="I hate cilantro", pinned=True)
    third = mem("b", personal_list(P, ALICE, S), text="Alice plays the cello")
    unknown = mem("c", personal_list(P, BOB, S), text="I love jazz")
    room = mem("d", SPACE, text="I am the den's piano")
    plan = plan_third_person([first, third, unknown, room], {ALICE: "Alice"}, POLICY)
    assert plan.writes == (
        Updated(before=first, after=msgspec.structs.replace(first, text="Alice hates cilantro")),
    )
    after = apply_writes([first, third, unknown, room], plan.writes)
    assert plan_third_person(after, {ALICE: "Alice"}, POLICY).writes == ()
