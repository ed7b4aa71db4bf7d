"""Persona documents on Redis (DOC-1), hash-tagged per persona.

- ``doc:{persona}:docs``    HASH document id → JSON ``{"id", "name", "chunks", "chars"}``
- ``doc:{persona}:chunks``  HASH chunk id (``<doc>#<n>``) → JSON ``{"text", "heading", "doc"}``
- ``doc:{persona}:vecs``    HASH chunk id → float32 bytes of the embedder in ``meta``
- ``doc:{persona}:meta``    HASH ``version`` (bumped on every change), ``model``
- ``doc:{persona}:jobs``    HASH document id → JSON ``DocumentJob`` (background ingestion and its
  progress; finished jobs older than a day are pruned when a new one is written)

A document and its chunks and vectors are written in one MULTI, so a search never sees half a
document. In-process FAISS indexes rebuild when ``version`` changes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

import msgspec
import numpy as np
import numpy.typing as npt
import redis.asyncio as aioredis

from engine.documents import Chunk, DocumentInfo, DocumentJob
from engine.ports import DocumentVersion
from storage.errors import map_redis_errors
from storage.keys import KeyBuilder
from storage.replies import blob_hash, fields, text

__all__ = ["DocumentInfo", "RedisDocumentStore", "StoredChunk"]


class StoredChunk(msgspec.Struct, frozen=True, kw_only=True):
    """A chunk as stored."""

    doc: str
    text: str
    heading: str = ""


_INFO = msgspec.json.Decoder(DocumentInfo)
_CHUNK = msgspec.json.Decoder(StoredChunk)
_JOB = msgspec.json.Decoder(DocumentJob)
_KEEP_FINISHED_JOBS = 86_400


class RedisDocumentStore:
    """Documents, chunks and their vectors."""

    def __init__(self, client: aioredis.Redis, keys: KeyBuilder) -> None:
        self._r = client
        self._keys = keys

    def _key(self, persona: str, part: str) -> str:
        return self._keys.document(persona, part)

    async def put(
        self,
        persona: str,
        info: DocumentInfo,
        chunks: tuple[Chunk, ...],
        model: str,
        vectors: Sequence[npt.NDArray[np.float32]],
    ) -> None:
        """Store a document with its chunks and vectors, row i chunk i's (all or nothing)."""
        ids = [f"{info.id}#{c.index}" for c in chunks]
        with map_redis_errors():
            stored_model = await self._r.hget(self._key(persona, "meta"), "model")
            async with self._r.pipeline(transaction=True) as tx:
                if stored_model is not None and text(stored_model) != model:
                    tx.delete(self._key(persona, "vecs"))  # another embedder's vectors: re-embedded on read
                tx.hset(self._key(persona, "docs"), info.id, msgspec.json.encode(info))
                tx.hset(
                    self._key(persona, "chunks"),
                    mapping={
                        i: msgspec.json.encode(StoredChunk(doc=info.id, text=c.text, heading=c.heading))
                        for i, c in zip(ids, chunks, strict=True)
                    },
                )
                tx.hset(
                    self._key(persona, "vecs"),
                    mapping={
                        i: np.asarray(v, dtype="<f4").tobytes() for i, v in zip(ids, vectors, strict=True)
                    },
                )
                tx.hset(self._key(persona, "meta"), "model", model)
                tx.hincrby(self._key(persona, "meta"), "version", 1)
                await tx.execute()

    async def put_job(self, job: DocumentJob) -> None:
        """Record a job's state (see ``engine.service.documents``)."""
        key = self._key(job.persona, "jobs")
        with map_redis_errors():
            if job.status == "queued":  # a new job: forget finished ones older than a day
                stale = [
                    j.id
                    for j in await self.jobs(job.persona)
                    if j.status in ("done", "failed")
                    and (job.created_at - j.updated_at).total_seconds() > _KEEP_FINISHED_JOBS
                ]
                if stale:
                    await self._r.hdel(key, *stale)
            await self._r.hset(key, job.id, msgspec.json.encode(job))

    async def job(self, persona: str, job: str) -> DocumentJob | None:
        """One job, or None."""
        with map_redis_errors():
            raw = await self._r.hget(self._key(persona, "jobs"), job)
        return _JOB.decode(raw) if raw is not None else None

    async def jobs(self, persona: str) -> list[DocumentJob]:
        """Every recorded job of a persona."""
        with map_redis_errors():
            raw = await self._r.hgetall(self._key(persona, "jobs"))
        return [_JOB.decode(v) for v in raw.values()]

    async def delete(self, persona: str, doc: str) -> DocumentInfo | None:
        """Delete a document and its chunks; returns what was deleted."""
        with map_redis_errors():
            raw = await self._r.hget(self._key(persona, "docs"), doc)
            if raw is None:
                return None
            info = _INFO.decode(raw)
            ids = [f"{doc}#{n}" for n in range(info.chunks)]
            async with self._r.pipeline(transaction=True) as tx:
                tx.hdel(self._key(persona, "docs"), doc)
                if ids:
                    tx.hdel(self._key(persona, "chunks"), *ids)
                    tx.hdel(self._key(persona, "vecs"), *ids)
                tx.hincrby(self._key(persona, "meta"), "version", 1)
                await tx.execute()
        return info

    async def all(self, persona: str) -> list[DocumentInfo]:
        """The persona's documents, by name."""
        with map_redis_errors():
            raw = await self._r.hgetall(self._key(persona, "docs"))
        return sorted((_INFO.decode(v) for v in raw.values()), key=lambda d: (d.name, d.id))

    async def version(self, persona: str) -> DocumentVersion:
        """The persona's document version and the embedder its vectors belong to."""
        with map_redis_errors():
            version, model = await self._r.hmget(self._key(persona, "meta"), ["version", "model"])
        return int(version or 0), text(model) if model else None

    async def vectors(self, persona: str) -> tuple[list[str], npt.NDArray[np.float32]]:
        """Every chunk id and its vector (for rebuilding an index)."""
        with map_redis_errors():
            raw = blob_hash(await self._r.hgetall(self._key(persona, "vecs")))
        ids = sorted(raw)
        if not ids:
            return [], np.zeros((0, 0), dtype=np.float32)
        return ids, np.vstack([np.frombuffer(raw[i], dtype="<f4") for i in ids])

    async def reembed(
        self,
        persona: str,
        model: str,
        embed: Callable[[list[str]], npt.NDArray[np.float32]],
        progress: Any = None,
    ) -> int:
        """Embed every chunk of a persona with ``model`` and swap the vectors in at once."""
        with map_redis_errors():
            raw = blob_hash(await self._r.hgetall(self._key(persona, "chunks")))
        ids = sorted(raw)
        task = progress.add_task(f"documents of {persona} → {model}", total=len(ids)) if progress else None
        vectors: dict[str, bytes] = {}
        for start in range(0, len(ids), 64):
            batch = ids[start : start + 64]
            rows = await asyncio.to_thread(embed, [_CHUNK.decode(raw[i]).text for i in batch])
            vectors.update(
                {i: np.asarray(v, dtype="<f4").tobytes() for i, v in zip(batch, rows, strict=True)}
            )
            if progress:
                progress.advance(task, len(batch))
        with map_redis_errors():
            async with self._r.pipeline(transaction=True) as tx:
                tx.delete(self._key(persona, "vecs"))
                if vectors:
                    tx.hset(self._key(persona, "vecs"), mapping=fields(vectors))
                tx.hset(self._key(persona, "meta"), "model", model)
                tx.hincrby(self._key(persona, "meta"), "version", 1)
                await tx.execute()
        return len(ids)

    async def chunk_map(self, persona: str, ids: list[str]) -> dict[str, StoredChunk]:
        """The chunks with these ids, by id (missing ones left out)."""
        if not ids:
            return {}
        with map_redis_errors():
            raw = await self._r.hmget(self._key(persona, "chunks"), ids)
        return {i: _CHUNK.decode(r) for i, r in zip(ids, raw, strict=True) if r is not None}

    async def chunks(self, persona: str, ids: list[str]) -> list[StoredChunk]:
        """The chunks with these ids (missing ones left out)."""
        if not ids:
            return []
        with map_redis_errors():
            raw = await self._r.hmget(self._key(persona, "chunks"), ids)
        return [_CHUNK.decode(r) for r in raw if r is not None]
