"""A hung or rate-limiting provider against the real web process (PRM-2, PLT-6, issue 29).

The web process runs against the fake Anthropic server with short time limits (read timeout
1 s, total budget 4 s, ``Retry-After`` cap 2 s), so a turn that used to hang for minutes fails
in seconds here. A hung turn must fail with the error the person sees for any provider failure,
free its chat for the next message (answered, not ``chat_busy``), and leave other chats alone.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Iterator

import httpx
import pytest

from tests.e2e.api_client import HearthClient
from tests.fakes.anthropic_server import Error, FakeAnthropic, Reply
from tests.fixtures.servers import RedisServer, WebApp, _claude_env

pytestmark = pytest.mark.e2e

BUDGET = 4.0  # HEARTH_LLM_TOTAL_TIMEOUT below
SLACK = 10.0  # a loaded 2-core machine: far below the 120 s per attempt a hang used to take


@pytest.fixture(scope="module")
def hasty_app(
    redis_server: RedisServer, fake_anthropic: FakeAnthropic, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[WebApp]:
    env = _claude_env(redis_server, fake_anthropic) | {
        "HEARTH_LLM_CONNECT_TIMEOUT": "2",
        "HEARTH_LLM_READ_TIMEOUT": "1",
        "HEARTH_LLM_TOTAL_TIMEOUT": f"{BUDGET:g}",
        "HEARTH_LLM_RETRY_AFTER_CAP": "2",
    }
    app = WebApp(env, tmp_path_factory.mktemp("hasty") / "web.log", redis=redis_server)
    yield app
    app.stop()


@pytest.fixture
async def api(hasty_app: WebApp) -> AsyncIterator[HearthClient]:
    client = HearthClient(hasty_app.base_url)
    yield client
    await client.close()


def room() -> str:
    return f"room-{secrets.token_hex(4)}"


def calls(fake: FakeAnthropic) -> int:
    return len([r for r in fake.requests if r.path == "/v1/messages"])


async def timed(send: Awaitable[httpx.Response]) -> tuple[httpx.Response, float]:
    started = time.monotonic()
    result = await send
    return result, time.monotonic() - started


async def test_a_hung_provider_fails_the_turn_within_the_budget_and_frees_the_chat(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    """Issue 29: a hang froze the chat 120 s per attempt and the next message got 409 at 333 s."""
    anthropic_fake.hang_on("HANG-29")  # this message's every attempt is accepted, never answered
    chat, other = room(), room()
    started = time.monotonic()
    hung = asyncio.create_task(api.send(chat, "HANG-29 are you there?"))
    await asyncio.sleep(0.5)
    after = asyncio.create_task(api.send(chat, "Second try, same chat."))
    elsewhere = await api.send(other, "Meanwhile, in another chat.")
    elsewhere_at = time.monotonic() - started
    first = await hung
    first_at = time.monotonic() - started
    second = await after

    assert first.status_code == 502, first.text
    error = first.json()["error"]
    assert error["code"] == "llm_timeout" and "saved" in error["message"]
    assert 1.0 <= first_at < BUDGET + SLACK  # at least one read timeout, at most the budget
    assert second.status_code == 200, second.text  # answered once the hung turn gave up, no 409
    assert second.json()["reply"].endswith("Second try, same chat.")
    assert elsewhere.status_code == 200 and elsewhere_at < first_at  # another chat kept answering
    log = await api.turn(chat, error["turn"])
    assert log["status"] == "failed" and log["request"]["error"]
    assert "HANG-29 are you there?" in [m["text"] for m in await api.history(chat)]


async def test_a_stream_that_stops_mid_reply_fails_after_the_read_timeout(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    """The provider stops sending mid-reply: the turn fails at the read timeout, not in minutes."""
    anthropic_fake.hang_on("STALL-29", after_chunks=2)
    chat = room()
    response, took = await timed(api.send(chat, "STALL-29 tell me a long story"))
    assert response.status_code == 502
    assert response.json()["error"]["code"] == "llm_timeout"
    assert took < BUDGET + SLACK
    assert calls(anthropic_fake) == 1  # text had reached the person: never sent twice
    again = await api.send(chat, "Are you back?")
    assert again.status_code == 200


async def test_retry_after_within_the_cap_is_honoured(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    anthropic_fake.script(Error(status=429, retry_after=1), Reply(text="Thanks for waiting."))
    response, took = await timed(api.send(room(), "Hello?"))
    assert response.status_code == 200
    assert response.json()["reply"] == "Thanks for waiting."
    assert took >= 1.0 and calls(anthropic_fake) == 2


async def test_retry_after_above_the_cap_fails_fast_with_a_clear_error(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    """Issue 29: a 429 with ``Retry-After: 20`` took 60 s to fail; now at once, saying when."""
    anthropic_fake.script(*[Error(status=429, retry_after=20)] * 3)
    chat = room()
    response, took = await timed(api.send(chat, "Hello?"))
    assert response.status_code == 502
    error = response.json()["error"]
    assert error["code"] == "llm_rate_limited" and "20 s" in error["message"] and "saved" in error["message"]
    assert took < SLACK and calls(anthropic_fake) == 1
