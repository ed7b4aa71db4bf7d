"""Map Hearth's provider-neutral prompt onto OpenAI's Chat Completions API (LLM-1).

- The leading system messages (persona, pinned memories... the stable prefix first) become one
  ``system`` message, so the byte-identical prefix that OpenAI and many servers cache
  automatically stays at the front of every request.
- Later system messages become marked system notes inside user turns, consecutive messages of
  one role are merged, and a conversation that starts with the persona's greeting gets a short
  user opener: the strictest local chat templates want alternating turns that start with the user.
- Each message's ``content`` is built by ``_content`` from a list of parts: plain text when every
  part is text (what every server accepts), else the list of content parts. A user message's
  pictures become ``image_url`` parts (base64 data URLs) before its text.
- The memory tools become function tools; a reply's tool rounds become an assistant message
  with ``tool_calls`` and one ``tool`` message per result. Without tools (a server that refuses
  them), a round is told as text: what the assistant said, then a system note of the results.
"""

from __future__ import annotations

import base64
from typing import Any

import msgspec

from adapters.llm.prompt_map import CONVERSATION_OPENER, SYSTEM_NOTE, input_schema, sampling
from adapters.llm.tokens import offline_count
from engine.images import dimensions, image_tokens, placeholder
from engine.model import ModelSettings
from engine.prompt import Prompt
from engine.tools import ToolExchange, ToolSpec

__all__ = ["estimate_request", "image_part", "to_chat_request", "tool_definitions"]

Part = dict[str, Any]


def tool_definitions(tools: tuple[ToolSpec, ...]) -> list[dict[str, Any]]:
    """Function tools; the parameters schema comes from each tool's input Struct."""
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": input_schema(tool.input_type),
            },
        }
        for tool in tools
    ]


def _text(text: str) -> Part:
    return {"type": "text", "text": text}


def image_part(media_type: str, data: bytes) -> Part:
    """A picture as an ``image_url`` part with a base64 data URL (OpenAI's vision input)."""
    url = f"data:{media_type};base64,{base64.b64encode(data).decode('ascii')}"
    return {"type": "image_url", "image_url": {"url": url}}


def _content(parts: list[Part]) -> str | list[Part]:
    """A message's content: its texts joined when all parts are text, else the parts."""
    if all(part["type"] == "text" for part in parts):
        return "\n\n".join(part["text"] for part in parts)
    return parts


def _add(turns: list[tuple[str, list[Part]]], role: str, part: Part) -> None:
    if turns and turns[-1][0] == role:
        turns[-1][1].append(part)
    else:
        turns.append((role, [part]))


def _result_text(exchange: ToolExchange) -> str:
    names = {call.id: call.name for call in exchange.calls}
    lines = [
        f"{names.get(r.call_id, 'tool')} {'failed' if r.is_error else 'did'}: {r.content}"
        for r in exchange.results
    ]
    return SYSTEM_NOTE.format(text="\n".join(lines))


def _exchange_messages(exchange: ToolExchange) -> list[dict[str, Any]]:
    calls = [
        {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
        for c in exchange.calls
    ]
    said = exchange.text if exchange.text.strip() else None
    results = [
        {
            "role": "tool",
            "tool_call_id": r.call_id,
            "content": f"Error: {r.content}" if r.is_error else r.content,
        }
        for r in exchange.results
    ]
    return [{"role": "assistant", "content": said, "tool_calls": calls}, *results]


def to_chat_request(
    prompt: Prompt,
    settings: ModelSettings,
    tools: tuple[ToolSpec, ...] = (),
    *,
    with_tools: bool = True,
    with_images: bool = True,
    token_limit: str = "max_tokens",
) -> dict[str, Any]:
    """Build the keyword arguments of ``chat.completions.create`` for a prompt (without ``stream``).

    Args:
        prompt: the assembled prompt (with this reply's tool exchanges, if any).
        settings: the model settings (``name`` already resolved).
        tools: tools offered to the model.
        with_tools: False for a server that refuses tools: none are sent and the tool rounds
            are told as text.
        with_images: False for a server whose model cannot read pictures: each becomes its
            text placeholder.
        token_limit: the name of the reply-length field (OpenAI's own API wants
            ``max_completion_tokens``; most other servers know ``max_tokens``).

    Returns:
        ``model``, the token limit, ``messages``, ``stream_options`` and ``tools`` when offered.
    """
    system: list[str] = []
    turns: list[tuple[str, list[Part]]] = []
    leading = True
    for message in prompt.messages:
        if leading and message.role == "system":
            system.append(message.text)
            continue
        leading = False
        role = "assistant" if message.role == "assistant" else "user"
        text = SYSTEM_NOTE.format(text=message.text) if message.role == "system" else message.text
        pictures = message.images if role == "user" else ()
        if pictures and not with_images:
            text = "\n".join([*(placeholder(p) for p in pictures), *([text] if text else [])])
            pictures = ()
        for picture in pictures:
            _add(turns, role, image_part(picture.media_type, picture.data))
        if text or not pictures:
            _add(turns, role, _text(text))
    if not turns or turns[0][0] != "user":
        turns.insert(0, ("user", [_text(CONVERSATION_OPENER)]))
    calls = with_tools and bool(tools)
    if not calls:
        for exchange in prompt.exchanges:
            if exchange.text.strip():
                _add(turns, "assistant", _text(exchange.text))
            _add(turns, "user", _text(_result_text(exchange)))
    messages: list[dict[str, Any]] = [{"role": "system", "content": "\n\n".join(system)}] if system else []
    messages += [{"role": role, "content": _content(parts)} for role, parts in turns]
    if calls:
        for exchange in prompt.exchanges:
            messages.extend(_exchange_messages(exchange))
    request: dict[str, Any] = {
        "model": settings.name,
        token_limit: settings.max_tokens,
        "messages": messages,
        "stream_options": {"include_usage": True},
        **sampling(settings),
    }
    if calls:
        request["tools"] = tool_definitions(tools)
    return request


def estimate_request(request: dict[str, Any]) -> int:
    """The offline estimate of the input a request sends (texts, other parts, calls and tools as
    JSON, pictures by their size: ``engine.images.image_tokens``).

    Counted per text with the cached ``offline_count``; compared with the reported
    ``prompt_tokens`` it gives the counter its ratio.
    """
    texts: list[str] = []
    pictures = 0
    for message in request["messages"]:
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            pictures += sum(_picture_tokens(p) for p in content if p.get("type") == "image_url")
            texts += [
                p["text"] if p.get("type") == "text" else _json(p)
                for p in content
                if p.get("type") != "image_url"
            ]
        if message.get("tool_calls"):
            texts.append(_json(message["tool_calls"]))
    texts += [_json(t) for t in request.get("tools", ())]
    return pictures + sum(offline_count(t) for t in texts)


def _picture_tokens(part: Part) -> int:
    """An ``image_url`` part's tokens, from the size its header says (the first 64 KB hold it)."""
    url = str(part.get("image_url", {}).get("url", ""))
    encoded = url.partition(",")[2]
    head = base64.b64decode(encoded[:87_380], validate=False) if encoded else b""
    width, height = dimensions(head) or (0, 0)
    return image_tokens(width, height)


def _json(value: Any) -> str:
    return msgspec.json.encode(value).decode()
