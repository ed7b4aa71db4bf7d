"""Lint and confidence on semantic entries (EPI-8, EPI-9).

Lint reports pairs of entries on the same topic that are not duplicates, saying which is newer;
it is advisory and edits nothing. Topic similarity comes from elsewhere (embeddings), either as
a function of two entries or as a precomputed matrix in the order of the entries.

Confidence (published)::

    support    = 1 - 0.5^sessions                      (0 sessions -> 0)
    recency    = 0.5 + 0.5 * 0.5^(days_since_latest / 90)
    confidence = min(0.95, support * recency / (1 + contradictions))

so it rises with each distinct supporting session, falls as the latest support ages (to half,
never lower) and falls with every contradicting entry; it never reaches certainty. It changes
ranking only when ``belief_authority_weight`` > 0 (:func:`rank_beliefs`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime

import msgspec

from engine.archive.model import Page, require_aware
from engine.archive.retention import days_between
from engine.errors import InvalidInput

__all__ = [
    "CONFIDENCE_CAP",
    "BeliefHit",
    "LintPair",
    "LintPolicy",
    "SemanticEntry",
    "Similarity",
    "confidence",
    "entry_of",
    "explain",
    "lint",
    "rank_beliefs",
]

CONFIDENCE_CAP = 0.95
_RECENCY_HALF_LIFE_DAYS = 90.0
_RECENCY_FLOOR = 0.5

Similarity = Callable[["SemanticEntry", "SemanticEntry"], float] | Sequence[Sequence[float]]
"""Topic similarity: a function of two entries, or a matrix in the order of the entries."""


class SemanticEntry(msgspec.Struct, frozen=True, kw_only=True):
    """A fact, decision or concept (a saved memory or a semantic page)."""

    id: str
    text: str
    created_at: datetime
    updated_at: datetime


def entry_of(page: Page) -> SemanticEntry:
    """The semantic view of a page: its summary (or abstract, or body) as the entry text."""
    updated = page.version_at or page.created_at
    text = page.summary or page.abstract or page.body
    return SemanticEntry(id=page.id, text=text, created_at=page.created_at, updated_at=updated)


class LintPolicy(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Similarity bounds: ``same_topic <= similarity < duplicate`` makes a lint pair."""

    same_topic: float = 0.75
    duplicate: float = 0.95


class LintPair(msgspec.Struct, frozen=True, kw_only=True):
    """Two entries on the same topic that say different things; ``newer_id`` was updated last."""

    older_id: str
    newer_id: str
    similarity: float


def _pair_similarity(similarity: Similarity, entries: Sequence[SemanticEntry]) -> Callable[[int, int], float]:
    if callable(similarity):
        return lambda i, j: similarity(entries[i], entries[j])
    n = len(entries)
    if len(similarity) != n or any(len(row) != n for row in similarity):
        raise InvalidInput(f"The similarity matrix must be {n}x{n}.", code="similarity_shape")
    return lambda i, j: similarity[i][j]


def _same_text(a: SemanticEntry, b: SemanticEntry) -> bool:
    return " ".join(a.text.casefold().split()) == " ".join(b.text.casefold().split())


def lint(
    entries: Sequence[SemanticEntry], similarity: Similarity, policy: LintPolicy | None = None
) -> tuple[LintPair, ...]:
    """Pairs of entries on the same topic that are not duplicates, newer named (EPI-8).

    Args:
        entries: the semantic entries to check.
        similarity: topic similarity (function, or matrix in the order of ``entries``).
        policy: the same-topic and duplicate bounds.

    Returns:
        The pairs, most similar first. Nothing is edited.

    Raises:
        InvalidInput: ``similarity_shape`` when a matrix does not fit ``entries``.
    """
    bounds = policy or LintPolicy()
    sim = _pair_similarity(similarity, entries)
    pairs: list[LintPair] = []
    for i, a in enumerate(entries):
        for j in range(i + 1, len(entries)):
            b = entries[j]
            value = sim(i, j)
            if not bounds.same_topic <= value < bounds.duplicate or _same_text(a, b):
                continue
            older, newer = (a, b) if (a.updated_at, a.id) <= (b.updated_at, b.id) else (b, a)
            pairs.append(LintPair(older_id=older.id, newer_id=newer.id, similarity=value))
    return tuple(sorted(pairs, key=lambda p: (-p.similarity, p.older_id, p.newer_id)))


def confidence(
    entry: SemanticEntry,
    supporting_sessions: int,
    latest_support_at: datetime | None,
    contradictions: int,
    now: datetime,
) -> float:
    """The confidence of ``entry`` in ``[0, 0.95]`` (formula in the module docstring, EPI-9).

    Args:
        entry: the entry; its ``updated_at`` stands in when ``latest_support_at`` is ``None``.
        supporting_sessions: distinct sessions supporting it.
        latest_support_at: when the latest supporting session happened.
        contradictions: entries contradicting it.
        now: the current time (tz-aware).

    Raises:
        InvalidInput: ``negative_count`` for a negative count; ``naive_datetime`` for naive times.
    """
    if supporting_sessions < 0 or contradictions < 0:
        raise InvalidInput("Support and contradiction counts cannot be negative.", code="negative_count")
    require_aware(now, "now")
    if supporting_sessions == 0:
        return 0.0
    latest = require_aware(latest_support_at or entry.updated_at, "support time")
    support = 1.0 - 0.5**supporting_sessions
    age = days_between(latest, now)
    recency = _RECENCY_FLOOR + (1.0 - _RECENCY_FLOOR) * math.exp(-math.log(2) * age / _RECENCY_HALF_LIFE_DAYS)
    return min(CONFIDENCE_CAP, support * recency / (1 + contradictions))


def explain(
    entry: SemanticEntry,
    supporting_sessions: int,
    latest_support_at: datetime | None,
    contradictions: int,
    now: datetime,
) -> str:
    """A short human explanation of ``entry`` showing its confidence and what it rests on."""
    value = confidence(entry, supporting_sessions, latest_support_at, contradictions, now)
    latest = latest_support_at or entry.updated_at
    sessions = f"{supporting_sessions} supporting session{'s' if supporting_sessions != 1 else ''}"
    when = f"latest {latest.date().isoformat()} ({days_between(latest, now):.0f} days ago)"
    against = f"{contradictions} contradiction{'s' if contradictions != 1 else ''}"
    return f"{entry.id}: {entry.text}\nconfidence {value:.2f} — {sessions}, {when}, {against}"


class BeliefHit(msgspec.Struct, frozen=True, kw_only=True):
    """A search hit on an entry: relevance to the query and the entry's confidence."""

    entry_id: str
    relevance: float
    confidence: float = 0.0


def rank_beliefs(hits: Iterable[BeliefHit], belief_authority_weight: float = 0.0) -> tuple[BeliefHit, ...]:
    """Hits best first by ``relevance + weight * confidence``; by relevance alone at weight 0 (EPI-9).

    Ties keep their input order.

    Raises:
        InvalidInput: ``negative_weight`` when the weight is negative.
    """
    if belief_authority_weight < 0:
        raise InvalidInput("belief_authority_weight cannot be negative.", code="negative_weight")
    if belief_authority_weight == 0:
        return tuple(sorted(hits, key=lambda h: -h.relevance))
    return tuple(sorted(hits, key=lambda h: -(h.relevance + belief_authority_weight * h.confidence)))
