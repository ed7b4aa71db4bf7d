"""A local fake of an OpenAI-compatible Chat Completions server for tests (aiohttp, background thread).

Shaped after the ``openai`` SDK 2.x types and the API reference; the same design as
``tests/fakes/anthropic_server.py`` (shared parts in ``tests/fakes/scripted.py``). Covered:

* ``POST /v1/chat/completions``: ``Authorization: Bearer`` (any key, or only ``api_key`` when
  set; 401 otherwise); 400s worded like OpenAI's (unknown keys, missing ``model``/``messages``,
  bad roles, a ``tool`` message that answers no call, ``stream_options`` without ``stream``,
  tools that are not functions); a ``chat.completion``, or with ``"stream": true`` the SSE
  chunks (role, content deltas, tool-call deltas: id and name first, then the arguments in
  pieces, the ``finish_reason`` chunk, with ``stream_options.include_usage`` a last chunk with
  ``choices: []`` and ``usage``, then ``data: [DONE]``). ``max_tokens`` /
  ``max_completion_tokens`` (4 chars a token) cut replies (``finish_reason: "length"``).
* Scripted :class:`Reply` (text, tool calls, pacing), :class:`Error` (with ``retry-after``),
  :class:`StreamError` (an ``error`` chunk mid-stream, as OpenRouter sends) and :class:`Hang`.
* ``no_tools``: the server answers any request with ``tools`` with a 400 "does not support
  tools", as Ollama does for a model without tool support (``POST /_fake/no_tools``).
* Automatic prefix caching: every request's message prefixes are remembered; the longest one
  seen before is reported as ``usage.prompt_tokens_details.cached_tokens``. Tokens are
  ``ceil(chars / 4)`` of the messages' JSON.
* ``latency``: every API request waits that long before answering.
* ``GET /_fake/requests``, ``POST /_fake/script``, ``/_fake/reset``, ``/_fake/hang`` for
  out-of-process tests: ``python -m tests.fakes.openai_server --port N`` prints its URL, then serves.

Not covered: real tokens, model names, ``n > 1``, logprobs, images, audio, the Responses API,
other endpoints, rate-limit headers, parallel tool calls across choices.
"""

from __future__ import annotations

import asyncio
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
    "FakeOpenAI",
    "Hang",
    "RecordedRequest",
    "Reply",
    "StreamError",
    "ToolCallReply",
    "no_tools_message",
]

KEYS = frozenset(
    {
        "model",
        "messages",
        "stream",
        "stream_options",
        "max_tokens",
        "max_completion_tokens",
        "temperature",
        "top_p",
        "n",
        "stop",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "presence_penalty",
        "frequency_penalty",
        "seed",
        "user",
        "response_format",
        "metadata",
        "store",
        "logprobs",
        "top_logprobs",
        "reasoning_effort",
        "service_tier",
        "modalities",
        "prediction",
        "prompt_cache_key",
        "safety_identifier",
        "verbosity",
    }
)
ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
PART_TYPES = frozenset({"text", "image_url", "input_audio", "file", "refusal"})
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    404: "invalid_request_error",
    429: "rate_limit_error",
    500: "server_error",
    502: "server_error",
    503: "server_error",
}


def no_tools_message(model: str) -> str:
    """The 400's message of a server whose model does not take tools (Ollama's wording)."""
    return f"registry.ollama.ai/library/{model} does not support tools"


class ToolCallReply(msgspec.Struct, frozen=True):
    """A function call the fake model makes after its text."""

    name: str
    arguments: dict[str, Any]
    id: str | None = None


class Reply(msgspec.Struct, frozen=True, tag_field="kind", tag="reply"):
    """A successful answer; ``text=None`` echoes the last user message."""

    text: str | None = None
    chunk_size: int = 8
    delay: float = 0.0
    tool_calls: tuple[ToolCallReply, ...] = ()
    cached_tokens: int | None = None  # None: from the fake's prefix cache


class Error(msgspec.Struct, frozen=True, tag_field="kind", tag="error"):
    """An HTTP error answer; ``type`` defaults from ``status``."""

    status: int
    message: str = ""
    type: str = ""
    code: str | None = None
    retry_after: float | None = None

    def __post_init__(self) -> None:
        kind = (
            self.type
            or ERROR_TYPES.get(self.status)
            or ("server_error" if self.status >= 500 else "invalid_request_error")
        )
        msgspec.structs.force_setattr(self, "type", kind)
        msgspec.structs.force_setattr(
            self, "message", self.message or f"The server had an error ({self.status})."
        )


class StreamError(msgspec.Struct, frozen=True, tag_field="kind", tag="stream_error"):
    """A stream that sends an ``error`` chunk after ``after_chunks`` deltas, then ends."""

    after_chunks: int = 2
    message: str = "Upstream provider error"
    text: str | None = None
    chunk_size: int = 8


