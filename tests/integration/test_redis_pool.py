"""A single server's client waits for a free connection instead of failing (issue 32, serving
load; API.md's 503 ``storage_unavailable`` is for Redis being gone, not busy): more concurrent
commands than the pool has connections all answer."""

from __future__ import annotations

import asyncio

from storage.client import connect
from tests.fixtures.servers import RedisServer


async def test_more_concurrent_commands_than_connections_all_answer(redis_single: RedisServer) -> None:
    """Two connections, twelve blocking reads of 0.2 s at once: every one answers (None: the
    list stayed empty), none fails with ``MaxConnectionsError``; they take turns on the two."""
    client = connect(redis_single.db(9), max_connections=2)
    try:
        answers = await asyncio.gather(*(client.blpop([f"pool-test-{n}"], timeout=0.2) for n in range(12)))
        assert answers == [None] * 12
        assert client.connection_pool.max_connections == 2
    finally:
        await client.aclose()
