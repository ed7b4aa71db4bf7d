"""The learned recall decision (RECALL-1, DEC-4, DEC-7): one calibrated logistic model.

Theory of operation. The recall adapter measures, for one message and each memory in play, a
few numbers (:class:`Measured`): the dense score, the lexical covers, the BM25 score, whether the
memory is about other people than the message names (RECALL-2), the message's content for the
memory's list and its chit-chat score (RECALL-3). :func:`signals` turns them into the model's
signals — the measurements themselves plus leads and ranks against the other candidates — each
oriented so that more is better. :func:`decide` computes every candidate's probability
``p = 1 / (1 + exp(-(bias + sum(weight * (signal - mean) / scale))))`` with the parameters of a
:class:`DecisionParams` (data: trained by ``bench/train_decision.py``, every weight >= 0), and
uses the candidates with ``p >= threshold``, best first, at most ``max_used`` (DEC-4), never one
the person evidence marks as about other people than the message names (RECALL-2), nor one of a
list whose people are all the message names, saying nothing else (RECALL-3).

Because every weight is non-negative and every signal grows with the candidate's own
measurements, a candidate's probability never drops when one of its measurements grows. Ranks
and leads are computed over the set of candidates with ties broken by id, so the decision
never depends on the order the candidates come in. :class:`RecallReason` explains a candidate: its
probability and its two strongest signal contributions (``weight * (signal - mean) / scale``).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence

import msgspec

from engine.errors import InvalidInput
from engine.memory.decay import RecallReason, SearchHit

__all__ = [
    "SIGNALS",
    "Decision",
    "DecisionParams",
    "Feature",
    "FusedWeights",
    "Measured",
    "decide",
    "probabilities",
    "signals",
]

SIGNALS: tuple[str, ...] = (
    "dense",
    "dense_lead",
    "query_cover",
    "own_cover",
    "distinct",
    "plain_distinct",
    "bm25",
    "bm25_lead",
    "margin",
    "fused_top",
    "dense_top",
    "bm25_top",
    "here",
    "content",
    "calm",
)
"""The model's signals, in the order of a parameters file's ``features``."""


class Feature(msgspec.Struct, frozen=True, kw_only=True):
    """One signal's standardisation and weight (``meaning`` documents it; not used here)."""

    name: str
    mean: float
    scale: float
    weight: float
    meaning: str = ""


class FusedWeights(msgspec.Struct, frozen=True, kw_only=True):
    """The weighted sum behind the ``margin`` and ``fused_top`` signals."""

    dense: float = 1.0
    query: float = 3.0
    own: float = 1.0
    distinct: float = 2.0


class DecisionParams(msgspec.Struct, frozen=True, kw_only=True):
    """A trained decision: the parameters file of ``bench/train_decision.py`` (schema 1).

    Raises ``InvalidInput`` (``invalid_decision``) when a weight is negative, a scale is not
    positive or the features are not :data:`SIGNALS` in order.
    """

    embedder: str
    features: tuple[Feature, ...]
    bias: float
    threshold: float
    chit_chat: float | None = None
    """The chit-chat line (RECALL-3): from this chit-chat score on, a message uses a memory that
    shares no word other than a person's name with it (``Measured.plain_distinct`` 0) only at
    ``chit_chat_threshold``. None: no line."""
    chit_chat_threshold: float = 1.0
    """The probability such a memory needs (above 1: never used)."""
    max_used: int = 3
    fused: FusedWeights = FusedWeights()
    schema: int = 1
    model: str = "logistic"

    def __post_init__(self) -> None:
        if tuple(f.name for f in self.features) != SIGNALS:
            raise InvalidInput(
                "decision features must be the model's signals in order", code="invalid_decision"
            )
        if any(f.weight < 0 or not f.scale > 0 for f in self.features):
            raise InvalidInput("decision weights must be >= 0 and scales > 0", code="invalid_decision")
        if min(self.fused.dense, self.fused.query, self.fused.own, self.fused.distinct) < 0:
            raise InvalidInput("fused weights must not be negative", code="invalid_decision")
        if self.max_used < 1 or not 0.0 <= self.threshold <= 1.0:
            raise InvalidInput("threshold in [0, 1] and max_used >= 1", code="invalid_decision")
        if self.chit_chat is not None and not -1.0 <= self.chit_chat <= 1.0:
            raise InvalidInput("the chit-chat line is a cosine in [-1, 1]", code="invalid_decision")
        if not 0.0 <= self.chit_chat_threshold <= 2.0:
            raise InvalidInput("the chit-chat threshold is in [0, 2]", code="invalid_decision")


