"""The OpenAI-compatible adapter against the fake server (LLM-1, PRM-2, MEM-8, issue 30).

Streaming, usage (cached tokens as cache reads), tool calls rebuilt from deltas, a server that
refuses tools (asked again without them, remembered, "remember that …" still saved), and the
same retries, waits and errors as Claude's.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from adapters.llm.openai import NO_KEY, OpenAIChatModel
from config.settings import LlmSettings, Secret
from engine.errors import LLMRateLimited, LLMUnavailable
from engine.model import ModelSettings
from engine.ports import ModelDone, ModelEvent, TextDelta
from engine.prompt import Prompt, PromptMessage
from engine.tools import MEMORY_TOOLS, ToolCall, ToolExchange, ToolResult
from tests.fakes.openai_server import Error, FakeOpenAI, Hang, Reply, ToolCallReply


def model_for(fake: FakeOpenAI, **limits: Any) -> OpenAIChatModel:
    settings = LlmSettings(
        openai_api_key=Secret("sk-test") if limits.pop("key", True) else None,
        openai_base_url=f"{fake.base_url}/v1",
        max_retries=int(limits.pop("max_retries", 3)),
        connect_timeout=2.0,
        read_timeout=limits.pop("read_timeout", 3.0),
        total_timeout=limits.pop("total_timeout", 15.0),
        retry_after_cap=limits.pop("retry_after_cap", 1.5),
    )
    return OpenAIChatModel.from_settings(settings)


def prompt(text: str, exchanges: tuple[ToolExchange, ...] = ()) -> Prompt:
    return Prompt(
        messages=(
            PromptMessage(role="system", text="You are Ember.", slot="persona"),
            PromptMessage(role="user", text=text, slot="window"),
        ),
        stable_count=1,
        exchanges=exchanges,
    )


async def run(
    model: OpenAIChatModel, text: str, *, name: str = "gpt-test", tools: Any = (), exchanges: Any = ()
) -> list[ModelEvent]:
    try:
        return [
            e async for e in model.stream(prompt(text, exchanges), ModelSettings(name=name), "Ember", tools)
        ]
    finally:
        await model.client.close()


def said(events: list[ModelEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def done(events: list[ModelEvent]) -> ModelDone:
    last = events[-1]
    assert isinstance(last, ModelDone)
    return last


async def test_a_reply_streams_with_usage_and_cached_tokens(openai_fake: FakeOpenAI) -> None:
    openai_fake.script(Reply("The fire is warm tonight.", chunk_size=5, cached_tokens=7))
    events = await run(model_for(openai_fake), "Hello")
    assert len([e for e in events if isinstance(e, TextDelta)]) == 5
    assert said(events) == "The fire is warm tonight."
    end = done(events)
    (request,) = openai_fake.requests
    body = request.body
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["messages"] == [
        {"role": "system", "content": "You are Ember."},
        {"role": "user", "content": "Hello"},
    ]
    assert body["max_tokens"] == 1024 and request.headers["authorization"] == "Bearer sk-test"
    usage = end.usage
    assert usage.cache_read_input_tokens == 7 and usage.output_tokens == 7
    assert usage.input_tokens + usage.cache_read_input_tokens > 7  # prompt_tokens in all
    assert end.stop_reason == "end_turn" and end.attempts == 1 and end.estimated_input > 0


async def test_a_local_server_without_a_key_gets_a_stand_in_key(openai_fake: FakeOpenAI) -> None:
    events = await run(model_for(openai_fake, key=False), "Hi")
    assert said(events) == "Fake model heard: Hi"
    assert openai_fake.requests[0].headers["authorization"] == f"Bearer {NO_KEY}"


async def test_tool_calls_are_rebuilt_from_the_streamed_deltas(openai_fake: FakeOpenAI) -> None:
    args = {"text": "Alice likes green tea with honey", "scope": "personal"}
    openai_fake.script(
        Reply("Noted.", tool_calls=(ToolCallReply("save_memory", args, id="call_7"),), chunk_size=4)
    )
    events = await run(model_for(openai_fake), "I like green tea", tools=MEMORY_TOOLS)
    (call,) = [e for e in events if isinstance(e, ToolCall)]
    assert (call.id, call.name, json.loads(call.arguments)) == ("call_7", "save_memory", args)
    assert done(events).stop_reason == "tool_use" and said(events) == "Noted."
    assert [t["function"]["name"] for t in openai_fake.requests[0].body["tools"]] == [
        t.name for t in MEMORY_TOOLS
    ]


async def test_a_server_that_refuses_tools_answers_without_them_and_is_remembered(
    openai_fake: FakeOpenAI,
) -> None:
    """MEM-8: asked again without tools at once; the next call sends none; "remember that" saves."""
    openai_fake.no_tools = True
    first = await run(model_for(openai_fake), "Good evening", name="refuser-1", tools=MEMORY_TOOLS)
    assert said(first) == "Fake model heard: Good evening"
    refused, answered = openai_fake.requests
    assert "tools" in refused.body and "tools" not in answered.body
    second = await run(model_for(openai_fake), "And now?", name="refuser-1", tools=MEMORY_TOOLS)
    assert said(second) == "Fake model heard: And now?"
    assert len(openai_fake.requests) == 3 and "tools" not in openai_fake.requests[2].body
    saving = await run(
        model_for(openai_fake), "Remember that I am allergic to cats.", name="refuser-1", tools=MEMORY_TOOLS
    )
    (call,) = [e for e in saving if isinstance(e, ToolCall)]
    assert call.name == "save_memory" and json.loads(call.arguments)["text"] == "I am allergic to cats"
    assert done(saving).stop_reason == "tool_use" and len(openai_fake.requests) == 3  # no request needed
    exchange = ToolExchange(text="", calls=(call,), results=(ToolResult(call_id=call.id, content="Saved."),))
    after = await run(
        model_for(openai_fake),
        "Remember that I am allergic to cats.",
        name="refuser-1",
        tools=MEMORY_TOOLS,
        exchanges=(exchange,),
    )
    last = openai_fake.requests[-1].body
    assert "tools" not in last and last["messages"][-1]["content"].endswith(
        "[System note: save_memory did: Saved.]"
    )
    assert said(after)


async def test_another_model_on_the_same_server_still_gets_tools(openai_fake: FakeOpenAI) -> None:
    openai_fake.no_tools = True
    await run(model_for(openai_fake), "hi", name="refuser-2", tools=MEMORY_TOOLS)
    openai_fake.reset()
    await run(model_for(openai_fake), "hi", name="tool-user-2", tools=MEMORY_TOOLS)
    assert "tools" in openai_fake.requests[0].body


async def test_429_with_retry_after_is_waited_for_and_retried(openai_fake: FakeOpenAI) -> None:
    openai_fake.script(Error(429, retry_after=0.3), Reply("Back."))
    started = time.monotonic()
    events = await run(model_for(openai_fake), "Hi")
    assert said(events) == "Back." and done(events).attempts == 2
    assert time.monotonic() - started >= 0.3


async def test_a_500_storm_fails_with_llm_unavailable_after_the_retries(openai_fake: FakeOpenAI) -> None:
    openai_fake.script(*[Error(500)] * 3)
    with pytest.raises(LLMUnavailable) as caught:
        await run(model_for(openai_fake, max_retries=2), "Hi")
    assert caught.value.code == "llm_unavailable" and caught.value.status == 500
    assert "answered 500 server_error" in caught.value.message and len(openai_fake.requests) == 3


async def test_a_long_retry_after_fails_at_once_saying_when(openai_fake: FakeOpenAI) -> None:
    openai_fake.script(Error(429, retry_after=30))
    with pytest.raises(LLMRateLimited) as caught:
        await run(model_for(openai_fake), "Hi")
    assert caught.value.code == "llm_rate_limited" and caught.value.retry_after == 30
    assert len(openai_fake.requests) == 1


async def test_a_refused_key_names_openai_api_key(openai_fake: FakeOpenAI) -> None:
    openai_fake.script(Error(401, message="Incorrect API key provided."))
    with pytest.raises(LLMUnavailable) as caught:
        await run(model_for(openai_fake), "Hi")
    assert caught.value.code == "llm_auth_failed" and "OPENAI_API_KEY" in caught.value.message


async def test_a_server_that_never_answers_fails_within_the_total_budget(openai_fake: FakeOpenAI) -> None:
    openai_fake.hang_on("HANG")
    started = time.monotonic()
    with pytest.raises(LLMUnavailable) as caught:
        await run(model_for(openai_fake, read_timeout=0.5, total_timeout=2.0), "HANG please")
    assert caught.value.code == "llm_timeout" and time.monotonic() - started < 6


async def test_a_stream_that_stops_mid_reply_fails_without_a_retry(openai_fake: FakeOpenAI) -> None:
    openai_fake.script(Hang(after_chunks=2, text="a reply that stops half way"))
    with pytest.raises(LLMUnavailable) as caught:
        await run(model_for(openai_fake, read_timeout=0.5), "Hi")
    assert caught.value.code == "llm_timeout" and len(openai_fake.requests) == 1


async def test_issue_30_a_model_that_refuses_pictures_answers_with_placeholders_and_is_remembered(
    openai_fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 30: pictures go as image_url parts with the same bytes; a text-only model's refusal
    is asked again at once with the placeholder, and from then on the model says it cannot see
    (so the service sends placeholders and tells each chat once)."""
    import base64

    from adapters.llm import openai as adapter
    from engine.images import Image
    from tests.fixtures.pictures import png

    monkeypatch.setattr(adapter, "_BLIND", set())
    data = png(64, 48)
    seen = Prompt(
        messages=(
            PromptMessage(role="system", text="You are Ember.", slot="persona"),
            PromptMessage(
                role="user",
                text="What is this?",
                slot="window",
                images=(Image(media_type="image/png", data=data, width=64, height=48),),
            ),
        ),
        stable_count=1,
    )
    model = model_for(openai_fake)
    assert model.vision
    try:
        events = [e async for e in model.stream(seen, ModelSettings(name="gpt-test"), "Ember")]
        picture = openai_fake.requests[0].body["messages"][-1]["content"][0]
        assert base64.b64decode(picture["image_url"]["url"].partition(",")[2]) == data
        openai_fake.reset()
        openai_fake.no_images = True
        events = [e async for e in model.stream(seen, ModelSettings(name="text-only"), "Ember")]
    finally:
        await model.client.close()
    assert said(events) and done(events).stop_reason == "end_turn"
    refused, answered = openai_fake.requests
    assert refused.body["messages"][-1]["content"][0]["type"] == "image_url"
    assert answered.body["messages"][-1]["content"] == "[image: photo, 64×48]\nWhat is this?"
    assert not model.vision
