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
    not acknowledge still counts (and is the oldest); an acknowledged one no longer does."""
    store = RedisSummaryStore(redis, KeyBuilder(prefix="backlog"))
    assert await store.backlog() == (0, None)
    for chat in ("web:a", "web:b", "web:c"):
        assert await store.enqueue(chat)
    first, _, third = [int(i.decode().split("-")[0]) for i, _ in await redis.xrange(store.stream)]
    assert await store.backlog() == (3, first)  # no consumer group yet
    await store.ensure_group()
    taken = await store.take("w1", count=2, block_ms=10, reclaim_ms=60_000)
    assert len(taken) == 2
    assert await store.backlog() == (3, first)  # two taken, not acknowledged, one waiting
    for job, _ in taken:
        await store.ack(job)
    assert await store.backlog() == (1, third)
    (last,) = await store.take("w1", count=5, block_ms=10, reclaim_ms=60_000)
    await store.ack(last[0])
    assert await store.backlog() == (0, None)
