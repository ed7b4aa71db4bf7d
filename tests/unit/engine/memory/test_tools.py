"""The model's memory tools decoded and planned without IO (MEM-6a, issue 14: ``engine.memory.tools``)."""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec
import pytest

from engine.errors import Conflict, InvalidInput, NotFound
from engine.memory import (
    MemoryPolicy,
    MemoryRecord,
    MemoryTurn,
    Updated,
    personal_list,
    plan_save,
    plan_update,
    space_list,
)
from engine.memory.tools import DeleteStep, MemoryContext, SaveStep, UpdateStep, plan_memory_tool
from engine.tools import ToolCall

T0 = datetime(2026, 5, 4, 18, 0, tzinfo=UTC)
TURN = MemoryTurn(
    persona="ember",
    space="web:inn",
    participants=("web:juno", "web:tam"),
    guests=("web:tam",),
    learn_from_chat=True,
)
CAT = MemoryRecord(
    id="mem-cat",
    persona="ember",
    scope="space",
    space="web:inn",
    text="Juno's cat is Mochi",
    created_at=T0,
    updated_at=T0,
)
CTX = MemoryContext(enabled=True, turn=TURN, records=(CAT,), can_write=True)
NAMES = {"juno": "web:juno", "tam": "web:tam"}


def plan(name: str, arguments: str, ctx: MemoryContext = CTX) -> object:
    call = ToolCall(id="c1", name=name, arguments=arguments)
    return plan_memory_tool(ctx, call, speaker="web:juno", names=NAMES, turn="t3")


def test_a_saved_memory_goes_to_the_list_the_model_named() -> None:
    room = plan("save_memory", '{"text": "The inn has twelve rooms", "scope": "space"}')
    mine = plan("save_memory", '{"text": "Juno plays the cello", "scope": "personal", "about": "Juno"}')
    assert room == SaveStep(
        persona="ember", target=space_list("ember", "web:inn"), text="The inn has twelve rooms", turn="t3"
    )
    assert isinstance(mine, SaveStep) and mine.target == personal_list("ember", "web:juno", "web:inn")
    new = mine.memory("mem-1")
    assert new.id == "mem-1" and new.source == "model" and new.turn == "t3"


def test_mem8_nothing_is_saved_for_a_guest() -> None:
    with pytest.raises(Conflict) as refused:
        plan("save_memory", '{"text": "Tam likes cider", "scope": "personal", "about": "Tam"}')
    assert refused.value.code == "scope_not_in_play"


def test_updates_and_deletes_reach_only_memories_of_this_conversation() -> None:
    assert plan("update_memory", '{"id": "mem-cat", "text": "Juno has a cat, Mochi"}') == UpdateStep(
        id="mem-cat", text="Juno has a cat, Mochi"
    )
    assert plan("delete_memory", '{"id": "mem-cat"}') == DeleteStep(id="mem-cat")
    with pytest.raises(NotFound) as missing:
        plan("delete_memory", '{"id": "mem-elsewhere"}')
    assert missing.value.code == "memory_not_found"


@pytest.mark.parametrize(
    ("name", "arguments", "code"),
    [
        ("save_memory", '{"text": 3}', "invalid_tool_input"),
        ("save_memory", "not json", "invalid_tool_input"),
        ("forget_everything", "{}", "unknown_tool"),
        ("search_archive", '{"query": "dragons"}', "unknown_tool"),  # the archive is off
    ],
)
def test_a_call_that_does_not_fit_is_refused_with_a_reason(name: str, arguments: str, code: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        plan(name, arguments)
    assert refused.value.code == code


def test_a_turn_that_may_not_write_refuses_every_memory_tool() -> None:
    reader = MemoryContext(enabled=True, turn=TURN, records=(CAT,), can_write=False)
    with pytest.raises(Conflict) as refused:
        plan("delete_memory", '{"id": "mem-cat"}', reader)
    assert refused.value.code == "memory_off"


def test_issue_28_the_save_tool_names_the_owner_so_a_first_person_text_is_stored_in_the_third() -> None:
    call = ToolCall(id="c1", name="save_memory", arguments='{"text": "I play the cello"}')
    people = {"web:juno": "Juno", "web:tam": "Tam"}
    step = plan_memory_tool(CTX, call, speaker="web:juno", names=NAMES, turn="t3", people=people)
    assert isinstance(step, SaveStep) and step.author == "Juno"
    saved = plan_save([], step.memory("mem-1"), now=T0, policy=MemoryPolicy())
    assert saved.record.text == "Juno plays the cello"
    room = ToolCall(id="c2", name="save_memory", arguments='{"text": "I am the inn", "scope": "space"}')
    shared = plan_memory_tool(CTX, room, speaker="web:juno", names=NAMES, turn="t3", people=people)
    assert isinstance(shared, SaveStep) and shared.author is None  # a space memory is nobody's


def test_issue_28_the_update_tool_keeps_a_personal_memory_in_the_third_person() -> None:
    tea = msgspec.structs.replace(
        CAT, id="mem-tea", scope="personal", owner="web:juno", text="Juno drinks tea"
    )
    ctx = MemoryContext(enabled=True, turn=TURN, records=(CAT, tea), can_write=True)
    call = ToolCall(
        id="c1", name="update_memory", arguments='{"id": "mem-tea", "text": "I drink coffee now"}'
    )
    step = plan_memory_tool(
        ctx, call, speaker="web:juno", names=NAMES, turn="t3", people={"web:juno": "Juno"}
    )
    assert step == UpdateStep(id="mem-tea", text="I drink coffee now", author="Juno")
    plan = plan_update(
        [tea], "mem-tea", writer="model", now=T0, policy=MemoryPolicy(), text=step.text, author="Juno"
    )
    (write,) = plan.writes
    assert isinstance(write, Updated) and write.after.text == "Juno drinks coffee now"
