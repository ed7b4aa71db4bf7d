"""Recall: one embedding of the newest message per turn, searched against memories and documents.

``EmbeddingRecall`` loads a turn's memories and their vectors in one round trip (refreshing the
process's FAISS index when a list's vector version changed), embeds memories that have no
vector yet for the current embedder (so changing the embedder re-embeds instead of mixing
models), and scores candidates with the calibrated background-relative score of
``adapters.recall.scorer`` fused with a lexical score (RECALL-1, ``adapters.recall.hybrid``): every
searchable memory and every document chunk is scored exactly; memories are decided by the learned
model of ``engine.memory.decision`` (parameters per embedder: ``scorer.decision_params``), document
chunks by the fused-score threshold of ``engine.memory.fusion`` (docs/RECALL.md). The same query vector
(which carries its text for the lexical half) searches the persona's document chunks (DOC-1,
DEC-15). Embedding is CPU work and runs in a thread.
``NoRecall`` is the ``HEARTH_EMBEDDER=none`` case: memories load, nothing is searched (DEC-1).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence

import numpy as np

from adapters.embedding import Embedder
from adapters.recall.hybrid import ScoredSet, ScoredSets, build_set, hits, phatic_score
from adapters.recall.hybrid import measured as measure
from adapters.recall.scorer import MatchScorer, decision_params, embed_background, embed_phatic, passage_rule
from adapters.vector import VectorIndex, load_memory_vectors, memory_key
from engine.errors import Conflict
from engine.memory import MemoryRecord, ScopeList, SearchResult, scope_list_of
from engine.memory.decision import Measured, decide
from engine.ports import DocumentVersion, Query, Vectors
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

    async def embed(self, text: str) -> Query:
        """No embedder, no query vector: never called while ``available`` is False.

        Raises:
            Conflict: ``documents_unavailable``.
        """
        raise Conflict("There is no embedder (HEARTH_EMBEDDER is none).", code="documents_unavailable")

    async def search(
        self, query: object, records: Sequence[MemoryRecord], scopes: Sequence[ScopeList]
    ) -> SearchResult:
        """Never called when ``available`` is False."""
        return SearchResult(ok=False)

    async def documents(
        self, query: object, persona: str, seen: DocumentVersion | None = None
    ) -> tuple[str, ...]:
        """No embedder: documents are not searched."""
        return ()

    async def has_documents(self, persona: str, seen: DocumentVersion | None = None) -> bool:
        """No embedder: documents are not searched."""
        return False

    async def embed_passages(self, texts: Sequence[str]) -> Vectors:
        """No embedder: never called while ``available`` is False.

        Raises:
            Conflict: ``documents_unavailable``.
        """
        raise Conflict("There is no embedder (HEARTH_EMBEDDER is none).", code="documents_unavailable")


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
        self._decision = decision_params(embedder.name)
        self._passages = passage_rule(embedder.name)
        self._background: np.ndarray | None = None
        self._phatic: np.ndarray | None = None
        self._fresh: dict[str, np.ndarray] = {}
        self._sets = ScoredSets()
        # persona → version, checked, texts, scored chunks
        self._docs: dict[str, tuple[int, float, dict[str, str], ScoredSet | None]] = {}
        self._loading: dict[tuple[str, int], asyncio.Future[tuple[dict[str, str], ScoredSet | None]]] = {}

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
        if self._background is not None:
            return self._background
        background: np.ndarray = await asyncio.to_thread(embed_background, self._embedder)
        self._background = background
        return background

    async def _phatic_vectors(self) -> np.ndarray:
        if self._phatic is not None:
            return self._phatic
        phatic: np.ndarray = await asyncio.to_thread(embed_phatic, self._embedder)
        self._phatic = phatic
        return phatic

    async def warm(self) -> None:
        """Embed the scorer's background passages and the chit-chat messages of RECALL-3 now,
        not on the first reply (~0.7 s each)."""
        await self._background_vectors()
        await self._phatic_vectors()

    async def embed(self, text: str) -> Query:
        """The one query of a turn (DEC-15: shared by memories and documents).

        Only the first ``QUERY_CHARS`` characters are embedded: e5 reads at most 512 tokens
        anyway, and a 16,000-character message would otherwise cost seconds of CPU. The query
        keeps that text for the lexical half of the score.
        """
        head = text[:QUERY_CHARS]
        if getattr(self._embedder, "inline", False):  # microseconds: a thread hand-off costs more
            return Query(head, self._embedder.embed_queries([head])[0])
        return Query(head, (await asyncio.to_thread(self._embedder.embed_queries, [head]))[0])

    async def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Passage vectors (document chunks), computed in a thread."""
        return await asyncio.to_thread(self._embedder.embed_passages, list(texts))

    async def search(
        self, query: Query, records: Sequence[MemoryRecord], scopes: Sequence[ScopeList]
    ) -> SearchResult:
        """Measure every searchable memory against the query; hits are the memories the learned
        decision uses (``engine.memory.decision``: probability over the embedder's threshold, at
        most 3, never one about other people than the message names), decided over all the
        memories in play together. ``similarity`` is the probability; ``reasons`` explain the
        used and near-miss memories (the request log's ``recall``).
        """
        searchable = [r for r in records if not r.hidden]
        if not searchable:
            return SearchResult(ok=True)
        background = await self._background_vectors()
        by_scope: dict[ScopeList, list[MemoryRecord]] = {}
        for record in searchable:
            by_scope.setdefault(scope_list_of(record), []).append(record)
        text = query.text
        phatic = phatic_score(query.vector, await self._phatic_vectors())
        measured: list[Measured] = []
        for scope in dict.fromkeys(scopes):
            own = sorted(by_scope.get(scope, ()), key=lambda r: r.id)
            if not own:
                continue
            scored = self._memory_set(scope, own, background)
            measured += measure(
                scored.ids,
                scored.evidence(query.vector, text, background),
                scored.lexical.scores(text) if text.strip() else np.zeros(len(scored.ids)),
                scored.elsewhere(text),
                scored.plain_distinct(text),
                bool(text.strip()) and scored.lexical.names_only(text),
            )
        if not measured:
            return SearchResult(ok=True)
        decision = decide(measured, self._decision, phatic=phatic)
        return SearchResult(ok=True, hits=decision.hits, scores=decision.scores, reasons=decision.reasons)

    def _memory_set(self, scope: ScopeList, own: Sequence[MemoryRecord], background: np.ndarray) -> ScoredSet:
        """The scored set of one list's searchable memories, cached while list and vectors stand."""
        key = memory_key(scope, self.model)
        fresh = tuple(r.id for r in own if r.id in self._fresh)
        version = (self._index.version(key), hash(tuple((r.id, r.text) for r in own)), fresh)

        def build() -> ScoredSet:
            texts = {r.id: r.text for r in own}
            found, vectors = self._index.lookup([key], [r.id for r in own if r.id not in self._fresh])
            rows = [*found, *fresh]
            matrix = np.vstack([vectors.reshape(-1, background.shape[1]), *(self._fresh[i] for i in fresh)])
            return build_set(version, rows, matrix, [texts[i] for i in rows], background)

        return self._sets.get(key, version, build)

    async def documents(
        self, query: Query, persona: str, seen: DocumentVersion | None = None
    ) -> tuple[str, ...]:
        """The persona's document chunks that match the query best (DOC-1), best first.

        Every chunk is scored exactly with the fused score (RECALL-1, ``passage_rule``); up to
        ``document_chunks`` that reach the threshold are sent. Vectors, texts and the lexical
        index are cached per document version, and the version is re-read at most every
        ``DOCUMENT_CHECK_SECS``, so most turns cost no round trip here.
        """
        if self._documents is None:
            return ()
        texts, scored = await self._document_cache(persona, query.vector.shape[0], seen)
        if not texts or scored is None or not scored.ids:
            return ()
        background = await self._background_vectors()
        # the matrix product over thousands of chunks in a thread (numpy releases the GIL), so the
        # turn's memory reads and search go on meanwhile; the lexical half here
        dense = await asyncio.to_thread(scored.dense, query.vector, background)
        evidence = scored.evidence(query.vector, query.text, background, dense=dense)
        found = hits(self._passages, scored.ids, evidence, limit=self._chunks)
        return tuple(texts[h.memory_id] for h in found if h.memory_id in texts)[: self._chunks]

    async def has_documents(self, persona: str, seen: DocumentVersion | None = None) -> bool:
        """Whether the persona has documents to search (cached like ``documents``: mostly no IO;
        none when the turn read their version, ``seen``)."""
        if self._documents is None:
            return False
        texts, scored = await self._document_cache(persona, self._embedder.dim, seen)
        return bool(texts) and scored is not None and bool(scored.ids)

    def forget_documents(self, persona: str) -> None:
        """Drop this process's cached documents of a persona (it just uploaded one)."""
        self._docs.pop(persona, None)

    async def _document_cache(
        self, persona: str, dim: int, seen: DocumentVersion | None = None
    ) -> tuple[dict[str, str], ScoredSet | None]:
        assert self._documents is not None
        cached = self._docs.get(persona)
        if seen is None and cached is not None and time.monotonic() - cached[1] < DOCUMENT_CHECK_SECS:
            return cached[2], cached[3]
        version, model = seen if seen is not None else await self._documents.version(persona)
        if cached is not None and cached[0] == version:
            self._docs[persona] = (version, time.monotonic(), cached[2], cached[3])
            return cached[2], cached[3]
        # one load per persona and version: a turn asks twice at once (its check and its search)
        loading = self._loading.get((persona, version))
        if loading is None:
            loading = self._loading[persona, version] = asyncio.ensure_future(
                self._load_documents(persona, dim, version, model)
            )
            loading.add_done_callback(lambda _: self._loading.pop((persona, version), None))
        return await asyncio.shield(loading)

    async def _load_documents(
        self, persona: str, dim: int, version: int, model: str | None
    ) -> tuple[dict[str, str], ScoredSet | None]:
        assert self._documents is not None
        texts: dict[str, str] = {}
        scored: ScoredSet | None = None
        if version and model == self.model:
            ids, loaded = await self._documents.vectors(persona)
            if ids:
                found = await self._documents.chunk_map(persona, ids)
                texts = {i: f"{c.heading}: {c.text}" if c.heading else c.text for i, c in found.items()}
                rows = [n for n, i in enumerate(ids) if i in texts]
                kept = [ids[n] for n in rows]
                matrix = np.asarray(loaded, dtype=np.float32)[rows].reshape(-1, dim)
                background = await self._background_vectors()
                scored = await asyncio.to_thread(
                    build_set, version, kept, matrix, [texts[i] for i in kept], background
                )
        self._docs[persona] = (version, time.monotonic(), texts, scored)
        return texts, scored
