"""Background jobs of the ``worker`` process: summaries of what left the live window (SUM-1, SUM-5).

Jobs come from a Redis Stream read by a consumer group, so any number of workers share them; a
job is acknowledged only after it ran, so one a crashed worker held is claimed again by another
after ``reclaim_ms``. A chat is summarized by one worker at a time (its summary lock), and the
summary store's compare-and-set makes a retried job add nothing twice.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket

from engine.service.summaries import SummaryDesk
from storage.redis_summary import RedisSummaryStore

__all__ = ["JobRunner"]

log = logging.getLogger("hearth.worker")


class JobRunner:
    """Takes jobs from the stream and runs them."""

    def __init__(
        self,
        desk: SummaryDesk,
        store: RedisSummaryStore,
        *,
        consumer: str | None = None,
        block_ms: int = 2_000,
        reclaim_ms: int = 60_000,
    ) -> None:
        self._desk = desk
        self._store = store
        self.consumer = consumer or f"{socket.gethostname()}-{os.getpid()}"
        self._block = block_ms
        self._reclaim = reclaim_ms

    async def run_once(self) -> int:
        """Take and run the jobs waiting now (blocking up to ``block_ms`` for one); returns how many ran."""
        await self._store.ensure_group()
        jobs = await self._store.take(self.consumer, count=10, block_ms=self._block, reclaim_ms=self._reclaim)
        for job, chat in jobs:
            await self._store.dequeued(chat)
            async with self._store.exclusive(chat) as mine:
                if mine:
                    written = await self._desk.summarize(chat)
                    log.info("summarized %s: %d tier(s)", chat, written)
            await self._store.ack(job)
        return len(jobs)

    async def run(self, stop: asyncio.Event) -> None:
        """Run jobs until ``stop`` is set; a failing job is left for another try."""
        await self._store.ensure_group()
        while not stop.is_set():
            try:
                await self.run_once()
            except Exception:
                log.exception("a background job failed; it will be retried")
                await asyncio.sleep(1)
