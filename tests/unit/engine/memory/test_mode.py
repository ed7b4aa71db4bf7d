"""Memory-off chats and the deep pass's reach, decided without IO (MEM-8, DEEP-3, DEEP-4; issue 34)."""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec
import pytest

from engine.errors import Conflict
from engine.memory import MemoryTurn, check_turn_write, scopes_in_play, space_list
from engine.memory.deep import DeepPolicy
from engine.memory.mode import (
    MEMORY_OFF_NOTE,
    chat_memory_off,
    deep_skip_reason,
    memory_off_at,
    switch_memory,
    written_with_memory,
)
from engine.memory.tools import MemoryContext
from engine.model import ChatSettings, Persona, StoredMessage
from engine.offline import offline_reply, offline_tool_calls
from engine.ports import TurnInputs
from engine.tools import MEMORY_TOOLS
from engine.turn import plan_turn
from tests.unit.engine.test_turn import LOG, gathered

PERSONA = Persona(id="ember", name="Ember", system_prompt="You are Ember.")
OFF = ChatSettings(memory="off")


def message(position: float) -> StoredMessage:
    return StoredMessage(
        id=f"m{position}",
        chat="web:inn",
        role="user",
        user="web:juno",
        name="Juno",
        text="hi",
        sent_at=datetime(2026, 5, 4, tzinfo=UTC),
        position=position,
        tokens=1,
    )


def test_mem_8_a_chat_is_memory_off_only_by_its_own_setting() -> None:
    """MEM-8 (issue 34): the chat's setting decides; a chat never switched has memory on."""
    assert chat_memory_off(OFF)
    assert not chat_memory_off(ChatSettings())
    assert not chat_memory_off(None)
    turn = MemoryTurn(persona="ember", space="web:inn", participants=("web:juno",), chat_memory_off=True)
    assert scopes_in_play(turn) == ()
    with pytest.raises(Conflict) as refused:
        check_turn_write(turn, space_list("ember", "web:inn"))
    assert refused.value.code == "memory_off"


def test_deep_4_the_pass_applies_on_web_with_the_switches_on_and_memory_on() -> None:
    """DEEP-3, DEEP-4 (issue 34): the reasons the pass does not apply, in the badge's words."""
    web = DeepPolicy()

    def reason(chat: str = "web:inn", persona: Persona = PERSONA, **switches: bool) -> str:
        return deep_skip_reason(
            chat,
            persona,
            web,
            memory_off=switches.get("memory_off", False),
            offline=switches.get("offline", False),
        )

    assert reason() == ""
    assert reason(memory_off=True) == "memory is off in this chat (MEM-8, DEEP-4)"
    assert reason("tg:42") == "deep memory is off on telegram"
    assert reason(persona=Persona(id="e", name="E", system_prompt="", deep_memory=False)).startswith(
        "the persona does not learn"
    )
    assert reason(persona=Persona(id="e", name="E", system_prompt="", learn_from_chat=False)) != ""
    assert reason(offline=True).startswith("no LLM")
    both = DeepPolicy(platforms=("web", "telegram"))
    assert deep_skip_reason("tg:42", PERSONA, both, memory_off=False, offline=False) == ""


def test_mem_8_switching_marks_the_stretch_written_memory_off() -> None:
    """MEM-8, DEEP-4 (issue 34): switching off at message 5 and on after message 9 marks 5.5..9
    (message 5's reply, if it comes now, is written memory-off); the same mode changes nothing."""
    off = switch_memory(ChatSettings(), "off", 5.0)
    assert off.memory == "off" and switch_memory(off, "off", 8.0) == off
    assert [memory_off_at(off, p) for p in (5.0, 5.5, 6.0, 100.0)] == [False, True, True, True]
    on = switch_memory(off, "on", 9.5)
    assert on.memory == "on" and on.off_since is None
    assert [memory_off_at(on, p) for p in (5.0, 5.5, 9.0, 9.5, 10.0)] == [False, True, True, False, False]
    chunk = [message(p) for p in (4.0, 5.5, 7.0, 10.0)]
    assert [m.position for m in written_with_memory(on, chunk)] == [4.0, 10.0]
    fresh = switch_memory(ChatSettings(), "off", 0.0)  # before the chat's first message
    assert memory_off_at(fresh, 1.0) and not memory_off_at(fresh, 0.0)  # the greeting is not


def test_mem_8_a_memory_off_turn_offers_no_tools_tells_the_model_and_logs_it() -> None:
    """MEM-8 (issue 34): no memory or archive tools, the note in the pinned memories' place, and
    ``memory: "off"`` in the request log; with memory on the same turn has its tools."""
    inputs = TurnInputs(answered=LOG[-1], messages=LOG)
    writer = MemoryContext(enabled=True, can_write=True)
    on = plan_turn(gathered(inputs, memory=writer, memory_tools=True, archive_tools=True), estimate=len)
    off = plan_turn(
        gathered(inputs, memory=writer, memory_tools=True, archive_tools=True, memory_off=True), estimate=len
    )
    assert [t.name for t in on.tools][: len(MEMORY_TOOLS)] == [t.name for t in MEMORY_TOOLS]
    assert off.tools == ()
    assert on.log.memory == "on" and off.log.memory == "off"
    notes = [m for m in off.prompt.messages if m.slot == "pinned_memories"]
    assert [m.text for m in notes] == [MEMORY_OFF_NOTE]
    assert not any(m.text == MEMORY_OFF_NOTE for m in on.prompt.messages)


def test_mem_8_the_offline_model_says_memory_is_off_and_saves_nothing() -> None:
    """MEM-8 (issue 34): "remember that …" in a memory-off chat: no save call (no tool offered)
    and the reply says memory is off here."""
    asked = msgspec.structs.replace(LOG[-1], text="Remember that I like tea.")
    inputs = TurnInputs(answered=asked, messages=(*LOG[:-1], asked))
    writer = MemoryContext(enabled=True, can_write=True)
    plan = plan_turn(gathered(inputs, memory=writer, memory_tools=True, memory_off=True), estimate=len)
    assert offline_tool_calls(plan.prompt, plan.tools) == ()
    assert "Memory is off in this chat" in offline_reply(plan.prompt, "Ember")
    on = plan_turn(gathered(inputs, memory=writer, memory_tools=True), estimate=len)
    assert [c.name for c in offline_tool_calls(on.prompt, on.tools)] == ["save_memory"]
    assert "Memory is off" not in offline_reply(on.prompt, "Ember")
