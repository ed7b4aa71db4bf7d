"""An in-memory fake of ``storage.redis_summary.RedisSummaryStore`` (the summary ports)."""

from __future__ import annotations

import msgspec

from engine.memory.deep import DeepReport
from engine.model import StoredMessage
from engine.summary import SummaryState
from tests.fakes.stores.data import InMemoryData, ordered

__all__ = ["InMemorySummaryStore"]

REPORTS_KEPT = 50


class InMemorySummaryStore:
    """``SummaryTiers``, ``SummaryLog``, ``SummaryQueue`` and ``ReportStore`` in memory.

    Queued jobs land in ``InMemoryData.jobs`` as ``(id, chat)``; deep reports are kept per chat.
    """

    def __init__(self, data: InMemoryData) -> None:
        self._d = data
        self._reports: dict[str, list[DeepReport]] = {}

    async def state(self, chat: str) -> SummaryState:
        """See ``engine.ports.SummaryTiers.state``."""
        data = self._d.peek(chat)
        return msgspec.structs.replace(data.summary, version=data.summary_version)

    async def commit(self, chat: str, expected: int, state: SummaryState) -> bool:
        """See ``engine.ports.SummaryTiers.commit`` (the fake has no lease to lose)."""
        data = self._d.chat(chat)
        if data.summary_version != expected:
            return False
        data.summary, data.summary_version = state, expected + 1
        return True

    async def after(self, chat: str, position: float, limit: int) -> list[StoredMessage]:
        """See ``engine.ports.SummaryLog.after``."""
        data = self._d.peek(chat)
        ids = [i for i, p in ordered(data.log) if p > position][: max(limit, 0)]
        return [data.msgs[i] for i in ids if i in data.msgs]

    async def newest(self, chat: str, limit: int) -> list[StoredMessage]:
        """See ``engine.ports.SummaryLog.newest``."""
        data = self._d.peek(chat)
        ids = [i for i, _ in ordered(data.log)][-limit:]
        return [data.msgs[i] for i in ids if i in data.msgs]

    async def count_between(self, chat: str, after: float, before: float) -> int:
        """See ``engine.ports.SummaryLog.count_between``."""
        return sum(1 for p in self._d.peek(chat).log.values() if after < p < before)

    async def enqueue(self, chat: str) -> bool:
        """See ``engine.ports.SummaryQueue.enqueue``."""
        data = self._d.chat(chat)
        if data.summary_queued:
            return False
        data.summary_queued = True
        self._d.jobs.append((f"{len(self._d.jobs) + 1}-0", chat))
        return True

    async def dequeued(self, chat: str) -> None:
        """See ``engine.ports.SummaryQueue.dequeued``."""
        self._d.chat(chat).summary_queued = False

    async def add_report(self, chat: str, report: DeepReport) -> None:
        """See ``engine.ports.ReportStore.add_report``."""
        kept = self._reports.setdefault(chat, [])
        kept.insert(0, report)
        del kept[REPORTS_KEPT:]

    async def reports(self, chat: str) -> list[DeepReport]:
        """See ``engine.ports.ReportStore.reports``."""
        return list(self._reports.get(chat, ()))
