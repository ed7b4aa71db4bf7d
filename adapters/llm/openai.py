"""Any OpenAI-compatible Chat Completions server through the official SDK (LLM-1).

OpenAI itself, OpenRouter, DeepSeek, Groq and local servers (Ollama, llama.cpp's server, vLLM,
LM Studio) all speak it. Replies stream with ``stream_options.include_usage``: the last chunk's
``prompt_tokens`` teaches the token counter its ratio like Claude's input tokens, and
``prompt_tokens_details.cached_tokens`` (automatic prefix caching) is reported as cache reads.
The SDK's retries are off; the attempt loop every provider shares (``adapters.llm.retry``)
retries, waits and times out exactly as it does for Claude, and SDK exceptions are translated
here (STYLE P5).

Tools: the memory tools go out as function tools and calls are rebuilt from the streamed
deltas. A server or model that refuses ``tools`` (an error naming tools or functions) gets the
same turn again without them, and the refusal is remembered per server and model for the life
of the process, so later turns do not send them. Without tools the model cannot save mid-reply
(MEM-8), but a person's explicit "remember that …" is still saved: the engine's own reading of
the request (``engine.offline.offline_tool_calls``) makes the call the model could not.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any
from urllib.parse import urlsplit

import openai

from adapters.llm.openai_format import estimate_request, to_chat_request
from adapters.llm.retry import RETRYABLE_STATUS, Attempts, Failure, parse_retry_after, status_error
from config.settings import LlmSettings
from engine.errors import LLMUnavailable
from engine.model import ModelSettings
from engine.offline import offline_tool_calls
from engine.ports import ModelDone, ModelEvent, TextDelta
from engine.prompt import Prompt
from engine.requestlog import Usage
from engine.tools import ToolCall, ToolSpec

__all__ = ["NO_KEY", "OpenAIChatModel", "refuses_images", "refuses_tools"]

log = logging.getLogger("hearth.llm")
NO_KEY = "no-key"
"""Sent as the key to a server that needs none (a local Ollama or llama.cpp): the SDK wants one."""
_STOP = {"stop": "end_turn", "tool_calls": "tool_use", "function_call": "tool_use", "length": "max_tokens"}
_TOOL_WORDS = ("tool", "function")
_TOOLLESS: set[tuple[str, str]] = set()
"""(server, model) pairs that refused tools in this process."""
_IMAGE_WORDS = ("image", "vision", "multimodal", "image_url")
_BLIND: set[tuple[str, str]] = set()
"""(server, model) pairs that refused pictures in this process: they get the placeholders."""


def refuses_tools(exc: openai.APIStatusError) -> bool:
    """Whether an error says the server or model does not take ``tools``.

    Servers word it differently ("does not support tools", "tools param requires --jinja",
    "function calling is not enabled"), with a 400, 404, 422, 500 or 501; a rate limit, an
    auth error or an outage never counts.
    """
    if exc.status_code in (401, 403, 408, 409, 429) or exc.status_code in (502, 503, 504, 529):
        return False
    said = f"{exc.message} {exc.body}".lower()
    return any(word in said for word in _TOOL_WORDS)


def refuses_images(exc: openai.APIStatusError) -> bool:
    """Whether an error says the model does not read pictures ("image input is not supported",
    "does not support vision", a 400/404/415/422/500/501 naming images)."""
    if exc.status_code in (401, 403, 408, 409, 413, 429) or exc.status_code in (502, 503, 504, 529):
        return False
    said = f"{exc.message} {exc.body}".lower()
    return any(word in said for word in _IMAGE_WORDS)


def _has_pictures(prompt: Prompt) -> bool:
    return any(m.images for m in prompt.messages if m.role == "user")


def _label(base_url: str | None) -> str:
    if base_url is None:
        return "OpenAI"
    return f"The model server at {urlsplit(base_url).netloc or base_url}"


def _usage(found: Any) -> Usage:
    if found is None:
        return Usage()
    details = getattr(found, "prompt_tokens_details", None)
    cached = (getattr(details, "cached_tokens", 0) or 0) if details is not None else 0
    prompt = found.prompt_tokens or 0
    return Usage(
        input_tokens=max(0, prompt - cached),
        output_tokens=found.completion_tokens or 0,
        cache_read_input_tokens=cached,
    )


class OpenAIChatModel:
    """Implements the ``ChatModel`` port with ``openai.AsyncOpenAI``."""

    provider = "openai"

    def __init__(
        self,
        client: openai.AsyncOpenAI,
        attempts: Attempts | None = None,
        *,
        token_limit: str = "max_tokens",
    ) -> None:
        self.client = client
        self.attempts = attempts or Attempts("OpenAI")
        self._token_limit = token_limit

    @classmethod
    def from_settings(cls, settings: LlmSettings) -> OpenAIChatModel:
        """Build the SDK client from the ``llm`` settings (``OPENAI_BASE_URL`` honoured)."""
        base_url = settings.openai_base_url
        key = settings.openai_api_key
        client = openai.AsyncOpenAI(
            api_key=str(key) if key is not None else NO_KEY,
            base_url=base_url,
            max_retries=0,
            timeout=openai.Timeout(settings.read_timeout, connect=settings.connect_timeout),
        )
        _ = client.chat.completions  # the SDK imports its chat types now, not on the first turn (~1-3 s)
        # OpenAI's own API wants max_completion_tokens (its reasoning models refuse max_tokens)
        limit = "max_completion_tokens" if base_url is None else "max_tokens"
        return cls(client, Attempts.from_settings(_label(base_url), settings), token_limit=limit)

    @property
    def vision(self) -> bool:
        """Whether pictures go to this server as ``image_url`` parts: until it refused them once
        (from then on its prompts carry placeholders, and each chat is told once)."""
        server = str(self.client.base_url)
        return not any(where == server for where, _ in _BLIND)

    def _where(self, model: str) -> tuple[str, str]:
        return str(self.client.base_url), model

    def _translate(self, exc: Exception, *, tools_sent: bool, images_sent: bool = False) -> Failure | None:
        if isinstance(exc, openai.APIStatusError):
            if images_sent and refuses_images(exc):
                return None  # raised as is: the turn is asked again with placeholders
            if tools_sent and refuses_tools(exc):
                return None  # raised as is: the turn is asked again without tools
            wait = parse_retry_after(exc.response.headers.get("retry-after"))
            kind = str(exc.type or exc.code or "error")
            error = status_error(
                self.attempts.label, exc.status_code, kind, retry_after=wait, key_name="OPENAI_API_KEY"
            )
            return Failure(error, exc.status_code in RETRYABLE_STATUS, wait)
        found = self.attempts.transport(
            exc, timeout=openai.APITimeoutError, connection=openai.APIConnectionError
        )
        if found is None and isinstance(exc, openai.APIError):  # an error chunk in the stream
            return Failure(LLMUnavailable(f"{self.attempts.label} failed mid-reply"), True)
        return found

    async def stream(
        self,
        prompt: Prompt,
        settings: ModelSettings,
        persona_name: str,
        tools: tuple[ToolSpec, ...] = (),
    ) -> AsyncIterator[ModelEvent]:
        """See ``engine.ports.ChatModel.stream``."""
        where = self._where(settings.name)
        if tools and where not in _TOOLLESS:
            emitted = False
            try:
                async with contextlib.aclosing(self._answer(prompt, settings, tools, True)) as events:
                    async for event in events:
                        emitted = True
                        yield event
                return
            except openai.APIStatusError as exc:  # only a refusal of tools gets here
                if emitted:  # never seen: a refusal comes before the reply; asking again would repeat it
                    raise LLMUnavailable(f"{self.attempts.label} refused tools mid-reply") from exc
                _TOOLLESS.add(where)
                log.warning(
                    "%s refuses tools for model %r (%s): it answers without them from now on",
                    self.attempts.label,
                    settings.name,
                    exc.status_code,
                )
        calls = offline_tool_calls(prompt, tools)  # "remember that …" without tools (MEM-8)
        if calls:
            for call in calls:
                yield call
            yield ModelDone(usage=Usage(), stop_reason="tool_use", attempts=1)
            return
        async with contextlib.aclosing(self._answer(prompt, settings, tools, False)) as events:
            async for event in events:
                yield event

    async def _answer(
        self, prompt: Prompt, settings: ModelSettings, tools: tuple[ToolSpec, ...], with_tools: bool
    ) -> AsyncGenerator[ModelEvent]:
        where = self._where(settings.name)
        pictures = _has_pictures(prompt) and where not in _BLIND
        emitted = False
        try:
            async with contextlib.aclosing(
                self._ask(prompt, settings, tools, with_tools, pictures)
            ) as events:
                async for event in events:
                    emitted = True
                    yield event
            return
        except openai.APIStatusError as exc:  # only a refusal (of pictures or of tools) gets here
            if not pictures or emitted or not refuses_images(exc):
                raise
            _BLIND.add(where)
            log.warning(
                "%s refuses pictures for model %r (%s): they go as placeholders from now on",
                self.attempts.label,
                settings.name,
                exc.status_code,
            )
        async with contextlib.aclosing(self._ask(prompt, settings, tools, with_tools, False)) as events:
            async for event in events:
                yield event

    async def _ask(
        self,
        prompt: Prompt,
        settings: ModelSettings,
        tools: tuple[ToolSpec, ...],
        with_tools: bool,
        with_images: bool,
    ) -> AsyncGenerator[ModelEvent]:
        request = to_chat_request(
            prompt,
            settings,
            tools,
            with_tools=with_tools,
            with_images=with_images,
            token_limit=self._token_limit,
        )
        sent = "tools" in request
        events = self.attempts.run(
            lambda deadline: self._once(request, deadline),
            lambda exc: self._translate(exc, tools_sent=sent, images_sent=with_images),
            lambda: estimate_request(request),
        )
        async with contextlib.aclosing(events):
            async for event in events:
                yield event

    async def _once(self, request: dict[str, Any], deadline: float) -> AsyncIterator[ModelEvent]:
        """One attempt, its waits bounded by ``Attempts.paced``."""
        calls: dict[int, dict[str, Any]] = {}
        usage: Any = None
        finish: str | None = None
        opening = self.client.chat.completions.create(**request, stream=True)
        chunks = self.attempts.paced(opening, deadline, _streams)
        async with contextlib.aclosing(chunks):
            async for chunk in chunks:
                if chunk.usage is not None:
                    usage = chunk.usage
                for choice in chunk.choices[:1]:
                    if choice.delta.content:
                        yield TextDelta(text=choice.delta.content)
                    for piece in choice.delta.tool_calls or ():
                        _collect(calls, piece)
                    finish = choice.finish_reason or finish
        for index in sorted(calls):
            call = calls[index]
            arguments = "".join(call["arguments"]) or "{}"
            yield ToolCall(id=call["id"] or f"call_{index}", name=call["name"], arguments=arguments)
        stop = "tool_use" if calls else _STOP.get(finish or "", finish)
        yield ModelDone(usage=_usage(usage), stop_reason=stop, attempts=1)


def _streams(chunk: Any) -> bool:
    """Whether a chunk carries the reply (text or a tool call), not only its role or usage."""
    return any(c.delta.content or c.delta.tool_calls for c in chunk.choices)


def _collect(calls: dict[int, dict[str, Any]], piece: Any) -> None:
    """Fold one streamed tool-call delta in: the id and name come once, the arguments in pieces."""
    index = piece.index if piece.index is not None else len(calls)
    call = calls.setdefault(index, {"id": "", "name": "", "arguments": []})
    if piece.id:
        call["id"] = piece.id
    function = piece.function
    if function is not None:
        if function.name and not call["name"]:
            call["name"] = function.name
        if function.arguments:
            call["arguments"].append(function.arguments)
