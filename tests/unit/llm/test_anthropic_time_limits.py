"""The Anthropic adapter's time limits against the fake Anthropic server (PRM-2, issue 29).

A hung provider fails the call within its total budget (``llm_timeout``), a stream that stops
mid-reply fails after the read timeout without a retry, a long reply that keeps streaming is not
cut by the budget, and a ``Retry-After`` is honoured up to its cap and within the budget; a
longer one fails at once and says when to try again.
"""

from __future__ import annotations

import time

import pytest

from adapters.llm.anthropic import AnthropicChatModel
from config.settings import LlmSettings, Secret
from engine.errors import LLMRateLimited, LLMUnavailable
from engine.model import ModelSettings
from engine.ports import ModelDone, TextDelta
from engine.prompt import Prompt, PromptMessage
from tests.fakes.anthropic_server import Error, FakeAnthropic, Hang, Reply


@pytest.fixture
def claude(anthropic_fake: FakeAnthropic) -> FakeAnthropic:
    """The session's fake Anthropic server, reset around the test."""
    return anthropic_fake


def _model(fake: FakeAnthropic, limits: dict[str, float]) -> AnthropicChatModel:
    settings = LlmSettings(
        api_key=Secret("sk-test"),
        base_url=fake.base_url,
        max_retries=int(limits.pop("max_retries", 3)),
        connect_timeout=2.0,
        read_timeout=limits.pop("read_timeout", 0.5),
        total_timeout=limits.pop("total_timeout", 2.0),
        retry_after_cap=limits.pop("retry_after_cap", 1.5),
    )
    return AnthropicChatModel.from_settings(settings)


def prompt(text: str) -> Prompt:
    return Prompt(
        messages=(
            PromptMessage(role="system", text="You are Ember.", slot="persona"),
            PromptMessage(role="user", text=text, slot="window"),
        ),
        stable_count=1,
    )


async def answer(fake: FakeAnthropic, text: str, **limits: float) -> tuple[str, ModelDone]:
    """The reply of a fresh adapter with these limits (its client closed afterwards)."""
    claude = _model(fake, limits)
    said, done = [], None
    try:
        async for event in claude.stream(prompt(text), ModelSettings(name="claude-test"), "Ember"):
            if isinstance(event, TextDelta):
                said.append(event.text)
            elif isinstance(event, ModelDone):
                done = event
    finally:
        await claude.aclose()
    assert done is not None
    return "".join(said), done


def calls(fake: FakeAnthropic) -> int:
    return len([r for r in fake.requests if r.path == "/v1/messages"])


async def test_a_provider_that_never_answers_fails_within_the_total_budget(claude: FakeAnthropic) -> None:
    """Issue 29: accepted and never answered, every retry too → ``llm_timeout`` by the budget."""
    claude.hang_on("HANG")
    started = time.monotonic()
    with pytest.raises(LLMUnavailable) as caught:
        await answer(claude, "HANG please", read_timeout=0.5, total_timeout=2.0)
    took = time.monotonic() - started
    assert caught.value.code == "llm_timeout"
    # silent attempts, each cut at the read timeout, until the retries or the budget run out
    # (a retry whose backoff would not fit in what is left is not started): never the SDK's 120 s
    assert 1.0 <= took < 6.0
    assert calls(claude) >= 2  # silent attempts are retried while the budget lasts


async def test_a_stream_that_stops_mid_reply_fails_after_the_read_timeout_without_retry(
    claude: FakeAnthropic,
) -> None:
    """Text already reached the person: no retry (it would repeat it), the silence fails the call."""
    claude.script(Hang(after_chunks=2, text="The fire is warm tonight, friend."))
    started = time.monotonic()
    with pytest.raises(LLMUnavailable) as caught:
        await answer(claude, "Tell me a story", read_timeout=0.7, total_timeout=20.0)
    assert caught.value.code == "llm_timeout"
    assert time.monotonic() - started < 6.0  # the read timeout, far from the 20 s budget
    assert calls(claude) == 1


async def test_a_long_reply_that_keeps_streaming_outlives_the_budget(claude: FakeAnthropic) -> None:
    """The budget bounds the wait for the reply to start; a steady stream is only bound by silence."""
    text = "The keeper counted gulls until the fog lifted over the bay."
    claude.script(Reply(text=text, chunk_size=6, delay=0.25))  # ~2.5 s of steady streaming
    started = time.monotonic()
    said, done = await answer(claude, "Tell me about the keeper", read_timeout=1.0, total_timeout=1.5)
    assert said == text and done.attempts == 1
    assert time.monotonic() - started > 1.5


async def test_a_silent_first_attempt_is_retried_and_answers(claude: FakeAnthropic) -> None:
    claude.script(Hang(), Reply(text="Here I am."))
    said, done = await answer(claude, "Hello?", read_timeout=0.5, total_timeout=10.0)
    assert said == "Here I am." and done.attempts == 2


async def test_retry_after_within_the_cap_is_honoured(claude: FakeAnthropic) -> None:
    """A 429 with ``Retry-After: 1`` (cap 1.5 s): wait that long, then the retry answers."""
    claude.script(Error(status=429, retry_after=1), Reply(text="Thanks for waiting."))
    started = time.monotonic()
    said, done = await answer(claude, "Hi", total_timeout=10.0)
    assert said == "Thanks for waiting." and done.attempts == 2
    assert time.monotonic() - started >= 1.0


@pytest.mark.parametrize(
    ("status", "wait", "budget", "cap", "code"),
    [
        (429, 20, 60.0, 10.0, "llm_rate_limited"),  # issue 29: took 60 s to fail; now one request
        (529, 3, 2.0, 5.0, "llm_overloaded"),  # within the cap, but longer than the budget left
    ],
)
async def test_retry_after_it_cannot_wait_for_fails_at_once_saying_when_to_retry(
    claude: FakeAnthropic, status: int, wait: float, budget: float, cap: float, code: str
) -> None:
    """A ``Retry-After`` above the cap, or past the budget: no wait that holds the chat."""
    claude.script(*[Error(status=status, retry_after=wait)] * 4)
    started = time.monotonic()
    with pytest.raises(LLMRateLimited) as caught:
        await answer(claude, "Hi", total_timeout=budget, retry_after_cap=cap)
    assert time.monotonic() - started < 1.5
    assert calls(claude) == 1
    error = caught.value
    assert error.code == code and error.retry_after == wait and f"{wait:g} s" in error.message