class Measured(msgspec.Struct, frozen=True, kw_only=True):
    """What the recall adapter measured for one candidate memory."""

    id: str
    dense: float
    query_cover: float = 0.0
    own_cover: float = 0.0
    distinct: float = 0.0
    plain_distinct: float | None = None
    """The distinct cover without the list's people words; None: ``distinct`` stands in."""
    bm25: float = 0.0
    elsewhere: bool = False
    """About other people than the ones the message names (RECALL-2)."""
    content: float = 1.0
    """The message's content for this memory's list (``Bm25.content``)."""
    names_only: bool = False
    """The message only names the people of this memory's list (RECALL-3: it says nothing
    about them, so it recalls none of their memories)."""

    def key(self) -> tuple[float, ...]:
        """Orders two measurements of one id (the larger is kept), whatever their order."""
        plain = -1.0 if self.plain_distinct is None else self.plain_distinct
        return (
            float(not self.elsewhere),
            self.dense,
            self.query_cover,
            self.own_cover,
            self.distinct,
            plain,
            self.bm25,
            self.content,
            float(not self.names_only),
        )


class Decision(msgspec.Struct, frozen=True, kw_only=True):
    """The used candidates (best first) and the reasons of the used and near-miss ones."""

    hits: tuple[SearchHit, ...] = ()
    scores: tuple[SearchHit, ...] = ()
    """Every candidate's probability (rounded to 3 decimals), best first (ties by id)."""
    reasons: tuple[RecallReason, ...] = ()


def _ranks(values: Sequence[float]) -> list[int]:
    """0 for the largest value; ties by position (callers pass candidates sorted by id)."""
    order = sorted(range(len(values)), key=lambda i: (-values[i], i))
    ranks = [0] * len(values)
    for rank, i in enumerate(order):
        ranks[i] = rank
    return ranks


def _leads(values: Sequence[float]) -> list[float]:
    """Each value minus the best of the others (0 for a single value)."""
    if len(values) < 2:
        return [0.0] * len(values)
    best = max(values)
    second = sorted(values)[-2]
    return [v - (second if v == best else best) for v in values]


def signals(candidates: Sequence[Measured], fused: FusedWeights, *, phatic: float = 0.0) -> list[list[float]]:
    """The :data:`SIGNALS` row of each candidate, in the order given (ranks and leads are taken
    over all of them; ties by id). ``phatic``: the message's chit-chat score."""
    n = len(candidates)
    by_id = sorted(range(n), key=lambda i: candidates[i].id)
    position = {i: p for p, i in enumerate(by_id)}

    def ranked(values: list[float]) -> list[int]:
        in_id_order = _ranks([values[i] for i in by_id])
        return [in_id_order[position[i]] for i in range(n)]

    dense = [c.dense for c in candidates]
    bm25 = [math.log1p(max(c.bm25, 0.0)) for c in candidates]
    summed = [
        fused.dense * c.dense
        + fused.query * c.query_cover
        + fused.own * c.own_cover
        + fused.distinct * c.distinct
        for c in candidates
    ]
    gated = [-math.inf if c.elsewhere else s for c, s in zip(candidates, summed, strict=True)]
    dense_lead, bm25_lead, margin = _leads(dense), _leads(bm25), _leads(summed)
    fused_rank, dense_rank, bm25_rank = ranked(gated), ranked(dense), ranked([c.bm25 for c in candidates])
    calm = 1.0 - phatic
    return [
        [
            c.dense,
            dense_lead[i],
            c.query_cover,
            c.own_cover,
            c.distinct,
            c.distinct if c.plain_distinct is None else c.plain_distinct,
            bm25[i],
            bm25_lead[i],
            margin[i],
            1.0 / (1.0 + fused_rank[i]),
            1.0 / (1.0 + dense_rank[i]),
            1.0 / (1.0 + bm25_rank[i]),
            0.0 if c.elsewhere else 1.0,
            c.content,
            calm,
        ]
        for i, c in enumerate(candidates)
    ]


def _contributions(row: Sequence[float], params: DecisionParams) -> list[float]:
    return [f.weight * (v - f.mean) / f.scale for f, v in zip(params.features, row, strict=True)]


