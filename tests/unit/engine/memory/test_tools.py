"""The model's memory tools decoded and planned without IO (MEM-6a, ``engine.memory.tools``), and
who the model may write memories about (MEM-4: only a participant of the turn, named by
platform id, never by display name; issue 29)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import msgspec
import pytest

from engine.errors import Conflict, InvalidInput, NotFound
from engine.memory import (
    MemoryPolicy,
    MemoryRecord,
    MemoryTurn,
    Updated,
    global_list,
    personal_list,
    plan_save,
    plan_update,
    space_list,
)
from engine.memory.tools import (
    DeleteStep,
    MemoryContext,
    SaveStep,
    UpdateStep,
    plan_memory_tool,
    refused_write,
    tool_result,
)
from engine.tools import ToolCall

T0 = datetime(2026, 5, 4, 18, 0, tzinfo=UTC)
TURN = MemoryTurn(
    persona="ember",
    space="web:inn",
    participants=("web:juno", "web:tam"),
    guests=("web:tam",),
    learn_from_chat=True,
)


def record(memory_id: str, text: str, **where: Any) -> MemoryRecord:
    return MemoryRecord(id=memory_id, persona="ember", text=text, created_at=T0, updated_at=T0, **where)


CAT = record("mem-cat", "Juno's cat is Mochi", scope="space", space="web:inn")
JUNO_CELLO = record("mem-cello", "Juno plays the cello", scope="personal", space="web:inn", owner="web:juno")
FRANK_DOGS = record("mem-dogs", "Frank fears dogs", scope="global", owner="web:frank")
CTX = MemoryContext(enabled=True, turn=TURN, records=(CAT,), can_write=True)


def plan(name: str, arguments: str, ctx: MemoryContext = CTX) -> object:
    call = ToolCall(id="c1", name=name, arguments=arguments)
    return plan_memory_tool(ctx, call, speaker="web:juno", turn="t3")


def test_a_saved_memory_goes_to_the_list_the_model_named() -> None:
    room = plan("save_memory", '{"text": "The inn has twelve rooms", "scope": "space"}')
    mine = plan("save_memory", '{"text": "Juno plays the cello", "scope": "personal", "about": "web:juno"}')
    assert room == SaveStep(
        persona="ember", target=space_list("ember", "web:inn"), text="The inn has twelve rooms", turn="t3"
    )
    assert isinstance(mine, SaveStep) and mine.target == personal_list("ember", "web:juno", "web:inn")
    new = mine.memory("mem-1")
    assert new.id == "mem-1" and new.source == "model" and new.turn == "t3"


def test_mem8_nothing_is_saved_for_a_guest() -> None:
    with pytest.raises(Conflict) as refused:
        plan("save_memory", '{"text": "Tam likes cider", "scope": "personal", "about": "web:tam"}')
    assert refused.value.code == "scope_not_in_play"


def test_mem4_without_about_the_fact_is_the_answered_authors() -> None:
    mine = plan("save_memory", '{"text": "Juno plays the cello", "scope": "global"}')
    assert isinstance(mine, SaveStep) and mine.target == global_list("web:juno")
    blank = plan("save_memory", '{"text": "Juno plays the cello", "about": "  "}')
    assert isinstance(blank, SaveStep) and blank.target == personal_list("ember", "web:juno", "web:inn")


@pytest.mark.parametrize("scope", ["personal", "global"])
@pytest.mark.parametrize(
    "about",
    [
        "web:frank",  # someone who is not taking part in the turn
        "Frank",  # a display name, even of nobody here
        "Juno",  # a participant's display name: two people may share one, anyone can pick any
        "juno",
    ],
)
def test_mem4_personal_and_global_writes_only_for_a_participant_named_by_id(scope: str, about: str) -> None:
    arguments = f'{{"text": "Likes dogs", "scope": "{scope}", "about": "{about}"}}'
    with pytest.raises(Conflict) as refused:
        plan("save_memory", arguments)
    assert refused.value.code == "not_a_participant"
    assert '"web:juno"' in refused.value.message  # the model is told whom it may name, by id


def test_mem4_a_space_fact_belongs_to_the_space_whoever_about_names() -> None:
    step = plan("save_memory", '{"text": "Frank runs the inn", "scope": "space", "about": "Frank"}')
    assert isinstance(step, SaveStep) and step.target == space_list("ember", "web:inn")


def test_mem4_updates_and_deletes_reach_only_lists_in_play() -> None:
    """A memory of someone who is not taking part is refused even if the context carried it."""
    ctx = MemoryContext(enabled=True, turn=TURN, records=(CAT, JUNO_CELLO, FRANK_DOGS), can_write=True)
    assert plan("update_memory", '{"id": "mem-cello", "text": "Juno plays viola"}', ctx) == UpdateStep(
        id="mem-cello", text="Juno plays viola"
    )
    for name, arguments in [
        ("update_memory", '{"id": "mem-dogs", "text": "Frank loves dogs"}'),
        ("delete_memory", '{"id": "mem-dogs"}'),
    ]:
        with pytest.raises(Conflict) as refused:
            plan(name, arguments, ctx)
        assert refused.value.code == "scope_not_in_play"


def test_mem4_a_refused_write_is_reported_as_refused_to_the_model_and_in_the_log() -> None:
    call = ToolCall(
        id="c9",
        name="save_memory",
        arguments='{"text": "Frank fears dogs", "scope": "global", "about": "Frank"}',
    )
    with pytest.raises(Conflict) as refused:
        plan_memory_tool(CTX, call, speaker="web:juno", turn="t3")
    code, reason = refused.value.code, refused.value.message
    logged = refused_write(call, code, reason)
    assert (logged.kind, logged.tool, logged.code) == ("refused", "save_memory", "not_a_participant")
    assert (logged.scope, logged.about, logged.text) == ("global", "Frank", "Frank fears dogs")
    result = tool_result(call, code, reason)
    assert result.is_error and result.content.startswith("Refused: ") and result.call_id == "c9"
    full = refused_write(call, "memory_full", "The list is full.")
    assert full.kind == "not_done"
    assert tool_result(call, "memory_full", "The list is full.").content == "Not done: The list is full."


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
    step = plan_memory_tool(CTX, call, speaker="web:juno", turn="t3", people=people)
    assert isinstance(step, SaveStep) and step.author == "Juno"
    saved = plan_save([], step.memory("mem-1"), now=T0, policy=MemoryPolicy())
    assert saved.record.text == "Juno plays the cello"
    room = ToolCall(id="c2", name="save_memory", arguments='{"text": "I am the inn", "scope": "space"}')
    shared = plan_memory_tool(CTX, room, speaker="web:juno", turn="t3", people=people)
    assert isinstance(shared, SaveStep) and shared.author is None  # a space memory is nobody's


def test_issue_28_the_update_tool_keeps_a_personal_memory_in_the_third_person() -> None:
    tea = msgspec.structs.replace(
        CAT, id="mem-tea", scope="personal", owner="web:juno", text="Juno drinks tea"
    )
    ctx = MemoryContext(enabled=True, turn=TURN, records=(CAT, tea), can_write=True)
    call = ToolCall(
        id="c1", name="update_memory", arguments='{"id": "mem-tea", "text": "I drink coffee now"}'
    )
    step = plan_memory_tool(ctx, call, speaker="web:juno", turn="t3", people={"web:juno": "Juno"})
    assert step == UpdateStep(id="mem-tea", text="I drink coffee now", author="Juno")
    plan = plan_update(
        [tea], "mem-tea", writer="model", now=T0, policy=MemoryPolicy(), text=step.text, author="Juno"
    )
    (write,) = plan.writes
    assert isinstance(write, Updated) and write.after.text == "Juno drinks coffee now"
