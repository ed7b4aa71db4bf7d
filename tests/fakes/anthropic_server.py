"""A local fake of Anthropic's Messages API for tests: aiohttp in a background thread.

Shaped after SDK 2.14's types and the API docs. Covered:

* ``POST /v1/messages``: auth (``x-api-key`` or ``Authorization: Bearer``), ``anthropic-version``;
  400s worded like the API's (unknown keys, missing fields, role order, empty content,
  unpaired ``tool_use``/``tool_result``, over 4 cache breakpoints, an image block whose base64
  source is not a JPEG/PNG/GIF/WebP type, not base64 or over 5 MB); a Message, or with
  ``"stream": true`` the SSE events message_start, content_block_start, ping,
  content_block_delta…, content_block_stop, message_delta, message_stop. ``max_tokens``
  (4 chars a token) and ``stop_sequences`` cut replies. ``request-id`` on every response.
* Scripted :class:`Reply`, :class:`Error` (with ``retry-after``), :class:`StreamError`
  (``event: error`` mid-stream) and :class:`Hang`: a request accepted and never answered, or a
  stream that stops after some deltas and stays open. ``hang_on(marker)`` (``POST /_fake/hang``)
  hangs every request whose newest message contains ``marker``, retries included. A hung request
  is let go by ``reset()`` or ``stop()`` (its connection is closed).
* Prompt cache: breakpoints are blocks with ``cache_control`` (or the last block under a
  top-level ``cache_control``), ordered tools → system → messages. Breakpoint prefixes are
  remembered; a request reads the longest remembered prefix ending ≤20 blocks before one of
  its breakpoints and writes the rest up to its last one. Tokens = ``ceil(chars / 4)`` (text
  blocks: text; other blocks, tools: JSON), also for ``/v1/messages/count_tokens``.
* ``latency``: every API request waits that long before answering (network + time to first token).
* ``GET /_fake/requests``, ``POST /_fake/script``, ``POST /_fake/reset`` for out-of-process
  tests: ``python -m tests.fakes.anthropic_server --port N`` prints its URL, then serves.

Not covered: real tokens, model names, minimum cacheable length, TTLs, thinking, server
tools, citations, other endpoints, rate-limit headers. Stricter than the API: consecutive
same-role turns (the API merges them) and ``role: "system"`` messages (newer models accept
them) are 400s, and ``max_tokens`` must be ≥ 1 (no cache pre-warming).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import itertools
import json
import math
from collections.abc import Iterator
from typing import Any

import msgspec
from aiohttp import web

from tests.fakes.scripted import Hang, RecordedRequest, ScriptedServer, chunks, serve_until_stopped

__all__ = [
    "Behaviour",
    "Error",
    "FakeAnthropic",
    "Hang",
    "RecordedRequest",
    "Reply",
    "StreamError",
    "ToolUse",
]

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}
STATUS_OF_TYPE = {kind: status for status, kind in ERROR_TYPES.items()}
DEFAULT_MESSAGES = {
    "overloaded_error": "Overloaded",
    "api_error": "Internal server error",
    "rate_limit_error": "Number of request tokens has exceeded your rate limit",
}
COUNT_KEYS = frozenset(
    {
        "model",
        "messages",
        "system",
        "tools",
        "tool_choice",
        "thinking",
        "cache_control",
        "output_config",
        "speed",
        "mcp_servers",
        "context_management",
    }
)
MESSAGE_KEYS = COUNT_KEYS | {
    "max_tokens",
    "stream",
    "metadata",
    "stop_sequences",
    "temperature",
    "top_k",
    "top_p",
    "service_tier",
    "container",
    "diagnostics",
    "inference_geo",
}
BLOCK_TYPES = frozenset(
    {
        "text",
        "image",
        "document",
        "tool_use",
        "tool_result",
        "thinking",
        "redacted_thinking",
        "search_result",
        "server_tool_use",
        "web_search_tool_result",
        "container_upload",
    }
)
ROLE_ONLY = {"tool_use": "assistant", "tool_result": "user", "image": "user", "document": "user"}
MAX_BREAKPOINTS, LOOKBACK_BLOCKS = 4, 20
REQUEST_ID = web.RequestKey("request_id", str)


class ToolUse(msgspec.Struct, frozen=True):
    """A ``tool_use`` block the fake model emits after its text."""

    name: str
    input: dict[str, Any]
    id: str | None = None


class Reply(msgspec.Struct, frozen=True, tag_field="kind", tag="reply"):
    """A successful answer; ``text=None`` echoes the last user message."""

    text: str | None = None
    chunk_size: int = 8
    delay: float = 0.0
    stop_reason: str = "end_turn"
    tool_uses: tuple[ToolUse, ...] = ()


class Error(msgspec.Struct, frozen=True, tag_field="kind", tag="error"):
    """An HTTP error answer; ``type`` and ``message`` default from ``status``."""

    status: int
    type: str = ""
    message: str = ""
    retry_after: float | None = None

    def __post_init__(self) -> None:
        kind = (
            self.type
            or ERROR_TYPES.get(self.status)
            or ("api_error" if self.status >= 500 else "invalid_request_error")
        )
        msgspec.structs.force_setattr(self, "type", kind)
        message = self.message or DEFAULT_MESSAGES.get(kind, kind.replace("_", " "))
        msgspec.structs.force_setattr(self, "message", message)


class StreamError(msgspec.Struct, frozen=True, tag_field="kind", tag="stream_error"):
    """A stream that fails with ``event: error`` after ``after_chunks`` deltas.

    A non-streaming request gets the matching HTTP error instead (529 for overloaded).
    """

    after_chunks: int = 2
    type: str = "overloaded_error"
    message: str = "Overloaded"
    text: str | None = None
    chunk_size: int = 8


Behaviour = Reply | Error | StreamError | Hang
_BEHAVIOURS = msgspec.json.Decoder(list[Behaviour])


class _ApiError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message, self.kind = status, message, ERROR_TYPES[status]


def _invalid(message: str) -> _ApiError:
    return _ApiError(400, message)


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _blocks(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return content if isinstance(content, list) else []


def _check_auth(headers: Any, api_key: str | None) -> None:
    bearer = headers.get("authorization", "").removeprefix("Bearer ").strip()
    key = headers.get("x-api-key", "").strip() or bearer
    if not key:
        raise _ApiError(401, "x-api-key header is required")
    if api_key is not None and key != api_key:
        raise _ApiError(401, "invalid x-api-key")
    if not headers.get("anthropic-version"):
        raise _invalid("anthropic-version: header is required")


def _validate(body: dict[str, Any], allowed: frozenset[str], *, needs_max_tokens: bool) -> None:
    if extra := sorted(set(body) - allowed):
        raise _invalid(f"{extra[0]}: Extra inputs are not permitted")
    if not isinstance(body.get("model"), str):
        raise _invalid(
            "model: Field required" if "model" not in body else "model: Input should be a valid string"
        )
    tokens = body.get("max_tokens")
    if needs_max_tokens and (type(tokens) is not int or tokens < 1):
        raise _invalid(
            "max_tokens: Field required"
            if tokens is None
            else "max_tokens: Input should be greater than or equal to 1"
        )
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise _invalid(
            "messages: Field required" if messages is None else "messages: at least one message is required"
        )
    _check_system_and_tools(body.get("system"), body.get("tools"))
    for i, message in enumerate(messages):
        _check_message(i, message, last=i == len(messages) - 1)
    _check_sequence(messages)


def _check_system_and_tools(system: Any, tools: Any) -> None:
    if not isinstance(system, str | list | None):
        raise _invalid("system: Input should be a valid string or list")
    if not isinstance(tools, list | None):
        raise _invalid("tools: Input should be a valid list")
    for i, block in enumerate(system if isinstance(system, list) else ()):
        if not isinstance(block, dict) or block.get("type") != "text" or not block.get("text"):
            raise _invalid(f"system.{i}: system blocks must be non-empty text blocks")
    for i, tool in enumerate(tools or ()):
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            raise _invalid(f"tools.{i}.name: Field required")
        if tool.get("type", "custom") == "custom" and "input_schema" not in tool:
            raise _invalid(f"tools.{i}.custom.input_schema: Field required")
    if tools and len({tool["name"] for tool in tools}) != len(tools):
        raise _invalid("tools: Tool names must be unique.")


def _check_message(i: int, message: Any, *, last: bool) -> None:
    role = message.get("role") if isinstance(message, dict) else None
    if role not in ("user", "assistant"):
        raise _invalid(f"messages.{i}.role: Input should be 'user' or 'assistant'")
    content = message.get("content")
    if not isinstance(content, str | list):
        raise _invalid(f"messages.{i}.content: Input should be a valid string or list")
    if not content and not (last and role == "assistant"):
        raise _invalid(
            f"messages.{i}: all messages must have non-empty content except for "
            "the optional final assistant message"
        )
    for j, block in enumerate(_blocks(content)):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind not in BLOCK_TYPES:
            raise _invalid(
                f"messages.{i}.content.{j}.type: Input tag {kind!r} found using "
                f"'type' does not match any of the expected tags"
            )
        if kind == "text" and not (isinstance(block.get("text"), str) and block["text"]):
            raise _invalid("messages: text content blocks must be non-empty")
        if ROLE_ONLY.get(kind, role) != role:
            raise _invalid(f"messages.{i}.content.{j}: `{kind}` is not allowed in {role} turns")
        if kind == "image":
            _check_image(f"messages.{i}.content.{j}", block.get("source"))
        id_key = {"tool_use": "id", "tool_result": "tool_use_id"}.get(kind)
        if id_key and not isinstance(block.get(id_key), str):
            raise _invalid(f"messages.{i}.content.{j}.{kind}.{id_key}: Field required")


IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
MAX_IMAGE_BYTES = 5 * 1024 * 1024


def _check_image(where: str, source: Any) -> None:
    """An image block's base64 source, checked as the API does (type, base64, 5 MB)."""
    if not isinstance(source, dict) or source.get("type") != "base64":
        raise _invalid(f"{where}.image.source: Input tag found using 'type' does not match 'base64' or 'url'")
    if source.get("media_type") not in IMAGE_TYPES:
        raise _invalid(
            f"{where}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', "
            "'image/gif' or 'image/webp'"
        )
    try:
        data = base64.b64decode(source.get("data") or "", validate=True)
    except (ValueError, TypeError):
        raise _invalid(f"{where}.image.source.base64.data: The image data is not valid base64") from None
    if not data:
        raise _invalid(f"{where}.image.source.base64.data: The image data is empty")
    if len(data) > MAX_IMAGE_BYTES:
        raise _invalid(
            f"{where}.image.source.base64: image exceeds 5 MB maximum: {len(data)} bytes > 5242880 bytes"
        )


