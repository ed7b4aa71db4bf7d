"""Fused dense and lexical evidence for document chunks and archive pages (RECALL-1, DOC-1).

Theory of operation. The recall adapter measures, for one message and each candidate passage
(a persona's document chunk, a chat's archive page), four numbers:

- ``dense``: the background-relative embedding score (``snorm``, in standard deviations);
- ``query_cover``: the share of the message's term weight (IDF) that the candidate contains —
  words the candidate's set has never seen count against it at the highest weight;
- ``memory_cover``: the share of the candidate's own term weight that the message contains;
- ``distinct_cover``: the same, each shared term divided by how many candidates hold it.

:func:`fuse` adds them with the non-negative weights of a :class:`FusionRule`, so a fused
score never decreases when one of its components grows; :func:`decide` keeps the candidates
whose fused score reaches the rule's ``threshold``, best first (ties by id), whatever their
order. Memories are decided by the learned model of ``engine.memory.decision`` instead.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from engine.errors import InvalidInput
from engine.memory.decay import SearchHit

__all__ = ["Evidence", "FusionRule", "decide", "fuse"]


class FusionRule(msgspec.Struct, frozen=True, kw_only=True):
    """How one embedder's passage evidence is fused and where a match starts (RECALL-1).

    Attributes:
        dense_weight: weight of the dense score (>= 0).
        query_weight: weight of ``query_cover`` (>= 0).
        memory_weight: weight of ``memory_cover`` (>= 0).
        distinct_weight: weight of ``distinct_cover`` (>= 0).
        threshold: a candidate's fused score must reach this.
    """

    dense_weight: float = 1.0
    query_weight: float = 0.0
    memory_weight: float = 0.0
    distinct_weight: float = 0.0
    threshold: float = 0.0

    def __post_init__(self) -> None:
        if min(self.dense_weight, self.query_weight, self.memory_weight, self.distinct_weight) < 0:
            raise InvalidInput("fusion weights must not be negative", code="invalid_fusion_rule")


class Evidence(msgspec.Struct, frozen=True, kw_only=True):
    """What the recall adapter measured for one candidate."""

    id: str
    dense: float
    query_cover: float = 0.0
    memory_cover: float = 0.0
    distinct_cover: float = 0.0


def fuse(evidence: Evidence, rule: FusionRule) -> float:
    """The fused score of one candidate: a weighted sum, monotone in every component."""
    return (
        rule.dense_weight * evidence.dense
        + rule.query_weight * evidence.query_cover
        + rule.memory_weight * evidence.memory_cover
        + rule.distinct_weight * evidence.distinct_cover
    )


def decide(candidates: Sequence[Evidence], rule: FusionRule) -> tuple[SearchHit, ...]:
    """The candidates whose fused score reaches ``threshold``, best first (ties by id).

    ``similarity`` of a hit is its fused score rounded to 3 decimals. The result is the same
    for any order of ``candidates``; an id given twice keeps its best score.
    """
    best: dict[str, float] = {}
    for item in candidates:
        score = fuse(item, rule)
        if item.id not in best or score > best[item.id]:
            best[item.id] = score
    ranked = sorted(((rid, s) for rid, s in best.items() if s >= rule.threshold), key=lambda p: (-p[1], p[0]))
    return tuple(SearchHit(memory_id=rid, similarity=round(score, 3)) for rid, score in ranked)
