"""The document ports: persona documents with their vectors, and ingestion jobs
(``storage.redis_documents.RedisDocumentStore``; fake: ``tests.fakes.stores.documents``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from engine.documents import Chunk, DocumentInfo, DocumentJob
from engine.ports.recall import Vector

__all__ = ["DocumentStore", "JobStore"]


class DocumentStore(Protocol):
    """Persona documents (DOC-1)."""

    async def put(
        self,
        persona: str,
        info: DocumentInfo,
        chunks: tuple[Chunk, ...],
        model: str,
        vectors: Sequence[Vector],
    ) -> None:
        """Store a document with its chunks and their vectors (row i is chunk i's), all or nothing.

        Vectors of another embedder than ``model`` stored before are dropped.
        """
        ...

    async def all(self, persona: str) -> list[DocumentInfo]:
        """The persona's documents, by name (then id)."""
        ...

    async def delete(self, persona: str, doc: str) -> DocumentInfo | None:
        """Delete a document and its chunks; returns what was deleted (None: there was none)."""
        ...


class JobStore(Protocol):
    """Where ingestion jobs are kept so that any web process can report them."""

    async def put_job(self, job: DocumentJob) -> None:
        """Record a job's state; a new (``queued``) job prunes finished ones older than a day."""
        ...

    async def job(self, persona: str, job: str) -> DocumentJob | None:
        """One job, or None."""
        ...

    async def jobs(self, persona: str) -> list[DocumentJob]:
        """Every recorded job of a persona (in no particular order)."""
        ...
