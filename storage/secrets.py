"""Secrets the processes of one deployment share through Redis (``<ns>:setting:<name>``)."""

from __future__ import annotations

import secrets

import redis.asyncio as aioredis

from engine.errors import StorageUnavailable
from storage.errors import map_redis_errors
from storage.keys import KeyBuilder

__all__ = ["shared_secret"]


async def shared_secret(redis: aioredis.Redis, keys: KeyBuilder, name: str) -> str:
    """The secret ``name``: generated once (64 hex digits) by the first process that asks, then
    read by every other one.

    Raises:
        StorageUnavailable: Redis did not keep it (out of memory, or unreachable).
    """
    key = keys.setting(name)
    with map_redis_errors():
        await redis.set(key, secrets.token_hex(32), nx=True)
        value = await redis.get(key)
    if not isinstance(value, bytes):  # SET NX then GET: only a Redis that lost it answers nothing
        raise StorageUnavailable(f"Redis did not keep the {name.replace('_', ' ')}; is it out of memory?")
    return value.decode()
