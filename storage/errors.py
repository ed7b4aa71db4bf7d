"""Translate redis-py exceptions into Hearth's error tree at the boundary (STYLE P5)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import redis.exceptions

from engine.errors import StorageUnavailable

__all__ = ["map_redis_errors", "watch_redis_errors"]

_UNREACHABLE = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    redis.exceptions.ClusterError,
    redis.exceptions.SlotNotCoveredError,
    redis.exceptions.RedisClusterUnreachableError,  # no node answered a topology refresh
)

_watchers: list[Callable[[str], None]] = []


def watch_redis_errors(watcher: Callable[[str], None] | None) -> None:
    """Tell ``watcher`` the kind (``unreachable``, ``refused``) of every Redis failure mapped here;
    ``None`` stops telling. One watcher per process: the metrics of the composition root."""
    _watchers[:] = [watcher] if watcher is not None else []


def _tell(kind: str) -> None:
    for watcher in _watchers:
        watcher(kind)


@contextmanager
def map_redis_errors() -> Iterator[None]:
    """Re-raise Redis connection, cluster and server failures as ``StorageUnavailable`` (503).

    A cluster that is down, failing over or resharding (``ClusterError``, an uncovered slot, no
    node answering) counts as unreachable. A cross-slot operation is a bug in Hearth, not an
    outage, and stays a 500.
    """
    try:
        yield
    except _UNREACHABLE as exc:
        _tell("unreachable")
        raise StorageUnavailable(f"Redis is unreachable: {type(exc).__name__}") from exc
    except redis.exceptions.ResponseError as exc:
        _tell("refused")
        raise StorageUnavailable(f"Redis refused a command: {exc}") from exc
