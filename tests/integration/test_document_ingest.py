"""Background document ingestion on a real Redis (issue 13, finding 3): jobs, failures, limits."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest
import redis.asyncio as aioredis

from adapters.embedding import make_embedder
from adapters.recall.search import EmbeddingRecall
from adapters.vector import FaissVectorIndex
from engine.errors import Conflict
from engine.service.documents import DocumentIngest
from storage.keys import KeyBuilder
from storage.redis_documents import RedisDocumentStore
from storage.redis_memory import RedisMemoryStore
from tests.fakes.ports import FixedClock
from tests.fixtures.desks import hash_desk
from tests.fixtures.servers import RedisServer, fresh_db

pytestmark = pytest.mark.integration

NOTES = "\n\n".join(
    f"Note {n}: Alice waters the ferns on Tuesday; Bob brings the milk. " * 7 for n in range(9)
)  # about 490 characters each: one chunk per note


class SlowRecall(EmbeddingRecall):
    """The real hash-embedder recall, slowed per batch (able to break at one batch, or to hold
    every batch until ``gate`` is set)."""

    def __init__(self, *args: Any, fail_at: int | None = None) -> None:
        super().__init__(*args)
        self.batches: list[int] = []
        self.fail_at = fail_at
        self.gate: asyncio.Event | None = None

    async def embed_passages(self, texts: Sequence[str]) -> Any:
        self.batches.append(len(texts))
        if self.fail_at is not None and len(self.batches) == self.fail_at:
            raise RuntimeError("embedder crashed")
        if self.gate is not None:
            await self.gate.wait()
        await asyncio.sleep(0.02)
        return await super().embed_passages(texts)


@pytest.fixture
async def redis(redis_server: RedisServer) -> AsyncIterator[aioredis.Redis]:
    async with fresh_db(redis_server, 9) as client:
        yield client


def ingest(redis: aioredis.Redis, clock: FixedClock, **options: Any) -> tuple[DocumentIngest, SlowRecall]:
    desk, recall, docs = hash_desk(
        redis, KeyBuilder(prefix="t"), SlowRecall, fail_at=options.pop("fail_at", None)
    )
    assert desk.documents is not None
    return DocumentIngest(desk.documents, docs, clock, **options), recall


async def finished(service: DocumentIngest, job: str) -> Any:
    for _ in range(200):
        found = await service.job("default", job)
        if found is not None and found.status in ("done", "failed"):
            return found
        await asyncio.sleep(0.02)
    raise AssertionError("the job never finished")


async def test_doc_1_a_job_embeds_in_small_batches_and_then_stores_the_whole_document(
    redis: aioredis.Redis,
) -> None:
    service, recall = ingest(redis, FixedClock(), batch=2)
    job = await service.submit("default", "notes", NOTES)
    assert (job.status, job.chunks, job.embedded) == ("queued", 9, 0)
    done = await finished(service, job.id)
    assert (done.status, done.embedded, done.error) == ("done", 9, None)
    assert recall.batches == [2, 2, 2, 2, 1]  # never the whole document under the embedder's lock
    docs = await RedisDocumentStore(redis, KeyBuilder(prefix="t")).all("default")
    assert [(d.id, d.chunks) for d in docs] == [(job.id, 9)]


async def test_doc_1_a_failing_job_is_reported_and_stores_nothing(redis: aioredis.Redis) -> None:
    service, _ = ingest(redis, FixedClock(), batch=2, fail_at=3)
    job = await service.submit("default", "notes", NOTES)
    failed = await finished(service, job.id)
    assert failed.status == "failed" and failed.embedded == 4 and "RuntimeError" in (failed.error or "")
    assert await RedisDocumentStore(redis, KeyBuilder(prefix="t")).all("default") == []
    # control: the next upload works
    again, _ = ingest(redis, FixedClock(), batch=2)
    assert (await finished(again, (await again.submit("default", "notes", NOTES)).id)).status == "done"


async def test_doc_1_a_job_nobody_updates_any_more_is_reported_interrupted(redis: aioredis.Redis) -> None:
    clock = FixedClock()
    service, _ = ingest(redis, clock, batch=2)
    job = await service.submit("default", "notes", NOTES)
    await service.close()  # the process stops mid-job
    clock.advance(seconds=121)
    other, _ = ingest(redis, clock)  # another web process reports it
    (seen,) = await other.jobs("default")
    assert seen.id == job.id and seen.status == "failed" and "interrupted" in (seen.error or "")


async def test_doc_1_a_small_document_waiting_behind_a_large_one_is_not_reported_failed(
    redis: aioredis.Redis,
) -> None:
    """DOC-1 (issue 28): a small upload queued behind a large one stays ``queued`` however long
    the large one takes, in the accepting process and in another one reading Redis (the waiting
    job's heartbeat), and is ingested after it."""
    clock = FixedClock()
    service, recall = ingest(redis, clock, batch=2, heartbeat=0.05)
    recall.gate = asyncio.Event()
    large = await service.submit("default", "large", NOTES + "\n\n" + NOTES)
    small = await service.submit("default", "small", "Mochi the cat sleeps on the piano every afternoon.")
    try:
        while not recall.batches:  # the large one holds the slot, its first batch held
            await asyncio.sleep(0.01)
        clock.advance(seconds=service.stale_after + 1)
        await asyncio.sleep(0.3)  # a few heartbeats of the waiting job
        other, _ = ingest(redis, clock)  # another web process reads the jobs from Redis
        for process in (service, other):
            waiting = await process.job("default", small.id)
            assert waiting is not None and (waiting.status, waiting.error) == ("queued", None)
    finally:
        recall.gate.set()
    assert (await finished(service, large.id)).status == "done"
    assert (await finished(service, small.id)).status == "done"
    docs = await RedisDocumentStore(redis, KeyBuilder(prefix="t")).all("default")
    assert sorted((d.name, d.chunks) for d in docs) == [("large", 18), ("small", 1)]


async def test_doc_1_too_many_waiting_uploads_are_refused(redis: aioredis.Redis) -> None:
    service, _ = ingest(redis, FixedClock(), batch=1, max_pending=2)
    first = await service.submit("default", "a", NOTES)
    await service.submit("default", "b", NOTES)
    with pytest.raises(Conflict) as busy:
        await service.submit("default", "c", NOTES)
    assert busy.value.code == "ingest_busy"
    assert (await finished(service, first.id)).status == "done"
    await service.close()


class CountingDocuments(RedisDocumentStore):
    """The real Redis document store, counting the loads of a persona's vectors."""

    loads = 0

    async def vectors(self, persona: str) -> Any:
        self.loads += 1
        return await super().vectors(persona)


async def test_doc_1_a_turns_check_and_search_at_once_load_a_new_document_version_once(
    redis: aioredis.Redis,
) -> None:
    """Issue 12: a turn checks for documents and searches them side by side; right after an
    upload both find the new version, and its chunks are read from Redis once, not twice."""
    service, _ = ingest(redis, FixedClock(), batch=4)
    done = await finished(service, (await service.submit("default", "notes", NOTES)).id)
    assert done.status == "done"
    keys = KeyBuilder(prefix="t")
    docs = CountingDocuments(redis, keys)
    embedder = make_embedder("hash")
    assert embedder is not None
    recall = EmbeddingRecall(RedisMemoryStore(redis, keys), embedder, FaissVectorIndex(), docs)
    seen = await docs.version("default")
    query = await recall.embed("When does Alice water the ferns?")
    has, found = await asyncio.gather(
        recall.has_documents("default", seen), recall.documents(query, "default", seen)
    )
    assert has and found and "ferns" in found[0]
    assert docs.loads == 1
    # a control: nothing is loaded again while the version stands
    assert await recall.documents(query, "default", seen) == found and docs.loads == 1
