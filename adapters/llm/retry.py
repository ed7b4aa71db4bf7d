"""The attempt loop every network provider shares: retries, backoff, time limits (PRM-2).

A provider adapter supplies one attempt (an async iterator of model events, given the call's
deadline) and a translation of its SDK's exceptions into a ``Failure``; ``Attempts.run`` does
the rest, the same way for every provider, so a person sees the same errors, retries and waits
whichever model answers:

- retryable failures (408/409/429/5xx, connection errors, timeouts) are retried with
  exponential backoff and jitter, never once text has streamed to the person (that would
  duplicate it); the number of attempts goes into the request log;
- a connection must open within the connect timeout (the SDK client's); the provider may stay
  silent at most ``read_timeout`` (before the response starts and between two stream events);
  the reply must start within ``total_timeout`` of the call, every attempt, retry and wait
  included, or the call fails with ``llm_timeout``; once the reply streams only the read
  timeout applies, so a long reply that keeps coming is not cut;
- a ``Retry-After`` is honoured when it is at most ``retry_after_cap`` and fits in what is left
  of the budget; a longer one fails the call at once with when to try again.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import Any, NamedTuple

import msgspec

from config.settings import LlmSettings
from engine.errors import LLMRateLimited, LLMUnavailable
from engine.ports import ModelDone, ModelEvent

__all__ = ["RETRYABLE_STATUS", "Attempts", "Failure", "parse_retry_after", "status_error"]

log = logging.getLogger("hearth.llm")
RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 529})


class Failure(NamedTuple):
    """One failed attempt, translated: the error to raise, whether to retry, the asked wait."""

    error: LLMUnavailable
    retryable: bool
    wait: float | None = None


def parse_retry_after(raw: str | None) -> float | None:
    """A ``Retry-After`` header in seconds (``None``: absent or not a number)."""
    try:
        return float(raw) if raw is not None else None
    except ValueError:
        return None


def status_error(
    label: str, status: int, kind: str, *, retry_after: float | None, key_name: str
) -> LLMUnavailable:
    """Translate a provider's HTTP error into Hearth's error tree (no secrets in the message).

    Args:
        label: who answered, for people ("Claude", "OpenAI").
        status: the HTTP status.
        kind: the provider's error type ("overloaded_error", "rate_limit_error"...).
        retry_after: the ``Retry-After`` in seconds, when sent.
        key_name: the variable holding the key, named when the key is refused.
    """
    detail = f"{label} answered {status} {kind}"
    if status == 429:
        return LLMRateLimited(detail, code="llm_rate_limited", status=status, retry_after=retry_after)
    if status == 529 or kind == "overloaded_error":
        return LLMRateLimited(detail, code="llm_overloaded", status=status, retry_after=retry_after)
    if status in (401, 403):
        return LLMUnavailable(f"{detail}: check {key_name}", code="llm_auth_failed", status=status)
    if 400 <= status < 500:
        return LLMUnavailable(detail, code="llm_bad_request", status=status)
    return LLMUnavailable(detail, code="llm_unavailable", status=status)


class Attempts:
    """Runs a provider's attempts within the retry policy and time limits (module docstring)."""

    def __init__(
        self,
        label: str,
        *,
        max_retries: int = 3,
        base_delay: float = 0.5,
        max_delay: float = 8.0,
        read_timeout: float = 30.0,
        total_timeout: float = 60.0,
        retry_after_cap: float = 10.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.label = label
        self.max_retries = max_retries
        self._base = base_delay
        self._max = max_delay
        self.read_timeout = read_timeout
        self.total_timeout = total_timeout
        self._retry_after_cap = retry_after_cap
        self._sleep = sleep

    @classmethod
    def from_settings(cls, label: str, settings: LlmSettings) -> Attempts:
        """The deployment's retry policy and time limits (``HEARTH_LLM_*``)."""
        return cls(
            label,
            max_retries=settings.max_retries,
            read_timeout=settings.read_timeout,
            total_timeout=settings.total_timeout,
            retry_after_cap=settings.retry_after_cap,
        )

    def _delay(self, attempt: int) -> float:
        return min(self._max, self._base * 2.0 ** (attempt - 1)) * (0.5 + random.random() / 2)

    def transport(
        self, exc: Exception, *, timeout: type[Exception], connection: type[Exception]
    ) -> Failure | None:
        """An SDK's timeout (``silent``) or connection error (``unreachable``: refused, reset or
        cut mid-stream), else ``None``; ``timeout`` is checked first (it is a connection error too)."""
        if isinstance(exc, timeout):
            return self.silent()
        if isinstance(exc, connection):
            return self.unreachable(exc)
        return None

    def silent(self) -> Failure:
        """The provider stayed silent past the read timeout (or the budget): retryable."""
        message = f"{self.label} stayed silent for {self.read_timeout:g} s"
        return Failure(LLMUnavailable(message, code="llm_timeout"), True)

    def unreachable(self, exc: BaseException) -> Failure:
        """The connection was refused, reset or cut mid-stream: retryable."""
        return Failure(LLMUnavailable(f"{self.label} could not be reached ({type(exc).__name__})"), True)

    def silence(self, deadline: float | None) -> float:
        """How long the provider may stay silent now: the read timeout, or less near the deadline
        (``None``: the reply streams, the deadline no longer applies)."""
        if deadline is None:
            return self.read_timeout
        return max(0.0, min(self.read_timeout, deadline - time.monotonic()))

    async def paced(
        self, opening: Awaitable[Any], deadline: float, streams: Callable[[Any], bool]
    ) -> AsyncGenerator[Any]:
        """The events of one attempt's stream, every wait for the provider bounded: by the read
        timeout, and until the reply starts streaming (``streams(event)``) also by the deadline.

        Each wait is bounded on its own (never across a ``yield``, which would time the
        consumer's work instead), and the stream is closed however the attempt ends.

        Args:
            opening: the SDK call that opens the stream (``….create(..., stream=True)``).
            deadline: the monotonic time by which the reply must start.
            streams: whether an event is part of the reply (text or a tool call).
        """
        async with asyncio.timeout(self.silence(deadline)):
            stream = await opening
        events = aiter(stream)
        until: float | None = deadline
        try:
            while True:
                async with asyncio.timeout(self.silence(until)):
                    try:
                        event = await anext(events)
                    except StopAsyncIteration:
                        break
                if until is not None and streams(event):
                    until = None  # the reply streams: only silence ends it now
                yield event
        finally:
            await stream.close()

    async def run(
        self,
        attempt: Callable[[float], AsyncIterator[ModelEvent]],
        translate: Callable[[Exception], Failure | None],
        estimate: Callable[[], int],
    ) -> AsyncGenerator[ModelEvent]:
        """Stream one reply, retrying failed attempts as the policy allows.

        Args:
            attempt: one attempt, given the monotonic deadline by which the reply must start.
            translate: the provider's exceptions as ``Failure``s (``None``: not the provider's;
                raised as is). ``TimeoutError`` (a read or budget limit) is handled here.
            estimate: the offline estimate of the request's input, put on the ``ModelDone``.

        Raises:
            LLMUnavailable: the call failed (``LLMRateLimited`` for 429/529 and long waits).
        """
        deadline = time.monotonic() + self.total_timeout
        number = 0
        while True:
            number += 1
            emitted = False
            try:
                async for event in attempt(deadline):
                    if isinstance(event, ModelDone):  # estimated after the stream: off the path
                        yield msgspec.structs.replace(event, attempts=number, estimated_input=estimate())
                    else:
                        emitted = True
                        yield event
                return
            except TimeoutError:  # silent past the read timeout or the budget
                failure = self.silent()
            except Exception as exc:
                found = translate(exc)
                if found is None:
                    raise
                failure = found
            left = deadline - time.monotonic()
            if left <= 0 and not emitted:
                raise LLMUnavailable(
                    f"{self.label} did not answer within {self.total_timeout:g} s", code="llm_timeout"
                ) from None
            error, wait = failure.error, failure.wait
            if emitted or not failure.retryable or number > self.max_retries:
                raise error
            if wait is not None and (wait > self._retry_after_cap or wait >= left):
                raise _too_long(error, wait)  # waiting would hold the chat: fail now, say when to retry
            delay = wait if wait is not None else self._delay(number)
            if delay >= left:
                raise error
            log.warning("%s attempt %d failed (%s); retrying in %.2fs", self.label, number, error.code, delay)
            await self._sleep(delay)


def _too_long(error: LLMUnavailable, wait: float) -> LLMUnavailable:
    """The provider asked for a wait longer than the chat may be held: fail with when to retry."""
    detail = f"{error.message}; it asks to wait {wait:g} s, try again then"
    return LLMRateLimited(detail, code=error.code, status=error.status, retry_after=wait)
