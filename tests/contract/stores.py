"""One deployment's stores, in memory or on Redis: what the port contract suites run over.

Each factory method is typed with the port(s) it serves, so mypy checks that the fake and the
Redis class both implement them.
"""

from __future__ import annotations

from typing import Literal

import redis.asyncio as aioredis

from engine.ports import (
    ActivityLog,
    ArchiveStore,
    ChatLock,
    ChatStore,
    ControlStore,
    Directory,
    DocumentStore,
    DreamReports,
    DreamStore,
    JobStore,
    LoreSource,
    MemoryStore,
    PageVectorStore,
    PersonaStore,
    ReportStore,
    SummaryStore,
)
from storage.keys import KeyBuilder
from storage.redis_archive import RedisArchiveStore
from storage.redis_chat import RedisChatLock, RedisChatStore, RedisPersonaStore
from storage.redis_chat_controls import RedisChatControls
from storage.redis_documents import RedisDocumentStore
from storage.redis_lore import RedisLoreStore
from storage.redis_memory import RedisMemoryStore
from storage.redis_memory_directory import RedisMemoryDirectory
from storage.redis_summary import RedisSummaryStore
from tests.fakes.stores import (
    InMemoryArchiveStore,
    InMemoryChatControls,
    InMemoryChatLock,
    InMemoryChatStore,
    InMemoryData,
    InMemoryDocumentStore,
    InMemoryLoreStore,
    InMemoryMemoryDirectory,
    InMemoryMemoryStore,
    InMemoryPersonaStore,
    InMemorySummaryStore,
)

__all__ = ["Kind", "Stores"]

Kind = Literal["fake", "single", "cluster"]


class Stores:
    """The stores of one deployment: every store shares one ``InMemoryData`` or one Redis client.

    Each method builds the store anew on the same data (so a second call is "another process").
    """

    def __init__(self, kind: Kind, client: aioredis.Redis | None = None) -> None:
        self.kind = kind
        self.data = InMemoryData()
        self._r = client
        self._keys = KeyBuilder(prefix="contract")
        self._memory = InMemoryMemoryStore()
        self._directory = InMemoryMemoryDirectory(self.data)
        self._documents = InMemoryDocumentStore()
        self._summary = InMemorySummaryStore(self.data)
        self._archive = InMemoryArchiveStore(self.data)
        self._lock = InMemoryChatLock(wait=0.2)

    @property
    def redis(self) -> aioredis.Redis | None:
        """The Redis client (None for the fakes)."""
        return self._r

    def chats(self) -> ChatStore:
        """``MessageLog``, ``MessageIntake``, ``TurnReads``, ``TurnRecords``."""
        return InMemoryChatStore(self.data) if self._r is None else RedisChatStore(self._r, self._keys)

    def lock(self) -> ChatLock:
        """``ChatLock``, giving up after 0.2 s."""
        return self._lock if self._r is None else RedisChatLock(self._r, self._keys, wait=0.2)

    def personas(self) -> PersonaStore:
        """``PersonaStore``."""
        return InMemoryPersonaStore(self.data) if self._r is None else RedisPersonaStore(self._r, self._keys)

    def lore(self) -> LoreSource:
        """``LoreSource``."""
        return self.books()

    def books(self) -> InMemoryLoreStore | RedisLoreStore:
        """The lore store itself (books are put with it)."""
        return InMemoryLoreStore(self.data) if self._r is None else RedisLoreStore(self._r, self._keys)

    def controls(self) -> ControlStore:
        """``MessageEdits`` and ``SwipeStore``."""
        return InMemoryChatControls(self.data) if self._r is None else RedisChatControls(self._r, self._keys)

    def summaries(self) -> SummaryStore:
        """``SummaryTiers``, ``SummaryLog``, ``SummaryQueue``."""
        return self._summary if self._r is None else RedisSummaryStore(self._r, self._keys)

    def reports(self) -> ReportStore:
        """``ReportStore`` (deep-pass reports)."""
        return self._summary if self._r is None else RedisSummaryStore(self._r, self._keys)

    def memory(self) -> MemoryStore:
        """``MemoryStore``."""
        return self._memory if self._r is None else RedisMemoryStore(self._r, self._keys)

    def directory(self) -> Directory:
        """``Directory``."""
        return self.memory_directory()

    def memory_directory(self) -> InMemoryMemoryDirectory | RedisMemoryDirectory:
        """The directory itself (privacy and blocklists are set with it)."""
        return self._directory if self._r is None else RedisMemoryDirectory(self._r, self._keys)

    def documents(self) -> DocumentStore:
        """``DocumentStore``."""
        return self._documents if self._r is None else RedisDocumentStore(self._r, self._keys)

    def jobs(self) -> JobStore:
        """``JobStore``."""
        return self._documents if self._r is None else RedisDocumentStore(self._r, self._keys)

    def archive(self) -> ArchiveStore:
        """What the archive desk needs (``engine.ports.ArchiveStore``)."""
        return self._archive if self._r is None else RedisArchiveStore(self._r, self._keys)

    def dream(self) -> DreamStore:
        """What the dream pass needs."""
        return self._archive if self._r is None else RedisArchiveStore(self._r, self._keys)

    def page_vectors(self) -> PageVectorStore:
        """``PageVectorStore``."""
        return self.dream()

    def activity(self) -> ActivityLog:
        """``ActivityLog`` (one process's store: it remembers what it recorded)."""
        return self._archive if self._r is None else RedisArchiveStore(self._r, self._keys)

    def dream_reports(self) -> DreamReports:
        """``DreamReports``."""
        return self.dream()
