"""The prompt → Chat Completions mapping (LLM-1, issue 30): system message first, alternating
turns, function tools, tool rounds as tool messages, or as text for a server without tools."""

from __future__ import annotations

import base64
import json

import httpx
import openai

from adapters.llm.openai import refuses_images
from adapters.llm.openai_format import _content, estimate_request, to_chat_request, tool_definitions
from adapters.llm.prompt_map import CONVERSATION_OPENER
from engine.images import Image, image_tokens
from engine.model import ModelSettings
from engine.prompt import Prompt, PromptMessage
from engine.tools import MEMORY_TOOLS, ToolCall, ToolExchange, ToolResult
from tests.fixtures.pictures import png

SETTINGS = ModelSettings(name="gpt-test", max_tokens=321)


def msg(role: str, text: str, slot: str = "window") -> PromptMessage:
    return PromptMessage(role=role, text=text, slot=slot)  # type: ignore[arg-type]


def prompt(*messages: PromptMessage, stable: int = 2, exchanges: tuple[ToolExchange, ...] = ()) -> Prompt:
    return Prompt(messages=messages, stable_count=stable, exchanges=exchanges)


PERSONA = msg("system", "You are Ember.", "persona")
PINNED = msg("system", "Pinned memories:\n- Alice likes tea", "pinned_memories")


def test_leading_system_parts_become_one_system_message_in_prefix_order() -> None:
    request = to_chat_request(prompt(PERSONA, PINNED, msg("user", "Alice: hi")), SETTINGS)
    system, user = request["messages"]
    assert system == {"role": "system", "content": "You are Ember.\n\nPinned memories:\n- Alice likes tea"}
    assert user == {"role": "user", "content": "Alice: hi"}
    assert request["model"] == "gpt-test" and request["max_tokens"] == 321
    assert request["stream_options"] == {"include_usage": True} and "tools" not in request


def test_window_alternates_with_an_opener_and_late_system_parts_become_notes() -> None:
    request = to_chat_request(
        prompt(
            PERSONA,
            PINNED,
            msg("assistant", "Hi, I'm Ember."),  # the greeting opens the window
            msg("user", "Alice: hello"),
            msg("user", "Bob: hey"),
            msg("system", "The inn has a cat.", "lore"),
            msg("assistant", "Welcome both!"),
            msg("user", "Alice: tea?"),
        ),
        SETTINGS,
    )
    roles = [m["role"] for m in request["messages"]]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user"]
    assert request["messages"][1]["content"] == CONVERSATION_OPENER
    assert (
        request["messages"][3]["content"] == "Alice: hello\n\nBob: hey\n\n[System note: The inn has a cat.]"
    )
    assert request["messages"][-1]["content"] == "Alice: tea?"


def test_the_system_message_is_byte_identical_across_turns() -> None:
    """Automatic prefix caching: a new message changes only the tail of the request."""
    one = to_chat_request(prompt(PERSONA, PINNED, msg("user", "a")), SETTINGS)
    two = to_chat_request(
        prompt(PERSONA, PINNED, msg("user", "a"), msg("assistant", "b"), msg("user", "c")), SETTINGS
    )
    assert json.dumps(two["messages"][:2]) == json.dumps(one["messages"][:2])


def test_content_is_text_when_all_parts_are_text_else_the_parts() -> None:
    assert _content([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]) == "a\n\nb"
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}}
    assert _content([{"type": "text", "text": "a"}, image]) == [{"type": "text", "text": "a"}, image]


def test_memory_tools_become_function_tools_with_their_schema() -> None:
    (save, *_) = tool_definitions(MEMORY_TOOLS)
    assert save["type"] == "function" and save["function"]["name"] == "save_memory"
    assert save["function"]["parameters"]["type"] == "object"
    assert "text" in save["function"]["parameters"]["properties"] and save["function"]["description"]
    request = to_chat_request(prompt(PERSONA, msg("user", "hi"), stable=1), SETTINGS, MEMORY_TOOLS)
    assert [t["function"]["name"] for t in request["tools"]] == [t.name for t in MEMORY_TOOLS]


