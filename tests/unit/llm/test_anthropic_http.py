"""The Claude adapter over the Messages API's HTTP stream, against the fake Anthropic server
(PRM-2, PRM-3, LLM-1; issue 32: no SDK in the process): the streamed text, the usage and stop
reason, a tool call assembled from its JSON deltas, the request as the API documents it, and
each failure translated into Hearth's errors (overloaded retried, a refused key not, an error
event after text not retried)."""

from __future__ import annotations

import msgspec
import pytest

from adapters.llm.anthropic import API_VERSION, AnthropicChatModel
from config.settings import LlmSettings, Secret
from engine.errors import LLMRateLimited, LLMUnavailable
from engine.model import ModelSettings
from engine.ports import ModelDone, ModelEvent, TextDelta
from engine.tools import ToolCall, ToolSpec
from tests.fakes.anthropic_server import Error, FakeAnthropic, Reply, StreamError, ToolUse
from tests.unit.llm.test_anthropic_time_limits import prompt

KEY = "sk-ant-http-test"


class Note(msgspec.Struct):
    text: str


@pytest.fixture
def claude(anthropic_fake: FakeAnthropic) -> FakeAnthropic:
    return anthropic_fake


async def run(fake: FakeAnthropic, text: str, tools: tuple[ToolSpec, ...] = ()) -> list[ModelEvent]:
    settings = LlmSettings(
        api_key=Secret(KEY),
        base_url=fake.base_url + "/",
        connect_timeout=2.0,
        read_timeout=5.0,
        total_timeout=20.0,
    )
    model = AnthropicChatModel.from_settings(settings)
    model.attempts._base = 0.01  # retries back off for 10-20 ms here
    events: list[ModelEvent] = []
    try:
        async for event in model.stream(prompt(text), ModelSettings(name="claude-test"), "Ember", tools):
            events.append(event)
    finally:
        await model.aclose()
    return events


def said(events: list[ModelEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


async def test_the_reply_streams_with_its_usage_and_stop_reason(claude: FakeAnthropic) -> None:
    """Text deltas in order, then one ``ModelDone`` with the fake's usage (input, cache write
    and read, output) and stop reason; the request is the documented one: POST /v1/messages with
    the key (as a bearer token, as the SDK sends it), the API version and ``stream: true``."""
    claude.script(Reply(text="Hello there, traveller.", chunk_size=5, stop_reason="max_tokens"))
    events = await run(claude, "hi")
    assert said(events) == "Hello there, traveller."
    assert sum(isinstance(e, TextDelta) for e in events) == 5
    done = events[-1]
    assert isinstance(done, ModelDone)
    assert done.stop_reason == "max_tokens"
    assert done.usage.input_tokens + done.usage.cache_creation_input_tokens > 0
    assert done.usage.output_tokens > 0
    assert done.attempts == 1
    (request,) = [r for r in claude.requests if r.path == "/v1/messages"]
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["anthropic-version"] == API_VERSION
    assert request.stream is True
    assert request.body["model"] == "claude-test"
    assert request.body["messages"][-1]["content"][-1]["text"] == "hi"


async def test_a_tool_call_is_assembled_from_its_json_deltas(claude: FakeAnthropic) -> None:
    """The fake's ``tool_use`` block becomes one ``ToolCall`` with the whole JSON input."""
    claude.script(Reply(text="Let me note that.", tool_uses=(ToolUse("note", {"text": "pears"}, id="tu_1"),)))
    tools = (ToolSpec(name="note", description="Write a note.", input_type=Note),)
    events = await run(claude, "remember pears", tools)
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert [(c.id, c.name, msgspec.json.decode(c.arguments)) for c in calls] == [
        ("tu_1", "note", {"text": "pears"})
    ]
    assert said(events) == "Let me note that."


async def test_overloaded_is_retried_then_answers(claude: FakeAnthropic) -> None:
    """A 529 before the stream starts is retried (PRM-2); the second attempt answers."""
    claude.script(Error(529), Reply(text="fine now"))
    events = await run(claude, "hello?")
    assert said(events) == "fine now"
    done = events[-1]
    assert isinstance(done, ModelDone) and done.attempts == 2


async def test_a_refused_key_fails_at_once_naming_the_variable(claude: FakeAnthropic) -> None:
    """401: ``llm_auth_failed``, no retry, the message names ANTHROPIC_API_KEY, never the key."""
    claude.script(Error(401))
    with pytest.raises(LLMUnavailable) as caught:
        await run(claude, "hello?")
    assert caught.value.code == "llm_auth_failed"
    assert "ANTHROPIC_API_KEY" in caught.value.message and KEY not in caught.value.message
    assert len([r for r in claude.requests if r.path == "/v1/messages"]) == 1


async def test_rate_limited_always_fails_with_retry_after(claude: FakeAnthropic) -> None:
    """429 on every attempt with a short Retry-After: retried, then ``llm_rate_limited``."""
    claude.script(*[Error(429, retry_after=0.01)] * 5)
    with pytest.raises(LLMRateLimited) as caught:
        await run(claude, "hello?")
    assert caught.value.code == "llm_rate_limited"
    assert caught.value.status == 429


async def test_an_error_event_after_text_fails_without_a_retry(claude: FakeAnthropic) -> None:
    """``event: error`` after two deltas: the text already shown is not sent twice, the call
    fails as overloaded and is not retried."""
    claude.script(StreamError(after_chunks=2, text="one two three four five", chunk_size=4))
    seen: list[ModelEvent] = []
    settings = LlmSettings(
        api_key=Secret(KEY), base_url=claude.base_url, read_timeout=5.0, total_timeout=20.0
    )
    model = AnthropicChatModel.from_settings(settings)
    with pytest.raises(LLMRateLimited) as caught:
        async for event in model.stream(prompt("go"), ModelSettings(name="claude-test"), "Ember"):
            seen.append(event)
    await model.aclose()
    assert caught.value.code == "llm_overloaded"
    assert said(seen) == "one two "
    assert len([r for r in claude.requests if r.path == "/v1/messages"]) == 1


async def test_an_unreachable_server_fails_as_unavailable() -> None:
    """Nothing listens: a connection error, retried, then ``llm_unavailable`` saying so."""
    settings = LlmSettings(
        api_key=Secret(KEY),
        base_url="http://127.0.0.1:9",
        max_retries=1,
        connect_timeout=1.0,
        total_timeout=10.0,
    )
    model = AnthropicChatModel.from_settings(settings)
    model.attempts._base = 0.01
    with pytest.raises(LLMUnavailable) as caught:
        async for _ in model.stream(prompt("go"), ModelSettings(name="claude-test"), "Ember"):
            pass
    await model.aclose()
    assert caught.value.code == "llm_unavailable"
    assert "could not be reached" in caught.value.message
