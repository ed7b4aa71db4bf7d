"""Map Hearth's provider-neutral prompt onto Anthropic's Messages API (PRM-2).

- Leading system messages become ``system`` text blocks (the persona first).
- Later system messages (system-role lore, recalled memories, documents) become clearly marked
  system notes inside user turns, because the Messages API has no system role in the
  conversation.
- Consecutive messages of one role are merged into one turn with several text blocks, and a
  conversation that starts with the persona (its greeting) gets a short user opener, because
  the API wants turns that alternate and start with the user.
- A message's pictures become base64 ``image`` blocks before its text (Anthropic's advice); a
  message of pictures alone has no text block (the API refuses empty text).
- Prompt-cache breakpoints (``cache_control``) go on the blocks of the prompt's cache marks (the
  end of persona + pinned memories, of the stable prefix, of the window's older messages), so
  each part is cached and re-read while everything up to it stays byte-identical (DEC-15);
  a prompt without marks gets one at the end of its stable prefix.
"""

from __future__ import annotations

import base64
from typing import Any

import msgspec

from adapters.llm.prompt_map import CONVERSATION_OPENER, SYSTEM_NOTE, input_schema
from adapters.llm.tokens import offline_count
from engine.images import dimensions, image_tokens
from engine.model import ModelSettings
from engine.prompt import Prompt, PromptMessage
from engine.tools import ToolExchange, ToolSpec

__all__ = [
    "CONVERSATION_OPENER",
    "SYSTEM_NOTE",
    "estimate_request",
    "image_block",
    "to_messages_request",
    "tool_definitions",
]

_CACHE = {"type": "ephemeral"}


def tool_definitions(tools: tuple[ToolSpec, ...]) -> list[dict[str, Any]]:
    """Anthropic tool definitions; the input schema comes from each tool's input Struct."""
    return [
        {
            "name": tool.name,
            "description": tool.description,
            "input_schema": input_schema(tool.input_type),
        }
        for tool in tools
    ]


def _exchange_turns(exchange: ToolExchange) -> list[dict[str, Any]]:
    said: list[dict[str, Any]] = [{"type": "text", "text": exchange.text}] if exchange.text.strip() else []
    said += [
        {"type": "tool_use", "id": c.id, "name": c.name, "input": msgspec.json.decode(c.arguments)}
        for c in exchange.calls
    ]
    results = [
        {"type": "tool_result", "tool_use_id": r.call_id, "content": r.content, "is_error": r.is_error}
        for r in exchange.results
    ]
    return [{"role": "assistant", "content": said}, {"role": "user", "content": results}]


def image_block(media_type: str, data: bytes) -> dict[str, Any]:
    """A picture as an Anthropic ``image`` block (base64 source)."""
    encoded = base64.b64encode(data).decode("ascii")
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": encoded}}


def _content(message: PromptMessage, text: str) -> list[dict[str, Any]]:
    """A conversation message's blocks: its pictures, then its text (left out when empty)."""
    blocks = [image_block(i.media_type, i.data) for i in message.images]
    if text or not blocks:
        blocks.append({"type": "text", "text": text})
    return blocks


def to_messages_request(
    prompt: Prompt, settings: ModelSettings, tools: tuple[ToolSpec, ...] = ()
) -> dict[str, Any]:
    """Build the keyword arguments of ``messages.create`` for a prompt.

    Args:
        prompt: the assembled prompt (with this reply's tool exchanges, if any).
        settings: the model settings (``name`` already resolved).
        tools: tools offered to the model.

    Returns:
        ``model``, ``max_tokens``, ``system``, ``messages`` and ``tools`` when offered. No
        ``temperature`` or ``top_p``: the Messages API (version 2026-10-21, the SDK's) refuses
        any sampling parameter with a 400, so a persona's sampling settings stay unsent here.
    """
    system: list[dict[str, Any]] = []
    turns: list[dict[str, Any]] = []
    blocks: list[dict[str, Any]] = []
    leading = True
    for message in prompt.messages:
        if leading and message.role == "system":
            block = {"type": "text", "text": message.text}
            system.append(block)
            blocks.append(block)
            continue
        leading = False
        role = "assistant" if message.role == "assistant" else "user"
        text = SYSTEM_NOTE.format(text=message.text) if message.role == "system" else message.text
        content = _content(message, text)
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(content)
        else:
            turns.append({"role": role, "content": content})
        blocks.append(content[-1])  # a cache mark after this message goes on its last block
    if not turns or turns[0]["role"] != "user":
        turns.insert(0, {"role": "user", "content": [{"type": "text", "text": CONVERSATION_OPENER}]})
    marks = prompt.cache_marks or ((prompt.stable_count - 1,) if prompt.stable_count > 0 else ())
    for mark in marks:
        blocks[mark]["cache_control"] = dict(_CACHE)
    for exchange in prompt.exchanges:
        turns.extend(_exchange_turns(exchange))
    request: dict[str, Any] = {
        "model": settings.name,
        "max_tokens": settings.max_tokens,
        "messages": turns,
    }
    if system:
        request["system"] = system
    if tools:
        request["tools"] = tool_definitions(tools)
    return request


def estimate_request(request: dict[str, Any]) -> int:
    """The offline estimate of the input a request sends (text blocks, other blocks and tools as
    JSON, pictures by their size: ``engine.images.image_tokens``).

    Counted per block with the cached ``offline_count``, so a window's blocks cost nothing the
    second time; compared with the reported usage it gives the counter its ratio.
    """
    blocks: list[Any] = [*request.get("system", ())]
    for turn in request["messages"]:
        blocks.extend(turn["content"])
    pictures = sum(_picture_tokens(b) for b in blocks if b.get("type") == "image")
    texts = [
        b["text"] if b.get("type") == "text" else msgspec.json.encode(b).decode()
        for b in blocks
        if b.get("type") != "image"
    ]
    texts += [msgspec.json.encode(t).decode() for t in request.get("tools", ())]
    return pictures + sum(offline_count(t) for t in texts)


def _picture_tokens(block: dict[str, Any]) -> int:
    """An image block's tokens, from the size its header says (the first 64 KB hold it)."""
    head = base64.b64decode(block["source"]["data"][:87_380], validate=False)
    width, height = dimensions(head) or (0, 0)
    return image_tokens(width, height)
