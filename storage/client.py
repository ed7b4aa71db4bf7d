"""The one place a Redis client is made: a single server, or a Redis Cluster (API.md).

``HEARTH_REDIS_CLUSTER=true`` makes ``REDIS_URL`` name one node of a cluster; the client
(redis-py's ``RedisCluster``) discovers the rest. Every multi-key operation Hearth runs keeps
its keys in one hash slot (``storage.keys``), so the same code runs on both.

Every client has short socket timeouts and one quick retry, so a request fails with 503
``storage_unavailable`` within a few seconds when Redis is gone instead of hanging.
"""

from __future__ import annotations

from typing import Any, cast

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff

__all__ = ["CLUSTER_RETRIES", "CONNECT_TIMEOUT", "SOCKET_TIMEOUT", "connect"]

SOCKET_TIMEOUT = 5.0
"""Seconds a command may wait for Redis's answer (longer than any blocking read Hearth issues)."""
CONNECT_TIMEOUT = 2.0
"""Seconds to open a connection."""
CLUSTER_RETRIES = 3
"""Retries of a Redis Cluster command or pipeline that met a connection error or CLUSTERDOWN."""


def connect(url: str, *, cluster: bool = False, **extra: Any) -> aioredis.Redis:
    """A client for ``url``: ``RedisCluster`` when ``cluster``, else a plain ``Redis``.

    The cluster client offers the same commands, pipelines, scripts and transactions (within one
    slot), so it is typed as ``Redis`` for the stores.
    """
    options: dict[str, Any] = {
        "socket_timeout": SOCKET_TIMEOUT,
        "socket_connect_timeout": CONNECT_TIMEOUT,
        "health_check_interval": 30,
        **extra,
    }
    if cluster:
        from redis.asyncio.cluster import RedisCluster

        # a failover: the dead master's slots answer with connection errors, then CLUSTERDOWN
        # for a moment, until its replica is promoted; three tries (each after a topology
        # refresh) ride out the short part, and a longer one is a quick 503 all the same
        options.setdefault("retry", Retry(ExponentialBackoff(cap=0.5, base=0.1), CLUSTER_RETRIES))
        return cast("aioredis.Redis", RedisCluster.from_url(url, **options))
    options.setdefault("retry", Retry(ExponentialBackoff(cap=0.5, base=0.05), 1))
    return aioredis.from_url(url, **options)
