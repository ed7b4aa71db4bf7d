"""Background jobs of the ``worker`` process: summaries of what left the live window (SUM-1, SUM-5).

Jobs come from a Redis Stream read by a consumer group, so any number of workers share them; a
job is acknowledged only after it ran, so one a crashed worker held is claimed again by another
after ``reclaim_ms``. A chat is summarized by one worker at a time (its summary lease, renewed
while the job runs and expiring seconds after a crash); a job that finds the lease taken is left
unacknowledged for a later claim, never acknowledged undone. The summary store's compare-and-set,
fenced on the lease, makes a retried job add nothing twice.

After a chat's summary job the chat's closed sessions become archive pages (EPI-1), and
:class:`ArchiveSweeper` runs the periodic archive pass: every ``sweep_secs`` one worker (the one
that takes the Redis sweep lease) archives every chat's closed sessions, runs the dream pass
(EPI-10; opt-in, it skips and says why in its report) and sweeps the pages. The dream pass runs
before the sweep because the default sweep evicts cold pages, and cold pages are what it merges.
A chat in memory-off mode (MEM-8) is not archived while it is so: no page is written for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from typing import cast

from engine.archive.dream import DreamPolicy
from engine.errors import StorageUnavailable
from engine.memory.mode import chat_memory_off
from engine.ports import ChatModel, ChatSettingsStore
from engine.service.archive import ArchiveDesk
from engine.service.dream import DreamRunner, DreamStore
from engine.service.summaries import SummaryDesk
from storage.redis_summary import RedisSummaryStore

__all__ = ["ArchiveSweeper", "JobRunner", "dream_runner"]

log = logging.getLogger("hearth.worker")
MAX_PAUSE = 5.0
"""Seconds the job loop waits at most before it tries Redis again."""


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
        archive: ArchiveDesk | None = None,
        chats: ChatSettingsStore | None = None,
    ) -> None:
        self._archive = archive
        self._chats = chats  # the chats' memory mode: a memory-off chat is not archived (MEM-8)
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
            try:
                await self._run_job(job, chat)
            except StorageUnavailable as exc:
                # the chat's node is unreachable (a Cluster failover): the job stays unacknowledged
                # and is claimed again after ``reclaim_ms``; the other jobs go on
                log.warning("job %s of %s left for a retry: %s", job, chat, exc.message)
        return len(jobs)

    async def _run_job(self, job: str, chat: str) -> None:
        await self._store.dequeued(chat)
        async with self._store.exclusive(chat) as mine:
            if not mine:
                # another worker summarizes the chat right now (or a dead one's lease has not
                # expired yet): leave the job unacknowledged, so it is claimed again after
                # ``reclaim_ms`` and done then, instead of dropped (SUM-5)
                log.info("summary of %s is busy elsewhere; job %s waits for reclaim", chat, job)
                return
            written = await self._desk.summarize(chat)
            log.info("summarized %s: %d tier(s)", chat, written)
            if self._archive is not None and not await _memory_off(self._chats, chat):
                await _archive_chat(self._archive, chat)
        await self._store.ack(job)

    async def run(self, stop: asyncio.Event) -> None:
        """Run jobs until ``stop`` is set. A failure (Redis down, a Cluster failing over: the
        client finds the new masters by itself) is logged and retried after a pause that doubles
        up to ``MAX_PAUSE`` seconds; a failed job is left for another try."""
        pause = 0.0
        while not stop.is_set():
            try:
                await self.run_once()
                pause = 0.0
            except Exception as exc:
                pause = min(max(pause * 2, 0.25), MAX_PAUSE)
                if isinstance(exc, StorageUnavailable):
                    log.warning("background jobs paused %.2g s: %s", pause, exc.message)
                else:
                    log.exception("a background job failed; it will be retried")
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), timeout=pause)


async def _memory_off(chats: ChatSettingsStore | None, chat: str) -> bool:
    """Whether ``chat`` is in memory-off mode (MEM-8): the archive neither reads nor writes it."""
    return chats is not None and chat_memory_off(await chats.chat_settings(chat))


async def _archive_chat(archive: ArchiveDesk, chat: str) -> None:
    """The chat's closed sessions become pages; a failure is left to the periodic pass."""
    try:
        pages = await archive.archive_sessions(chat)
    except Exception:
        log.exception("archiving %s failed; the periodic archive pass retries it", chat)
        return
    log.info("archived %s: %d page(s)", chat, len(pages))


async def _dream(runner: DreamRunner) -> None:
    """One dream run; a failure is logged and left to the next pass (the sweep still runs)."""
    try:
        report = await runner.run()
    except Exception:
        log.exception("the dream pass failed; the next archive pass tries again")
        return
    log.info(
        "dream pass %s: %d merged, %d rejected %s",
        report.status,
        len(report.merged),
        len(report.rejected),
        report.reason,
    )


def dream_runner(desk: ArchiveDesk, model: ChatModel, default_model: str, policy: DreamPolicy) -> DreamRunner:
    """The dream pass over the desk's Redis store and page recall, with the ``HEARTH_DREAM_*`` policy."""
    return DreamRunner(
        store=cast("DreamStore", desk.store),
        recall=desk.recall,
        model=model,
        clock=desk,  # the desk tells the time of its clock
        archive=desk.policy,
        policy=policy,
        default_model=default_model,
    )


class ArchiveSweeper:
    """The periodic archive pass: archive closed sessions of every chat, then sweep (EPI-2)."""

    def __init__(
        self, desk: ArchiveDesk, *, dream: DreamRunner | None = None, chats: ChatSettingsStore | None = None
    ) -> None:
        self._desk = desk
        self._chats = chats  # a memory-off chat's sessions are not archived (MEM-8)
        self._dream = dream
        self._store = desk.store
        self.interval = desk.settings.sweep_secs

    async def run_once(self) -> bool:
        """Embed the pages searches queued; then run one pass if this worker takes the sweep
        lease (archive, dream, sweep, and every chat's pages still without chunk vectors);
        returns whether the pass ran."""
        if embedded := await self._desk.embed_queued():
            log.info("embedded %d queued archive page(s)", embedded)
        if not await self._store.sweep_lease(self.interval):
            return False
        pages = 0
        chats = await self._store.chats()
        for chat in chats:
            if not await _memory_off(self._chats, chat):
                pages += len(await self._desk.archive_sessions(chat))
        if self._dream is not None:
            await _dream(self._dream)
        counts = await self._desk.sweep()
        embedded = 0
        for chat in chats:
            embedded += await self._desk.embed_pages(chat)
        log.info(
            "archive pass: %d new page(s), %d page(s) embedded late; sweep %s",
            pages,
            embedded,
            counts or "changed nothing",
        )
        return True

    async def run(self, stop: asyncio.Event) -> None:
        """Run a pass every ``interval`` seconds until ``stop`` is set; a failing pass is retried."""
        while not stop.is_set():
            try:
                await self.run_once()
            except Exception:
                log.exception("the archive pass failed; it will be retried")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=min(self.interval, 60.0))
