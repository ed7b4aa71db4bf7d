"""Data migrations, each preceded by a backup of every Hearth key (EPI-12).

A backup is a msgpack file of ``(key, DUMP payload, TTL ms)`` triples for every key under the
namespace prefix, written before any migration runs; ``restore_backup`` puts them back exactly
(RESTORE ... REPLACE). Migrations run once, in order, under a lock, and record the schema version
in ``<prefix>:setting:schema_version``. A migration must change no retention score and evict
nothing (EPI-12); ``migrations`` lists them, newest last.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path

import msgspec
import redis.asyncio as aioredis
from redis.exceptions import LockError

from storage.errors import map_redis_errors
from storage.keys import KeyBuilder

__all__ = ["MIGRATIONS", "Migration", "backup_namespace", "migrate", "restore_backup"]


class Migration(msgspec.Struct, frozen=True, kw_only=True):
    """One schema step."""

    version: int
    name: str
    apply: Callable[[aioredis.Redis, KeyBuilder], Awaitable[None]]


async def _initial(redis: aioredis.Redis, keys: KeyBuilder) -> None:
    """Version 1: the layout this release writes; nothing to convert."""


MIGRATIONS: tuple[Migration, ...] = (Migration(version=1, name="initial layout", apply=_initial),)
_ENTRY = msgspec.msgpack.Decoder(list[tuple[bytes, bytes, int]])


async def backup_namespace(
    redis: aioredis.Redis, keys: KeyBuilder, folder: Path, now: datetime
) -> tuple[Path, int]:
    """Write every key of the namespace to a backup file; returns the file and the key count."""
    folder.mkdir(parents=True, exist_ok=True)
    entries: list[tuple[bytes, bytes, int]] = []
    with map_redis_errors():
        async for key in redis.scan_iter(match=f"{keys.prefix}:*", count=1_000):
            async with redis.pipeline(transaction=False) as p:
                p.dump(key)
                p.pttl(key)
                payload, ttl = await p.execute()
            if payload is not None:
                entries.append((key, payload, max(int(ttl), 0)))
    path = folder / f"{keys.prefix}-{now:%Y%m%dT%H%M%S%fZ}.backup"
    temp = path.with_suffix(".partial")
    temp.write_bytes(msgspec.msgpack.encode(entries))
    temp.replace(path)  # a backup file is complete or absent
    return path, len(entries)


async def restore_backup(redis: aioredis.Redis, path: Path, keys: KeyBuilder | None = None) -> int:
    """Put every key of a backup back exactly as it was; returns how many.

    With ``keys``, namespace keys that did not exist at backup time are deleted too, so the
    namespace is exactly as it was.
    """
    entries = _ENTRY.decode(path.read_bytes())
    known = {key for key, _, _ in entries}
    extra: list[bytes] = []
    with map_redis_errors():
        if keys is not None:
            extra = [
                k async for k in redis.scan_iter(match=f"{keys.prefix}:*", count=1_000) if k not in known
            ]
        async with redis.pipeline(transaction=True) as tx:
            if extra:
                tx.delete(*extra)
            for key, payload, ttl in entries:
                tx.restore(key, ttl, payload, replace=True)
            await tx.execute()
    return len(entries)


async def migrate(
    redis: aioredis.Redis,
    keys: KeyBuilder,
    folder: Path,
    now: datetime,
    migrations: tuple[Migration, ...] = MIGRATIONS,
) -> Path | None:
    """Run pending migrations after a backup; returns the backup's path (None: nothing to do)."""
    version_key = keys.setting("schema_version")
    with map_redis_errors():
        current = int(await redis.get(version_key) or 0)
    pending = [m for m in migrations if m.version > current]
    if not pending:
        return None
    with map_redis_errors():
        fresh = not [k async for k in redis.scan_iter(match=f"{keys.prefix}:*", count=100)]
    if fresh:  # a new deployment: nothing to back up or convert
        await redis.set(version_key, migrations[-1].version)
        return None
    lock = redis.lock(keys.setting("migration_lock"), timeout=600, blocking_timeout=600)
    with map_redis_errors():
        await lock.acquire()
    try:
        current = int(await redis.get(version_key) or 0)  # another process may have migrated
        pending = [m for m in migrations if m.version > current]
        if not pending:
            return None
        path, _ = await backup_namespace(redis, keys, folder, now)
        for migration in pending:
            await migration.apply(redis, keys)
            await redis.set(version_key, migration.version)
        return path
    finally:
        with contextlib.suppress(LockError):
            await lock.release()
