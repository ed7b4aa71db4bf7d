"""The recall search as it was before RECALL-1, for side-by-side latency (bench/memory_step.py).

Memories: every searchable memory scored by ``snorm`` alone against the calibrated threshold.
Documents: FAISS pre-filter of the ``k x 4`` nearest chunks by raw cosine, then ``snorm`` on those.
Everything else (loading, caching, embedding) is the production ``EmbeddingRecall``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from adapters.recall.search import EmbeddingRecall
from adapters.vector import document_key, memory_key
from engine.memory import MemoryRecord, ScopeList, SearchHit, SearchResult
from engine.ports.recall import DocumentVersion, Query

__all__ = ["BaselineRecall"]


class BaselineRecall(EmbeddingRecall):
    """Dense-only decision, raw-cosine pre-filter for documents (the pre-RECALL-1 search)."""

    async def search(
        self, query: Query, records: Sequence[MemoryRecord], scopes: Sequence[ScopeList]
    ) -> SearchResult:
        """Score every searchable memory with ``snorm``; hits reach the old threshold."""
        vector = query.vector
        allowed = {r.id for r in records if not r.hidden}
        if not allowed:
            return SearchResult(ok=True)
        keys = [memory_key(s, self.model) for s in scopes]
        ids, vectors = self._index.lookup(keys, sorted(allowed - self._fresh.keys()))
        fresh = sorted(allowed & self._fresh.keys())
        if fresh:
            ids = (*ids, *fresh)
            vectors = np.vstack([vectors.reshape(-1, vector.shape[0]), *(self._fresh[i] for i in fresh)])
        if not ids:
            return SearchResult(ok=True)
        scores = self._scorer.score(vector, vectors, await self._background_vectors())
        return SearchResult(
            ok=True,
            hits=tuple(
                SearchHit(memory_id=i, similarity=round(float(s), 3))
                for i, s in zip(ids, scores, strict=True)
                if s >= self._scorer.threshold
            ),
        )

    async def documents(
        self, query: Query, persona: str, seen: DocumentVersion | None = None
    ) -> tuple[str, ...]:
        """FAISS top ``k x 4`` by cosine, then ``snorm`` and the old threshold."""
        vector = query.vector
        if self._documents is None:
            return ()
        texts, scored = await self._document_cache(persona, vector.shape[0], seen)
        if not texts or scored is None:
            return ()
        key = document_key(persona, self.model)
        if self._index.version(key) != scored.version:
            self._index.replace(key, int(scored.version), scored.ids, scored.matrix)  # type: ignore[arg-type]
        found = self._index.search([key], vector, self._chunks * 4, allowed_ids=None)
        if not found:
            return ()
        ids, vectors = self._index.lookup([key], [h[0] for h in found])
        scores = self._scorer.score(vector, vectors, await self._background_vectors())
        ranked = sorted(zip(ids, scores, strict=True), key=lambda pair: -pair[1])
        return tuple(texts[i] for i, s in ranked if s >= self._scorer.threshold and i in texts)[
            : self._chunks
        ]
