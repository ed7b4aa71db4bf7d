"""Summary tiers and the background job queue on Redis (SUM-1..5).

- ``chat:{c}:summary``        msgpack ``SummaryState``; ``chat:{c}:summary_v`` its version.
  A job commits with compare-and-set on the version (Lua), so a retried or concurrent job can
  never add a tier twice; people's edits bump the version too.
- ``chat:{c}:summary_lock``   a renewed lease (``storage.lease``) held while a worker summarizes the
  chat (never two at once); a killed worker's lease expires within seconds, and a job's commit
  is fenced on it (a worker that lost its lease commits nothing).
- ``chat:{c}:summary_queued`` set while a job for the chat waits, so turns don't flood the queue.
- ``jobs``                   a Redis Stream read by the ``workers`` consumer group; a job a
  worker took but never acknowledged (it crashed) is claimed again by another worker.
  On a Redis Cluster the queue is sharded: ``jobs:{<tag>}``, ``JOB_SHARDS`` streams whose hash
  tags spread over the slot range (so over the masters). A job goes to its chat's shard, or to
  the next one that answers while a master fails over; workers read every shard, and ``jobs``
  too (jobs queued before it was sharded). A job id names its stream: ``<stream>/<entry id>``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import zlib
from collections.abc import AsyncIterator, Awaitable
from typing import Any, cast

import msgspec
import redis.asyncio as aioredis
from redis.crc import key_slot
from redis.exceptions import ResponseError

from engine.errors import StorageUnavailable
from engine.memory.deep import DeepReport
from engine.model import StoredMessage
from engine.summary import SummaryState
from storage import codec
from storage.errors import map_redis_errors
from storage.keys import KeyBuilder
from storage.lease import LEASE_TTL, Lease, held_token
from storage.replies import blob, members
from storage.scripts import lua
from storage.shared import Cooldown, is_cluster

__all__ = ["GROUP", "JOB_SHARDS", "RedisSummaryStore", "shard_tags"]

GROUP = "workers"
JOB_SHARDS = 6
"""Streams of the job queue on a Redis Cluster: 6 spread evenly over 2, 3 or 6 masters."""
_REPORT = msgspec.json.Decoder(DeepReport)
log = logging.getLogger("hearth.storage")


def shard_tags(count: int) -> tuple[str, ...]:
    """``count`` hash tags ``q<n>`` whose slots lie near the middles of ``count`` equal parts of
    the slot range, so a cluster whose masters own equal ranges holds them evenly."""
    tags: list[str] = []
    for part in range(count):
        target = (2 * part + 1) * 16384 // (2 * count)
        best = min((f"q{n}" for n in range(4096)), key=lambda t: abs(key_slot(t.encode()) - target))
        tags.append(best)
    return tuple(tags)


_TAGS = shard_tags(JOB_SHARDS)


class RedisSummaryStore:
    """Summary state per chat, and the job stream."""

    def __init__(self, client: aioredis.Redis, keys: KeyBuilder) -> None:
        self._r = client
        self._k = keys
        self._cas = client.register_script(lua("summary_cas"))
        self.stream = f"{self._k.prefix}:jobs"
        # the shards jobs are queued on (one on a single server), and the streams workers read
        self._shards = [f"{self.stream}:{{{t}}}" for t in _TAGS] if is_cluster(client) else [self.stream]
        self._streams = [*self._shards, self.stream] if is_cluster(client) else [self.stream]
        self._cooldown = Cooldown.of(client)

    async def state(self, chat: str) -> SummaryState:
        """The chat's tiers, with the version to commit against."""
        with map_redis_errors():
            raw, version = await self._r.mget(self._k.chat(chat, "summary"), self._k.chat(chat, "summary_v"))
        state = codec.SUMMARY.decode(blob(raw)) if raw is not None else SummaryState()
        return SummaryState(upto=state.upto, tiers=state.tiers, version=int(version or 0))

    async def commit(self, chat: str, expected: int, state: SummaryState) -> bool:
        """Store ``state`` if nobody changed the chat's summaries since version ``expected``."""
        lock = self._k.chat(chat, "summary_lock")
        keys = [self._k.chat(chat, "summary"), self._k.chat(chat, "summary_v"), lock]
        fence = held_token(lock) or ""  # a worker's job holds the lease; people's edits do not
        with map_redis_errors():
            done = await self._cas(keys=keys, args=[str(expected), codec.ENCODER.encode(state), fence])
        return bool(done)

    async def after(self, chat: str, position: float, limit: int) -> list[StoredMessage]:
        """Up to ``limit`` messages after ``position``, oldest first."""
        with map_redis_errors():
            ids = await self._r.zrangebyscore(
                self._k.chat(chat, "log"), f"({position}", "+inf", start=0, num=limit
            )
            if not ids:
                return []
            raw = await self._r.hmget(self._k.chat(chat, "msgs"), members(ids))
        return [codec.MESSAGE.decode(blob(b)) for b in raw if b is not None]

    async def add_report(self, chat: str, report: DeepReport) -> None:
        """Keep a deep-pass report (the newest 50 per chat)."""
        key = self._k.chat(chat, "deep_reports")
        with map_redis_errors():
            async with self._r.pipeline(transaction=True) as tx:
                tx.lpush(key, msgspec.json.encode(report))
                tx.ltrim(key, 0, 49)
                await tx.execute()

    async def reports(self, chat: str) -> list[DeepReport]:
        """The chat's deep-pass reports, newest first."""
        with map_redis_errors():
            raw = await self._r.lrange(self._k.chat(chat, "deep_reports"), 0, 49)
        return [_REPORT.decode(r) for r in raw]

    async def newest(self, chat: str, limit: int) -> list[StoredMessage]:
        """The chat's newest ``limit`` messages, oldest first."""
        with map_redis_errors():
            ids = await self._r.zrange(self._k.chat(chat, "log"), -limit, -1)
            if not ids:
                return []
            raw = await self._r.hmget(self._k.chat(chat, "msgs"), members(ids))
        return [codec.MESSAGE.decode(blob(b)) for b in raw if b is not None]

    async def count_between(self, chat: str, after: float, before: float) -> int:
        """How many messages lie strictly between two positions."""
        with map_redis_errors():
            return int(await self._r.zcount(self._k.chat(chat, "log"), f"({after}", f"({before}"))

    @property
    def streams(self) -> list[str]:
        """Every stream workers read: the shards, and on a Cluster the unsharded ``jobs`` too."""
        return list(self._streams)

    def streams_of(self, chat: str) -> list[str]:
        """The streams a job of ``chat`` may be queued on, the chat's own shard first."""
        first = zlib.crc32(chat.encode()) % len(self._shards)
        return self._shards[first:] + self._shards[:first]

    async def enqueue(self, chat: str) -> bool:
        """Queue a summary job for the chat unless one already waits.

        The job goes to the first of the chat's shards that answers. When none does, the chat's
        mark is taken back (so the next turn queues it again) and ``StorageUnavailable`` raised.
        """
        queued = self._k.chat(chat, "summary_queued")
        with map_redis_errors():
            if not await self._r.set(queued, "1", nx=True, ex=600):
                return False
        failure: StorageUnavailable | None = None
        shards = self.streams_of(chat)
        ready = [s for s in shards if not self._cooldown.cooling(s)]
        for stream in ready + [s for s in shards if s not in ready]:  # those down a moment ago last
            try:
                with map_redis_errors():
                    job: dict[Any, Any] = {"kind": "summarize", "chat": chat}
                    await self._r.xadd(stream, job, maxlen=100_000, approximate=True)
                return True
            except StorageUnavailable as exc:
                self._cooldown.failed(self._cooldown.where(stream), exc)
                failure = exc
        with contextlib.suppress(StorageUnavailable), map_redis_errors():
            await self._r.delete(queued)
        assert failure is not None
        raise failure

    async def dequeued(self, chat: str) -> None:
        """The chat's waiting job was taken: later turns may queue another."""
        with map_redis_errors():
            await self._r.delete(self._k.chat(chat, "summary_queued"))

    async def ensure_group(self) -> None:
        """Create the consumer group (and the stream) of every stream if missing; a stream whose
        node is unreachable is left for the next call."""

        async def create(stream: str) -> None:
            with map_redis_errors(), contextlib.suppress(ResponseError):
                await self._r.xgroup_create(stream, GROUP, id="0", mkstream=True)

        await self._each(create)

    async def _each(self, work: Any) -> list[Any]:
        """``work(stream)`` on every stream at once; the results of those that answered.

        Raises:
            StorageUnavailable: no stream answered.
        """
        streams = self._streams
        calls = (cast("Awaitable[Any]", work(s)) for s in streams)
        done = await asyncio.gather(*calls, return_exceptions=True)
        answered = [r for r in done if not isinstance(r, BaseException)]
        for stream, result in zip(streams, done, strict=True):
            if isinstance(result, StorageUnavailable):
                log.warning("job stream %s unreachable: %s", stream, result.message)
            elif isinstance(result, BaseException):
                raise result
        if not answered:
            failed = next(r for r in done if isinstance(r, StorageUnavailable))
            raise failed
        return answered

    async def take(
        self, consumer: str, *, count: int, block_ms: int, reclaim_ms: int
    ) -> list[tuple[str, str]]:
        """Jobs for ``consumer``: first those a crashed worker left unacknowledged, then new ones,
        from every stream (a stream whose node is unreachable is skipped this time)."""

        async def one(stream: str) -> list[tuple[str, str]]:
            with map_redis_errors():
                claimed = await self._r.xautoclaim(
                    stream, GROUP, consumer, min_idle_time=reclaim_ms, count=count
                )
                entries = list(claimed[1])
                if not entries:
                    wanted: dict[Any, Any] = {stream: ">"}
                    read = await self._r.xreadgroup(GROUP, consumer, wanted, count=count, block=block_ms)
                    streams = cast("list[list[Any]]", read)  # RESP2: [[stream, [(id, fields), ...]], ...]
                    entries = [e for _, batch in streams for e in batch]
            return [(f"{stream}/{i.decode()}", f[b"chat"].decode()) for i, f in entries if f and b"chat" in f]

        return [job for jobs in await self._each(one) for job in jobs]

    async def ack(self, job: str) -> None:
        """The job is done."""
        stream, _, entry = job.rpartition("/")
        with map_redis_errors():
            await self._r.xack(stream, GROUP, entry)

    async def backlog(self) -> tuple[int, int | None]:
        """(jobs not yet acknowledged, the oldest one's enqueue time in epoch milliseconds), over
        every stream (each shard on a Cluster; a shard whose node does not answer is left out).

        Three or four small reads per stream (``XINFO GROUPS``, ``XPENDING``, ``XRANGE``), for
        ``/metrics``; the stream keeps acknowledged jobs, so its length is not the backlog.
        """
        counts = await self._each(self._backlog_of)
        total = sum(n for n, _ in counts)
        times = [t for _, t in counts if t is not None]
        return total, min(times) if times else None

    async def _backlog_of(self, stream: str) -> tuple[int, int | None]:
        with map_redis_errors():
            try:
                groups = await self._r.xinfo_groups(stream)
            except ResponseError:  # no stream yet: nothing was ever queued
                return 0, None
            group = next((g for g in groups if _text(g.get("name")) == GROUP), None)
            if group is None:  # no worker ever started: every job waits
                first = await self._r.xrange(stream, count=1)
                return int(await self._r.xlen(stream)), _id_ms(first[0][0]) if first else None
            pending = int(group.get("pending") or 0)
            after = f"({_text(group.get('last-delivered-id'))}"
            lag = group.get("lag")
            if lag is None:  # Redis cannot tell (entries deleted): count up to a bound
                waiting = len(await self._r.xrange(stream, min=after, count=10_000) or [])
            else:
                waiting = int(lag)
            oldest: int | None = None
            if pending:
                summary = await self._r.xpending(stream, GROUP)
                oldest = _id_ms(summary["min"]) if summary.get("min") else None
            elif waiting:
                first = await self._r.xrange(stream, min=after, count=1)
                oldest = _id_ms(first[0][0]) if first else None
        return pending + waiting, oldest

    @contextlib.asynccontextmanager
    async def exclusive(self, chat: str, *, ttl: float = LEASE_TTL) -> AsyncIterator[bool]:
        """Hold the chat's summary lease if free (renewed while held); yields whether this worker got it."""
        async with Lease(self._r, self._k.chat(chat, "summary_lock"), ttl=ttl) as lease:
            yield lease.acquired


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _id_ms(entry_id: object) -> int:
    """A stream entry id's time part (``<ms>-<seq>``)."""
    return int(_text(entry_id).split("-", 1)[0])
