"""Contract: ``DocumentStore`` and ``JobStore`` behave alike on the fake and on Redis."""

from __future__ import annotations

from datetime import timedelta
from typing import Literal

import numpy as np
import pytest

from engine.documents import Chunk, DocumentInfo, DocumentJob
from tests.contract.builders import T0
from tests.contract.stores import Stores

pytestmark = pytest.mark.contract

P = "ember"
Status = Literal["queued", "embedding", "done", "failed"]


def rows(n: int) -> list[np.ndarray]:
    return list(np.eye(n, 4, dtype=np.float32))


async def test_documents_are_listed_by_name_and_deleted_whole(stores: Stores) -> None:
    documents = stores.documents()
    chunks = (
        Chunk(index=0, text="Dragons sleep."),
        Chunk(index=1, text="They wake at dusk.", heading="Habits"),
    )
    zeta = DocumentInfo(id="doc-z", name="Zeta", chunks=2, chars=33)
    alpha = DocumentInfo(id="doc-a", name="Alpha", chunks=1, chars=14)
    await documents.put(P, zeta, chunks, "hash-4", rows(2))
    await documents.put(P, alpha, chunks[:1], "hash-4", rows(1))
    assert await documents.all(P) == [alpha, zeta]
    assert await documents.all("someone") == []
    assert await documents.delete(P, "doc-z") == zeta
    assert await documents.delete(P, "doc-z") is None
    assert await documents.all(P) == [alpha]


def job(name: str, status: Status, minutes: float) -> DocumentJob:
    at = T0 + timedelta(minutes=minutes)
    return DocumentJob(
        id=f"doc-{name}",
        persona=P,
        name=name,
        status=status,
        chunks=3,
        chars=90,
        created_at=at,
        updated_at=at,
    )


async def test_jobs_are_kept_and_finished_old_ones_pruned_by_a_new_one(stores: Stores) -> None:
    jobs = stores.jobs()
    await jobs.put_job(job("old", "done", 0))
    await jobs.put_job(job("broken", "failed", 1))
    await jobs.put_job(job("running", "embedding", 2))
    assert await jobs.job(P, "doc-old") == job("old", "done", 0)
    assert await jobs.job(P, "doc-none") is None
    await jobs.put_job(job("fresh", "queued", 2 * 24 * 60))
    assert sorted(j.id for j in await jobs.jobs(P)) == ["doc-fresh", "doc-running"]
    assert await jobs.jobs("someone") == []
