"""Claude through the official SDK: streaming, retries with backoff, usage (PRM-2, PRM-3).

The SDK's own retries are switched off (``max_retries=0``) so that this adapter decides: it
retries 408/409/429/5xx/529, connection errors and timeouts with exponential backoff and
jitter, never retries once text has streamed to the person (that would duplicate it), and
reports the attempts in the request log. SDK exceptions are translated here (STYLE P5).

Time limits (``LlmSettings``): a connection must open within ``connect_timeout``; the provider
may stay silent at most ``read_timeout`` (before the response starts and between two stream
events); the reply must start (its first text or tool delta) within ``total_timeout`` of the
call, every attempt, retry and wait included, or the call fails with ``llm_timeout``. Once the
reply streams, only the read timeout applies: a long reply that keeps coming is not cut, one
that stops is. So a hung provider fails the call within ``total_timeout`` (or ``read_timeout``
after its last word). A ``Retry-After`` is honoured when it is at most ``retry_after_cap`` and
fits in what is left of the budget; a longer one fails the call at once (the person is told
when to try again) instead of holding the chat.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anthropic
import msgspec

from adapters.llm.anthropic_format import estimate_request, to_messages_request
from config.settings import LlmSettings
from engine.errors import LLMRateLimited, LLMUnavailable
from engine.model import ModelSettings
from engine.ports import ModelDone, ModelEvent, TextDelta
from engine.prompt import Prompt
from engine.requestlog import Usage
from engine.tools import ToolCall, ToolSpec

__all__ = ["AnthropicChatModel", "map_status_error"]

log = logging.getLogger("hearth.llm")
_RETRYABLE = {408, 409, 429, 500, 502, 503, 504, 529}


def _retry_after(exc: anthropic.APIStatusError) -> float | None:
    raw = exc.response.headers.get("retry-after")
    try:
        return float(raw) if raw is not None else None
    except ValueError:
        return None


def map_status_error(exc: anthropic.APIStatusError) -> LLMUnavailable:
    """Translate an SDK status error into Hearth's error tree (no secrets in the message)."""
    status, kind = exc.status_code, exc.type or "error"
    detail = f"Claude answered {status} {kind}"
    if status == 429:
        return LLMRateLimited(detail, code="llm_rate_limited", status=status, retry_after=_retry_after(exc))
    if status == 529 or kind == "overloaded_error":
        return LLMRateLimited(detail, code="llm_overloaded", status=status, retry_after=_retry_after(exc))
    if status in (401, 403):
        return LLMUnavailable(f"{detail}: check ANTHROPIC_API_KEY", code="llm_auth_failed", status=status)
    if 400 <= status < 500:
        return LLMUnavailable(detail, code="llm_bad_request", status=status)
    return LLMUnavailable(detail, code="llm_unavailable", status=status)


