"""The archive ports: session pages, their changes, vectors, the sweep lease, client activity and
dream reports (EPI-1..13).

``storage.redis_archive.RedisArchiveStore`` implements every store port here (composed as
``ArchiveStore`` for the archive desk and ``DreamStore`` for the dream pass);
``adapters.recall.archive.PageRecall`` implements ``PageRecall``. Fake:
``tests.fakes.stores.archive.InMemoryArchiveStore``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from datetime import datetime
from typing import Protocol, TypeVar

from engine.archive import Page
from engine.archive.dream import DreamReport
from engine.model import StoredMessage

__all__ = [
    "ActivityLog",
    "ArchiveChats",
    "ArchiveLog",
    "ArchiveStore",
    "DreamRecall",
    "DreamRejections",
    "DreamReports",
    "DreamStore",
    "EmbeddingQueue",
    "PageChange",
    "PageRecall",
    "PageStore",
    "PageVectorStore",
    "SessionPages",
    "StoredVectors",
    "SweepLease",
]

T = TypeVar("T")

PageChange = tuple[Sequence[Page], Sequence[str], T]
"""What a ``PageStore.change`` decision returns: pages to store, ids to purge, and a result."""


class ArchiveLog(Protocol):
    """The chat log as the archive reads it."""

    async def messages_after(self, chat: str, position: float | None, limit: int) -> list[StoredMessage]:
        """Up to ``limit`` messages after ``position`` (all when None), oldest first."""
        ...

    async def saved_memories(self, chat: str, turns: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """The memory ids each of ``turns`` saved (from their journals); unknown turns left out."""
        ...

    async def newest_message(self, chat: str) -> StoredMessage | None:
        """The chat's newest message, if any."""
        ...


class ArchiveChats(Protocol):
    """Which chats the background passes visit."""

    async def chats(self) -> list[str]:
        """Chats that have pages or messages, sorted (for background passes only)."""
        ...


class SessionPages(Protocol):
    """Archiving sessions: new pages and the cursor move together, compare-and-set."""

    async def cursor(self, chat: str) -> float | None:
        """Position of the last message already archived, or None when nothing is."""
        ...

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
        """Store new session pages (with their entropy marks and vectors) and move the cursor to
        ``upto``, if it is still ``expected``.

        Returns:
            Whether they were stored (False: another worker archived these sessions first).
        """
        ...


class PageStore(Protocol):
    """A chat's pages, read and changed atomically."""

    async def pages(self, chat: str) -> list[Page]:
        """Every page of the chat, oldest first (by creation time, then id)."""
        ...

    async def chat_of(self, page_id: str) -> str | None:
        """The chat a page belongs to, if the page exists."""
        ...

    async def low_entropy(self, chat: str) -> set[str]:
        """Ids of the chat's pages the entropy filter keeps out of LLM passes (EPI-7)."""
        ...

    async def briefing_pages(self, chat: str) -> list[Page]:
        """The chat's pinned (active or cold) pages and open working notes, oldest first: what a
        turn's briefing shows, read without loading every page (EPI-1, EPI-13)."""
        ...

    async def change(self, chat: str, decide: Callable[[list[Page]], PageChange[T]]) -> T:
        """Read the chat's pages, let ``decide`` plan a change, and store it atomically.

        ``decide`` may run several times (someone changed the pages meanwhile), so it must be a
        pure function of the pages it gets; an exception it raises propagates, storing nothing.
        Purged pages lose their vectors and entropy marks too.

        Returns:
            What ``decide`` returned alongside the change that was stored.

        Raises:
            Conflict: ``archive_busy`` when the pages kept changing.
        """
        ...


class SweepLease(Protocol):
    """One archive pass per interval across workers."""

    async def sweep_lease(self, seconds: float) -> bool:
        """Whether this worker runs the pass now: ``seconds`` passed since the last one (stamped)."""
        ...


class EmbeddingQueue(Protocol):
    """Chats whose pages wait for their chunk vectors (the worker embeds them)."""

    async def queue_embedding(self, chat: str) -> None:
        """Put ``chat`` on the queue (once, however often it is called)."""
        ...

    async def take_embedding_queue(self) -> list[str]:
        """The queued chats, taken off the queue."""
        ...


