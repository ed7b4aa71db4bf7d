"""Claude through the official SDK: streaming, retries with backoff, usage (PRM-2, PRM-3).

The SDK's own retries are switched off (``max_retries=0``) so that this adapter decides, with
the attempt loop every provider shares (``adapters.llm.retry``: which failures are retried,
backoff, the connect/read/total time limits, ``Retry-After`` up to its cap). SDK exceptions
are translated here (STYLE P5).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import anthropic

from adapters.llm.anthropic_format import estimate_request, to_messages_request
from adapters.llm.retry import RETRYABLE_STATUS, Attempts, Failure, parse_retry_after, status_error
from config.settings import LlmSettings
from engine.errors import LLMUnavailable
from engine.model import ModelSettings
from engine.ports import ModelDone, ModelEvent, TextDelta
from engine.prompt import Prompt
from engine.requestlog import Usage
from engine.tools import ToolCall, ToolSpec

__all__ = ["AnthropicChatModel", "map_status_error"]


def _retry_after(exc: anthropic.APIStatusError) -> float | None:
    return parse_retry_after(exc.response.headers.get("retry-after"))


def map_status_error(exc: anthropic.APIStatusError) -> LLMUnavailable:
    """Translate an SDK status error into Hearth's error tree (no secrets in the message)."""
    return status_error(
        "Claude",
        exc.status_code,
        exc.type or "error",
        retry_after=_retry_after(exc),
        key_name="ANTHROPIC_API_KEY",
    )


class AnthropicChatModel:
    """Implements the ``ChatModel`` port with ``anthropic.AsyncAnthropic``."""

    provider = "anthropic"

    def __init__(self, client: anthropic.AsyncAnthropic, attempts: Attempts | None = None) -> None:
        self.client = client
        self.attempts = attempts or Attempts("Claude")

    @classmethod
    def from_settings(cls, settings: LlmSettings) -> AnthropicChatModel:
        """Build the SDK client from the ``llm`` settings (``ANTHROPIC_BASE_URL`` honoured)."""
        client = anthropic.AsyncAnthropic(
            api_key=str(settings.api_key),
            base_url=settings.base_url,
            max_retries=0,
            timeout=anthropic.Timeout(settings.read_timeout, connect=settings.connect_timeout),
        )
        return cls(client, Attempts.from_settings("Claude", settings))

    def _translate(self, exc: Exception) -> Failure | None:
        if isinstance(exc, anthropic.APIStatusError):
            retryable = exc.status_code in RETRYABLE_STATUS or exc.type == "overloaded_error"
            return Failure(map_status_error(exc), retryable, _retry_after(exc))
        if isinstance(exc, anthropic.APITimeoutError):
            return self.attempts.silent()
        if isinstance(exc, anthropic.APIConnectionError):  # refused, reset or cut mid-stream
            return self.attempts.unreachable(exc)
        return None

    async def stream(
        self,
        prompt: Prompt,
        settings: ModelSettings,
        persona_name: str,
        tools: tuple[ToolSpec, ...] = (),
    ) -> AsyncIterator[ModelEvent]:
        """See ``engine.ports.ChatModel.stream``."""
        request = to_messages_request(prompt, settings, tools)
        events = self.attempts.run(
            lambda deadline: self._once(request, deadline),
            self._translate,
            lambda: estimate_request(request),
        )
        async with contextlib.aclosing(events):
            async for event in events:
                yield event

    async def _once(self, request: dict[str, Any], deadline: float) -> AsyncIterator[ModelEvent]:
        """One attempt; every wait for the provider ends at the read timeout, and until the reply
        starts streaming also at the deadline.

        Each wait is bounded on its own (never across a ``yield``, which would time the
        consumer's work instead), and the response is closed however the attempt ends.
        """
        usage: dict[str, int] = {}
        stop_reason: str | None = None
        tool: dict[str, Any] | None = None
        async with asyncio.timeout(self.attempts.silence(deadline)):
            stream = await self.client.messages.create(**request, stream=True)
        events = aiter(stream)
        until: float | None = deadline
        try:
            while True:
                async with asyncio.timeout(self.attempts.silence(until)):
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
