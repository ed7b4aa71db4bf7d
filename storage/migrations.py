"""Data migrations, each preceded by a backup of every Hearth key (EPI-12).

A backup is a msgpack file of ``(key, DUMP payload, TTL ms)`` triples for every key under the
namespace prefix, written before any migration runs; ``restore_backup`` puts them back exactly
(RESTORE ... REPLACE). Migrations run once, in order, under a lock, and record the schema version
in ``<prefix>:setting:schema_version``. A migration must change no retention score and evict
nothing (EPI-12); ``MIGRATIONS`` lists them, newest last.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path

import msgspec
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot

from engine.errors import StorageUnavailable
from engine.memory import MemoryPolicy, MemoryRecord, plan_third_person, scope_list_of
from storage import codec
from storage.errors import map_redis_errors
from storage.keys import KeyBuilder
from storage.lease import Lease
from storage.redis_memory import RedisMemoryStore
from storage.replies import blob

__all__ = ["MIGRATIONS", "Migration", "backup_namespace", "migrate", "restore_backup"]


class Migration(msgspec.Struct, frozen=True, kw_only=True):
    """One schema step."""

    version: int
    name: str
    apply: Callable[[aioredis.Redis, KeyBuilder], Awaitable[None]]


async def _initial(redis: aioredis.Redis, keys: KeyBuilder) -> None:
    """Version 1: the layout this release writes; nothing to convert."""


async def _lore_one_slot(redis: aioredis.Redis, keys: KeyBuilder) -> None:
    """Version 2: lorebooks and their index share one hash tag, so a book's save (its data, its
    version and its index entry in one MULTI) and the version MGET of a turn stay in one Redis
    Cluster slot. ``<p>:lore:{<book>}:<part>`` becomes ``<p>:{lore}:book:<book>:<part>`` and
    ``<p>:lorebooks`` becomes ``<p>:{lore}:books``; values and TTLs move unchanged."""
    moves: list[tuple[bytes, str]] = []
    old_index = f"{keys.prefix}:lorebooks".encode()
    with map_redis_errors():
        async for key in redis.scan_iter(match=f"{keys.prefix}:lore:{{*}}:*", count=1_000):
            text = key.decode()
            book, _, part = text[text.index("{") + 1 :].partition("}:")
            moves.append((key, keys.lorebook(book, part)))
        if await redis.exists(old_index):
            moves.append((old_index, keys.lorebooks()))
        for old, new in moves:
            async with redis.pipeline(transaction=False) as p:
                p.dump(old)
                p.pttl(old)
                payload, ttl = await p.execute()
            if payload is None:
                continue
            await redis.restore(new, max(int(ttl), 0), payload, replace=True)
            await redis.delete(old)


_RECORD = msgspec.msgpack.Decoder(MemoryRecord)
_UNREADABLE = (msgspec.DecodeError, msgspec.ValidationError)


async def _people(redis: aioredis.Redis, keys: KeyBuilder) -> dict[str, str]:
    """User id → display name of every person who wrote in a stored chat (their newest name)."""
    newest: dict[str, tuple[float, str]] = {}
    with map_redis_errors():
        async for key in redis.scan_iter(match=f"{keys.prefix}:chat:{{*}}:msgs", count=1_000):
            async for _, raw in redis.hscan_iter(key, count=1_000):
                try:
                    message = codec.MESSAGE.decode(blob(raw))
                except _UNREADABLE:
                    continue
                at = message.sent_at.timestamp()
                if message.role == "user" and message.name and at >= newest.get(message.user, (at,))[0]:
                    newest[message.user] = (at, message.name)
    return {user: name for user, (_, name) in newest.items()}


async def _memories_in_third_person(redis: aioredis.Redis, keys: KeyBuilder) -> None:
    """Version 3: personal memories say whose they are. A personal or global memory
    that starts in the first person ("I hate cilantro") is reworded in the third person with its
    owner's display name ("Alice hates cilantro"), the name taken from the owner's newest stored
    message; an owner who never wrote in a stored chat keeps their memories as they are. Only the
    text changes (its vector is dropped and re-embedded on the next load); pin, protection,
    counters and dates stay."""
    names = await _people(redis, keys)
    if not names:
        return
    store = RedisMemoryStore(redis, keys)
    policy = MemoryPolicy()
    with map_redis_errors():
        async for key in redis.scan_iter(match=f"{keys.prefix}:mem:{{*}}:recs", count=1_000):
            scope = None
            async for _, raw in redis.hscan_iter(key, count=10):  # any record names its list
                with contextlib.suppress(*_UNREADABLE):
                    scope = scope_list_of(_RECORD.decode(blob(raw)))
                break
            if scope is None or scope.owner is None:
                continue
            for _ in range(3):  # a turn of a running process may write the list meanwhile
                snap = await store.snapshot([scope])
                plan = plan_third_person(snap.records, names, policy)
                if not plan.writes or (await store.apply_writes(plan, expected=snap.versions)).ok:
                    break


MIGRATIONS: tuple[Migration, ...] = (
    Migration(version=1, name="initial layout", apply=_initial),
    Migration(version=2, name="lorebooks in one hash slot", apply=_lore_one_slot),
    Migration(version=3, name="personal memories in the third person", apply=_memories_in_third_person),
)
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
        for batch in _by_slot(redis, extra, entries):
            async with redis.pipeline(transaction=True) as tx:
                for key in batch[0]:
                    tx.delete(key)
                for key, payload, ttl in batch[1]:
                    tx.restore(key, ttl, payload, replace=True)
                await tx.execute()
    return len(entries)


Batch = tuple[list[bytes], list[tuple[bytes, bytes, int]]]


def _by_slot(
    redis: aioredis.Redis, extra: list[bytes], entries: list[tuple[bytes, bytes, int]]
) -> list[Batch]:
    """One transaction on a single server; on a Redis Cluster one per hash slot (a cluster
    transaction cannot span slots, so a restore is atomic per slot there)."""
    if not isinstance(redis, RedisCluster):
        return [(extra, entries)]
    batches: dict[int, Batch] = {}
    for key in extra:
        batches.setdefault(key_slot(key), ([], []))[0].append(key)
    for entry in entries:
        batches.setdefault(key_slot(entry[0]), ([], []))[1].append(entry)
    return list(batches.values())


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
    # a renewed lease: a process that dies mid-migration frees the others within seconds
    async with Lease(redis, keys.setting("migration_lock"), wait=600) as lease:
        if not lease.acquired:
            raise StorageUnavailable("Another process has been migrating the data for 10 minutes.")
        current = int(await redis.get(version_key) or 0)  # another process may have migrated
        pending = [m for m in migrations if m.version > current]
        if not pending:
            return None
        path, _ = await backup_namespace(redis, keys, folder, now)
        for migration in pending:
            await migration.apply(redis, keys)
            await redis.set(version_key, migration.version)
        return path