class ActivityLog(Protocol):
    """The latest client activity, for the dream pass's idle trigger (EPI-10)."""

    async def touch_activity(self, at: datetime) -> None:
        """Record client activity at ``at`` (the latest time wins, at one-second granularity)."""
        ...

    async def last_activity(self) -> datetime | None:
        """The latest client activity recorded, or None when there was none."""
        ...


class StoredVectors(Protocol):
    """A chat's page vectors (``storage.redis_archive.PageVectors``)."""

    @property
    def model(self) -> str | None:
        """The embedder the vectors belong to (None: none stored)."""
        ...

    @property
    def vectors(self) -> dict[str, bytes]:
        """Page id → little-endian float32 bytes."""
        ...


class PageVectorStore(Protocol):
    """Page vectors of one embedder per chat."""

    async def vectors(self, chat: str) -> StoredVectors:
        """The chat's page vectors and their embedder."""
        ...

    async def put_vectors(self, chat: str, model: str, vectors: Mapping[str, bytes]) -> None:
        """Store page vectors of ``model``; vectors of another embedder are dropped first."""
        ...


class DreamReports(Protocol):
    """The newest dream reports."""

    async def add_dream_report(self, report: DreamReport) -> None:
        """Keep ``report`` as the newest (the newest 50 stay)."""
        ...

    async def dream_reports(self, limit: int = 50) -> list[DreamReport]:
        """The newest reports, newest first."""
        ...


class DreamRejections(Protocol):
    """Fingerprints of dream clusters whose output was rejected (``cluster_fingerprint``)."""

    async def rejected_clusters(self) -> set[str]:
        """Every remembered fingerprint (the newest 10,000 stay)."""
        ...

    async def reject_cluster(self, fingerprint: str, at: datetime) -> None:
        """Remember that the cluster ``fingerprint`` was rejected at ``at``."""
        ...


class ArchiveStore(
    ArchiveChats,
    ArchiveLog,
    SessionPages,
    PageStore,
    SweepLease,
    EmbeddingQueue,
    ActivityLog,
    DreamReports,
    Protocol,
):
    """What the archive desk, the worker's archive pass, the activity mark and the report view need."""


class DreamStore(
    ArchiveChats, PageStore, PageVectorStore, ActivityLog, DreamReports, DreamRejections, Protocol
):
    """What the dream pass needs (``RedisArchiveStore``)."""


class PageIndex(Protocol):
    """Background preparation of page search: what is embedded outside any turn."""

    async def warm(self) -> None:
        """Prepare what every search needs (at process start, not in the first search)."""
        ...

    async def index(self, chat: str, ids: Collection[str]) -> int:
        """Embed and store the chunk vectors of the pages among ``ids`` that have none
        (background work); returns how many pages were embedded."""
        ...


class PageSearch(Protocol):
    """Page embeddings and search inside a turn or a pass."""

    @property
    def model(self) -> str:
        """The embedder's name."""
        ...

    async def embed(self, texts: Sequence[str]) -> list[bytes]:
        """Passage vectors of ``texts`` as little-endian float32 bytes."""
        ...

    async def search(
        self, chat: str, query: str, allowed: Collection[str], limit: int, *, now: datetime | None = None
    ) -> list[tuple[str, float]]:
        """The ``allowed`` pages matching ``query`` best first, as ``(id, relevance)``; embeds
        the query only (pages without chunk vectors are read lexically and their chat queued).
        ``now``: the turn's time, against which the periods the message names are read."""
        ...

    async def clusters(self, chat: str, ids: Sequence[str], threshold: float) -> tuple[tuple[str, ...], ...]:
        """Groups of near-duplicate pages among ``ids`` (their vectors are stored first)."""
        ...


class PageRecall(PageSearch, PageIndex, Protocol):
    """Page search and its background indexing (``adapters.recall.archive.PageRecall``)."""


class DreamRecall(Protocol):
    """Page embeddings, as the dream pass uses them (``PageRecall`` without search)."""

    @property
    def model(self) -> str:
        """The embedder's name."""
        ...

    async def embed(self, texts: Sequence[str]) -> list[bytes]:
        """Passage vectors of ``texts`` as little-endian float32 bytes."""
        ...

    async def clusters(self, chat: str, ids: Sequence[str], threshold: float) -> tuple[tuple[str, ...], ...]:
        """Groups of near-duplicate pages among ``ids`` (their vectors are stored first)."""
        ...
