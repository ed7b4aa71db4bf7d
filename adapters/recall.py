"""Recall: one embedding of the newest message per turn, searched against memories and documents.

``EmbeddingRecall`` loads a turn's memories and their vectors in one round trip (refreshing the
process's FAISS index when a list's vector version changed), embeds memories that have no
vector yet for the current embedder (so changing the embedder re-embeds instead of mixing
models), and scores candidates with the calibrated background-relative score of
``adapters.embedding.scorer`` (docs/RECALL.md). The same query vector searches the persona's
document chunks (DOC-1, DEC-15). Embedding is CPU work and runs in a thread.
``NoRecall`` is the ``HEARTH_EMBEDDER=none`` case: memories load, nothing is searched (DEC-1).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence

import numpy as np

from adapters.embedding import Embedder, MatchScorer, embed_background
from adapters.vector import VectorIndex, document_key, load_memory_vectors, memory_key
from engine.memory import MemoryRecord, ScopeList, SearchHit, SearchResult
from storage.redis_documents import RedisDocumentStore
from storage.redis_memory import RedisMemoryStore

__all__ = ["EmbeddingRecall", "NoRecall"]

log = logging.getLogger("hearth.recall")
QUERY_CHARS = 1_500
DOCUMENT_CHECK_SECS = 5.0  # a document upload reaches other processes' searches within this


class NoRecall:
    """No embedder: memories are loaded but never searched (everything stays active)."""

    available = False
    model = "none"

    def __init__(self, store: RedisMemoryStore) -> None:
        self._store = store

    async def load(self, scopes: Sequence[ScopeList]) -> list[MemoryRecord]:
        """The memories of ``scopes``."""
        return await self._store.load(scopes)

    async def warm(self) -> None:
        """Nothing to prepare."""

    def forget_documents(self, persona: str) -> None:
        """No cache."""

    async def embed(self, text: str) -> None:
        """No embedder, no query vector."""
        return

    async def search(
        self, query: object, records: Sequence[MemoryRecord], scopes: Sequence[ScopeList]
    ) -> SearchResult:
        """Never called when ``available`` is False."""
        return SearchResult(ok=False)

    async def documents(self, query: object, persona: str) -> tuple[str, ...]:
        """No embedder: documents are not searched."""
        return ()

    async def has_documents(self, persona: str) -> bool:
        """No embedder: documents are not searched."""
        return False

    async def embed_passages(self, texts: Sequence[str]) -> None:
        """No embedder."""
        return


class EmbeddingRecall:
    """Search memories and persona documents with an embedder and a vector index."""

    available = True

    def __init__(
        self,
        store: RedisMemoryStore,
        embedder: Embedder,
        index: VectorIndex,
        documents: RedisDocumentStore | None = None,
        *,
        document_chunks: int = 3,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._index = index
        self._documents = documents
        self._chunks = document_chunks
        self.model = embedder.name
        self._scorer = MatchScorer.for_embedder(embedder.name)
        self._background: np.ndarray | None = None
        self._fresh: dict[str, np.ndarray] = {}
        self._docs: dict[str, tuple[int, float, dict[str, str]]] = {}  # persona → version, checked, texts

    async def load(self, scopes: Sequence[ScopeList]) -> list[MemoryRecord]:
        """The memories of ``scopes``, with vectors cached and missing ones embedded."""
        snapshot = await load_memory_vectors(self._store, self._index, scopes, self.model)
        missing = list(snapshot.missing_vectors(self.model))
        if missing:
            vectors = await asyncio.to_thread(self._embedder.embed_passages, [r.text for r in missing])
            await self._store.put_vectors(self.model, missing, vectors)
            # the index picks them up from Redis next turn; this turn uses them directly
            self._fresh = {r.id: v for r, v in zip(missing, vectors, strict=True)}
        else:
            self._fresh = {}
        return list(snapshot.records)

    async def _background_vectors(self) -> np.ndarray:
        if self._background is None:
            self._background = await asyncio.to_thread(embed_background, self._embedder)
        return self._background

    async def warm(self) -> None:
        """Embed the scorer's background passages now, not on the first reply (~0.7 s)."""
        await self._background_vectors()

    async def embed(self, text: str) -> np.ndarray:
        """The one query embedding of a turn (DEC-15: shared by memories and documents).

        Only the first ``QUERY_CHARS`` characters are embedded: e5 reads at most 512 tokens
        anyway, and a 16,000-character message would otherwise cost seconds of CPU.
        """
        return (await asyncio.to_thread(self._embedder.embed_queries, [text[:QUERY_CHARS]]))[0]

    async def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Passage vectors (document chunks), computed in a thread."""
        return await asyncio.to_thread(self._embedder.embed_passages, list(texts))

    async def search(
        self, query: np.ndarray, records: Sequence[MemoryRecord], scopes: Sequence[ScopeList]
    ) -> SearchResult:
        """Score every searchable memory against the query; hits are those above the threshold.

        ``similarity`` is the calibrated match score (background-relative, see docs/RECALL.md).
        """
        allowed = {r.id for r in records if not r.hidden}
        if not allowed:
            return SearchResult(ok=True)
        keys = [memory_key(s, self.model) for s in scopes]
        ids, vectors = self._index.lookup(keys, sorted(allowed - self._fresh.keys()))
        fresh = sorted(allowed & self._fresh.keys())
        if fresh:
            ids = (*ids, *fresh)
            vectors = np.vstack([vectors.reshape(-1, query.shape[0]), *(self._fresh[i] for i in fresh)])
        if not ids:
            return SearchResult(ok=True)
        scores = self._scorer.score(query, vectors, await self._background_vectors())
        hits = tuple(
            SearchHit(memory_id=i, similarity=round(float(s), 3))
            for i, s in zip(ids, scores, strict=True)
            if s >= self._scorer.threshold
        )
        return SearchResult(ok=True, hits=hits)

    async def documents(self, query: np.ndarray, persona: str) -> tuple[str, ...]:
        """The persona's document chunks that match the query best (DOC-1), best first.

        FAISS finds the nearest chunks by cosine; the calibrated score decides which are close
        enough to send. Vectors and texts are cached per document version, and the version is
        re-read at most every ``DOCUMENT_CHECK_SECS``, so most turns cost no round trip here.
        """
        if self._documents is None:
            return ()
        texts = await self._document_cache(persona, query.shape[0])
        if not texts:
            return ()
        key = document_key(persona, self.model)
        hits = self._index.search([key], query, self._chunks * 4, allowed_ids=None)
        if not hits:
            return ()
        ids, vectors = self._index.lookup([key], [h[0] for h in hits])
        scores = self._scorer.score(query, vectors, await self._background_vectors())
        ranked = sorted(zip(ids, scores, strict=True), key=lambda pair: -pair[1])
        return tuple(texts[i] for i, s in ranked if s >= self._scorer.threshold and i in texts)[
            : self._chunks
        ]

    async def has_documents(self, persona: str) -> bool:
        """Whether the persona has documents to search (cached like ``documents``: mostly no IO)."""
        if self._documents is None:
            return False
        return bool(await self._document_cache(persona, self._embedder.dim))

    def forget_documents(self, persona: str) -> None:
        """Drop this process's cached documents of a persona (it just uploaded one)."""
        self._docs.pop(persona, None)

    async def _document_cache(self, persona: str, dim: int) -> dict[str, str]:
        assert self._documents is not None
        cached = self._docs.get(persona)
        if cached is not None and time.monotonic() - cached[1] < DOCUMENT_CHECK_SECS:
            return cached[2]
        version, model = await self._documents.version(persona)
        if cached is not None and cached[0] == version:
            self._docs[persona] = (version, time.monotonic(), cached[2])
            return cached[2]
        texts: dict[str, str] = {}
        ids: list[str] = []
        vectors = np.zeros((0, dim), dtype=np.float32)
        if version and model == self.model:
            ids, loaded = await self._documents.vectors(persona)
            if ids:
                vectors = loaded
                found = await self._documents.chunk_map(persona, ids)
                texts = {i: f"{c.heading}: {c.text}" if c.heading else c.text for i, c in found.items()}
        self._index.replace(document_key(persona, self.model), version, ids, vectors)
        self._docs[persona] = (version, time.monotonic(), texts)
        return texts
