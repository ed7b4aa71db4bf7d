"""Prompt assembly: PRM-1, PRM-2 (provider mapping), DEC-15 (stable prefix)."""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec
import pytest

from adapters.llm.anthropic_format import CONVERSATION_OPENER, to_messages_request
from engine.errors import ConfigError
from engine.model import ModelSettings, Persona, StoredMessage
from engine.prompt import (
    DEFAULT_TEMPLATE,
    MemoryLine,
    PromptMessage,
    PromptParts,
    assemble_prompt,
    resolve_template,
)
from engine.window import Window

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
PERSONA = Persona(id="p", name="Ember", system_prompt="You are Ember.", greeting="Hi!")
SETTINGS = ModelSettings(name="claude-test", max_tokens=100)


def msg(i: int, role: str, text: str, user: str = "web:alice", name: str = "Alice") -> StoredMessage:
    return StoredMessage(
        id=f"m{i}",
        chat="web:c",
        role=role,
        user=user,
        name=name,
        text=text,  # type: ignore[arg-type]
        sent_at=NOW,
        position=float(i),
        tokens=5,
    )


def window(*messages: StoredMessage) -> Window:
    return Window(messages=messages, tokens=5 * len(messages), budget=10_000, dropped=0)


def full_parts(last: str = "hello") -> PromptParts:
    return PromptParts(
        persona=PERSONA,
        window=window(msg(0, "assistant", "Hi!"), msg(1, "user", last)),
        pinned=(MemoryLine(id="a", text="Alice is allergic to peanuts"),),
        active=(MemoryLine(id="b", text="Alice's cat is Mochi", recent=True),),
        summaries=("They met at the inn.",),
        lore=(PromptMessage(role="system", text="Dragons sleep in winter.", slot="lore"),),
        recalled=(MemoryLine(id="c", text="Alice went to Lisbon"),),
    )


def test_prm_1_slots_render_in_template_order() -> None:
    prompt = assemble_prompt(full_parts())
    slots = [m.slot for m in prompt.messages]
    assert slots == [
        "persona",
        "pinned_memories",
        "active_memories",
        "summaries",
        "window",
        "window",
        "lore",
        "recalled",
    ]
    assert prompt.messages[0].text == "You are Ember."
    assert "(recent)" in prompt.messages[2].text


def test_prm_1_empty_slots_render_nothing() -> None:
    prompt = assemble_prompt(PromptParts(persona=PERSONA, window=window(msg(1, "user", "hi"))))
    assert [m.slot for m in prompt.messages] == ["persona", "window"]
    assert prompt.stable_count == 1


def test_prm_1_a_custom_template_moves_a_slot_and_shortens_the_stable_prefix() -> None:
    template = ("persona", "lore", "pinned_memories", "active_memories", "summaries", "window", "recalled")
    prompt = assemble_prompt(full_parts(), resolve_template(template))
    assert [m.slot for m in prompt.messages][:2] == ["persona", "lore"]
    assert prompt.stable_count == 1


@pytest.mark.parametrize(
    "template", [("persona", "nope", "window"), ("persona", "persona", "window"), ("persona",)]
)
def test_prm_1_bad_templates_are_refused(template: tuple[str, ...]) -> None:
    with pytest.raises(ConfigError):
        resolve_template(template)


def test_dec_15_stable_prefix_is_identical_between_turns() -> None:
    first = assemble_prompt(full_parts("hello"))
    second = assemble_prompt(full_parts("and how is Mochi?"))
    assert first.stable_count == second.stable_count == 4
    assert first.stable_prefix == second.stable_prefix
    assert first.messages != second.messages


def test_prm_1_group_messages_name_their_speakers() -> None:
    parts = PromptParts(
        persona=PERSONA,
        window=window(msg(1, "user", "hi"), msg(2, "user", "yo", user="web:bob", name="Bob")),
    )
    texts = [m.text for m in assemble_prompt(parts).messages if m.slot == "window"]
    assert texts == ["Alice: hi", "Bob: yo"]


def test_prm_2_anthropic_mapping_system_blocks_breakpoints_and_alternation() -> None:
    request = to_messages_request(assemble_prompt(full_parts()), SETTINGS)
    system = request["system"]
    assert system[0]["text"] == "You are Ember."
    # breakpoints after persona + pinned, after the active memories, at the end of the stable
    # prefix (summaries) and after the older window: the provider's four
    marked = {"type": "ephemeral"}
    assert [b.get("cache_control") for b in system] == [None, marked, marked, marked]
    roles = [m["role"] for m in request["messages"]]
    assert roles == ["user", "assistant", "user"]
    assert request["messages"][0]["content"] == [{"type": "text", "text": CONVERSATION_OPENER}]
    assert request["messages"][1]["content"] == [
        {"type": "text", "text": "Hi!", "cache_control": {"type": "ephemeral"}}
    ]
    last = request["messages"][-1]["content"]
    assert last[0] == {"type": "text", "text": "hello"}  # what this turn answers is not cached
    assert last[1]["text"] == "[System note: Dragons sleep in winter.]"  # lore after the window
    assert "[System note: This came back to you just now:" in last[2]["text"]
    assert request["model"] == "claude-test" and request["max_tokens"] == 100


