"""EPI-12: data migrations back up Redis first, run once, and a backup restores exactly."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from redis.crc import key_slot

from engine.lorebook import LoreBook, LoreEntry
from storage import codec
from storage.keys import KeyBuilder
from storage.migrations import MIGRATIONS, Migration, backup_namespace, migrate, restore_backup
from storage.redis_lore import RedisLoreStore
from tests.fixtures.servers import RedisServer, fresh_db

pytestmark = pytest.mark.integration

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
KEYS = KeyBuilder(prefix="mig")


@pytest.fixture
async def redis(redis_server: RedisServer) -> AsyncIterator[aioredis.Redis]:
    async with fresh_db(redis_server, 11) as client:
        yield client


async def seed(redis: aioredis.Redis) -> None:
    await redis.set("mig:setting:schema_version", 1)
    await redis.hset("mig:chat:{web:a}:msgs", mapping={"m1": b"\x81\xa1x\x01", "m2": b"hello"})
    await redis.zadd("mig:chat:{web:a}:log", {"m1": 1.0, "m2": 2.0})
    await redis.set("mig:lore:{lb-1}:version", 7, px=900_000)
    await redis.set("other:untouched", "not ours")


async def snapshot(redis: aioredis.Redis) -> dict[bytes, object]:
    return {
        b"msgs": await redis.hgetall("mig:chat:{web:a}:msgs"),
        b"log": await redis.zrange("mig:chat:{web:a}:log", 0, -1, withscores=True),
        b"version": await redis.get("mig:lore:{lb-1}:version"),
    }


async def test_epi_12_a_backup_restores_every_key_exactly(redis: aioredis.Redis, tmp_path: Path) -> None:
    await seed(redis)
    before = await snapshot(redis)
    path, count = await backup_namespace(redis, KEYS, tmp_path, NOW)
    assert count == 4 and path.exists() and not list(tmp_path.glob("*.partial"))
    await redis.delete("mig:chat:{web:a}:msgs", "mig:chat:{web:a}:log")
    await redis.hset("mig:chat:{web:a}:msgs", "m1", b"broken")
    assert await restore_backup(redis, path) == 4
    assert await snapshot(redis) == before
    assert 0 < await redis.pttl("mig:lore:{lb-1}:version") <= 900_000  # TTLs come back too
    assert await redis.get("other:untouched") == b"not ours"


async def test_epi_12_a_migration_backs_up_first_then_runs_once(
    redis: aioredis.Redis, tmp_path: Path
) -> None:
    await seed(redis)
    seen: list[bool] = []

    async def step(client: aioredis.Redis, keys: KeyBuilder) -> None:
        seen.append(bool(list(tmp_path.glob("*.backup"))))  # the backup already exists
        await client.set(keys.setting("converted"), "yes")

    last = MIGRATIONS[-1].version + 1
    steps = (*MIGRATIONS, Migration(version=last, name="test step", apply=step))
    path = await migrate(redis, KEYS, tmp_path, NOW, steps)
    assert path is not None and seen == [True]
    assert await redis.get("mig:setting:schema_version") == str(last).encode()
    assert await migrate(redis, KEYS, tmp_path, NOW, steps) is None and seen == [True]  # once
    await restore_backup(redis, path, KEYS)
    assert await redis.get("mig:setting:converted") is None  # the backup is from before


async def test_epi_12_a_new_deployment_needs_no_backup(redis: aioredis.Redis, tmp_path: Path) -> None:
    assert await migrate(redis, KEYS, tmp_path, NOW) is None
    assert not list(tmp_path.iterdir())
    assert await redis.get("mig:setting:schema_version") == str(MIGRATIONS[-1].version).encode()


async def test_migration_2_moves_lorebooks_into_one_hash_slot(redis: aioredis.Redis, tmp_path: Path) -> None:
    """Books saved by version 1 (one slot per book) are found, unchanged, after migration 2."""
    await redis.set("mig:setting:schema_version", 1)
    entry = LoreEntry(id="1", keys=("ale",), content="Ale is cheap.")
    book = LoreBook(id="lb-tavern", name="The Tavern", entries=(entry,))
    await redis.set("mig:lore:{lb-tavern}:data", codec.ENCODER.encode(book))
    await redis.set("mig:lore:{lb-tavern}:version", 3, px=900_000)
    await redis.hset("mig:lorebooks", "lb-tavern", b'{"id":"lb-tavern","name":"The Tavern","entries":1}')
    assert await migrate(redis, KEYS, tmp_path, NOW) is not None
    store = RedisLoreStore(redis, KEYS)
    assert await store.get("lb-tavern") == book
    assert [b.name for b in await store.all()] == ["The Tavern"]
    assert [c.id for c in await store.compiled(["lb-tavern"])] == ["lb-tavern"]
    assert await redis.get(KEYS.lorebook("lb-tavern", "version")) == b"3"
    assert 0 < await redis.pttl(KEYS.lorebook("lb-tavern", "version")) <= 900_000
    assert not [k async for k in redis.scan_iter(match="mig:lore:*")]
    assert await redis.exists("mig:lorebooks") == 0
    together = (KEYS.lorebook("a", "data"), KEYS.lorebook("b", "version"), KEYS.lorebooks())
    assert len({key_slot(k.encode()) for k in together}) == 1