Behaviour = Reply | Error | StreamError | Hang
_BEHAVIOURS = msgspec.json.Decoder(list[Behaviour])


class _ApiError(Exception):
    def __init__(
        self, status: int, message: str, *, param: str | None = None, code: str | None = None
    ) -> None:
        super().__init__(message)
        self.status, self.message, self.param, self.code = status, message, param, code


def _invalid(message: str, param: str | None = None) -> _ApiError:
    return _ApiError(400, message, param=param)


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _tokens(chars: int) -> int:
    return math.ceil(chars / 4)


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [p.get("text") or "" for p in content if isinstance(p, dict) and p.get("type") == "text"]
    return []


def _check_auth(headers: Any, api_key: str | None) -> None:
    key = headers.get("authorization", "").removeprefix("Bearer ").strip()
    if not key:
        raise _ApiError(401, "You didn't provide an API key.", code="invalid_api_key")
    if api_key is not None and key != api_key:
        raise _ApiError(401, "Incorrect API key provided.", code="invalid_api_key")


NO_IMAGES_MESSAGE = "image input is not supported for this model"
"""What a ``no_images`` server answers (400) to a request with ``image_url`` parts."""


def _has_images(messages: list[Any]) -> bool:
    return any(
        isinstance(m, dict)
        and isinstance(m.get("content"), list)
        and any(isinstance(p, dict) and p.get("type") == "image_url" for p in m["content"])
        for m in messages
    )


def _validate(body: dict[str, Any], *, no_tools: bool, no_images: bool = False) -> None:
    if extra := sorted(set(body) - KEYS):
        raise _invalid(f"Unrecognized request argument supplied: {extra[0]}")
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise _invalid("you must provide a model parameter", "model")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise _invalid("'messages' must contain at least one message", "messages")
    if body.get("stream_options") is not None and body.get("stream") is not True:
        raise _invalid(
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.", "stream_options"
        )
    for key in ("max_tokens", "max_completion_tokens"):
        if key in body and (type(body[key]) is not int or body[key] < 1):
            raise _invalid(f"Invalid '{key}': integer below minimum value.", key)
    tools = body.get("tools")
    if tools is not None:
        _check_tools(tools)
        if no_tools:
            raise _invalid(no_tools_message(body["model"]))
    if no_images and _has_images(messages):
        raise _invalid(NO_IMAGES_MESSAGE, "messages")
    _check_messages(messages)


def _check_tools(tools: Any) -> None:
    if not isinstance(tools, list):
        raise _invalid("Invalid type for 'tools': expected an array.", "tools")
    for i, tool in enumerate(tools):
        function = tool.get("function") if isinstance(tool, dict) else None
        if tool.get("type") != "function" or not isinstance(function, dict):
            raise _invalid(f"Missing required parameter: 'tools[{i}].function'.", f"tools[{i}]")
        if not isinstance(function.get("name"), str):
            raise _invalid(f"Missing required parameter: 'tools[{i}].function.name'.", f"tools[{i}]")


def _check_messages(messages: list[Any]) -> None:
    asked: set[str] = set()
    pending: set[str] = set()
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ROLES:
            raise _invalid(
                f"Invalid value: '{role}'. Supported values are: 'system', 'assistant', 'user', "
                "'tool', and 'developer'.",
                f"messages[{i}].role",
            )
        content = message.get("content")
        calls = message.get("tool_calls") if role == "assistant" else None
        if content is None and not calls:
            raise _invalid(f"Missing required parameter: 'messages[{i}].content'.", f"messages[{i}].content")
        if not isinstance(content, str | list | None):
            raise _invalid(f"Invalid type for 'messages[{i}].content'.", f"messages[{i}].content")
        for j, part in enumerate(content if isinstance(content, list) else ()):
            if not isinstance(part, dict) or part.get("type") not in PART_TYPES:
                raise _invalid(
                    f"Invalid value for 'messages[{i}].content[{j}].type'.", f"messages[{i}].content[{j}]"
                )
        if role == "tool":
            if message.get("tool_call_id") not in asked:
                raise _invalid(
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
                    "message with 'tool_calls'.",
                    f"messages[{i}].role",
                )
            pending.discard(message["tool_call_id"])
            continue
        if pending:
            raise _invalid(
                "An assistant message with 'tool_calls' must be followed by tool messages responding "
                f"to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
                f"{', '.join(sorted(pending))}",
                f"messages[{i}]",
            )
        asked = {c.get("id") for c in calls or () if isinstance(c, dict)}
        pending = set(asked)
    if pending:
        raise _invalid(
            "An assistant message with 'tool_calls' must be followed by tool messages.", "messages"
        )


