"""Contract: the real ``anthropic`` SDK talks to :class:`FakeAnthropic` as to the real API.

If the SDK (or the fake) drifts, these tests fail before Hearth's adapter tests go green
against a fake that no longer speaks the protocol.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx
import pytest
from anthropic.types import MessageParam, TextBlockParam, ToolParam

from tests.fakes.anthropic_server import Error, FakeAnthropic, Hang, Reply, StreamError, ToolUse

MODEL = "claude-sonnet-5"
HI: list[MessageParam] = [{"role": "user", "content": "hi"}]
HEADERS = {"x-api-key": "test-key", "anthropic-version": "2023-06-01"}
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def server() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as fake:
        yield fake


@pytest.fixture
def fake(server: FakeAnthropic) -> FakeAnthropic:
    server.reset()
    return server


@pytest.fixture
async def client(fake: FakeAnthropic) -> AsyncIterator[anthropic.AsyncAnthropic]:
    async with anthropic.AsyncAnthropic(api_key="test-key", base_url=fake.base_url, max_retries=0) as sdk:
        yield sdk


async def raw_post(fake: FakeAnthropic, path: str, body: Any, **headers: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=fake.base_url) as http:
        return await http.post(path, json=body, headers=headers or HEADERS)


async def test_stream_text_arrives_in_several_deltas(
    fake: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    text = "Good evening, traveller. Sit by the fire."
    fake.script(Reply(text, chunk_size=6))
    async with client.messages.stream(model=MODEL, max_tokens=256, messages=HI) as stream:
        deltas = [delta async for delta in stream.text_stream]
        final = await stream.get_final_message()
    assert len(deltas) == math.ceil(len(text) / 6)
    assert "".join(deltas) == text == final.content[0].text  # type: ignore[union-attr]
    assert final.stop_reason == "end_turn"
    assert final.id == "msg_fake_1" and final.model == MODEL
    assert final.usage.input_tokens == 1 and final.usage.output_tokens == math.ceil(len(text) / 4)
    assert final.usage.cache_creation_input_tokens == final.usage.cache_read_input_tokens == 0
    (seen,) = fake.requests
    assert seen.stream and seen.path == "/v1/messages" and seen.body["messages"] == HI
    assert seen.headers["authorization"] == "Bearer test-key"


async def test_default_reply_echoes_the_last_user_message(
    fake: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    messages: list[MessageParam] = [
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": [{"type": "text", "text": "x" * 300}]},
    ]
    reply = await client.messages.create(model=MODEL, max_tokens=500, messages=messages)
    assert reply.content[0].text == "Fake Claude heard: " + "x" * 200  # type: ignore[union-attr]
    assert reply.stop_reason == "end_turn" and not fake.requests[0].stream


async def test_max_tokens_cuts_the_reply(fake: FakeAnthropic, client: anthropic.AsyncAnthropic) -> None:
    fake.script(Reply("y" * 100))
    reply = await client.messages.create(model=MODEL, max_tokens=5, messages=HI)
    assert reply.content[0].text == "y" * 20  # type: ignore[union-attr]
    assert reply.stop_reason == "max_tokens" and reply.usage.output_tokens == 5


async def test_scripted_529_raises_overloaded(fake: FakeAnthropic, client: anthropic.AsyncAnthropic) -> None:
    fake.script(Error(529))
    with pytest.raises(anthropic.InternalServerError) as caught:
        await client.messages.create(model=MODEL, max_tokens=10, messages=HI)
    assert isinstance(caught.value, anthropic.APIStatusError)
    assert caught.value.status_code == 529 and caught.value.type == "overloaded_error"
    assert caught.value.api_message == "Overloaded"
    assert (caught.value.request_id or "").startswith("req_fake_")


async def test_sdk_retries_a_529_then_succeeds(fake: FakeAnthropic) -> None:
    fake.script(Error(529, retry_after=0.01), Reply("back again"))
    async with anthropic.AsyncAnthropic(api_key="test-key", base_url=fake.base_url, max_retries=1) as sdk:
        reply = await sdk.messages.create(model=MODEL, max_tokens=10, messages=HI)
    assert reply.content[0].text == "back again"  # type: ignore[union-attr]
    first, second = fake.requests
    assert first.headers["x-stainless-retry-count"] == "0"
    assert second.headers["x-stainless-retry-count"] == "1"


async def test_rate_limit_carries_retry_after(fake: FakeAnthropic, client: anthropic.AsyncAnthropic) -> None:
    fake.script(Error(429, retry_after=7))
    with pytest.raises(anthropic.RateLimitError) as caught:
        await client.messages.create(model=MODEL, max_tokens=10, messages=HI)
    assert caught.value.response.headers["retry-after"] == "7"
    assert caught.value.type == "rate_limit_error"


async def test_tool_use_streams_its_input_as_json_deltas(
    fake: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    args = {"city": "Hà Nội", "days": 3, "tags": ["tea", "rain"]}
    fake.script(Reply("Let me look.", tool_uses=(ToolUse("forecast", args, id="toolu_1"),)))
    tool: ToolParam = {"name": "forecast", "input_schema": {"type": "object"}}
    async with client.messages.stream(model=MODEL, max_tokens=256, messages=HI, tools=[tool]) as stream:
        kinds = [event.delta.type async for event in stream if event.type == "content_block_delta"]
        final = await stream.get_final_message()
    assert kinds.count("input_json_delta") > 2 and kinds[0] == "text_delta"
    text, use = final.content
    assert text.type == "text" and text.text == "Let me look."
    assert use.type == "tool_use" and (use.id, use.name, use.input) == ("toolu_1", "forecast", args)
    assert final.stop_reason == "tool_use"


async def test_sse_wire_format_is_the_exact_event_sequence(fake: FakeAnthropic) -> None:
    fake.script(Reply("abcdefgh", chunk_size=4))
    body = {"model": MODEL, "max_tokens": 50, "messages": HI, "stream": True}
    response = await raw_post(fake, "/v1/messages", body)
    assert response.headers["content-type"].startswith("text/event-stream")
    frames = [frame.split("\n") for frame in response.text.strip().split("\n\n")]
    events = [(lines[0].removeprefix("event: "), json.loads(lines[1][6:])) for lines in frames]
    assert [name for name, _ in events] == [
        "message_start", "content_block_start", "ping", "content_block_delta",
        "content_block_delta", "content_block_stop", "message_delta", "message_stop",
    ]  # fmt: skip
    assert all(data["type"] == name for name, data in events)
    started = events[0][1]["message"]
    assert started["content"] == [] and started["stop_reason"] is None
    assert events[6][1]["delta"]["stop_reason"] == "end_turn"


async def test_delay_paces_the_deltas(fake: FakeAnthropic, client: anthropic.AsyncAnthropic) -> None:
    fake.script(Reply("abcdefgh", chunk_size=2, delay=0.05))
    arrivals = []
    asked = time.monotonic()
    async with client.messages.stream(model=MODEL, max_tokens=50, messages=HI) as stream:
        async for _ in stream.text_stream:
            arrivals.append(time.monotonic())
    # three pauses of 50 ms before the last delta leaves the server; measured from the request, so
    # a client that reads the first deltas late (a loaded machine) cannot make it look faster
    assert len(arrivals) == 4 and arrivals[-1] - asked >= 0.15


async def test_stop_sequence_cuts_the_reply(fake: FakeAnthropic, client: anthropic.AsyncAnthropic) -> None:
    fake.script(Reply("Once upon a time. THE END. Epilogue"))
    reply = await client.messages.create(
        model=MODEL, max_tokens=50, messages=HI, stop_sequences=["THE END", "never"]
    )
    assert reply.content[0].text == "Once upon a time. "  # type: ignore[union-attr]
    assert (reply.stop_reason, reply.stop_sequence) == ("stop_sequence", "THE END")


async def test_stream_error_on_a_plain_request_is_an_http_error(
    fake: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    fake.script(StreamError())
    with pytest.raises(anthropic.OverloadedError):
        await client.messages.create(model=MODEL, max_tokens=10, messages=HI)


async def test_stream_error_arrives_after_some_deltas(
    fake: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    fake.script(StreamError(after_chunks=2, text="a long answer that never ends", chunk_size=4))
    deltas: list[str] = []
    with pytest.raises(anthropic.APIStatusError) as caught:
        async with client.messages.stream(model=MODEL, max_tokens=99, messages=HI) as stream:
            async for delta in stream.text_stream:
                deltas.append(delta)
    assert deltas == ["a lo", "ng a"]
    assert caught.value.type == "overloaded_error"


async def test_cache_control_creates_then_reads_the_same_prefix(
    fake: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    persona = "You are Mira, the innkeeper. " * 20
    system: list[TextBlockParam] = [{"type": "text", "text": persona, "cache_control": {"type": "ephemeral"}}]
    usages = []
    for said in ("hello", "tell me a story please"):
        messages: list[MessageParam] = [{"role": "user", "content": said}]
        reply = await client.messages.create(model=MODEL, max_tokens=50, system=system, messages=messages)
        usages.append(reply.usage)
    prefix_tokens = math.ceil(len(persona) / 4)
    assert (usages[0].cache_creation_input_tokens, usages[0].cache_read_input_tokens) == (
        prefix_tokens,
        0,
    )
    assert (usages[1].cache_creation_input_tokens, usages[1].cache_read_input_tokens) == (
        0,
        prefix_tokens,
    )
    assert usages[1].input_tokens == math.ceil((len(persona) + 22) / 4) - prefix_tokens
    first, second = fake.requests
    assert first.cache_prefix is not None and first.cache_prefix == second.cache_prefix


async def test_cache_reads_an_earlier_breakpoint_when_the_last_one_moves(
    fake: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    opening: TextBlockParam = {"type": "text", "text": "a" * 400}
    marked: TextBlockParam = {**opening, "cache_control": {"type": "ephemeral"}}
    question: TextBlockParam = {**marked, "text": "c" * 80}
    turn1: list[MessageParam] = [{"role": "user", "content": [marked]}]
    turn2: list[MessageParam] = [
        {"role": "user", "content": [opening]},
        {"role": "assistant", "content": "b" * 40},
        {"role": "user", "content": [question]},
    ]
    await client.messages.create(model=MODEL, max_tokens=5, messages=turn1)
    reply = await client.messages.create(model=MODEL, max_tokens=5, messages=turn2)
    assert reply.usage.cache_read_input_tokens == 100
    assert reply.usage.cache_creation_input_tokens == 30 and reply.usage.input_tokens == 0


@pytest.mark.parametrize(
    ("messages", "wording"),
    [
        ([{"role": "assistant", "content": "hi"}], "first message must use the"),
        ([*HI, {"role": "user", "content": "again"}], "roles must alternate"),
        ([{"role": "tool", "content": "hi"}], "Input should be 'user' or 'assistant'"),
        ([{"role": "user", "content": ""}], "must have non-empty content"),
        (
            [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t9"}]}],
            "unexpected `tool_use_id`",
        ),
    ],
)
async def test_invalid_messages_raise_bad_request(
    fake: FakeAnthropic, client: anthropic.AsyncAnthropic, messages: Any, wording: str
) -> None:
    fake.script(Reply("never sent"))
    with pytest.raises(anthropic.BadRequestError, match=wording) as caught:
        await client.messages.create(model=MODEL, max_tokens=10, messages=messages)
    assert caught.value.type == "invalid_request_error"
    assert fake.requests[-1].cache_prefix is None


async def test_count_tokens_uses_the_same_estimate(
    fake: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    counted = await client.messages.count_tokens(
        model=MODEL, system="s" * 41, messages=[{"role": "user", "content": "hello world"}]
    )
    assert counted.input_tokens == math.ceil((41 + 11) / 4)
    assert fake.requests[0].path == "/v1/messages/count_tokens"


@pytest.mark.parametrize(
    ("body", "wording"),
    [
        ({"model": MODEL, "messages": HI}, "max_tokens: Field required"),
        ({"max_tokens": 5, "messages": HI}, "model: Field required"),
        ({"model": MODEL, "max_tokens": 0, "messages": HI}, "max_tokens: Input should be"),
        ({"model": MODEL, "max_tokens": 5, "messages": []}, "messages: at least one"),
        ({"model": MODEL, "max_tokens": 5, "messages": HI, "prompt": "x"}, "prompt: Extra"),
    ],
)
async def test_body_validation_names_the_field(
    fake: FakeAnthropic, body: dict[str, Any], wording: str
) -> None:
    response = await raw_post(fake, "/v1/messages", body)
    assert response.status_code == 400
    error = response.json()
    assert error["type"] == "error" and error["error"]["type"] == "invalid_request_error"
    assert wording in error["error"]["message"]
    assert error["request_id"] == response.headers["request-id"]


async def test_missing_key_is_401_and_unknown_path_is_404(fake: FakeAnthropic) -> None:
    body = {"model": MODEL, "max_tokens": 5, "messages": HI}
    unauthorised = await raw_post(fake, "/v1/messages", body, **{"anthropic-version": "x"})
    assert unauthorised.status_code == 401
    assert unauthorised.json()["error"]["type"] == "authentication_error"
    missing = await raw_post(fake, "/v1/nothing", body)
    assert missing.status_code == 404 and missing.json()["error"]["type"] == "not_found_error"


async def test_a_configured_key_must_match() -> None:
    body = {"model": MODEL, "max_tokens": 5, "messages": HI}
    with FakeAnthropic(api_key="right") as strict:
        wrong = await raw_post(strict, "/v1/messages", body)
        right = await raw_post(strict, "/v1/messages", body, **{**HEADERS, "x-api-key": "right"})
    assert wrong.status_code == 401 and wrong.json()["error"]["message"] == "invalid x-api-key"
    assert right.status_code == 200


async def test_control_endpoints_drive_the_fake_out_of_process(
    fake: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    async with httpx.AsyncClient(base_url=fake.base_url) as http:
        queued = await http.post("/_fake/script", json=[{"kind": "error", "status": 429}])
        assert queued.json() == {"queued": 1}
        with pytest.raises(anthropic.RateLimitError):
            await client.messages.create(model=MODEL, max_tokens=5, messages=HI)
        (listed,) = (await http.get("/_fake/requests")).json()
        assert listed["body"]["messages"] == HI and listed["stream"] is False
        await http.post("/_fake/reset")
        assert (await http.get("/_fake/requests")).json() == []


def test_standalone_server_prints_its_url_and_serves() -> None:
    command = [sys.executable, "-m", "tests.fakes.anthropic_server", "--port", "0"]
    with subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, text=True) as process:
        try:
            assert process.stdout is not None
            base_url = process.stdout.readline().strip()
            assert httpx.get(f"{base_url}/_fake/requests").json() == []
        finally:
            process.terminate()
    assert process.returncode == 0


async def test_hang_accepts_and_never_answers_until_reset(fake: FakeAnthropic) -> None:
    """``Hang()``: no status line at all; ``reset()`` lets the request go (its connection closed)."""
    fake.script(Hang(), Reply("after the hang"))
    body = {"model": MODEL, "max_tokens": 64, "messages": HI}
    with pytest.raises(httpx.ReadTimeout):
        async with httpx.AsyncClient(base_url=fake.base_url, timeout=httpx.Timeout(5, read=0.5)) as http:
            await http.post("/v1/messages", json=body, headers=HEADERS)
    answered = await raw_post(fake, "/v1/messages", body)
    assert answered.json()["content"][0]["text"] == "after the hang"
    fake.reset()


async def test_hang_on_a_marker_stalls_the_stream_after_some_deltas(
    fake: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    """``hang_on(marker, after_chunks=2)``: two deltas, then silence on an open stream, each time."""
    fake.hang_on("STALL", after_chunks=2)
    for _ in range(2):
        said: list[str] = []
        with pytest.raises(anthropic.APITimeoutError):
            async with client.with_options(timeout=anthropic.Timeout(5, read=0.5)).messages.stream(
                model=MODEL, max_tokens=256, messages=[{"role": "user", "content": "STALL now, tell a story"}]
            ) as stream:
                async for delta in stream.text_stream:
                    said.append(delta)
        assert len(said) == 2
    async with client.messages.stream(model=MODEL, max_tokens=64, messages=HI) as stream:
        assert await stream.get_final_text() == "Fake Claude heard: hi"
    fake.reset()