def _check_sequence(messages: list[dict[str, Any]]) -> None:
    asked: set[str] = set()
    for i, message in enumerate(messages):
        if message["role"] != ("user", "assistant")[i % 2]:
            raise _invalid(
                'messages: first message must use the "user" role'
                if i == 0
                else 'messages: roles must alternate between "user" and "assistant", '
                f'but found multiple "{message["role"]}" roles in a row'
            )
        blocks = _blocks(message["content"])
        answered = {b["tool_use_id"] for b in blocks if b["type"] == "tool_result"}
        if unexpected := ", ".join(sorted(answered - asked)):
            raise _invalid(
                f"messages.{i}: unexpected `tool_use_id` found in `tool_result` "
                f"blocks: {unexpected}. Each `tool_result` block must have a "
                "corresponding `tool_use` block in the previous message."
            )
        if missing := ", ".join(sorted(asked - answered)):
            raise _invalid(
                f"messages.{i}: `tool_use` ids were found without `tool_result` "
                f"blocks immediately after: {missing}. Each `tool_use` block must "
                "have a corresponding `tool_result` block in the next message."
            )
        asked = {b["id"] for b in blocks if b["type"] == "tool_use"}


class _Segment(msgspec.Struct, frozen=True):
    canon: str
    chars: int
    marked: bool


