"""Markdown → Telegram messages: plain text plus entities, split at the size limit (PLT-3).

The model writes Markdown. ``telegramify-markdown`` (a maintained converter on pulldown-cmark)
turns it into plain text and ``MessageEntity`` ranges, so nothing is ever sent with a
``parse_mode`` and no character needs escaping: whatever the model writes, Telegram cannot
refuse to parse it. Three guards on top of the converter:

- Raw HTML in the reply (``<name>``, ``<3``) is text here, not markup the converter would drop:
  ``<`` is swapped for a private-use placeholder before converting and restored afterwards
  (same UTF-16 width, so entity offsets stay right).
- Only formatting entities are kept; links keep only ``http(s)``/``tg``/``mailto`` URLs.
- Chunks are at most ``limit`` UTF-16 units (Telegram counts text that way), cut at a paragraph,
  line, sentence or word boundary when one lies in the second half of the window; entities
  crossing a cut are clipped into both chunks; chunks carry no edge whitespace (Telegram would
  trim it and shift the entities).
"""

from __future__ import annotations

import msgspec
import telegramify_markdown

__all__ = ["MAX_MESSAGE_CHARS", "Chunk", "Entity", "Styled", "render", "split", "utf16_len", "with_footer"]

MAX_MESSAGE_CHARS = 4096
_LT = "\ue000"
_KEEP = frozenset(
    {
        "bold",
        "italic",
        "underline",
        "strikethrough",
        "spoiler",
        "code",
        "pre",
        "text_link",
        "blockquote",
        "expandable_blockquote",
    }
)
_SCHEMES = ("http://", "https://", "tg://", "mailto:")
_BREAKS = ("\n\n", "\n", ". ", "! ", "? ", "; ", ", ", " ")


class Entity(msgspec.Struct, frozen=True, kw_only=True):
    """A Bot API ``MessageEntity``; offsets and lengths in UTF-16 code units."""

    type: str
    offset: int
    length: int
    url: str | None = None
    language: str | None = None


class Chunk(msgspec.Struct, frozen=True, kw_only=True):
    """One Telegram message: text and its entities."""

    text: str
    entities: tuple[Entity, ...] = ()


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def render(markdown: str, limit: int = MAX_MESSAGE_CHARS) -> tuple[Chunk, ...]:
    """Render Markdown as Telegram messages.

    Args:
        markdown: the reply as the model wrote it.
        limit: the most UTF-16 units one message may hold.

    Returns:
        The messages in order; empty when there is nothing visible to send.
    """
    source = markdown.replace(_LT, "").replace("<", _LT)
    text, found = telegramify_markdown.convert(source)
    text = text.replace(_LT, "<")
    entities = tuple(e for e in (_entity(x) for x in found) if e is not None)
    return split(text, entities, limit)


def _entity(raw: telegramify_markdown.MessageEntity) -> Entity | None:
    if raw.type not in _KEEP or raw.length <= 0:
        return None
    if raw.type == "text_link" and not (raw.url or "").lower().startswith(_SCHEMES):
        return None
    return Entity(
        type=raw.type,
        offset=raw.offset,
        length=raw.length,
        url=raw.url,
        language=raw.language if raw.type == "pre" else None,
    )


def split(text: str, entities: tuple[Entity, ...], limit: int) -> tuple[Chunk, ...]:
    """Cut ``text`` (with its entities) into trimmed chunks of at most ``limit`` UTF-16 units."""
    units = _unit_offsets(text)
    chunks: list[Chunk] = []
    start = 0
    while start < len(text):
        end = _cut(text, units, start, limit)
        chunk = _slice(text, units, entities, start, end)
        if chunk is not None:
            chunks.append(chunk)
        start = end
    return tuple(chunks)


def _unit_offsets(text: str) -> list[int]:
    """``offsets[i]`` is the UTF-16 offset of ``text[i]``; one extra entry for the end."""
    offsets, at = [0] * (len(text) + 1), 0
    for i, char in enumerate(text):
        offsets[i] = at
        at += 2 if ord(char) > 0xFFFF else 1
    offsets[len(text)] = at
    return offsets


def _cut(text: str, units: list[int], start: int, limit: int) -> int:
    """Where the chunk starting at ``start`` ends (exclusive, a ``str`` index)."""
    budget = units[start] + limit
    if units[len(text)] <= budget:
        return len(text)
    end = start
    while end < len(text) and units[end + 1] <= budget:
        end += 1
    window = text[start:end]
    for mark in _BREAKS:
        at = window.rfind(mark)
        if at >= len(window) // 2:
            return start + at + len(mark)
    return max(end, start + 1)


def _slice(text: str, units: list[int], entities: tuple[Entity, ...], start: int, end: int) -> Chunk | None:
    piece = text[start:end]
    lead = len(piece) - len(piece.lstrip())
    body = piece.strip()
    if not body:
        return None
    low = units[start + lead]
    high = low + utf16_len(body)
    clipped = []
    for e in entities:
        a, b = max(e.offset, low), min(e.offset + e.length, high)
        if b > a:
            clipped.append(msgspec.structs.replace(e, offset=a - low, length=b - a))
    return Chunk(text=body, entities=tuple(clipped))


def with_footer(chunks: tuple[Chunk, ...], footer: str, limit: int = MAX_MESSAGE_CHARS) -> tuple[Chunk, ...]:
    """Add an italic footer line (memory notices) under the last chunk, or as its own chunk.

    The footer joins the last message when both fit in ``limit`` UTF-16 units together;
    otherwise it follows as a message of its own (cut like any text if it is itself too long).
    """
    footer = footer.strip()
    if not footer:
        return chunks
    if chunks:
        last = chunks[-1]
        start = utf16_len(last.text) + 2
        if start + utf16_len(footer) <= limit:
            italic = Entity(type="italic", offset=start, length=utf16_len(footer))
            joined = Chunk(text=f"{last.text}\n\n{footer}", entities=(*last.entities, italic))
            return (*chunks[:-1], joined)
    own = split(footer, (Entity(type="italic", offset=0, length=utf16_len(footer)),), limit)
    return (*chunks, *own)


class Styled:
    """Builds one message from plain and styled pieces, counting entity offsets in UTF-16.

    For texts Hearth writes itself around text it must not interpret (memory entries): no
    Markdown pass, so nothing a person saved can turn into formatting.
    """

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._entities: list[Entity] = []
        self._at = 0

    def add(self, text: str, style: str | None = None) -> Styled:
        """Append ``text``, as ``style`` (``bold``, ``italic``, ``code``...) when given."""
        size = utf16_len(text)
        if style is not None and size:
            self._entities.append(Entity(type=style, offset=self._at, length=size))
        self._parts.append(text)
        self._at += size
        return self

    def chunk(self) -> Chunk:
        """The message (callers start and end it with visible text, as Telegram trims edges)."""
        return Chunk(text="".join(self._parts), entities=tuple(self._entities))
