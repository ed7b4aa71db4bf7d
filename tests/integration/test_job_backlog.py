"""The job queue's backlog as ``/metrics`` reads it (issue 32): jobs no worker acknowledged yet
and the oldest one's enqueue time, on a single server and on a Cluster."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from storage.keys import KeyBuilder
from storage.redis_summary import RedisSummaryStore
from tests.fixtures.servers import RedisServer, fresh_db

pytestmark = pytest.mark.integration


@pytest.fixture
async def redis(redis_server: RedisServer) -> AsyncIterator[aioredis.Redis]:
    async with fresh_db(redis_server, 8) as client:
        yield client


async def test_backlog_counts_waiting_and_taken_but_unacknowledged_jobs(redis: aioredis.Redis) -> None:
    """Issue 32: no stream → 0; queued before any worker → all of them; a job a worker took but did
    not acknowledge still counts (and is the oldest); an acknowledged one no longer does. On a
    Cluster the jobs spread over the shards and the backlog adds them up (CI once saw 0 there)."""
    store = RedisSummaryStore(redis, KeyBuilder(prefix="backlog"))
    assert await store.backlog() == (0, None)
    for chat in ("web:a", "web:b", "web:c", "web:d", "web:e"):
        assert await store.enqueue(chat)
    queued = {f"{s}/{i.decode()}": _ms(i) for s in store.streams for i, _ in await redis.xrange(s)}
    assert len(queued) == 5
    assert await store.backlog() == (5, min(queued.values()))  # no consumer group yet
    await store.ensure_group()
    taken = await store.take("w1", count=1, block_ms=10, reclaim_ms=60_000)
    assert taken  # one job per stream at most: all five on a Cluster whose shards took them
    assert await store.backlog() == (5, min(queued.values()))  # taken, not acknowledged
    done, _ = taken[0]
    await store.ack(done)
    del queued[done]
    assert await store.backlog() == (4, min(queued.values()))
    for _ in range(5):  # the rest: those taken before (reclaimed at once) and those still waiting
        for job, _ in await store.take("w1", count=5, block_ms=10, reclaim_ms=0):
            await store.ack(job)
            queued.pop(job)
        if not queued:
            break
    assert not queued
    assert await store.backlog() == (0, None)


def _ms(entry_id: bytes) -> int:
    return int(entry_id.decode().split("-")[0])
