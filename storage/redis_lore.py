"""Lorebooks on Redis, with an in-process cache of compiled books (LORE-1, LORE-2).

- ``{lore}:book:<book>:data``  msgpack ``LoreBook``; ``…:version`` bumped on every change.
- ``{lore}:books``            HASH id → JSON summary ``{"name", "entries"}`` for listings.
  (All lorebook keys share the ``{lore}`` hash tag: one Redis Cluster slot; migration 2.)
- ``chat:{c}:lorebooks``   the ids attached to a chat (JSON list); ``chat:{c}:lore_state``
  the chat's decorator state (written with the turn, see ``RedisChatStore.finish``).

Compiling a book (automata, regex sets) costs ~0.1 s at 5,000 entries, so each process keeps
compiled books keyed by (id, version): a turn reads the versions of its books in one MGET and
recompiles only what changed, so several processes stay consistent.
"""

from __future__ import annotations

import asyncio
import logging
import secrets

import msgspec
import redis.asyncio as aioredis

from engine.errors import InvalidInput
from engine.lorebook import CompiledBook, LoreBook, LoreState, compile_book
from engine.ports.lore import BookSummary
from storage import codec
from storage.errors import map_redis_errors
from storage.keys import KeyBuilder
from storage.replies import blob

log = logging.getLogger("hearth.lore")

__all__ = ["BookSummary", "RedisLoreStore"]


_SUMMARY = msgspec.json.Decoder(BookSummary)
_IDS = msgspec.json.Decoder(list[str])


class RedisLoreStore:
    """Lorebooks, chat attachments and chat lore state."""

    def __init__(self, client: aioredis.Redis, keys: KeyBuilder) -> None:
        self._r = client
        self._k = keys
        self._compiled: dict[str, tuple[int, CompiledBook | None]] = {}

    async def put(self, book: LoreBook) -> LoreBook:
        """Store a book (a new id when it has none); returns the stored book."""
        if not book.id:
            book = msgspec.structs.replace(book, id=f"lb-{secrets.token_hex(5)}")
        summary = BookSummary(id=book.id, name=book.name, entries=len(book.entries))
        with map_redis_errors():
            async with self._r.pipeline(transaction=True) as tx:
                tx.set(self._k.lorebook(book.id, "data"), codec.ENCODER.encode(book))
                tx.incr(self._k.lorebook(book.id, "version"))
                tx.hset(self._k.lorebooks(), book.id, msgspec.json.encode(summary))
                await tx.execute()
        return book

    async def get(self, book: str) -> LoreBook | None:
        """One book, or None."""
        with map_redis_errors():
            raw = await self._r.get(self._k.lorebook(book, "data"))
        return codec.LOREBOOK.decode(blob(raw)) if raw is not None else None

    async def all(self) -> list[BookSummary]:
        """Every book's summary, by name."""
        with map_redis_errors():
            raw = await self._r.hgetall(self._k.lorebooks())
        return sorted((_SUMMARY.decode(v) for v in raw.values()), key=lambda b: (b.name, b.id))

    async def exist(self, books: list[str]) -> list[str]:
        """Which of ``books`` do not exist."""
        if not books:
            return []
        with map_redis_errors():
            found = await self._r.hmget(self._k.lorebooks(), books)
        return [b for b, f in zip(books, found, strict=True) if f is None]

    async def attach(self, chat: str, books: list[str]) -> None:
        """Replace the chat's attached books."""
        with map_redis_errors():
            await self._r.set(self._k.chat(chat, "lorebooks"), msgspec.json.encode(books))

    async def attached(self, chat: str) -> list[str]:
        """The ids attached to a chat."""
        with map_redis_errors():
            raw = await self._r.get(self._k.chat(chat, "lorebooks"))
        return _IDS.decode(raw) if raw is not None else []

    async def state(self, chat: str) -> LoreState:
        """The chat's lore decorator state."""
        with map_redis_errors():
            raw = await self._r.get(self._k.chat(chat, "lore_state"))
        return codec.LORE_STATE.decode(blob(raw)) if raw is not None else LoreState()

    async def compiled(self, books: list[str], versions: dict[str, int] | None = None) -> list[CompiledBook]:
        """Compiled books for ``books`` (unknown ids are skipped), recompiling what changed.

        ``versions`` already read (the turn's one read brings them) are not read again.
        """
        if not books:
            return []
        known = versions or {}
        unread = [b for b in books if b not in known]
        read: dict[str, int | None] = dict(known)
        if unread:
            with map_redis_errors():
                raw = await self._r.mget([self._k.lorebook(b, "version") for b in unread])
            read |= {b: int(v) if v is not None else None for b, v in zip(unread, raw, strict=True)}
        result: list[CompiledBook] = []
        for book_id in books:
            version = read.get(book_id)
            if version is None:
                continue
            cached = self._compiled.get(book_id)
            if cached is None or cached[0] != version:
                book = await self.get(book_id)
                if book is None:
                    continue
                cached = (version, await asyncio.to_thread(self._compile_stored, book_id, book))
                self._compiled[book_id] = cached
            if cached[1] is not None:
                result.append(cached[1])
        return result

    @staticmethod
    def _compile_stored(book_id: str, book: LoreBook) -> CompiledBook | None:
        """A stored book compiled, or ``None`` when it is past a limit set after it was stored.

        Such a book is left out of every scan (logged once per version, naming the entry to
        edit) instead of failing the chats it is attached to; editing it brings it back.
        """
        try:
            return compile_book(book)
        except InvalidInput as exc:
            log.warning("lorebook %s left out of the scan until it is edited: %s", book_id, exc.message)
            return None
