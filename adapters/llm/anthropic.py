"""Claude through the official SDK: streaming, retries with backoff, usage (PRM-2, PRM-3).

The SDK's own retries are switched off (``max_retries=0``) so that this adapter decides: it
retries 408/409/429/5xx/529 and connection errors with exponential backoff and jitter, honours
``retry-after``, never retries once text has streamed to the person (that would duplicate it),
and reports the attempts in the request log. SDK exceptions are translated here (STYLE P5).
"""

from __future__ import annotations

import asyncio
import logging
import random
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

    def __init__(
        self,
        client: anthropic.AsyncAnthropic,
        *,
        max_retries: int = 3,
        base_delay: float = 0.5,
        max_delay: float = 8.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.client = client
        self._max_retries = max_retries
        self._base = base_delay
        self._max = max_delay
        self._sleep = sleep

    @classmethod
    def from_settings(cls, settings: LlmSettings) -> AnthropicChatModel:
        """Build the SDK client from the ``llm`` settings (``ANTHROPIC_BASE_URL`` honoured)."""
        client = anthropic.AsyncAnthropic(
            api_key=str(settings.api_key),
            base_url=settings.base_url,
            max_retries=0,
            timeout=120.0,
        )
        return cls(client, max_retries=settings.max_retries)

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, 60.0)
        return min(self._max, self._base * 2.0 ** (attempt - 1)) * (0.5 + random.random() / 2)

    async def stream(
        self,
        prompt: Prompt,
        settings: ModelSettings,
        persona_name: str,
        tools: tuple[ToolSpec, ...] = (),
    ) -> AsyncIterator[ModelEvent]:
        """See ``engine.ports.ChatModel.stream``."""
        request = to_messages_request(prompt, settings, tools)
        attempt = 0
        while True:
            attempt += 1
            emitted = False
            try:
                async for event in self._once(request):
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
            except anthropic.APIConnectionError as exc:
                error = LLMUnavailable(f"Claude could not be reached ({type(exc).__name__})")
                retryable, wait = True, None
            if emitted or not retryable or attempt > self._max_retries:
                raise error
            delay = self._delay(attempt, wait)
            log.warning("Claude attempt %d failed (%s); retrying in %.2fs", attempt, error.code, delay)
            await self._sleep(delay)

    async def _once(self, request: dict[str, Any]) -> AsyncIterator[ModelEvent]:
        usage: dict[str, int] = {}
        stop_reason: str | None = None
        tool: dict[str, Any] | None = None
        stream = await self.client.messages.create(**request, stream=True)
        async for event in stream:
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