def _segments(body: dict[str, Any]) -> list[_Segment]:
    """Every cacheable unit in the API's cache order: tools, system blocks, message blocks."""
    items: list[tuple[list[Any], Any]] = [(["tool"], tool) for tool in body.get("tools") or ()]
    items += [(["system"], block) for block in _blocks(body.get("system"))]
    for i, message in enumerate(body["messages"]):
        items += [(["message", i, message["role"]], b) for b in _blocks(message["content"])]
    segments = []
    for label, block in items:
        bare = {k: v for k, v in block.items() if k != "cache_control"}
        text = bare.get("text") if bare.get("type") == "text" else None
        chars = len(text) if isinstance(text, str) else len(_canon(bare))
        segments.append(_Segment(_canon([*label, bare]), chars, bool(block.get("cache_control"))))
    return segments


def _tokens(chars: int) -> int:
    return math.ceil(chars / 4)


def _plan_cache(
    segments: list[_Segment], auto: bool, seen: set[str]
) -> tuple[dict[str, int], str | None, list[str]]:
    """Returns (input usage, canonical prefix through the last breakpoint, keys to remember)."""
    marks = [i for i, s in enumerate(segments) if s.marked]
    if auto and segments and (not marks or marks[-1] != len(segments) - 1):
        marks.append(len(segments) - 1)
    if len(marks) > MAX_BREAKPOINTS:
        raise _invalid(
            f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. Found {len(marks)}."
        )
    chars = list(itertools.accumulate(s.chars for s in segments))
    total = _tokens(chars[-1]) if chars else 0
    if not marks:
        return _usage(total), None, []
    hasher, keys = hashlib.sha256(), []
    for segment in segments:
        hasher.update(segment.canon.encode() + b",")
        keys.append(hasher.hexdigest())
    near = {j for b in marks for j in range(max(0, b - LOOKBACK_BLOCKS), b + 1)}
    hit = max((j for j in near if keys[j] in seen), default=None)
    read = _tokens(chars[hit]) if hit is not None else 0
    written = _tokens(chars[marks[-1]]) - read
    prefix = "[" + ",".join(s.canon for s in segments[: marks[-1] + 1]) + "]"
    return _usage(total - read - written, written, read), prefix, [keys[b] for b in marks]


