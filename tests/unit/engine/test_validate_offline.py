"""PLT-6 input checks, RUN-2 offline model, and the engine's purity (STYLE C1)."""

from __future__ import annotations

import ast
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest

from engine.errors import InvalidInput
from engine.model import Persona, StoredMessage
from engine.offline import OFFLINE_LABEL, offline_reply, remembered_fact
from engine.prompt import MemoryLine, PromptMessage, PromptParts, assemble_prompt
from engine.tools import ToolExchange, ToolResult
from engine.validate import TextLimits, check_text, qualify_id
from engine.window import Window

ROOT = Path(__file__).resolve().parents[3]
NOW = datetime(2026, 11, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "text_empty"),
        ("   \n\t", "text_empty"),
        ("x" * 16_001, "text_too_long"),
        ("bad\x00byte", "text_invalid"),
        ("lone \ud800", "text_invalid"),
    ],
)
def test_plt_6_bad_text_is_refused_with_a_code(text: str, code: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        check_text(text, TextLimits())
    assert caught.value.code == code


def test_plt_6_text_is_nfc_normalized_and_limits_are_configurable() -> None:
    assert check_text("Cafe\u0301", TextLimits()) == "Café"
    assert check_text("x" * 16_000, TextLimits()) == "x" * 16_000
    with pytest.raises(InvalidInput):
        check_text("hello", TextLimits(max_chars=4))


@pytest.mark.parametrize(
    ("raw", "qualified"),
    [
        ("room1", "web:room1"),
        ("web:room1", "web:room1"),
        ("tg:-1001234", "tg:-1001234"),
        ("tg:-100123/topic/7", "tg:-100123/topic/7"),
    ],
)
def test_ids_are_platform_qualified(raw: str, qualified: str) -> None:
    assert qualify_id(raw, what="chat") == qualified


@pytest.mark.parametrize("raw", ["", "a b", "{tag}", "x" * 200, "irc:room", "web:", "ü"])
def test_bad_ids_are_refused(raw: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        qualify_id(raw, what="chat")
    assert caught.value.code == "invalid_chat_id"


def _prompt(last: str, **parts: object) -> PromptParts:
    message = StoredMessage(
        id="m1",
        chat="web:c",
        role="user",
        user="web:a",
        name="A",
        text=last,
        sent_at=NOW,
        position=1.0,
        tokens=3,
    )
    persona = Persona(id="p", name="Ember", system_prompt="You are Ember.")
    window = Window(messages=(message,), tokens=3, budget=10_000, dropped=0)
    return PromptParts(persona=persona, window=window, **parts)  # type: ignore[arg-type]


def test_run_2_offline_model_is_labelled_and_echoes() -> None:
    reply = offline_reply(assemble_prompt(_prompt("Hello there")), "Ember")
    assert OFFLINE_LABEL in reply and "not Claude" in reply
    assert "Hello there" in reply


def test_run_2_offline_model_quotes_the_context_that_matches() -> None:
    parts = _prompt(
        "Tell me about the dragon of Eldoria",
        lore=(
            PromptMessage(role="system", text="The dragon of Eldoria sleeps under the lake.", slot="lore"),
            PromptMessage(role="system", text="Bread costs two coins.", slot="lore"),
        ),
        active=(MemoryLine(id="x", text="Juno's cat is named Mochi"),),
    )
    reply = offline_reply(assemble_prompt(parts), "Ember")
    assert "The dragon of Eldoria sleeps under the lake." in reply
    assert "Bread" not in reply
    mochi = offline_reply(assemble_prompt(_prompt("how is Mochi doing?", active=parts.active)), "Ember")
    assert "Juno's cat is named Mochi" in mochi


def test_run_2_offline_model_is_deterministic() -> None:
    prompt = assemble_prompt(_prompt("same words"))
    assert offline_reply(prompt, "Ember") == offline_reply(prompt, "Ember")


BANNED = {
    "asyncio",
    "redis",
    "aiogram",
    "litestar",
    "anthropic",
    "faiss",
    "httpx",
    "os",
    "time",
    "random",
    "socket",
    "subprocess",
    "storage",
    "adapters",
    "config",
}


def test_c1_engine_never_imports_io_clock_or_environment() -> None:
    offenders = []
    for path in (ROOT / "engine").rglob("*.py"):
        if "service" in path.relative_to(ROOT).parts[:2]:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] in BANNED]
    assert offenders == []


# --- issue 16: "remember that …" anywhere, no memory ids shown --------------------------------


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("Remember that my sister is called Ana", "My sister is called Ana"),
        ("Oh by the way, remember that Mochi hates cucumbers. How are you?", "Mochi hates cucumbers"),
        ("Juno: please remember that I take my tea without sugar!", "I take my tea without sugar"),
        ("Hi! Можешь запомни что я живу в Казани.", "Я живу в Казани"),
    ],
)
def test_offline_model_understands_remember_that_anywhere(said: str, fact: str) -> None:
    assert remembered_fact(said) == fact


@pytest.mark.parametrize("said", ["Do you remember me?", "I can't remember where I left my keys", "hello"])
def test_offline_model_saves_nothing_without_a_request(said: str) -> None:
    assert remembered_fact(said) is None


def test_offline_model_never_shows_memory_ids() -> None:
    parts = _prompt("remember that the café opens at nine")
    said = "I'll remember that: “The café opens at nine” [mem-0f6b1d7ca9]."
    result = ToolResult(call_id="c1", content=said)
    exchange = ToolExchange(text="", calls=(), results=(result,))
    prompt = msgspec.structs.replace(assemble_prompt(parts), exchanges=(exchange,))
    reply = offline_reply(prompt, "Ember")
    assert "I'll remember that: “The café opens at nine”." in reply
    assert "mem-" not in reply and "[" not in reply.split("]", 1)[1]


def test_issue_28_the_prompt_shows_a_personal_memorys_owner_and_the_offline_model_quotes_the_fact() -> None:
    line = MemoryLine(id="mem-1", text="Alice loves jazz", owner="Alice")
    prompt = assemble_prompt(_prompt("what jazz do I like?", active=(line,)))
    (active,) = [m for m in prompt.messages if m.slot == "active_memories"]
    assert "- (Alice) Alice loves jazz [mem-1]" in active.text
    reply = offline_reply(prompt, "Ember")
    assert "From what I was given: “Alice loves jazz”" in reply
