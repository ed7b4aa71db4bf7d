"""An in-memory fake of ``storage.redis_lore.RedisLoreStore`` (``LoreSource`` and the book editing)."""

from __future__ import annotations

import secrets

import msgspec

from engine.lorebook import CompiledBook, LoreBook, LoreState
from engine.ports import BookSummary
from storage.redis_lore import RedisLoreStore
from tests.fakes.stores.data import InMemoryData

__all__ = ["InMemoryLoreStore"]


class InMemoryLoreStore:
    """Lorebooks, chat attachments and chat lore state; compiled books cached per version."""

    def __init__(self, data: InMemoryData) -> None:
        self._d = data
        self._compiled: dict[str, tuple[int, CompiledBook | None]] = {}

    async def put(self, book: LoreBook) -> LoreBook:
        """Store a book (a new id when it has none); returns the stored book."""
        if not book.id:
            book = msgspec.structs.replace(book, id=f"lb-{secrets.token_hex(5)}")
        self._d.books[book.id] = book
        self._d.book_versions[book.id] = self._d.book_versions.get(book.id, 0) + 1
        return book

    async def get(self, book: str) -> LoreBook | None:
        """One book, or None."""
        return self._d.books.get(book)

    async def all(self) -> list[BookSummary]:
        """Every book's summary, by name."""
        summaries = (
            BookSummary(id=b.id, name=b.name, entries=len(b.entries)) for b in self._d.books.values()
        )
        return sorted(summaries, key=lambda b: (b.name, b.id))

    async def exist(self, books: list[str]) -> list[str]:
        """Which of ``books`` do not exist."""
        return [b for b in books if b not in self._d.books]

    async def attach(self, chat: str, books: list[str]) -> None:
        """Replace the chat's attached books."""
        self._d.chat(chat).lorebooks = tuple(books)

    async def attached(self, chat: str) -> list[str]:
        """See ``engine.ports.LoreSource.attached``."""
        return list(self._d.peek(chat).lorebooks or ())

    async def state(self, chat: str) -> LoreState:
        """See ``engine.ports.LoreSource.state``."""
        return self._d.peek(chat).lore_state or LoreState()

    async def compiled(self, books: list[str], versions: dict[str, int] | None = None) -> list[CompiledBook]:
        """See ``engine.ports.LoreSource.compiled``."""
        known = versions or {}
        result: list[CompiledBook] = []
        for book_id in books:
            version = known.get(book_id, self._d.book_versions.get(book_id))
            book = self._d.books.get(book_id)
            if version is None or book is None:
                continue
            cached = self._compiled.get(book_id)
            if cached is None or cached[0] != version:
                cached = (version, RedisLoreStore._compile_stored(book_id, book))
                self._compiled[book_id] = cached
            if cached[1] is not None:
                result.append(cached[1])
        return result
