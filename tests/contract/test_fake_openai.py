"""Contract: the real ``openai`` SDK talks to :class:`FakeOpenAI` as to an OpenAI-compatible server.

If the SDK (or the fake) drifts, these tests fail before Hearth's adapter tests go green
against a fake that no longer speaks the protocol (LLM-1, issue 30).
"""

from __future__ import annotations

import asyncio
import json
import math
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolParam

from tests.fakes.openai_server import (
    Error,
    FakeOpenAI,
    Hang,
    Reply,
    StreamError,
    ToolCallReply,
    no_tools_message,
)

MODEL = "gpt-test"
HI: list[ChatCompletionMessageParam] = [{"role": "user", "content": "hi"}]
TOOL: ChatCompletionToolParam = {
    "type": "function",
    "function": {"name": "forecast", "parameters": {"type": "object"}},
}
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def fake(server: FakeOpenAI) -> FakeOpenAI:
    server.reset()
    return server


@pytest.fixture
async def client(fake: FakeOpenAI) -> AsyncIterator[openai.AsyncOpenAI]:
    async with openai.AsyncOpenAI(api_key="test-key", base_url=f"{fake.base_url}/v1", max_retries=0) as sdk:
        yield sdk


async def collect(stream: Any) -> tuple[list[str], list[Any]]:
    """The text deltas and every chunk of a streamed completion."""
    texts, seen = [], []
    async for chunk in stream:
        seen.append(chunk)
        for choice in chunk.choices:
            if choice.delta.content:
                texts.append(choice.delta.content)
    return texts, seen


async def test_stream_text_arrives_in_several_deltas_with_usage_last(
    fake: FakeOpenAI, client: openai.AsyncOpenAI
) -> None:
    text = "Good evening, traveller. Sit by the fire."
    fake.script(Reply(text, chunk_size=6))
    stream = await client.chat.completions.create(
        model=MODEL, messages=HI, stream=True, stream_options={"include_usage": True}
    )
    texts, chunks = await collect(stream)
    assert len(texts) == math.ceil(len(text) / 6) and "".join(texts) == text
    assert chunks[-2].choices[0].finish_reason == "stop"
    last = chunks[-1]
    assert last.choices == [] and last.usage is not None
    assert last.usage.completion_tokens == math.ceil(len(text) / 4) and last.usage.prompt_tokens > 0
    assert last.usage.prompt_tokens_details is not None
    assert last.usage.prompt_tokens_details.cached_tokens == 0
    (seen,) = fake.requests
    assert seen.stream and seen.path == "/v1/chat/completions" and seen.body["messages"] == HI
    assert seen.headers["authorization"] == "Bearer test-key"


async def test_without_include_usage_no_usage_chunk(fake: FakeOpenAI, client: openai.AsyncOpenAI) -> None:
    stream = await client.chat.completions.create(model=MODEL, messages=HI, stream=True)
    _, chunks = await collect(stream)
    assert all(c.usage is None for c in chunks) and chunks[-1].choices[0].finish_reason == "stop"


async def test_default_reply_echoes_the_last_user_message(
    fake: FakeOpenAI, client: openai.AsyncOpenAI
) -> None:
    messages: list[ChatCompletionMessageParam] = [
        {"role": "system", "content": "You are Ember."},
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": [{"type": "text", "text": "x" * 300}]},
    ]
    reply = await client.chat.completions.create(model=MODEL, messages=messages)
    assert reply.choices[0].message.content == "Fake model heard: " + "x" * 200
    assert reply.choices[0].finish_reason == "stop" and not fake.requests[0].stream


async def test_token_limits_cut_the_reply(fake: FakeOpenAI, client: openai.AsyncOpenAI) -> None:
    fake.script(Reply("y" * 100), Reply("z" * 100))
    one = await client.chat.completions.create(model=MODEL, messages=HI, max_tokens=5)
    two = await client.chat.completions.create(model=MODEL, messages=HI, max_completion_tokens=3)
    assert one.choices[0].message.content == "y" * 20 and one.choices[0].finish_reason == "length"
    assert two.choices[0].message.content == "z" * 12


async def test_tool_calls_stream_their_arguments_in_pieces(
    fake: FakeOpenAI, client: openai.AsyncOpenAI
) -> None:
    args = {"city": "Hà Nội", "days": 3, "tags": ["tea", "rain"]}
    fake.script(
        Reply("Let me look.", tool_calls=(ToolCallReply("forecast", args, id="call_1"),), chunk_size=5)
    )
    stream = await client.chat.completions.create(model=MODEL, messages=HI, tools=[TOOL], stream=True)
    texts, chunks = await collect(stream)
    pieces = [tc for c in chunks for ch in c.choices for tc in ch.delta.tool_calls or ()]
    assert "".join(texts) == "Let me look." and len(pieces) > 3
    assert (
        pieces[0].id == "call_1" and pieces[0].function is not None and pieces[0].function.name == "forecast"
    )
    arguments = "".join(p.function.arguments or "" for p in pieces if p.function is not None)
    assert json.loads(arguments) == args and {p.index for p in pieces} == {0}
    assert chunks[-1].choices[0].finish_reason == "tool_calls"


