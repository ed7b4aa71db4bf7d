"""The lorebook ports (``storage.redis_lore.RedisLoreStore``): what a turn scans, and the
library the lore desk edits."""

from __future__ import annotations

from typing import Protocol

import msgspec

from engine.lorebook import CompiledBook, LoreBook, LoreState

__all__ = ["BookSummary", "LoreLibrary", "LoreSource", "LoreStore"]


class BookSummary(msgspec.Struct, frozen=True, kw_only=True):
    """A lorebook as listings show it."""

    id: str
    name: str
    entries: int


class LoreSource(Protocol):
    """The lorebooks a turn scans (fake: ``tests.fakes.stores.InMemoryLoreStore``)."""

    async def attached(self, chat: str) -> list[str]:
        """The ids of the books attached to a chat (``[]`` when none)."""
        ...

    async def compiled(self, books: list[str], versions: dict[str, int] | None = None) -> list[CompiledBook]:
        """Compiled books for ``books`` (unknown ids skipped), cached per book version.

        ``versions`` already read (``TurnInputs.book_versions``) are not read again.
        """
        ...

    async def state(self, chat: str) -> LoreState:
        """The chat's lorebook decorator state (written with the turn, ``TurnRecords.finish``)."""
        ...


class LoreLibrary(Protocol):
    """The stored books and which chat reads which (``engine.service.lore.LoreDesk``)."""

    async def put(self, book: LoreBook) -> LoreBook:
        """Store a book (a new id when it has none); returns the stored book."""
        ...

    async def get(self, book: str) -> LoreBook | None:
        """One book, or None."""
        ...

    async def all(self) -> list[BookSummary]:
        """Every book's summary, by name."""
        ...

    async def exist(self, books: list[str]) -> list[str]:
        """Which of ``books`` do not exist."""
        ...

    async def attach(self, chat: str, books: list[str]) -> None:
        """Replace the books attached to a chat."""
        ...


class LoreStore(LoreSource, LoreLibrary, Protocol):
    """The scan's books and the library together (the lore desk reads attachments too)."""
