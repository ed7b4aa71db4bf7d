"""The lore desk: the stored lorebooks, as the editors change them and chats attach them (LORE-1,
LORE-6, LORE-13, LORE-21).

Every change is validated before it is stored, in a worker thread (``validate_book``, or
``compile_book`` for an import), so nothing half-checked is stored and a regex-heavy book never
blocks the event loop. Who may read or edit which book is the callers' rule (the web's
accounts, the operator's token); the desk keeps the books.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

import msgspec

from engine.errors import NotFound
from engine.lorebook import LoreBook, LoreEntry, compile_book, validate_book
from engine.lorebook.editing import BookEdit, EntryEdit, apply_entry_edit, change_settings, remove_entry
from engine.ports.lore import BookSummary, LoreStore

__all__ = ["COMPILING_AT_ONCE", "LoreDesk"]

T = TypeVar("T")

COMPILING_AT_ONCE = 2
"""Books compiled at once per desk (each may take ~0.5 s and 100 MB)."""


class LoreDesk:
    """Lorebooks: find, store (validated), edit entries and settings, attach to chats."""

    def __init__(self, store: LoreStore) -> None:
        self.store = store
        self._compiling = asyncio.Semaphore(COMPILING_AT_ONCE)

    async def compile_off_loop(self, book: LoreBook, *, edited: str | None = None) -> None:
        """Compile (an import) or validate (an editor save) in a worker thread.

        RE2 and the Aho-Corasick builder run in C; the event loop keeps answering meanwhile.
        Books past the limits of ``engine.lorebook.regex_keys`` are refused with 422
        ``lorebook_too_complex`` before the expensive part.
        """
        if edited is None:
            await self.in_worker(compile_book, book)
        else:
            await self.in_worker(lambda: validate_book(book, only=edited))

    async def in_worker(self, work: Callable[..., T], *args: object) -> T:
        """``work(*args)`` in a worker thread, at most ``COMPILING_AT_ONCE`` at a time (a book's
        compilation, or its import report, which compiles it)."""
        async with self._compiling:
            return await asyncio.to_thread(work, *args)

    async def save(self, book: LoreBook, fallback_name: str, *, edited: str | None = None) -> LoreBook:
        """Validate and store; nothing is stored on error.

        Ranges, ids and complexity are always checked. An import (``edited`` None) keeps
        entries with a regex key RE2 cannot run or an invalid decorator value, which the import
        report names (LORE-21); an editor save refuses them in the entry being ``edited``.
        """
        if not book.name.strip():
            book = msgspec.structs.replace(book, name=fallback_name)
        await self.compile_off_loop(book, edited=edited)
        return await self.store.put(book)

    async def get(self, book: str) -> LoreBook | None:
        """One book, or None."""
        return await self.store.get(book)

    async def find(self, book: str) -> LoreBook:
        """The book, or 404 ``lorebook_not_found``."""
        found = await self.store.get(book)
        if found is None:
            raise NotFound(f"There is no lorebook {book!r}.", code="lorebook_not_found")
        return found

    async def all(self) -> list[BookSummary]:
        """Every book's summary, by name."""
        return await self.store.all()

    async def missing(self, books: list[str]) -> list[str]:
        """Which of ``books`` do not exist."""
        return await self.store.exist(books)

    async def existing(self, books: list[str]) -> list[str]:
        """``books`` deduplicated, in order, after 404 ``lorebook_not_found`` for any that does
        not exist."""
        wanted = list(dict.fromkeys(books))
        missing = await self.store.exist(wanted)
        if missing:
            raise NotFound(f"There is no lorebook {missing[0]!r}.", code="lorebook_not_found")
        return wanted

    async def attached(self, chat: str) -> list[str]:
        """The ids of the books attached to a chat."""
        return await self.store.attached(chat)

    async def attach(self, chat: str, books: list[str]) -> list[str]:
        """Attach books to a chat (replacing the previous set; all are scanned as one pool,
        LORE-1); 404 ``lorebook_not_found`` when one does not exist. Returns the set stored."""
        wanted = await self.existing(books)
        await self.store.attach(chat, wanted)
        return wanted

    async def add(self, chat: str, book: str) -> bool:
        """Attach one more book to a chat; False when there is no such book."""
        if await self.store.exist([book]):
            return False
        attached = await self.store.attached(chat)
        if book not in attached:
            await self.store.attach(chat, [*attached, book])
        return True

    async def remove(self, chat: str, book: str) -> bool:
        """Detach one book from a chat; False when it was not attached."""
        attached = await self.store.attached(chat)
        if book not in attached:
            return False
        await self.store.attach(chat, [b for b in attached if b != book])
        return True

    async def save_entry(
        self, book: LoreBook, entry: str | None, edit: EntryEdit
    ) -> tuple[LoreBook, LoreEntry]:
        """Change an entry of ``book`` (a new one when ``entry`` is None), validated and stored;
        returns the stored book and the saved entry (404 ``entry_not_found``)."""
        # a book's keys may be megabytes: they are split off the event loop
        changed, saved = await asyncio.to_thread(apply_entry_edit, book, entry, edit)
        stored = await self.save(changed, book.name, edited=saved.id)
        return stored, saved

    async def delete_entry(self, book: LoreBook, entry: str) -> LoreBook:
        """Remove an entry from ``book`` and store it (404 ``entry_not_found``)."""
        return await self.save(remove_entry(book, entry), book.name)

    async def change_settings(self, book: LoreBook, edit: BookEdit) -> LoreBook:
        """Change a book's default matching and case (LORE-18) and group scoring (LORE-15)."""
        return await self.save(change_settings(book, edit), book.name)
