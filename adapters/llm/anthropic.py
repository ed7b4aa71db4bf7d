"""Claude over the Messages API's HTTP stream: requests, server-sent events, usage (PRM-2, PRM-3).

The request is the Messages API's JSON (``anthropic_format``) posted with ``"stream": true``
on one pooled ``aiohttp.ClientSession``; the answer's server-sent events are read as they come
(``message_start`` carries the input usage, ``content_block_delta`` the text or a tool call's
JSON, ``message_delta`` the output usage and stop reason, an ``error`` event a failure after
the stream began). Speaking HTTP directly instead of through the ``anthropic`` SDK keeps the SDK
(~58 MB at rest) out of the process and a turn's CPU low: the SDK deep-copies and validates
every request and builds a typed object per event, and its httpx pool scans every pooled
connection on each request (docs/BENCHMARKS.md, "Serving load").

The attempt loop every provider shares (``adapters.llm.retry``) decides which failures are
retried, the backoff, the connect/read/total time limits and ``Retry-After``; failures are
translated here (STYLE P5): an HTTP error or an ``error`` event by its status and the body's
``error.type``, aiohttp's timeouts as silence, its connection and payload errors as unreachable.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import ssl
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import msgspec

from adapters.llm.anthropic_format import estimate_request, to_messages_request
from adapters.llm.retry import RETRYABLE_STATUS, Attempts, Failure, parse_retry_after, status_error
from config.settings import LlmSettings
from engine.errors import LLMUnavailable
from engine.model import ModelSettings
from engine.ports import ModelDone, ModelEvent, TextDelta
from engine.prompt import Prompt
from engine.requestlog import Usage
from engine.tools import ToolCall, ToolSpec

__all__ = ["API_VERSION", "DEFAULT_BASE_URL", "AnthropicChatModel", "ClaudeError", "map_status_error"]

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"
_CONNECTIONS = 1000  # at most, to the provider (the SDK's default)
_decode = msgspec.json.Decoder().decode


@functools.cache
def _tls() -> ssl.SSLContext:
    """Certificates from ``certifi`` (what the SDK's httpx trusted), so a slim container without
    the system's CA bundle still reaches api.anthropic.com; the system's bundle without it."""
    try:
        import certifi
    except ImportError:
        return ssl.create_default_context()
    return ssl.create_default_context(cafile=certifi.where())


class ClaudeError(Exception):
    """An HTTP error answer, or an ``error`` event inside a stream (``status`` is then 200)."""

    def __init__(self, status: int, kind: str | None, retry_after: float | None) -> None:
        super().__init__(f"Claude answered {status} {kind or 'error'}")
        self.status, self.kind, self.retry_after = status, kind, retry_after


def map_status_error(exc: ClaudeError) -> LLMUnavailable:
    """Translate Claude's error answer into Hearth's error tree (no secrets in the message)."""
    return status_error(
        "Claude", exc.status, exc.kind or "error", retry_after=exc.retry_after, key_name="ANTHROPIC_API_KEY"
    )


def _error_kind(body: bytes) -> str | None:
    """``error.type`` of an error body (``None`` when it is not the API's JSON)."""
    try:
        found = _decode(body)
    except msgspec.DecodeError:
        return None
    error = found.get("error") if isinstance(found, dict) else None
    kind = error.get("type") if isinstance(error, dict) else None
    return kind if isinstance(kind, str) else None


class _Events:
    """The server-sent events of one answer as dicts (the ``data`` JSON), closed by ``close()``."""

    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self._response = response

    async def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        buffer = b""
        async for chunk in self._response.content.iter_any():
            buffer += chunk
            while True:
                end = buffer.find(b"\n\n")
                if end < 0:
                    break
                block, buffer = buffer[:end], buffer[end + 2 :]
                event = self._parse(block.replace(b"\r\n", b"\n"))
                if event is not None:
                    yield event

    @staticmethod
    def _parse(block: bytes) -> dict[str, Any] | None:
        name, data = b"", []
        for line in block.split(b"\n"):
            if line.startswith(b"event:"):
                name = line[6:].strip()
            elif line.startswith(b"data:"):
                data.append(line[5:].removeprefix(b" "))
        if not data:
            return None
        payload = _decode(b"\n".join(data))
        if name == b"error":
            kind = payload.get("error", {}).get("type") if isinstance(payload, dict) else None
            raise ClaudeError(200, kind if isinstance(kind, str) else None, None)
        return payload if isinstance(payload, dict) else None

    async def close(self) -> None:
        self._response.release()


class AnthropicChatModel:
    """Implements the ``ChatModel`` port over the Messages API's HTTP stream."""

    provider = "anthropic"
    vision = True  # pictures go as image blocks (``anthropic_format``)

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str | None = None,
        connect_timeout: float = 10.0,
        attempts: Attempts | None = None,
    ) -> None:
        self.attempts = attempts or Attempts("Claude")
        self._url = (base_url or DEFAULT_BASE_URL).rstrip("/") + "/v1/messages"
        self._headers = {
            "authorization": f"Bearer {api_key}",  # as the pinned ``anthropic`` SDK sends the key
            "anthropic-version": API_VERSION,
            "content-type": "application/json",
            "accept": "text/event-stream",
        }
        # the read timeout is the attempt loop's (``Attempts.paced``); the socket's only connects
        self._timeout = aiohttp.ClientTimeout(total=None, sock_connect=connect_timeout)
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def client(self) -> aiohttp.ClientSession:
        """The pooled session of the running event loop, made on first use there."""
        loop = asyncio.get_running_loop()
        if self._session is None or self._session.closed or self._loop is not loop:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=_CONNECTIONS, ssl=_tls()),
                timeout=self._timeout,
                trust_env=True,  # HTTPS_PROXY / NO_PROXY, as the SDK's httpx client honoured them
            )
            self._loop = loop
        return self._session

    @classmethod
    def from_settings(cls, settings: LlmSettings) -> AnthropicChatModel:
        """The adapter for the ``llm`` settings (``ANTHROPIC_BASE_URL`` honoured)."""
        return cls(
            str(settings.api_key),
            base_url=settings.base_url,
            connect_timeout=settings.connect_timeout,
            attempts=Attempts.from_settings("Claude", settings),
        )

    async def aclose(self) -> None:
        """Close the pooled connections."""
        if self._session is not None:
            await self._session.close()

    def _translate(self, exc: Exception) -> Failure | None:
        if isinstance(exc, ClaudeError):
            retryable = exc.status in RETRYABLE_STATUS or exc.kind == "overloaded_error"
            return Failure(map_status_error(exc), retryable, exc.retry_after)
        return self.attempts.transport(exc, timeout=TimeoutError, connection=aiohttp.ClientError)

    async def stream(
        self,
        prompt: Prompt,
        settings: ModelSettings,
        persona_name: str,
        tools: tuple[ToolSpec, ...] = (),
    ) -> AsyncIterator[ModelEvent]:
        """See ``engine.ports.ChatModel.stream``."""
        request = to_messages_request(prompt, settings, tools)
        body = msgspec.json.encode({**request, "stream": True})
        events = self.attempts.run(
            lambda deadline: self._once(body, deadline),
            self._translate,
            lambda: estimate_request(request),
        )
        async with contextlib.aclosing(events):
            async for event in events:
                yield event

    async def _open(self, body: bytes) -> _Events:
        """Send the request; the answer's events once its status is 200."""
        response = await self.client.post(self._url, data=body, headers=self._headers)
        if response.status != 200:
            try:
                raw = await response.read()
            finally:
                response.release()
            retry_after = parse_retry_after(response.headers.get("retry-after"))
            raise ClaudeError(response.status, _error_kind(raw), retry_after)
        return _Events(response)

    async def _once(self, body: bytes, deadline: float) -> AsyncIterator[ModelEvent]:
        """One attempt, its waits bounded by ``Attempts.paced``."""
        usage: dict[str, int] = {}
        stop_reason: str | None = None
        tool: dict[str, Any] | None = None
        events = self.attempts.paced(
            self._open(body), deadline, lambda event: event["type"] == "content_block_delta"
        )
        async with contextlib.aclosing(events):
            async for event in events:
                kind = event.get("type")
                if kind == "content_block_delta":
                    delta = event["delta"]
                    if delta.get("type") == "text_delta":
                        yield TextDelta(text=delta["text"])
                    elif delta.get("type") == "input_json_delta" and tool is not None:
                        tool["json"].append(delta.get("partial_json", ""))
                elif kind == "content_block_start" and event["content_block"].get("type") == "tool_use":
                    block = event["content_block"]
                    tool = {"id": block["id"], "name": block["name"], "json": []}
                elif kind == "content_block_stop" and tool is not None:
                    yield ToolCall(id=tool["id"], name=tool["name"], arguments="".join(tool["json"]) or "{}")
                    tool = None
                elif kind == "message_start":
                    u = event["message"].get("usage") or {}
                    usage = {
                        "input_tokens": u.get("input_tokens") or 0,
                        "cache_creation_input_tokens": u.get("cache_creation_input_tokens") or 0,
                        "cache_read_input_tokens": u.get("cache_read_input_tokens") or 0,
                    }
                elif kind == "message_delta":
                    usage["output_tokens"] = (event.get("usage") or {}).get("output_tokens") or 0
                    stop_reason = (event.get("delta") or {}).get("stop_reason")
        yield ModelDone(usage=Usage(**usage), stop_reason=stop_reason, attempts=1)