async def test_a_plain_tool_call_reply_and_its_answer(fake: FakeOpenAI, client: openai.AsyncOpenAI) -> None:
    fake.script(Reply("", tool_calls=(ToolCallReply("forecast", {"days": 1}),)))
    first = await client.chat.completions.create(model=MODEL, messages=HI, tools=[TOOL])
    (call,) = first.choices[0].message.tool_calls or []
    assert first.choices[0].message.content is None and first.choices[0].finish_reason == "tool_calls"
    then: list[ChatCompletionMessageParam] = [
        *HI,
        {"role": "assistant", "content": None, "tool_calls": [call.model_dump()]},  # type: ignore[list-item]
        {"role": "tool", "tool_call_id": call.id, "content": "sunny"},
    ]
    second = await client.chat.completions.create(model=MODEL, messages=then, tools=[TOOL])
    assert second.choices[0].message.content == "Fake model heard: sunny"


async def test_a_tool_message_that_answers_no_call_is_400(
    fake: FakeOpenAI, client: openai.AsyncOpenAI
) -> None:
    messages: list[ChatCompletionMessageParam] = [
        *HI,
        {"role": "tool", "tool_call_id": "nope", "content": "x"},
    ]
    with pytest.raises(openai.BadRequestError) as caught:
        await client.chat.completions.create(model=MODEL, messages=messages)
    assert "role 'tool'" in caught.value.message


async def test_no_tools_mode_refuses_tools_like_ollama(fake: FakeOpenAI, client: openai.AsyncOpenAI) -> None:
    fake.no_tools = True
    with pytest.raises(openai.BadRequestError) as caught:
        await client.chat.completions.create(model=MODEL, messages=HI, tools=[TOOL], stream=True)
    assert caught.value.status_code == 400 and no_tools_message(MODEL) in caught.value.message
    plain = await client.chat.completions.create(model=MODEL, messages=HI)
    assert plain.choices[0].message.content == "Fake model heard: hi"
    fake.reset()
    assert fake.no_tools is False


async def test_errors_carry_status_type_and_retry_after(fake: FakeOpenAI, client: openai.AsyncOpenAI) -> None:
    fake.script(Error(429, retry_after=7), Error(500), Error(401, message="Incorrect API key provided."))
    with pytest.raises(openai.RateLimitError) as limited:
        await client.chat.completions.create(model=MODEL, messages=HI)
    assert limited.value.response.headers["retry-after"] == "7" and limited.value.type == "rate_limit_error"
    with pytest.raises(openai.InternalServerError) as broken:
        await client.chat.completions.create(model=MODEL, messages=HI)
    assert broken.value.status_code == 500 and broken.value.type == "server_error"
    with pytest.raises(openai.AuthenticationError):
        await client.chat.completions.create(model=MODEL, messages=HI)


async def test_sdk_retries_a_500_then_succeeds(fake: FakeOpenAI) -> None:
    fake.script(Error(500, retry_after=0.01), Reply("back again"))
    async with openai.AsyncOpenAI(api_key="k", base_url=f"{fake.base_url}/v1", max_retries=1) as sdk:
        reply = await sdk.chat.completions.create(model=MODEL, messages=HI)
    assert reply.choices[0].message.content == "back again"
    first, second = fake.requests
    assert (
        first.headers["x-stainless-retry-count"] == "0" and second.headers["x-stainless-retry-count"] == "1"
    )


async def test_an_error_chunk_mid_stream_raises_in_the_sdk(
    fake: FakeOpenAI, client: openai.AsyncOpenAI
) -> None:
    fake.script(StreamError(after_chunks=2, text="a long answer that never ends", chunk_size=4))
    texts: list[str] = []
    with pytest.raises(openai.APIError) as caught:
        stream = await client.chat.completions.create(model=MODEL, messages=HI, stream=True)
        async for chunk in stream:
            texts += [c.delta.content for c in chunk.choices if c.delta.content]
    assert texts == ["a lo", "ng a"] and "Upstream provider error" in caught.value.message


async def test_automatic_prefix_caching_reports_cached_tokens(
    fake: FakeOpenAI, client: openai.AsyncOpenAI
) -> None:
    system: ChatCompletionMessageParam = {"role": "system", "content": "You are Mira, the innkeeper. " * 20}
    usages = []
    for said in ("hello", "tell me a story please"):
        stream = await client.chat.completions.create(
            model=MODEL,
            messages=[system, {"role": "user", "content": said}],
            stream=True,
            stream_options={"include_usage": True},
        )
        _, chunks = await collect(stream)
        usages.append(chunks[-1].usage)
    first, second = usages
    assert first.prompt_tokens_details.cached_tokens == 0
    assert 0 < second.prompt_tokens_details.cached_tokens < second.prompt_tokens


