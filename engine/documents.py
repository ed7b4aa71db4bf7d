"""Persona documents (DOC-1): split text and Markdown into chunks the recall can search.

Chunks follow the document's own structure: paragraphs (blank lines) and Markdown headings
start new pieces; pieces are packed up to ``max_chars`` (default 800, well under the embedder's
512-token window); a paragraph longer than that is cut at sentence ends, then at spaces. Each
chunk remembers the nearest heading above it, so a chunk read alone still says what it is about.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Literal

import msgspec

from engine.errors import InvalidInput

__all__ = ["DOCUMENT_MAX_BYTES", "Chunk", "DocumentInfo", "DocumentJob", "chunk_document"]

DOCUMENT_MAX_BYTES = 1_000_000
"""Largest accepted upload (``413 file_too_large``): about 1,250 chunks, minutes of embedding."""

_HEADING = re.compile(r"^#{1,6}\s+(.+)$")
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+")


class DocumentInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A persona's document."""

    id: str
    name: str
    chunks: int
    chars: int


class DocumentJob(msgspec.Struct, frozen=True, kw_only=True):
    """One upload on its way to becoming a searchable document (its id is the document's).

    ``status``: ``queued`` (waiting for this process's ingestion slot), ``embedding``
    (``embedded`` of ``chunks`` done), ``done`` (searchable) or ``failed`` (``error`` says why).
    """

    id: str
    persona: str
    name: str
    status: Literal["queued", "embedding", "done", "failed"]
    chunks: int
    chars: int
    embedded: int = 0
    error: str | None = None
    created_at: datetime
    updated_at: datetime


class Chunk(msgspec.Struct, frozen=True, kw_only=True):
    """One searchable piece of a document."""

    index: int
    text: str
    heading: str = ""


def _split_long(text: str, max_chars: int) -> list[str]:
    pieces: list[str] = []
    current = ""
    for sentence in _SENTENCE.split(text):
        while len(sentence) > max_chars:
            cut = sentence.rfind(" ", 0, max_chars)
            cut = cut if cut > max_chars // 2 else max_chars
            pieces.append(sentence[:cut].strip())
            sentence = sentence[cut:].strip()
        if current and len(current) + 1 + len(sentence) > max_chars:
            pieces.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}".strip()
    if current:
        pieces.append(current)
    return pieces


def chunk_document(text: str, *, max_chars: int = 800, overlap: int = 0) -> tuple[Chunk, ...]:
    """Split a text or Markdown document into chunks.

    Args:
        text: the document.
        max_chars: the longest chunk.
        overlap: a chunk starts with the last whole pieces (paragraphs, or sentences of a long
            one) of the chunk before it under the same heading, up to this many characters,
            when they fit beside the next piece (0: chunks do not overlap).

    Returns:
        The chunks, in document order.

    Raises:
        InvalidInput: ``document_empty`` when there is no text.
    """
    if not text.strip():
        raise InvalidInput("The document has no text.", code="document_empty")
    chunks: list[Chunk] = []
    heading, current = "", ""
    heading_used = True  # a heading with no text under it is kept as a chunk of its own
    pieces: list[str] = []  # the current chunk's pieces, for the next chunk's overlap

    def flush() -> None:
        nonlocal current, heading_used
        if current.strip():
            chunks.append(Chunk(index=len(chunks), text=current.strip(), heading=heading))
            heading_used = True
        current = ""
        pieces.clear()

    def carried() -> list[str]:
        kept: list[str] = []
        for piece in reversed(pieces):
            if sum(len(k) + 2 for k in kept) + len(piece) > overlap:
                break
            kept.insert(0, piece)
        return kept

    def close_heading() -> None:
        if not heading_used and heading:
            chunks.append(Chunk(index=len(chunks), text=heading[:max_chars], heading=heading))

    # Every heading line starts a block of its own, blank line before it or not.
    lines = text.replace("\r\n", "\n").split("\n")
    spaced = "\n".join(f"\n{line}\n" if _HEADING.match(line) else line for line in lines)
    for block in re.split(r"\n\s*\n", spaced):
        block = block.strip()
        if not block:
            continue
        title = _HEADING.match(block.splitlines()[0])
        if title:
            flush()
            close_heading()
            heading, heading_used = title.group(1).strip(), False
            block = "\n".join(block.splitlines()[1:]).strip()
            if not block:
                continue
        for piece in _split_long(block, max_chars) if len(block) > max_chars else [block]:
            if current and len(current) + 2 + len(piece) > max_chars:
                carry = carried() if overlap else []
                flush()
                while carry and sum(len(k) + 2 for k in carry) + len(piece) > max_chars:
                    carry.pop(0)
                pieces.extend(carry)
                current = "\n\n".join(carry)
            current = f"{current}\n\n{piece}" if current else piece
            pieces.append(piece)
    flush()
    if not any(c.text != c.heading for c in chunks):
        raise InvalidInput("The document has only headings, no text under them.", code="document_empty")
    close_heading()
    return tuple(chunks)
