"""Builders shared by the lorebook tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine.lorebook import (
    CompiledBook,
    LoreBook,
    LoreDecision,
    LoreEntry,
    LoreResult,
    LoreState,
    compile_book,
    scan_lore,
)

__all__ = ["approx_tokens", "book", "decision", "entry", "included", "scan"]


def approx_tokens(text: str) -> int:
    """A simple pure token counter: about four characters per token."""
    return len(text) // 4 + 1


def entry(entry_id: str, *keys: str, content: str | None = None, **fields: Any) -> LoreEntry:
    """An entry whose content defaults to ``"lore <id>"``."""
    text = f"lore {entry_id}" if content is None else content
    return LoreEntry(id=entry_id, keys=keys, content=text, **fields)


def book(*entries: LoreEntry, **fields: Any) -> CompiledBook:
    """A compiled book (id ``"b"`` and scan depth 5 unless given)."""
    settings: dict[str, Any] = {"id": "b", "name": "Book", "scan_depth": 5, **fields}
    return compile_book(LoreBook(entries=entries, **settings))


def scan(
    books: CompiledBook | Sequence[CompiledBook],
    messages: Sequence[str],
    state: LoreState | None = None,
    *,
    turn_id: str = "t1",
    message_count: int | None = None,
    at_greeting: bool = False,
    count_tokens: Callable[[str], int] = approx_tokens,
) -> LoreResult:
    """Run ``scan_lore`` with test defaults (message_count = len(messages))."""
    pool = [books] if isinstance(books, CompiledBook) else list(books)
    return scan_lore(
        pool,
        messages,
        state or LoreState(),
        turn_id=turn_id,
        message_count=len(messages) if message_count is None else message_count,
        at_greeting=at_greeting,
        count_tokens=count_tokens,
    )


def included(result: LoreResult) -> list[str]:
    """Ids of the rendered entries, in prompt order."""
    return [message.entry for message in result.messages]


def decision(result: LoreResult, entry_id: str, book_id: str = "b") -> LoreDecision:
    """The decision logged for one entry (fails the test when missing)."""
    found = [d for d in result.decisions if d.entry == entry_id and d.book == book_id]
    if len(found) != 1:
        raise LookupError(f"expected one decision for {book_id}/{entry_id}, got {found}")
    return found[0]
