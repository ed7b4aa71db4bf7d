"""Translate redis-py exceptions into Hearth's error tree at the boundary (STYLE P5)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import redis.exceptions

from engine.errors import StorageUnavailable

__all__ = ["map_redis_errors"]


@contextmanager
def map_redis_errors() -> Iterator[None]:
    """Re-raise Redis connection and server failures as ``StorageUnavailable``."""
    try:
        yield
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
        raise StorageUnavailable(f"Redis is unreachable: {type(exc).__name__}") from exc
    except redis.exceptions.ResponseError as exc:
        raise StorageUnavailable(f"Redis refused a command: {exc}") from exc