def _usage(fresh: int, written: int = 0, read: int = 0) -> dict[str, int]:
    return {"input_tokens": fresh, "cache_creation_input_tokens": written, "cache_read_input_tokens": read}


def _heard(body: dict[str, Any]) -> str:
    """The default reply: the text (or tool results) of the last user message.

    ``[System note: …]`` blocks (lore and notes Hearth places after the window) are not what the
    person said, and a model does not parrot them back: leaving them out keeps one turn's lore
    from reaching the next turn's window through the echo.
    """
    users = [m for m in body["messages"] if m["role"] == "user"]
    parts = []
    for block in _blocks(users[-1]["content"]) if users else ():
        inner = block.get("content") if block["type"] == "tool_result" else [block]
        parts += [b.get("text") or "" for b in _blocks(inner) if isinstance(b, dict)]
    said = [p for p in parts if p and not p.startswith("[System note: ")]
    return "Fake Claude heard: " + "\n".join(said)[:200]


def _newest(body: dict[str, Any]) -> str:
    """The text of the newest block of the last user message that is not a system note."""
    users = [m for m in body["messages"] if m["role"] == "user"]
    texts = [b.get("text") or "" for b in _blocks(users[-1]["content"]) if isinstance(b, dict)]
    said = [t for t in texts if t and not t.startswith("[System note: ")]
    return said[-1] if said else ""