async def test_sse_wire_format_ends_with_done(fake: FakeOpenAI) -> None:
    fake.script(Reply("abcdefgh", chunk_size=4))
    body = {"model": MODEL, "messages": HI, "stream": True, "stream_options": {"include_usage": True}}
    async with httpx.AsyncClient(base_url=fake.base_url) as http:
        response = await http.post("/v1/chat/completions", json=body, headers={"authorization": "Bearer k"})
    assert response.headers["content-type"].startswith("text/event-stream")
    frames = response.text.strip().split("\n\n")
    assert all(f.startswith("data: ") for f in frames) and frames[-1] == "data: [DONE]"
    chunks = [json.loads(f[6:]) for f in frames[:-1]]
    assert [c["object"] for c in chunks] == ["chat.completion.chunk"] * 5
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert [c["choices"][0]["delta"].get("content") for c in chunks[1:3]] == ["abcd", "efgh"]
    assert chunks[3]["choices"][0]["finish_reason"] == "stop" and chunks[4]["choices"] == []


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"model": MODEL, "messages": HI, "bogus": 1}, "Unrecognized request argument supplied: bogus"),
        ({"messages": HI}, "model"),
        ({"model": MODEL, "messages": []}, "at least one message"),
        ({"model": MODEL, "messages": HI, "stream_options": {"include_usage": True}}, "only allowed when"),
        ({"model": MODEL, "messages": [{"role": "robot", "content": "x"}]}, "robot"),
        ({"model": MODEL, "messages": HI, "tools": [{"type": "other"}]}, "function"),
    ],
)
async def test_body_validation_is_a_400_naming_the_problem(
    fake: FakeOpenAI, body: dict[str, Any], needle: str
) -> None:
    async with httpx.AsyncClient(base_url=fake.base_url) as http:
        response = await http.post("/v1/chat/completions", json=body, headers={"authorization": "Bearer k"})
    assert response.status_code == 400 and needle in response.json()["error"]["message"]


async def test_missing_or_wrong_key_is_401() -> None:
    with FakeOpenAI(api_key="right") as fake:
        async with httpx.AsyncClient(base_url=fake.base_url) as http:
            bare = await http.post("/v1/chat/completions", json={"model": MODEL, "messages": HI})
        async with openai.AsyncOpenAI(api_key="wrong", base_url=f"{fake.base_url}/v1", max_retries=0) as sdk:
            with pytest.raises(openai.AuthenticationError):
                await sdk.chat.completions.create(model=MODEL, messages=HI)
    assert bare.status_code == 401 and bare.json()["error"]["code"] == "invalid_api_key"


async def test_latency_delays_every_answer() -> None:
    with FakeOpenAI(latency=0.3) as fake:
        async with openai.AsyncOpenAI(api_key="k", base_url=f"{fake.base_url}/v1", max_retries=0) as sdk:
            started = time.monotonic()
            await sdk.chat.completions.create(model=MODEL, messages=HI)
    assert time.monotonic() - started >= 0.3


async def test_control_endpoints_drive_the_fake_out_of_process(
    fake: FakeOpenAI, client: openai.AsyncOpenAI
) -> None:
    async with httpx.AsyncClient(base_url=fake.base_url) as http:
        queued = await http.post("/_fake/script", json=[{"kind": "reply", "text": "scripted"}])
        assert queued.json() == {"queued": 1}
        reply = await client.chat.completions.create(model=MODEL, messages=HI)
        assert reply.choices[0].message.content == "scripted"
        listed = (await http.get("/_fake/requests")).json()
        assert listed[0]["body"]["messages"] == HI
        await http.post("/_fake/no_tools")
        assert fake.no_tools
        await http.post("/_fake/reset")
    assert fake.requests == [] and not fake.no_tools


async def test_hang_accepts_and_never_answers_until_reset(
    fake: FakeOpenAI, client: openai.AsyncOpenAI
) -> None:
    fake.script(Hang())
    call = asyncio.ensure_future(client.chat.completions.create(model=MODEL, messages=HI))
    await asyncio.sleep(0.3)
    assert not call.done() and len(fake.requests) == 1
    fake.reset()
    with pytest.raises(openai.APIConnectionError):
        await asyncio.wait_for(call, 10)


def test_standalone_server_prints_its_url_and_serves() -> None:
    command = [sys.executable, "-m", "tests.fakes.openai_server", "--port", "0"]
    with subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, text=True) as process:
        try:
            assert process.stdout is not None
            url = process.stdout.readline().strip()
            body = {"model": MODEL, "messages": HI}
            headers = {"authorization": "Bearer k"}
            answer = httpx.post(f"{url}/v1/chat/completions", json=body, headers=headers, timeout=10)
            assert answer.json()["choices"][0]["message"]["content"] == "Fake model heard: hi"
        finally:
            process.terminate()
    assert process.returncode == 0
