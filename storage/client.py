"""The one place a Redis client is made: a single server, or a Redis Cluster (API.md).

``HEARTH_REDIS_CLUSTER=true`` makes ``REDIS_URL`` name one node of a cluster; the client
(redis-py's ``RedisCluster``) discovers the rest. Every multi-key operation Hearth runs keeps
its keys in one hash slot (``storage.keys``), so the same code runs on both.

Every client has short socket timeouts and one quick retry, so a request fails with 503
``storage_unavailable`` within a few seconds when Redis is gone instead of hanging.

A single server's client draws on a pool of at most ``MAX_CONNECTIONS`` connections; when all
are busy (many concurrent turns, each with pipelines in flight) a command waits for one, at most
``POOL_WAIT`` seconds, instead of failing at once with ``MaxConnectionsError`` (a 503).

A ``rediss://`` URL speaks TLS, verifying the server's certificate against the system's trusted
authorities. Hosted Redis often presents a self-signed certificate (Heroku Redis does);
``tls_verify=False`` (``HEARTH_REDIS_TLS_VERIFY=false``) still encrypts but accepts any certificate.
A query parameter of the URL (``?ssl_cert_reqs=none``, ``?ssl_ca_certs=/path/ca.pem``) wins over it.
"""

from __future__ import annotations

from typing import Any, cast

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff

__all__ = [
    "CLUSTER_RETRIES",
    "CONNECT_TIMEOUT",
    "MAX_CONNECTIONS",
    "POOL_WAIT",
    "SOCKET_TIMEOUT",
    "connect",
    "is_tls",
    "why_unreachable",
]

SOCKET_TIMEOUT = 5.0
"""Seconds a command may wait for Redis's answer (longer than any blocking read Hearth issues)."""
CONNECT_TIMEOUT = 2.0
"""Seconds to open a connection."""
CLUSTER_RETRIES = 3
"""Retries of a Redis Cluster command or pipeline that met a connection error or CLUSTERDOWN."""
MAX_CONNECTIONS = 100
"""Connections a single server's client holds at most (redis-py's default)."""
POOL_WAIT = SOCKET_TIMEOUT
"""Seconds a command waits for a free connection of the pool before failing."""


def connect(url: str, *, cluster: bool = False, tls_verify: bool = True, **extra: Any) -> aioredis.Redis:
    """A client for ``url``: ``RedisCluster`` when ``cluster``, else a plain ``Redis``.

    The cluster client offers the same commands, pipelines, scripts and transactions (within one
    slot), so it is typed as ``Redis`` for the stores. ``tls_verify=False`` turns certificate and
    host name checks off for a ``rediss://`` URL (it changes nothing for ``redis://``).
    """
    options: dict[str, Any] = {
        "socket_timeout": SOCKET_TIMEOUT,
        "socket_connect_timeout": CONNECT_TIMEOUT,
        "health_check_interval": 30,
        **(_no_verification() if is_tls(url) and not tls_verify else {}),
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
    most = int(options.pop("max_connections", MAX_CONNECTIONS))
    pool = aioredis.BlockingConnectionPool.from_url(url, max_connections=most, timeout=POOL_WAIT, **options)
    client = aioredis.Redis(connection_pool=pool)
    client.auto_close_connection_pool = True  # closing the client closes its pool, as from_url's
    return client


def is_tls(url: str) -> bool:
    """Whether ``url`` speaks TLS (``rediss://``)."""
    return url.lower().startswith("rediss://")


def _no_verification() -> dict[str, Any]:
    return {"ssl_cert_reqs": "none", "ssl_check_hostname": False}


async def why_unreachable(client: aioredis.Redis) -> str:
    """Why ``client`` gets no answer (the client's error, with the fix for an untrusted TLS
    certificate), or ``""`` when Redis answers now."""
    try:
        await client.ping()
    except Exception as exc:  # redis-py's errors and the cluster client's (not RedisError)
        reason = str(exc) or type(exc).__name__
        if "CERTIFICATE_VERIFY_FAILED" in reason:
            reason += (
                " (a hosted Redis with a self-signed certificate: set HEARTH_REDIS_TLS_VERIFY=false, "
                "or name its CA with ?ssl_ca_certs=/path/ca.pem in REDIS_URL)"
            )
        return reason
    return ""