def _message(
    body: dict[str, Any], number: int, text: str, tools: tuple[ToolUse, ...], stop_reason: str
) -> dict[str, Any]:
    """A complete Message, cut by ``max_tokens`` and ``stop_sequences`` like the API does."""
    stop_sequence, limit = None, body["max_tokens"] * 4
    if hits := [(text.find(s), s) for s in body.get("stop_sequences") or () if s in text]:
        cut, stop_sequence = min(hits)
        text, tools, stop_reason = text[:cut], (), "stop_sequence"
    out = len(text) + sum(len(_canon(t.input)) for t in tools)
    if out > limit:
        text, tools, stop_reason = text[:limit], (), "max_tokens"
        out = len(text)
    elif tools and stop_reason == "end_turn":
        stop_reason = "tool_use"
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text or not tools else []
    content += [
        {"type": "tool_use", "id": t.id or f"toolu_fake_{number}_{k}", "name": t.name, "input": t.input}
        for k, t in enumerate(tools)
    ]
    return {
        "id": f"msg_fake_{number}",
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": stop_sequence,
        "usage": {"output_tokens": max(1, _tokens(out))},
    }


def _events(message: dict[str, Any], size: int) -> Iterator[tuple[str, dict[str, Any]]]:
    start = {
        **message,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {**message["usage"], "output_tokens": 1},
    }
    yield "message_start", {"type": "message_start", "message": start}
    for index, block in enumerate(message["content"]):
        is_text = block["type"] == "text"
        empty = {**block, "text": ""} if is_text else {**block, "input": {}}
        yield "content_block_start", {"type": "content_block_start", "index": index, "content_block": empty}
        if index == 0:
            yield "ping", {"type": "ping"}
        json_text = "" if is_text else json.dumps(block["input"], ensure_ascii=False)
        for piece in chunks(block["text"], size) if is_text else ["", *chunks(json_text, size)]:
            delta = (
                {"type": "text_delta", "text": piece}
                if is_text
                else {"type": "input_json_delta", "partial_json": piece}
            )
            yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "usage": {"output_tokens": message["usage"]["output_tokens"]},
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": message["stop_sequence"]},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def _frame(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def _error_body(kind: str, message: str, request_id: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"type": "error", "error": {"type": kind, "message": message}}
    return body | {"request_id": request_id} if request_id else body