class AnthropicChatModel:
    """Implements the ``ChatModel`` port with ``anthropic.AsyncAnthropic``."""

    provider = "anthropic"
    vision = True  # pictures go as image blocks (``anthropic_format``)

    def __init__(
        self,
        client: anthropic.AsyncAnthropic,
        *,
        max_retries: int = 3,
        base_delay: float = 0.5,
        max_delay: float = 8.0,
        read_timeout: float = 30.0,
        total_timeout: float = 60.0,
        retry_after_cap: float = 10.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.client = client
        self._max_retries = max_retries
        self._base = base_delay
        self._max = max_delay
        self._idle = read_timeout
        self._total = total_timeout
        self._retry_after_cap = retry_after_cap
        self._sleep = sleep

    @classmethod
    def from_settings(cls, settings: LlmSettings) -> AnthropicChatModel:
        """Build the SDK client from the ``llm`` settings (``ANTHROPIC_BASE_URL`` honoured)."""
        client = anthropic.AsyncAnthropic(
            api_key=str(settings.api_key),
            base_url=settings.base_url,
            max_retries=0,
            timeout=anthropic.Timeout(settings.read_timeout, connect=settings.connect_timeout),
        )
        return cls(
            client,
            max_retries=settings.max_retries,
            read_timeout=settings.read_timeout,
            total_timeout=settings.total_timeout,
            retry_after_cap=settings.retry_after_cap,
        )

    def _delay(self, attempt: int) -> float:
        return min(self._max, self._base * 2.0 ** (attempt - 1)) * (0.5 + random.random() / 2)

    def _timed_out(self) -> LLMUnavailable:
        return LLMUnavailable(f"Claude did not answer within {self._total:g} s", code="llm_timeout")

    async def stream(
        self,
        prompt: Prompt,
        settings: ModelSettings,
        persona_name: str,
        tools: tuple[ToolSpec, ...] = (),
    ) -> AsyncIterator[ModelEvent]:
        """See ``engine.ports.ChatModel.stream``."""
        request = to_messages_request(prompt, settings, tools)
        deadline = time.monotonic() + self._total
        attempt = 0
        while True:
            attempt += 1
            emitted = False
            try:
                async for event in self._once(request, deadline):
                    if isinstance(event, ModelDone):  # estimated after the stream: off the path
                        estimated = estimate_request(request)
                        yield msgspec.structs.replace(event, attempts=attempt, estimated_input=estimated)
                    else:
                        emitted = True
                        yield event
                return
            except anthropic.APIStatusError as exc:
                error: LLMUnavailable = map_status_error(exc)
                retryable = exc.status_code in _RETRYABLE or exc.type == "overloaded_error"
                wait = _retry_after(exc)
            except (TimeoutError, anthropic.APITimeoutError):  # silent past the read timeout or the budget
                error = LLMUnavailable(f"Claude stayed silent for {self._idle:g} s", code="llm_timeout")
                retryable, wait = True, None
            except anthropic.APIConnectionError as exc:  # refused, reset or cut mid-stream
                error = LLMUnavailable(f"Claude could not be reached ({type(exc).__name__})")
                retryable, wait = True, None
            left = deadline - time.monotonic()
            if left <= 0 and not emitted:
                raise self._timed_out() from None
            if emitted or not retryable or attempt > self._max_retries:
                raise error
            if wait is not None and (wait > self._retry_after_cap or wait >= left):
                raise _too_long(error, wait)  # waiting would hold the chat: fail now, say when to retry
            delay = wait if wait is not None else self._delay(attempt)
            if delay >= left:
                raise error
            log.warning("Claude attempt %d failed (%s); retrying in %.2fs", attempt, error.code, delay)
            await self._sleep(delay)

    def _silence(self, deadline: float | None) -> float:
        """How long the provider may stay silent now: the read timeout, or less near the deadline
        (``None``: the reply streams, the deadline no longer applies)."""
        if deadline is None:
            return self._idle
        return max(0.0, min(self._idle, deadline - time.monotonic()))

    async def _once(self, request: dict[str, Any], deadline: float) -> AsyncIterator[ModelEvent]:
        """One attempt; every wait for the provider ends at the read timeout, and until the reply
        starts streaming also at the deadline.

        Each wait is bounded on its own (never across a ``yield``, which would time the
        consumer's work instead), and the response is closed however the attempt ends.
        """
        usage: dict[str, int] = {}
        stop_reason: str | None = None
        tool: dict[str, Any] | None = None
        async with asyncio.timeout(self._silence(deadline)):
            stream = await self.client.messages.create(**request, stream=True)
        events = aiter(stream)
        until: float | None = deadline
        try:
            while True:
                async with asyncio.timeout(self._silence(until)):
                    try:
                        event = await anext(events)
                    except StopAsyncIteration:
                        break
                if event.type == "content_block_delta":
                    until = None  # the reply streams: only silence ends it now
                if event.type == "content_block_start" and event.content_block.type == "tool_use":
                    tool = {"id": event.content_block.id, "name": event.content_block.name, "json": []}
                elif event.type == "content_block_delta" and event.delta.type == "input_json_delta":
                    if tool is not None:
                        tool["json"].append(event.delta.partial_json)
                elif event.type == "content_block_stop" and tool is not None:
                    yield ToolCall(id=tool["id"], name=tool["name"], arguments="".join(tool["json"]) or "{}")
                    tool = None
                elif event.type == "message_start":
                    u = event.message.usage
                    usage = {
                        "input_tokens": u.input_tokens or 0,
                        "cache_creation_input_tokens": u.cache_creation_input_tokens or 0,
                        "cache_read_input_tokens": u.cache_read_input_tokens or 0,
                    }
                elif event.type == "content_block_delta" and event.delta.type == "text_delta":
                    yield TextDelta(text=event.delta.text)
                elif event.type == "message_delta":
                    usage["output_tokens"] = event.usage.output_tokens or 0
                    stop_reason = event.delta.stop_reason
        finally:
            await stream.close()
        yield ModelDone(usage=Usage(**usage), stop_reason=stop_reason, attempts=1)


def _too_long(error: LLMUnavailable, wait: float) -> LLMUnavailable:
    """The provider asked for a wait longer than the chat may be held: fail with when to retry."""
    detail = f"{error.message}; it asks to wait {wait:g} s, try again then"
    return LLMRateLimited(detail, code=error.code, status=error.status, retry_after=wait)
