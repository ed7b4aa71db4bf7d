"""The summary ports: tiers with compare-and-set, the log they read, the job queue, deep reports.

``storage.redis_summary.RedisSummaryStore`` implements all four; fake:
``tests.fakes.stores.summary.InMemorySummaryStore``.
"""

from __future__ import annotations

from typing import Protocol

from engine.memory.deep import DeepReport
from engine.model import StoredMessage
from engine.summary import SummaryState

__all__ = ["ReportStore", "SummaryLog", "SummaryQueue", "SummaryStore", "SummaryTiers"]


class SummaryTiers(Protocol):
    """A chat's summary state, versioned."""

    async def state(self, chat: str) -> SummaryState:
        """The chat's tiers, with the ``version`` to commit against (0 and no tiers when new)."""
        ...

    async def commit(self, chat: str, expected: int, state: SummaryState) -> bool:
        """Store ``state`` if nobody changed the chat's summaries since version ``expected``.

        Returns:
            Whether it was stored (the version then went up by one). A worker's job whose
            summary lease was lost meanwhile stores nothing (False).
        """
        ...


class SummaryLog(Protocol):
    """The part of a chat's log the summaries read."""

    async def after(self, chat: str, position: float, limit: int) -> list[StoredMessage]:
        """Up to ``limit`` messages after ``position`` (exclusive), oldest first."""
        ...

    async def newest(self, chat: str, limit: int) -> list[StoredMessage]:
        """The chat's newest ``limit`` messages, oldest first."""
        ...

    async def count_between(self, chat: str, after: float, before: float) -> int:
        """How many messages lie strictly between two positions."""
        ...


class SummaryQueue(Protocol):
    """Summary jobs waiting for a worker, at most one per chat."""

    async def enqueue(self, chat: str) -> bool:
        """Queue a summary job for the chat unless one already waits; whether one was queued."""
        ...

    async def dequeued(self, chat: str) -> None:
        """The chat's waiting job was taken: later turns may queue another."""
        ...


class ReportStore(Protocol):
    """Where deep-pass reports are kept (the newest 50 per chat)."""

    async def add_report(self, chat: str, report: DeepReport) -> None:
        """Keep a report as the chat's newest."""
        ...

    async def reports(self, chat: str) -> list[DeepReport]:
        """The chat's reports, newest first."""
        ...


class SummaryStore(SummaryTiers, SummaryLog, SummaryQueue, ReportStore, Protocol):
    """What the summary desk and the operator's report view need (``RedisSummaryStore``)."""