def _newest(body: dict[str, Any]) -> str:
    """The newest user text that is not a system note."""
    users = [m for m in body["messages"] if m["role"] == "user"]
    said = (
        [t for t in _texts(users[-1]["content"]) if t and not t.startswith("[System note: ")] if users else []
    )
    return said[-1] if said else ""


def _heard(body: dict[str, Any]) -> str:
    """The default reply: the last user message's text (tool results when they came last)."""
    last = body["messages"][-1]
    if last["role"] == "tool":
        results = [m["content"] for m in body["messages"] if m["role"] == "tool"]
        return "Fake model heard: " + "\n".join(str(r) for r in results)[:200]
    return "Fake model heard: " + _newest(body)[:200]


class FakeOpenAI(ScriptedServer):
    """The fake server; ``with FakeOpenAI() as fake:`` starts and stops it."""

    def __init__(
        self,
        port: int = 0,
        *,
        api_key: str | None = None,
        latency: float = 0.0,
        no_tools: bool = False,
        no_images: bool = False,
    ) -> None:
        """Args: port: 0 picks a free one. api_key: when set, any other key gets a 401 (else any
        key is taken, as local servers do). latency: seconds every API request waits before its
        answer starts. no_tools: refuse every request that sends ``tools`` (a 400). no_images:
        refuse every request with ``image_url`` parts (a 400), as a text-only model does."""
        super().__init__(port, latency=latency, decoder=_BEHAVIOURS)
        self._api_key = api_key
        self.no_tools = no_tools
        self.no_images = no_images
        self._seen: set[str] = set()
        self._numbers = itertools.count(1)

    def _forget(self) -> None:
        """The prefix cache, the completion numbers, ``no_tools`` and ``no_images`` go with ``reset()``."""
        self._seen.clear()
        self._numbers = itertools.count(1)
        self.no_tools = False
        self.no_images = False

    def _bad_script(self, message: str) -> Exception:
        return _invalid(message)

    def _app(self) -> web.Application:
        app = web.Application(middlewares=[self._errors], client_max_size=32 * 2**20)
        app.router.add_post("/v1/chat/completions", self._on_completions)
        app.router.add_post("/_fake/no_tools", self._on_no_tools)
        self._add_fake_routes(app)
        return app

    @web.middleware
    async def _errors(self, request: web.Request, handler: Any) -> web.StreamResponse:
        try:
            return await handler(request)  # type: ignore[no-any-return]
        except _ApiError as error:
            return _error(
                error.status,
                error.message,
                ERROR_TYPES.get(error.status, "invalid_request_error"),
                error.param,
                error.code,
            )

    def _cached(self, messages: list[Any]) -> tuple[int, int]:
        """(prompt tokens, tokens of the longest prefix seen before); remembers this one's prefixes."""
        hasher, sizes, keys = hashlib.sha256(), [], []
        for message in messages:
            text = _canon(message)
            hasher.update(text.encode() + b",")
            keys.append(hasher.hexdigest())
            sizes.append(len(text))
        totals = list(itertools.accumulate(sizes))
        hit = max((k for k, key in enumerate(keys) if key in self._seen), default=None)
        self._seen.update(keys)
        return _tokens(totals[-1]), (_tokens(totals[hit]) if hit is not None else 0)

    async def _on_completions(self, request: web.Request) -> web.StreamResponse:
        body = await self._record(request)
        _check_auth(request.headers, self._api_key)
        if body is None:
            raise _invalid("We could not parse the JSON body of your request.")
        _validate(body, no_tools=self.no_tools, no_images=self.no_images)
        if self.latency:
            await asyncio.sleep(self.latency)
        with self._lock:
            behaviour = self._next(_newest(body), Reply())
            prompt, cached = self._cached(body["messages"]) if not isinstance(behaviour, Error) else (0, 0)
            number = next(self._numbers)
        if isinstance(behaviour, Error):
            headers = {} if behaviour.retry_after is None else {"retry-after": f"{behaviour.retry_after:g}"}
            return _error(behaviour.status, behaviour.message, behaviour.type, None, behaviour.code, headers)
        if isinstance(behaviour, Hang) and (behaviour.after_chunks is None or not body.get("stream")):
            await self._hang(request)
            return web.Response(status=500)  # never reaches the client: the connection is closed
        reply = (
            behaviour
            if isinstance(behaviour, Reply)
            else Reply(behaviour.text, chunk_size=behaviour.chunk_size)
        )
        if reply.cached_tokens is not None:
            cached = reply.cached_tokens
        completion = _completion(
            body, number, reply.text if reply.text is not None else _heard(body), reply.tool_calls
        )
        completion["usage"] = _usage(prompt, cached, completion.pop("_output"))
        if body.get("stream"):
            return await self._stream(request, body, completion, behaviour, reply)
        if isinstance(behaviour, StreamError):
            return _error(500, behaviour.message, "server_error", None, None)
        return web.json_response(completion)

    async def _stream(
        self,
        request: web.Request,
        body: dict[str, Any],
        completion: dict[str, Any],
        behaviour: Behaviour,
        reply: Reply,
    ) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )
        await response.prepare(request)
        usage = bool((body.get("stream_options") or {}).get("include_usage"))
        sent = 0
        with contextlib.suppress(ConnectionResetError):  # the client hung up, as on cancel
            for chunk, is_delta in _chunks_of(completion, reply.chunk_size, usage=usage):
                ending = (
                    not is_delta
                    and bool(chunk["choices"])
                    and chunk["choices"][0]["finish_reason"] is not None
                )
                if isinstance(behaviour, StreamError) and (
                    ending or (is_delta and sent >= behaviour.after_chunks)
                ):
                    error = {"error": {"message": behaviour.message, "code": 502}}
                    await response.write(f"data: {json.dumps(error)}\n\n".encode())
                    break
                if isinstance(behaviour, Hang) and (
                    ending or (is_delta and sent >= (behaviour.after_chunks or 0))
                ):
                    await self._hang(request)
                    return response
                if is_delta and sent and reply.delay:
                    await asyncio.sleep(reply.delay)
                sent += is_delta
                await response.write(f"data: {json.dumps(chunk, separators=(',', ':'))}\n\n".encode())
            else:
                await response.write(b"data: [DONE]\n\n")
            await response.write_eof()
        return response

    async def _on_no_tools(self, request: web.Request) -> web.Response:
        self.no_tools = True
        return web.json_response({"ok": True})