def test_issue_12_the_older_window_is_cached_and_only_what_changes_follows_it() -> None:
    history = [msg(0, "assistant", "Hi!"), msg(1, "user", "hello"), msg(1.5, "assistant", "Hello Alice.")]
    first = assemble_prompt(msgspec.structs.replace(full_parts(), window=window(*history[:2])))
    second = assemble_prompt(
        msgspec.structs.replace(full_parts(), window=window(*history, msg(2, "user", "and Mochi?")))
    )
    # the second turn's marked prefix continues the first turn's: read from the cache
    last_cached = first.messages[: first.cache_marks[-1] + 1]
    assert second.messages[: len(last_cached)] == last_cached
    slots = [second.messages[i].slot for i in second.cache_marks]
    assert slots == ["pinned_memories", "active_memories", "summaries", "window"]
    assert second.messages[second.cache_marks[-1]].source == "m1.5"  # the end of the previous turn
    tail = {m.slot for m in second.messages[second.cache_marks[-1] + 1 :]}
    assert tail == {"window", "lore", "recalled"}


def test_issue_12_two_answered_messages_stay_out_of_the_cached_part() -> None:
    two = window(msg(0, "assistant", "Hi!"), msg(1, "user", "a"), msg(2, "user", "b"))
    parts = msgspec.structs.replace(full_parts(), window=two, answering=2)
    prompt = assemble_prompt(parts)
    assert prompt.messages[prompt.cache_marks[-1]].source == "m0"


def test_prm_2_system_role_lore_inside_the_conversation_becomes_a_marked_note() -> None:
    template = ("persona", "pinned_memories", "active_memories", "summaries", "window", "lore", "recalled")
    request = to_messages_request(assemble_prompt(full_parts(), resolve_template(template)), SETTINGS)
    last = request["messages"][-1]
    assert last["role"] == "user"
    assert [b["text"] for b in last["content"]][:2] == ["hello", "[System note: Dragons sleep in winter.]"]


def test_prm_2_two_turns_send_byte_identical_prefixes() -> None:
    a = to_messages_request(assemble_prompt(full_parts("one")), SETTINGS)
    b = to_messages_request(assemble_prompt(full_parts("two")), SETTINGS)
    assert msgspec.json.encode(a["system"]) == msgspec.json.encode(b["system"])
    assert a["messages"] != b["messages"]


def test_prm_2_breakpoint_on_the_persona_when_nothing_else_is_stable() -> None:
    prompt = assemble_prompt(PromptParts(persona=PERSONA, window=window(msg(1, "user", "hi"))))
    request = to_messages_request(prompt, SETTINGS)
    assert request["system"] == [
        {"type": "text", "text": "You are Ember.", "cache_control": {"type": "ephemeral"}}
    ]
    assert request["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]


def test_default_template_lists_every_slot_once() -> None:
    assert len(set(DEFAULT_TEMPLATE)) == len(DEFAULT_TEMPLATE) == 9


def test_prm_3_the_log_marks_the_template_stable_slots_even_when_empty() -> None:
    from engine.requestlog import build_request_log

    parts = PromptParts(persona=PERSONA, window=window(msg(1, "user", "hi")))
    prompt = assemble_prompt(parts)
    log = build_request_log(
        turn="t",
        chat="web:c",
        persona="p",
        provider="offline",
        model="offline",
        created_at=NOW,
        prompt=prompt,
        window=parts.window,
        template=DEFAULT_TEMPLATE,
        message_tokens={0: 5, 1: 3},
    )
    stable = {s.name: s.stable for s in log.slots}
    assert stable == {
        "persona": True,
        "user_persona": True,
        "pinned_memories": True,
        "active_memories": True,
        "summaries": True,
        "lore": False,
        "window": False,
        "recalled": False,
        "post_history": False,
    }


def test_cast_1_another_members_reply_is_a_named_user_turn_and_the_prefix_stays() -> None:
    """Issue 33 (CAST-1): in a cast, Bram's prompt shows Lyra's reply as "Lyra: …" from the user's
    side and his own as his; the person is named; one more exchange keeps every earlier message
    rendered the same (the cached prefix of Bram's next turn); a chat without a cast is as before."""
    bram = msgspec.structs.replace(PERSONA, id="bram", name="Bram")
    said = msg(1, "user", "Lyra, sing.")
    lyra = msgspec.structs.replace(msg(2, "assistant", "La la."), persona="lyra", name="Lyra")
    own = msgspec.structs.replace(msg(3, "assistant", "Too loud."), persona="bram", name="Bram")
    first = (said, lyra, msgspec.structs.replace(msg(4, "user", "Bram?")))
    parts = PromptParts(persona=bram, window=window(*first), cast=True)
    shown = [(m.role, m.text) for m in assemble_prompt(parts).messages if m.slot == "window"]
    assert shown == [("user", "Alice: Lyra, sing."), ("user", "Lyra: La la."), ("user", "Alice: Bram?")]
    later = PromptParts(persona=bram, window=window(*first, own, msg(5, "user", "Again?")), cast=True)
    again = [(m.role, m.text) for m in assemble_prompt(later).messages if m.slot == "window"]
    assert again[:3] == shown and again[3] == ("assistant", "Too loud.")
    plain = PromptParts(persona=bram, window=window(said, lyra))
    assert [(m.role, m.text) for m in assemble_prompt(plain).messages if m.slot == "window"] == [
        ("user", "Lyra, sing."),
        ("assistant", "La la."),
    ]
