"""An in-memory fake of ``storage.redis_archive.RedisArchiveStore`` (every archive store port).

It reads the chat log from the shared ``InMemoryData`` as the Redis store reads the chat's keys.
The sweep lease and the activity mark use this process's wall clock where Redis uses its own.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TypeVar

from engine.archive import Page, in_briefing
from engine.archive.dream import DreamReport
from engine.memory.journal import Saved
from engine.model import StoredMessage
from engine.ports import PageChange
from storage.redis_archive import ACTIVITY_GRANULARITY, DREAM_REPORTS_KEPT, PageVectors
from tests.fakes.stores.data import InMemoryData, ordered

__all__ = ["InMemoryArchiveStore"]

T = TypeVar("T")


@dataclass
class _Archive:
    pages: dict[str, Page] = field(default_factory=dict)
    vecs: dict[str, bytes] = field(default_factory=dict)
    upto: float | None = None
    model: str | None = None
    version: int = 0
    low: set[str] = field(default_factory=set)


class InMemoryArchiveStore:
    """Pages, page vectors, the archiving cursor, the sweep lease, activity and dream reports."""

    def __init__(self, data: InMemoryData) -> None:
        self._d = data
        self._a: dict[str, _Archive] = {}
        self._chats: set[str] = set()
        self._where: dict[str, str] = {}
        self._last_sweep_ms = 0
        self._activity_ms: int | None = None
        self._touched: datetime | None = None
        self._dreams: list[DreamReport] = []
        self._unembedded: set[str] = set()
        self._rejected: dict[str, datetime] = {}

    def _of(self, chat: str) -> _Archive:
        return self._a.setdefault(chat, _Archive())

    async def cursor(self, chat: str) -> float | None:
        """See ``engine.ports.SessionPages.cursor``."""
        return self._of(chat).upto

    async def messages_after(self, chat: str, position: float | None, limit: int) -> list[StoredMessage]:
        """See ``engine.ports.ArchiveLog.messages_after``."""
        data = self._d.peek(chat)
        ids = [i for i, p in ordered(data.log) if position is None or p > position][: max(limit, 0)]
        return [data.msgs[i] for i in ids if i in data.msgs]

    async def saved_memories(self, chat: str, turns: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """See ``engine.ports.ArchiveLog.saved_memories``."""
        known = self._d.peek(chat).turns
        return {
            t: tuple(w.after.id for w in known[t].journal if isinstance(w, Saved))
            for t in turns
            if t in known
        }

    async def newest_message(self, chat: str) -> StoredMessage | None:
        """See ``engine.ports.ArchiveLog.newest_message``."""
        data = self._d.peek(chat)
        entries = ordered(data.log)
        return data.msgs.get(entries[-1][0]) if entries else None

    async def chats(self) -> list[str]:
        """See ``engine.ports.ArchiveChats.chats``."""
        return sorted(self._chats | {c for c, d in self._d.chats.items() if d.log})

    async def add_session_pages(
        self,
        chat: str,
        *,
        expected: float | None,
        upto: float,
        pages: Sequence[Page],
        low_entropy: Collection[str] = (),
        model: str | None = None,
        vectors: Mapping[str, bytes] | None = None,
    ) -> bool:
        """See ``engine.ports.SessionPages.add_session_pages``."""
        if pages:
            self._chats.add(chat)
            self._where.update({p.id: chat for p in pages})
        a = self._of(chat)
        if a.upto != expected:
            return False
        a.pages.update({p.id: p for p in pages})
        a.low.update(low_entropy)
        if vectors and model is not None:
            self._store_vectors(a, model, vectors)
        a.upto = upto
        return True

    async def pages(self, chat: str) -> list[Page]:
        """See ``engine.ports.PageStore.pages``."""
        return sorted(self._of(chat).pages.values(), key=lambda p: (p.created_at, p.id))

    async def chat_of(self, page_id: str) -> str | None:
        """See ``engine.ports.PageStore.chat_of``."""
        chat = self._where.get(page_id)
        return chat if chat is not None and page_id in self._of(chat).pages else None

    async def briefing_pages(self, chat: str) -> list[Page]:
        """See ``engine.ports.PageStore.briefing_pages``."""
        return [p for p in await self.pages(chat) if in_briefing(p)]

    async def low_entropy(self, chat: str) -> set[str]:
        """See ``engine.ports.PageStore.low_entropy``."""
        return set(self._of(chat).low)

    async def change(self, chat: str, decide: Callable[[list[Page]], PageChange[T]]) -> T:
        """See ``engine.ports.PageStore.change`` (nothing interleaves here, so it never retries)."""
        a = self._of(chat)
        updates, purge, result = decide(await self.pages(chat))
        if not (updates or purge):
            return result
        a.pages.update({p.id: p for p in updates})
        if purge:
            for gone in purge:
                a.pages.pop(gone, None)
                a.vecs.pop(gone, None)
                a.low.discard(gone)
            a.version += 1
        if updates:
            self._chats.add(chat)
            self._where.update({p.id: chat for p in updates})
        for gone in purge:
            self._where.pop(gone, None)
        return result

    async def vectors(self, chat: str) -> PageVectors:
        """See ``engine.ports.PageVectorStore.vectors``."""
        a = self._of(chat)
        return PageVectors(version=a.version, model=a.model, vectors=dict(a.vecs))

    async def put_vectors(self, chat: str, model: str, vectors: Mapping[str, bytes]) -> None:
        """See ``engine.ports.PageVectorStore.put_vectors``."""
        if vectors:
            self._store_vectors(self._of(chat), model, vectors)

    @staticmethod
    def _store_vectors(a: _Archive, model: str, vectors: Mapping[str, bytes]) -> None:
        if a.model is not None and a.model != model:
            a.vecs.clear()
        a.vecs.update(vectors)
        a.model = model
        a.version += 1

    async def queue_embedding(self, chat: str) -> None:
        """See ``engine.ports.EmbeddingQueue.queue_embedding``."""
        self._unembedded.add(chat)

    async def take_embedding_queue(self) -> list[str]:
        """See ``engine.ports.EmbeddingQueue.take_embedding_queue``."""
        taken, self._unembedded = sorted(self._unembedded), set()
        return taken

    async def sweep_lease(self, seconds: float) -> bool:
        """See ``engine.ports.SweepLease.sweep_lease``."""
        now = int(time.time() * 1000)
        if now - self._last_sweep_ms < max(1, int(seconds * 1000)):
            return False
        self._last_sweep_ms = now
        return True

    async def touch_activity(self, at: datetime) -> None:
        """See ``engine.ports.ActivityLog.touch_activity``."""
        if self._touched is not None and timedelta(0) <= at - self._touched < ACTIVITY_GRANULARITY:
            return
        ms = int(at.timestamp() * 1000)
        self._activity_ms = max(ms, self._activity_ms or 0)
        self._touched = at

    async def last_activity(self) -> datetime | None:
        """See ``engine.ports.ActivityLog.last_activity``."""
        ms = self._activity_ms
        return None if ms is None else datetime.fromtimestamp(ms / 1000, tz=UTC)

    async def add_dream_report(self, report: DreamReport) -> None:
        """See ``engine.ports.DreamReports.add_dream_report``."""
        self._dreams.insert(0, report)
        del self._dreams[DREAM_REPORTS_KEPT:]

    async def dream_reports(self, limit: int = DREAM_REPORTS_KEPT) -> list[DreamReport]:
        """See ``engine.ports.DreamReports.dream_reports``."""
        return self._dreams[: max(1, limit)]

    async def rejected_clusters(self) -> set[str]:
        """See ``engine.ports.DreamRejections.rejected_clusters``."""
        return set(self._rejected)

    async def reject_cluster(self, fingerprint: str, at: datetime) -> None:
        """See ``engine.ports.DreamRejections.reject_cluster``."""
        self._rejected[fingerprint] = at
