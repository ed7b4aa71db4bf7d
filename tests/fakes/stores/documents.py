"""An in-memory fake of ``storage.redis_documents.RedisDocumentStore`` (documents and jobs)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from engine.documents import Chunk, DocumentInfo, DocumentJob
from engine.ports import DocumentVersion, Vector
from storage.redis_documents import StoredChunk

__all__ = ["InMemoryDocumentStore"]

KEEP_FINISHED_JOBS = 86_400


@dataclass
class _Persona:
    docs: dict[str, DocumentInfo] = field(default_factory=dict)
    chunks: dict[str, StoredChunk] = field(default_factory=dict)
    vecs: dict[str, bytes] = field(default_factory=dict)
    version: int = 0
    model: str | None = None
    jobs: dict[str, DocumentJob] = field(default_factory=dict)


class InMemoryDocumentStore:
    """``DocumentStore`` and ``JobStore`` in memory, per persona."""

    def __init__(self) -> None:
        self._p: dict[str, _Persona] = {}

    def _of(self, persona: str) -> _Persona:
        return self._p.setdefault(persona, _Persona())

    async def put(
        self,
        persona: str,
        info: DocumentInfo,
        chunks: tuple[Chunk, ...],
        model: str,
        vectors: Sequence[Vector],
    ) -> None:
        """See ``engine.ports.DocumentStore.put``."""
        p = self._of(persona)
        ids = [f"{info.id}#{c.index}" for c in chunks]
        if p.model is not None and p.model != model:
            p.vecs.clear()  # another embedder's vectors: re-embedded on read
        p.docs[info.id] = info
        p.chunks.update(
            {
                i: StoredChunk(doc=info.id, text=c.text, heading=c.heading)
                for i, c in zip(ids, chunks, strict=True)
            }
        )
        p.vecs.update({i: np.asarray(v, dtype="<f4").tobytes() for i, v in zip(ids, vectors, strict=True)})
        p.model = model
        p.version += 1

    async def all(self, persona: str) -> list[DocumentInfo]:
        """See ``engine.ports.DocumentStore.all``."""
        return sorted(self._of(persona).docs.values(), key=lambda d: (d.name, d.id))

    async def delete(self, persona: str, doc: str) -> DocumentInfo | None:
        """See ``engine.ports.DocumentStore.delete``."""
        p = self._of(persona)
        info = p.docs.pop(doc, None)
        if info is None:
            return None
        for n in range(info.chunks):
            p.chunks.pop(f"{doc}#{n}", None)
            p.vecs.pop(f"{doc}#{n}", None)
        p.version += 1
        return info

    async def version(self, persona: str) -> DocumentVersion:
        """The persona's document version and the embedder its vectors belong to."""
        p = self._of(persona)
        return p.version, p.model

    async def put_job(self, job: DocumentJob) -> None:
        """See ``engine.ports.JobStore.put_job``."""
        jobs = self._of(job.persona).jobs
        if job.status == "queued":
            for old in list(jobs.values()):
                age = (job.created_at - old.updated_at).total_seconds()
                if old.status in ("done", "failed") and age > KEEP_FINISHED_JOBS:
                    del jobs[old.id]
        jobs[job.id] = job

    async def job(self, persona: str, job: str) -> DocumentJob | None:
        """See ``engine.ports.JobStore.job``."""
        return self._of(persona).jobs.get(job)

    async def jobs(self, persona: str) -> list[DocumentJob]:
        """See ``engine.ports.JobStore.jobs``."""
        return list(self._of(persona).jobs.values())