def _logits(rows: Sequence[Sequence[float]], params: DecisionParams) -> list[float]:
    """``bias + sum(weight * (signal - mean) / scale)`` per row, as ``offset + sum(a * signal)``
    (each term non-decreasing in its signal: ``a = weight / scale >= 0``)."""
    slopes = [f.weight / f.scale for f in params.features]
    offset = params.bias - math.fsum(f.weight * f.mean / f.scale for f in params.features)
    return [offset + sum(map(operator.mul, slopes, row)) for row in rows]


def _sigmoid(logit: float) -> float:
    if logit >= 0:
        return 1.0 / (1.0 + math.exp(-logit))
    e = math.exp(logit)
    return e / (1.0 + e)


def _unique(candidates: Sequence[Measured]) -> list[Measured]:
    """One measurement per id (the largest ``key``), sorted by id."""
    best: dict[str, Measured] = {}
    for c in candidates:
        if c.id not in best or c.key() > best[c.id].key():
            best[c.id] = c
    return [best[i] for i in sorted(best)]


def probabilities(
    candidates: Sequence[Measured], params: DecisionParams, *, phatic: float = 0.0
) -> dict[str, float]:
    """Each candidate's probability of being a right memory, by id (an id given twice counts
    once, with its largest measurement)."""
    unique = _unique(candidates)
    logits = _logits(signals(unique, params.fused, phatic=phatic), params)
    return {c.id: _sigmoid(z) for c, z in zip(unique, logits, strict=True)}


def _held(c: Measured, p: float, chatty: float | None) -> str:
    """The rule that keeps a candidate of probability ``p`` from being used, or ``""``.
    ``chatty``: the probability a memory sharing only names needs (None: not small talk)."""
    if c.elsewhere:
        return "person"  # RECALL-2
    if c.names_only:
        return "names_only"  # RECALL-3
    plain = c.distinct if c.plain_distinct is None else c.plain_distinct
    if chatty is not None and plain <= 0.0 and p < chatty:
        return "chit_chat"  # RECALL-3
    return ""


def decide(
    candidates: Sequence[Measured], params: DecisionParams, *, phatic: float = 0.0, near: int = 3
) -> Decision:
    """The used candidates: ``p >= threshold``, best first (ties by id), at most ``max_used``;
    never a candidate marked ``elsewhere`` (RECALL-2: a memory about other people than the
    message names is no match, whatever its probability) nor ``names_only`` (RECALL-3); for a
    message whose chit-chat score ``phatic`` reaches the parameters' line, one that shares no
    word other than a person's name with it only at ``chit_chat_threshold`` (RECALL-3). A
    reason names the rule that held a candidate back (``RecallReason.held``).

    ``hits[i].similarity`` is the probability rounded to 3 decimals. ``reasons`` explain the used
    candidates and the ``near`` best unused ones. The result is the same for any order of
    ``candidates``.
    """
    unique = _unique(candidates)
    if not unique:
        return Decision()
    rows = signals(unique, params.fused, phatic=phatic)
    small_talk = params.chit_chat is not None and phatic >= params.chit_chat
    chatty = params.chit_chat_threshold if small_talk else None
    scored = [
        (p, c.id, row, _held(c, p, chatty))
        for c, row, p in zip(unique, rows, map(_sigmoid, _logits(rows, params)), strict=True)
    ]
    scored.sort(key=lambda s: (-s[0], s[1]))
    used = [s for s in scored if s[0] >= params.threshold and not s[3]][: params.max_used]
    taken = {s[1] for s in used}
    rest = [s for s in scored if s[1] not in taken][:near]
    reasons = []
    for p, rid, row, held in [*used, *rest]:
        parts = _contributions(row, params)
        strongest = sorted(range(len(parts)), key=lambda j: (-abs(parts[j]), j))[:2]
        reasons.append(
            RecallReason(
                id=rid,
                used=rid in taken,
                probability=round(p, 4),
                signals=tuple((SIGNALS[j], round(parts[j], 3)) for j in strongest),
                held=held,
            )
        )
    return Decision(
        hits=tuple(SearchHit(memory_id=rid, similarity=round(p, 3)) for p, rid, _, _ in used),
        scores=tuple(SearchHit(memory_id=rid, similarity=round(p, 3)) for p, rid, _, _ in scored),
        reasons=tuple(reasons),
    )