class FakeAnthropic(ScriptedServer):
    """The fake server; ``with FakeAnthropic() as fake:`` starts and stops it."""

    def __init__(self, port: int = 0, *, api_key: str | None = None, latency: float = 0.0) -> None:
        """Args: port: 0 picks a free one. api_key: when set, any other key gets a 401.
        latency: seconds every API request waits before its answer starts (a network round
        trip and the model's time to first token; benchmarks use it)."""
        super().__init__(port, latency=latency, decoder=_BEHAVIOURS)
        self._api_key = api_key
        self._seen: set[str] = set()
        self._messages, self._ids = itertools.count(1), itertools.count(1)

    def _forget(self) -> None:
        """The prompt cache and the message numbers go with ``reset()``."""
        self._seen.clear()
        self._messages = itertools.count(1)

    def _bad_script(self, message: str) -> Exception:
        return _invalid(message)

    def _app(self) -> web.Application:
        app = web.Application(middlewares=[self._errors], client_max_size=32 * 2**20)
        app.router.add_post("/v1/messages", self._on_messages)
        app.router.add_post("/v1/messages/count_tokens", self._on_count)
        self._add_fake_routes(app)
        app.on_response_prepare.append(self._stamp)
        return app

    async def _stamp(self, request: web.Request, response: web.StreamResponse) -> None:
        response.headers["request-id"] = request.get(REQUEST_ID, "")

    @web.middleware
    async def _errors(self, request: web.Request, handler: Any) -> web.StreamResponse:
        request[REQUEST_ID] = f"req_fake_{next(self._ids):06d}"
        try:
            return await handler(request)  # type: ignore[no-any-return]
        except _ApiError as error:
            return self._error(request, error.status, error.kind, error.message)
        except web.HTTPException as error:
            kind = ERROR_TYPES.get(error.status, "invalid_request_error")
            return self._error(request, error.status, kind, error.reason)

    def _error(
        self,
        request: web.Request,
        status: int,
        kind: str,
        message: str,
        headers: dict[str, str] | None = None,
    ) -> web.Response:
        body = _error_body(kind, message, request.get(REQUEST_ID))
        return web.json_response(body, status=status, headers=headers)

    async def _accept(
        self, request: web.Request, allowed: frozenset[str], *, needs_max_tokens: bool
    ) -> tuple[dict[str, Any], list[_Segment]]:
        """Records the request, then checks auth and body; returns (body, segments)."""
        body = await self._record(request)
        _check_auth(request.headers, self._api_key)
        if body is None:
            raise _invalid("The request body must be a JSON object.")
        _validate(body, allowed, needs_max_tokens=needs_max_tokens)
        return body, _segments(body)

    async def _on_messages(self, request: web.Request) -> web.StreamResponse:
        body, segments = await self._accept(request, MESSAGE_KEYS, needs_max_tokens=True)
        if self.latency:
            await asyncio.sleep(self.latency)
        auto = body.get("cache_control") is not None
        with self._lock:
            usage, prefix, keys = _plan_cache(segments, auto, self._seen)
            self._requests[-1] = msgspec.structs.replace(self._requests[-1], cache_prefix=prefix)
            newest = _newest(body)
            behaviour: Behaviour = self._next(newest, Reply())
            if not isinstance(behaviour, Error):
                self._seen.update(keys)
            number = next(self._messages)
        if isinstance(behaviour, Error):
            wait = behaviour.retry_after
            retry = {} if wait is None else {"retry-after": f"{wait:g}"}
            return self._error(request, behaviour.status, behaviour.type, behaviour.message, retry)
        if isinstance(behaviour, Hang) and (behaviour.after_chunks is None or not body.get("stream")):
            await self._hang(request)
            return web.Response(status=500)  # never reaches the client: the connection is closed
        text = behaviour.text if behaviour.text is not None else _heard(body)
        reply = behaviour if isinstance(behaviour, Reply) else Reply(text)
        message = _message(body, number, text, reply.tool_uses, reply.stop_reason)
        message["usage"] = usage | message["usage"]
        if body.get("stream"):
            return await self._stream(request, message, behaviour)
        if isinstance(behaviour, StreamError):
            status = STATUS_OF_TYPE.get(behaviour.type, 500)
            return self._error(request, status, behaviour.type, behaviour.message)
        await asyncio.sleep(reply.delay * len(chunks(text, reply.chunk_size)))
        return web.json_response(message)

    async def _stream(
        self, request: web.Request, message: dict[str, Any], behaviour: Reply | StreamError | Hang
    ) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache"}
        )
        await response.prepare(request)
        fail = behaviour if isinstance(behaviour, StreamError) else None
        delay = behaviour.delay if isinstance(behaviour, Reply) else 0.0
        sent = 0
        with contextlib.suppress(ConnectionResetError):  # the client hung up, as on cancel
            for event, data in _events(message, behaviour.chunk_size):
                is_delta = event == "content_block_delta"
                if fail and (event == "message_delta" or (is_delta and sent >= fail.after_chunks)):
                    await response.write(_frame("error", _error_body(fail.type, fail.message)))
                    break
                if isinstance(behaviour, Hang) and (
                    event == "message_delta" or (is_delta and sent >= (behaviour.after_chunks or 0))
                ):
                    await self._hang(request)
                    return response
                if is_delta and sent and delay:
                    await asyncio.sleep(delay)
                sent += is_delta
                await response.write(_frame(event, data))
            await response.write_eof()
        return response

    async def _on_count(self, request: web.Request) -> web.Response:
        _, segments = await self._accept(request, COUNT_KEYS, needs_max_tokens=False)
        if self.latency:
            await asyncio.sleep(self.latency)
        return web.json_response({"input_tokens": _tokens(sum(s.chars for s in segments))})


def main(argv: list[str] | None = None) -> None:
    """Serves until SIGINT/SIGTERM; the first line of stdout is the base URL."""
    serve_until_stopped(
        lambda port, key: FakeAnthropic(port, api_key=key), "Fake Anthropic Messages API", argv
    )


if __name__ == "__main__":
    main()
