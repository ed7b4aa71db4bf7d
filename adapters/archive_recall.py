"""Archive page recall: the memories' embedder, vector index and match scorer over page vectors.

Page vectors live in Redis (``storage.redis_archive``); the in-process vector index caches one
entry per chat and embedder (:func:`page_key`) and reloads it when the chat's vector version
changes. Pages without a vector of the current embedder (another embedder wrote them) are
embedded on the first search that needs them. Candidates are scored with the same calibrated
"reasonable match" score as memories (docs/RECALL.md), so episodes are found by the same recall.
Embedding is CPU work and runs in a thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Sequence

import numpy as np

from adapters.embedding import Embedder, MatchScorer, embed_background
from adapters.vector import VectorIndex, Vectors
from engine.archive import cluster_by_similarity, page_text
from storage.redis_archive import RedisArchiveStore

__all__ = ["PageRecall", "page_key"]


def page_key(chat: str, model: str) -> tuple[str, str, str]:
    """The index key of one chat's page vectors of embedder ``model``."""
    return ("archive", chat, model)


def _rows(vectors: Sequence[bytes]) -> Vectors:
    return np.vstack([np.frombuffer(v, dtype="<f4") for v in vectors]).astype(np.float32)


class PageRecall:
    """Embeds pages and searches a chat's pages with the configured embedder."""

    def __init__(self, store: RedisArchiveStore, embedder: Embedder, index: VectorIndex) -> None:
        self._store = store
        self._embedder = embedder
        self._index = index
        self.model = embedder.name
        self._scorer = MatchScorer.for_embedder(embedder.name)
        self._background: Vectors | None = None

    async def embed(self, texts: Sequence[str]) -> list[bytes]:
        """Passage vectors of ``texts`` as little-endian float32 bytes."""
        if not texts:
            return []
        rows = await asyncio.to_thread(self._embedder.embed_passages, list(texts))
        return [np.asarray(r, dtype="<f4").tobytes() for r in rows]

    async def _ensure(self, chat: str, ids: Collection[str]) -> None:
        """Embed the pages among ``ids`` that have no vector of this embedder, and refresh the index."""
        stored = await self._store.vectors(chat)
        have = set(stored.vectors) if stored.model == self.model else set()
        missing = [p for p in await self._store.pages(chat) if p.id in ids and p.id not in have]
        if missing:
            vectors = await self.embed([page_text(p) for p in missing])
            await self._store.put_vectors(
                chat, self.model, dict(zip((p.id for p in missing), vectors, strict=True))
            )
            stored = await self._store.vectors(chat)
        key = page_key(chat, self.model)
        if self._index.version(key) != stored.version:
            ids_now = sorted(stored.vectors) if stored.model == self.model else []
            matrix = _rows([stored.vectors[i] for i in ids_now]) if ids_now else np.zeros((0, 1), np.float32)
            self._index.replace(key, stored.version, ids_now, matrix)

    async def search(
        self, chat: str, query: str, allowed: Collection[str], limit: int
    ) -> list[tuple[str, float]]:
        """The ``allowed`` pages that reasonably match ``query``, best first, as ``(id, score)``."""
        if not allowed or not query.strip():
            return []
        await self._ensure(chat, allowed)
        vector = (await asyncio.to_thread(self._embedder.embed_queries, [query[:1500]]))[0]
        key = page_key(chat, self.model)
        hits = self._index.search([key], vector, limit * 4, allowed_ids=set(allowed))
        if not hits:
            return []
        ids, vectors = self._index.lookup([key], [h[0] for h in hits])
        if self._background is None:
            self._background = await asyncio.to_thread(embed_background, self._embedder)
        scores = self._scorer.score(vector, vectors, self._background)
        ranked = sorted(zip(ids, (float(s) for s in scores), strict=True), key=lambda pair: -pair[1])
        return [(i, round(s, 3)) for i, s in ranked if s >= self._scorer.threshold][:limit]

    async def clusters(self, chat: str, ids: Sequence[str], threshold: float) -> tuple[tuple[str, ...], ...]:
        """Groups of near-duplicate pages among ``ids`` by the cosine of their vectors (EPI-6)."""
        await self._ensure(chat, ids)
        stored = await self._store.vectors(chat)
        known = [i for i in ids if i in stored.vectors] if stored.model == self.model else []
        if len(known) < 2:
            return ()
        matrix = _rows([stored.vectors[i] for i in known])
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        unit = matrix / np.where(norms == 0, 1.0, norms)
        similarity = (unit @ unit.T).tolist()
        return cluster_by_similarity(known, similarity, threshold)