def _error(
    status: int,
    message: str,
    kind: str,
    param: str | None,
    code: str | None,
    headers: dict[str, str] | None = None,
) -> web.Response:
    body = {"error": {"message": message, "type": kind, "param": param, "code": code}}
    return web.json_response(body, status=status, headers=headers)


def _usage(prompt: int, cached: int, output: int) -> dict[str, Any]:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": output,
        "total_tokens": prompt + output,
        "prompt_tokens_details": {"cached_tokens": min(cached, prompt)},
    }


def _completion(
    body: dict[str, Any], number: int, text: str, calls: tuple[ToolCallReply, ...]
) -> dict[str, Any]:
    """A complete ``chat.completion``, cut by the token limit like the API does."""
    limit = (body.get("max_completion_tokens") or body.get("max_tokens") or 4096) * 4
    finish = "tool_calls" if calls else "stop"
    if len(text) > limit:
        text, calls, finish = text[:limit], (), "length"
    tool_calls = [
        {
            "id": call.id or f"call_fake_{number}_{k}",
            "type": "function",
            "function": {"name": call.name, "arguments": json.dumps(call.arguments, ensure_ascii=False)},
        }
        for k, call in enumerate(calls)
    ]
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if tool_calls:
        message["tool_calls"] = tool_calls
    output = len(text) + sum(len(c["function"]["arguments"]) for c in tool_calls)
    return {
        "id": f"chatcmpl-fake{number}",
        "object": "chat.completion",
        "created": 1_700_000_000 + number,
        "model": body["model"],
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "_output": max(1, _tokens(output)),
    }


def _chunks_of(
    completion: dict[str, Any], size: int, *, usage: bool
) -> Iterator[tuple[dict[str, Any], bool]]:
    """The stream's chunks, each with whether it is a delta (text or arguments)."""
    head = {k: completion[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
    choice = completion["choices"][0]
    message = choice["message"]

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return head | {"choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]}

    yield chunk({"role": "assistant", "content": ""}), False
    for piece in chunks(message["content"] or "", size):
        yield chunk({"content": piece}), True
    for k, call in enumerate(message.get("tool_calls") or ()):
        opening = {"index": k, "id": call["id"], "type": "function"}
        yield (
            chunk(
                {"tool_calls": [opening | {"function": {"name": call["function"]["name"], "arguments": ""}}]}
            ),
            False,
        )
        for piece in chunks(call["function"]["arguments"], size):
            yield chunk({"tool_calls": [{"index": k, "function": {"arguments": piece}}]}), True
    yield chunk({}, choice["finish_reason"]), False
    if usage:
        yield head | {"choices": [], "usage": completion["usage"]}, False


def main(argv: list[str] | None = None) -> None:
    """Serves until SIGINT/SIGTERM; the first line of stdout is the base URL (add ``/v1``)."""
    serve_until_stopped(
        lambda port, key: FakeOpenAI(port, api_key=key), "Fake OpenAI Chat Completions API", argv
    )


if __name__ == "__main__":
    main()