EXCHANGE = ToolExchange(
    text="Noted!",
    calls=(ToolCall(id="call_1", name="save_memory", arguments=json.dumps({"text": "Alice likes tea"})),),
    results=(ToolResult(call_id="call_1", content="Saved [mem-1]."),),
)


def test_a_tool_round_is_an_assistant_call_then_a_tool_message() -> None:
    p = prompt(PERSONA, msg("user", "remember I like tea"), stable=1, exchanges=(EXCHANGE,))
    request = to_chat_request(p, SETTINGS, MEMORY_TOOLS)
    *_, call, result = request["messages"]
    assert call["role"] == "assistant" and call["content"] == "Noted!"
    assert call["tool_calls"] == [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "save_memory", "arguments": EXCHANGE.calls[0].arguments},
        }
    ]
    assert result == {"role": "tool", "tool_call_id": "call_1", "content": "Saved [mem-1]."}


def test_a_failed_tool_says_error() -> None:
    failed = ToolExchange(
        text="", calls=EXCHANGE.calls, results=(ToolResult(call_id="call_1", content="full", is_error=True),)
    )
    request = to_chat_request(
        prompt(PERSONA, msg("user", "x"), stable=1, exchanges=(failed,)), SETTINGS, MEMORY_TOOLS
    )
    *_, call, result = request["messages"]
    assert call["content"] is None and result["content"] == "Error: full"


def test_without_tools_a_round_is_told_as_text_and_turns_still_alternate() -> None:
    p = prompt(PERSONA, msg("user", "remember I like tea"), stable=1, exchanges=(EXCHANGE,))
    request = to_chat_request(p, SETTINGS, MEMORY_TOOLS, with_tools=False)
    assert "tools" not in request
    roles = [m["role"] for m in request["messages"]]
    assert roles == ["system", "user", "assistant", "user"]
    assert request["messages"][-1]["content"] == "[System note: save_memory did: Saved [mem-1].]"
    assert all("tool_calls" not in m for m in request["messages"])


def test_openai_itself_gets_max_completion_tokens() -> None:
    request = to_chat_request(
        prompt(PERSONA, msg("user", "x"), stable=1), SETTINGS, token_limit="max_completion_tokens"
    )
    assert request["max_completion_tokens"] == 321 and "max_tokens" not in request


def test_the_estimate_counts_messages_calls_and_tools() -> None:
    p = prompt(PERSONA, msg("user", "x"), stable=1, exchanges=(EXCHANGE,))
    bare = estimate_request(to_chat_request(prompt(PERSONA, msg("user", "x"), stable=1), SETTINGS))
    full = estimate_request(to_chat_request(p, SETTINGS, MEMORY_TOOLS))
    assert 0 < bare < full


def test_issue_30_pictures_become_image_url_parts_with_the_same_bytes_before_the_text() -> None:
    data = png(800, 600)
    seen = PromptMessage(
        role="user",
        text="Alice: what is this?",
        slot="window",
        images=(Image(media_type="image/png", data=data, width=800, height=600),),
    )
    request = to_chat_request(prompt(PERSONA, PINNED, seen), SETTINGS)
    picture, text = request["messages"][-1]["content"]
    assert picture["type"] == "image_url"
    head, _, encoded = picture["image_url"]["url"].partition(",")
    assert head == "data:image/png;base64" and base64.b64decode(encoded) == data
    assert text == {"type": "text", "text": "Alice: what is this?"}
    # counted by its size, not by the length of its base64
    without = to_chat_request(prompt(PERSONA, PINNED, msg("user", "Alice: what is this?")), SETTINGS)
    assert estimate_request(request) - estimate_request(without) == image_tokens(800, 600)
    # a model that refused pictures gets the placeholder in the text instead
    blind = to_chat_request(prompt(PERSONA, PINNED, seen), SETTINGS, with_images=False)
    assert blind["messages"][-1]["content"] == "[image: photo, 800×600]\nAlice: what is this?"
    refusal = openai.BadRequestError(
        "image input is not supported for this model", response=_response(400), body=None
    )
    assert refuses_images(refusal)
    assert not refuses_images(openai.RateLimitError("slow down: image", response=_response(429), body=None))


def _response(status: int) -> httpx.Response:
    return httpx.Response(status, request=httpx.Request("POST", "http://x/v1/chat/completions"))
