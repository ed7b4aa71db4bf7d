"""Claude through the official SDK: streaming, retries with backoff, usage (PRM-2, PRM-3).

The SDK's own retries are switched off (``max_retries=0``) so that this adapter decides, with
the attempt loop every provider shares (``adapters.llm.retry``: which failures are retried,
backoff, the connect/read/total time limits, ``Retry-After`` up to its cap). SDK exceptions
are translated here (STYLE P5).
"""

from __future__ import annotations

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
    vision = True  # pictures go as image blocks (``anthropic_format``)

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
        return self.attempts.transport(
            exc, timeout=anthropic.APITimeoutError, connection=anthropic.APIConnectionError
        )

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
        """One attempt, its waits bounded by ``Attempts.paced``."""
        usage: dict[str, int] = {}
        stop_reason: str | None = None
        tool: dict[str, Any] | None = None
        opening = self.client.messages.create(**request, stream=True)
        events = self.attempts.paced(opening, deadline, lambda event: event.type == "content_block_delta")
        async with contextlib.aclosing(events):
            async for event in events:
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
        yield ModelDone(usage=Usage(**usage), stop_reason=stop_reason, attempts=1)
