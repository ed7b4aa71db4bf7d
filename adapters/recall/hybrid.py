"""Hybrid recall scoring (RECALL-1): dense ``snorm`` + lexical evidence for every candidate.

Theory of operation. A *scored set* is everything one search needs about a set of candidates
that does not depend on the message: ids, unit vectors, each vector's background statistics
(the candidate half of ``snorm``) and the BM25 index of the texts (``adapters.recall.lexical``).
Sets are built from what Redis holds and cached per key and version, like the vector indexes
(memory lists: a fingerprint of the list's searchable ids and texts; documents: the persona's
document version; archive pages: the chat's vector version and page texts).

``evidence`` scores *every* candidate exactly — one matrix-vector product for the cosines, the
cached statistics for ``snorm``, the BM25 postings for the covers; there is no nearest-
neighbour pre-filter. Memories: ``measured`` gathers each memory's measurements (with the BM25
score, the person evidence ``ScoredSet.elsewhere`` of RECALL-2 and ``plain_distinct``) for the
learned decision (``engine.memory.decision``). Passages: ``hits`` applies the fused-score
threshold (``engine.memory.fusion.decide``) to the candidates that can be among the ones read.
``phatic_score`` measures how much a message reads like chit-chat (RECALL-3: its best cosine to
``PHATIC_MESSAGES``, from the query vector the search has anyway; no extra embedding).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence

import msgspec
import numpy as np
import numpy.typing as npt

from adapters.embedding.background import BACKGROUND_PASSAGES
from adapters.recall.lexical import Bm25, Parsed
from adapters.recall.scorer import candidate_stats, snorm_from_stats
from engine.memory.decay import SearchHit
from engine.memory.decision import Measured
from engine.memory.fusion import Evidence, FusionRule, decide

__all__ = [
    "Evidences",
    "ScoredSet",
    "ScoredSets",
    "hits",
    "measured",
    "phatic_score",
]

Scores = npt.NDArray[np.float64]
Evidences = tuple[Scores, Scores, Scores, Scores, Scores]
"""Per candidate: dense, query cover, memory cover, distinct cover, the message's content for
the candidate's set (``Bm25.content``; 1 without a message text: dense evidence only)."""


def phatic_score(query: npt.ArrayLike, phatic: npt.ArrayLike) -> float:
    """A message's chit-chat score: the best cosine of its query vector to the embedded
    ``PHATIC_MESSAGES`` (unit vectors; 0 when there are none)."""
    rows = np.asarray(phatic, dtype=np.float32)
    if rows.size == 0:
        return 0.0
    return float(np.max(rows @ np.asarray(query, dtype=np.float32).reshape(-1)))


class ScoredSet(msgspec.Struct, frozen=True, kw_only=True, eq=False):
    """One cached set of candidates (see the module docstring)."""

    version: Hashable
    ids: tuple[str, ...]
    matrix: npt.NDArray[np.float32]
    mean: Scores
    std: Scores
    lexical: Bm25

    def dense(self, query: npt.ArrayLike, background: npt.ArrayLike) -> Scores:
        """The dense half of ``evidence`` (numpy alone: it may run in a thread, GIL released)."""
        if not self.ids:
            return np.zeros(0)
        return snorm_from_stats(query, self.matrix, background, (self.mean, self.std))

    def evidence(
        self, query: npt.ArrayLike, text: str, background: npt.ArrayLike, *, dense: Scores | None = None
    ) -> Evidences:
        """``(dense, query_cover, memory_cover, distinct_cover, content)`` of every candidate, in
        ``ids`` order; ``dense``: the dense half already computed (``ScoredSet.dense``)."""
        if not self.ids:
            empty = np.zeros(0)
            return empty, empty, empty, empty, empty
        if dense is None:
            dense = self.dense(query, background)
        if text.strip():
            query_cover, own_cover, distinct = self.lexical.cover(text)
            content = np.full(len(self.ids), self.lexical.content(text))
        else:
            query_cover = own_cover = distinct = np.zeros(len(self.ids))
            content = np.ones(len(self.ids))
        return dense, query_cover, own_cover, distinct, content

    def plain_distinct(self, text: str) -> Scores:
        """Per candidate, the distinct cover without the set's people words
        (``Bm25.plain_distinct``, RECALL-3); all 0 without a message text."""
        if not self.ids or not text.strip():
            return np.zeros(len(self.ids))
        return self.lexical.plain_distinct(text)

    def elsewhere(self, text: str) -> npt.NDArray[np.bool_]:
        """Per candidate, whether the message is about other people (``Bm25.elsewhere``,
        RECALL-2); all False without a message text."""
        if not self.ids or not text.strip():
            return np.zeros(len(self.ids), dtype=np.bool_)
        return self.lexical.elsewhere(text)


