"""EPI-12: data migrations back up Redis first, run once, and a backup restores exactly."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from redis.crc import key_slot

from engine.lorebook import LoreBook, LoreEntry
from engine.memory import MemoryPolicy, NewMemory, global_list, personal_list, plan_save, space_list
from engine.ports import NewMessage
from storage import codec
from storage.keys import KeyBuilder
from storage.migrations import MIGRATIONS, Migration, backup_namespace, migrate, restore_backup
from storage.redis_chat import RedisChatStore
from storage.redis_lore import RedisLoreStore
from storage.redis_memory import RedisMemoryStore
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


def _said(user: str, name: str, text: str, at: datetime) -> NewMessage:
    return NewMessage(role="user", user=user, name=name, text=text, sent_at=at, tokens=3, persona="default")


async def test_migration_3_rewrites_first_person_memories_in_the_third_person_after_a_backup(
    redis: aioredis.Redis, tmp_path: Path
) -> None:
    """Issue 28: a legacy "I hate cilantro" of Alice's becomes "Alice hates cilantro" (her newest
    display name, from the stored chats); a space memory, an already third-person one and the
    memory of an owner nobody knows by name stay; the backup holds the old text; a second run
    changes nothing."""
    await redis.set("mig:setting:schema_version", 2)
    chats, store = RedisChatStore(redis, KEYS), RedisMemoryStore(redis, KEYS)
    await chats.append("web:den", _said("web:alice", "Ally", "hi", NOW), pending=False, greeting=None)
    later = NOW.replace(hour=13)
    await chats.append("web:den", _said("web:alice", "Alice", "hello", later), pending=False, greeting=None)
    alice, stranger = personal_list("default", "web:alice", "web:den"), global_list("web:nobody")
    saved = {
        "cilantro": (alice, "I hate cilantro", True),
        "known": (alice, "Alice plays the cello", False),
        "room": (space_list("default", "web:den"), "I am the den's old piano", False),
        "stranger": (stranger, "I love jazz", False),
    }
    for memory_id, (target, text, pinned) in saved.items():
        new = NewMemory(
            id=memory_id, persona="default", target=target, text=text, source="person", pinned=pinned
        )
        plan = plan_save(await store.load([target]), new, now=NOW, policy=MemoryPolicy())
        assert (await store.apply_save(plan)).ok
    steps = tuple(m for m in MIGRATIONS if m.version <= 3)

    backup = await migrate(redis, KEYS, tmp_path, later, steps)

    assert backup is not None
    records = {r.id: r for r in await store.load([alice, space_list("default", "web:den"), stranger])}
    assert {k: r.text for k, r in records.items()} == {
        "cilantro": "Alice hates cilantro",
        "known": "Alice plays the cello",
        "room": "I am the den's old piano",
        "stranger": "I love jazz",
    }
    assert records["cilantro"].pinned and records["cilantro"].updated_at == NOW  # only the words changed
    assert await redis.get("mig:setting:schema_version") == b"3"
    await redis.set("mig:setting:schema_version", 2)
    again = await migrate(redis, KEYS, tmp_path, later.replace(minute=5), steps)
    assert again is not None and again != backup  # idempotent: the same texts
    assert (await store.load([alice]))[0].text == "Alice hates cilantro"
    await restore_backup(redis, backup, KEYS)  # the first backup was written before the rewrite
    assert [r.text for r in await RedisMemoryStore(redis, KEYS).load([alice])] == [
        "I hate cilantro",
        "Alice plays the cello",
    ]
