"""``DocumentIngest`` on the in-memory fakes (DOC-1): background jobs in small batches, their
failures, interrupted jobs and the limits of what waits."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

import numpy as np
import pytest

from engine.documents import DocumentJob
from engine.errors import Conflict, InvalidInput
from engine.memory import MemoryPolicy
from engine.ports import Vectors
from engine.service.documents import DocumentIngest
from engine.service.memory import MemoryDesk
from tests.fakes.ports import FixedClock
from tests.fakes.stores import (
    InMemoryDocumentStore,
    InMemoryMemoryDirectory,
    InMemoryMemoryStore,
    InMemoryRecall,
)

NOTES = "\n\n".join(
    f"Note {n}: the ferns want water on Tuesdays and the milk comes on Fridays. " * 6 for n in range(5)
)


def ones(texts: Sequence[str]) -> Vectors:
    return np.full((len(texts), 4), 0.5, dtype=np.float32)


class Breaking:
    """Embeds, until the ``at``-th batch, which fails."""

    def __init__(self, at: int) -> None:
        self.at, self.calls = at, 0

    def __call__(self, texts: Sequence[str]) -> Vectors:
        self.calls += 1
        if self.calls == self.at:
            raise RuntimeError("embedder crashed")
        return ones(texts)


Embed = Callable[[Sequence[str]], Vectors]


def ingest(
    clock: FixedClock,
    documents: InMemoryDocumentStore,
    embed: Embed | None = ones,
    *,
    batch: int = 2,
    max_pending: int = 8,
) -> tuple[DocumentIngest, InMemoryRecall]:
    store = InMemoryMemoryStore()
    recall = InMemoryRecall(store, embed)
    desk = MemoryDesk(
        store=store,
        recall=recall,
        directory=InMemoryMemoryDirectory(),
        policy=MemoryPolicy(),
        documents=documents,
    )
    return DocumentIngest(desk.documents, documents, clock, batch=batch, max_pending=max_pending), recall


async def finished(service: DocumentIngest, job: str) -> DocumentJob:
    for _ in range(500):
        found = await service.job("default", job)
        if found is not None and found.status in ("done", "failed"):
            return found
        await asyncio.sleep(0)
    raise AssertionError("the job never finished")


async def test_doc_1_a_job_embeds_in_batches_then_stores_the_whole_document() -> None:
    documents = InMemoryDocumentStore()
    service, recall = ingest(FixedClock(), documents, batch=2)
    job = await service.submit("default", "notes", NOTES)
    assert (job.status, job.chunks, job.embedded) == ("queued", 5, 0)
    assert await documents.all("default") == []  # nothing searchable before the last batch
    done = await finished(service, job.id)
    assert (done.status, done.embedded, done.error) == ("done", 5, None)
    assert recall.batches == [2, 2, 1]
    assert [(d.id, d.name, d.chunks) for d in await documents.all("default")] == [(job.id, "notes", 5)]
    assert (await documents.version("default"))[1] == "fake-4"


async def test_doc_1_a_failed_job_says_why_and_stores_nothing() -> None:
    documents = InMemoryDocumentStore()
    service, _ = ingest(FixedClock(), documents, Breaking(at=2), batch=2)
    failed = await finished(service, (await service.submit("default", "notes", NOTES)).id)
    assert (failed.status, failed.embedded, failed.error) == ("failed", 2, "embedding failed: RuntimeError")
    assert await documents.all("default") == []


async def test_doc_1_a_job_nobody_updates_is_reported_interrupted() -> None:
    clock, documents = FixedClock(), InMemoryDocumentStore()
    service, _ = ingest(clock, documents)
    job = await service.submit("default", "notes", NOTES)
    await service.close()  # the process stops mid-job
    clock.advance(seconds=121)
    other, _ = ingest(clock, documents)
    (seen,) = await other.jobs("default")
    assert (seen.id, seen.status) == (job.id, "failed") and "interrupted" in (seen.error or "")


async def test_doc_1_what_cannot_be_ingested_is_refused_at_once() -> None:
    documents = InMemoryDocumentStore()
    service, _ = ingest(FixedClock(), documents, batch=1, max_pending=1)
    first = await service.submit("default", "a", NOTES)
    with pytest.raises(Conflict) as busy:
        await service.submit("default", "b", NOTES)
    assert busy.value.code == "ingest_busy"
    assert (await finished(service, first.id)).status == "done"
    await asyncio.sleep(0)  # the finished task leaves the queue
    with pytest.raises(InvalidInput) as empty:
        await service.submit("default", "c", "# Title\n\n## Another\n")
    assert empty.value.code == "document_empty"
    plain, _ = ingest(FixedClock(), documents, embed=None)
    with pytest.raises(Conflict) as off:
        await plain.submit("default", "d", NOTES)
    assert off.value.code == "documents_unavailable"