def build_set(
    version: Hashable,
    ids: Sequence[str],
    matrix: npt.ArrayLike,
    texts: Sequence[str],
    background: npt.ArrayLike,
    parsed: Sequence[Parsed] | None = None,
) -> ScoredSet:
    """A scored set over ``ids`` (row i of ``matrix`` and ``texts[i]`` belong to ``ids[i]``),
    its lexical index ready for a first query (callers build big sets in a thread);
    ``parsed``: the texts already parsed (``lexical.parse``), when stored."""
    rows = np.ascontiguousarray(np.asarray(matrix, dtype=np.float32))
    if len(ids) == 0:
        rows = np.zeros((0, np.asarray(background).shape[1]), dtype=np.float32)
    mean, std = candidate_stats(rows, background)
    lexical = Bm25(texts, BACKGROUND_PASSAGES, parsed)
    return ScoredSet(
        version=version,
        ids=tuple(ids),
        matrix=rows,
        mean=mean,
        std=std,
        lexical=lexical,
    )


class ScoredSets:
    """Scored sets per key, rebuilt when the version changes; LRU beyond ``max_entries``."""

    def __init__(self, *, max_entries: int = 512) -> None:
        self._entries: OrderedDict[Hashable, ScoredSet] = OrderedDict()
        self._lock = threading.Lock()
        self._max = max_entries

    def get(self, key: Hashable, version: Hashable, build: Callable[[], ScoredSet]) -> ScoredSet:
        """The set cached under ``key`` at ``version``, or ``build()`` (then cached)."""
        with self._lock:
            found = self._entries.get(key)
            if found is not None and found.version == version:
                self._entries.move_to_end(key)
                return found
        made = build()
        with self._lock:
            self._entries[key] = made
            self._entries.move_to_end(key)
            while len(self._entries) > self._max:
                self._entries.popitem(last=False)
        return made

    def drop(self, key: Hashable) -> None:
        """Forget one key."""
        with self._lock:
            self._entries.pop(key, None)


def _within_limit(rule: FusionRule, fused: Scores, limit: int) -> npt.NDArray[np.intp]:
    """The candidates that can be among the ``limit`` best matches: those whose fused score
    reaches the threshold and at least the ``limit``-th best of them (ties kept)."""
    passing = np.flatnonzero(fused >= rule.threshold)
    if len(passing) <= limit:
        return passing.astype(np.intp)
    cut = np.partition(fused[passing], len(passing) - limit)[len(passing) - limit]
    within: npt.NDArray[np.intp] = passing[fused[passing] >= cut]
    return within


def hits(
    rule: FusionRule, ids: Sequence[str], evidence: Evidences, *, limit: int | None = None
) -> tuple[SearchHit, ...]:
    """The passages (document chunks, archive pages) whose fused score reaches the rule's
    threshold, best first (``engine.memory.fusion.decide``).

    ``limit``: the caller reads only that many; the candidates that cannot be among them are
    dropped before ``decide``, so a search over 10,000 chunks decides over a handful (the
    result's first ``limit`` are the same).
    """
    dense, query_cover, own_cover, distinct, _ = evidence
    if len(ids) == 0:
        return ()
    fused = (
        rule.dense_weight * dense
        + rule.query_weight * query_cover
        + rule.memory_weight * own_cover
        + rule.distinct_weight * distinct
    )
    if limit is not None and not np.isnan(fused).any():
        keep = _within_limit(rule, fused, limit).tolist()
    else:
        keep = np.flatnonzero(fused >= rule.threshold).tolist()
    return decide(
        [
            Evidence(
                id=ids[i],
                dense=float(dense[i]),
                query_cover=float(query_cover[i]),
                memory_cover=float(own_cover[i]),
                distinct_cover=float(distinct[i]),
            )
            for i in sorted(keep)
        ],
        rule,
    )


def measured(
    ids: Sequence[str],
    evidence: Evidences,
    bm25: Scores,
    elsewhere: npt.NDArray[np.bool_],
    plain: Scores,
    names_only: bool = False,
) -> list[Measured]:
    """The memories' measurements for the learned decision (``engine.memory.decision``), from
    ``ScoredSet.evidence``, the BM25 scores, ``ScoredSet.elsewhere``, ``plain_distinct`` and
    ``Bm25.names_only`` of one set."""
    dense, query_cover, own_cover, distinct, content = evidence
    return [
        Measured(
            id=ids[i],
            dense=float(dense[i]),
            query_cover=float(query_cover[i]),
            own_cover=float(own_cover[i]),
            distinct=float(distinct[i]),
            plain_distinct=float(plain[i]),
            bm25=float(bm25[i]),
            elsewhere=bool(elsewhere[i]),
            content=float(content[i]),
            names_only=names_only,
        )
        for i in range(len(ids))
    ]
