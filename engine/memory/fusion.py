"""The "reasonable match" decision on fused dense and lexical evidence (RECALL-1, DEC-4, DEC-7).

Theory of operation. The recall adapter measures, for one message and each candidate (a
memory in play, a document chunk, an archive page), three numbers:

- ``dense``: the background-relative embedding score (``snorm``, in standard deviations);
- ``query_cover``: the share of the message's term weight (IDF) that the candidate contains —
  words the candidate's list has never seen (typically names of people it does not know)
  count against it at the highest weight;
- ``memory_cover``: the share of the candidate's own term weight that the message contains;
- ``distinct_cover``: the same, each shared term divided by how many candidates of the
  candidate's list hold it (a person's name, shared by all their memories, adds little);
- ``content``: the share of the message's term weight in words that fewer than two candidates
  of the candidate's list hold — 0 for a message that only names the list's people among
  function words ("ok thanks Kate").

:func:`fuse` adds them with the non-negative weights of a :class:`FusionRule`, so a fused
score never decreases when one of its components grows. :func:`decide` keeps a candidate
when its fused score reaches ``threshold``, with ``lead`` set when it leads every other
candidate by at least ``lead`` (a message that names someone pulls all of that person's
memories up together; a message about one of them lifts that one above the rest), and when
its ``distinct_cover`` reaches ``min_distinct`` (the *gate*: small talk that only names people
shares nothing distinctive). A candidate that shares no distinctive word still passes the gate
when, with ``solo_lead`` set, it leads every other (there must be one) by ``solo_lead`` and its
dense score reaches ``solo_dense`` ("what can't Nina eat?" lifts Nina's allergy far above her
other memories; "ok thanks Nina" lifts them together). With ``min_content`` set, a candidate
passes only when the message's ``content`` for its list reaches it (a message that says
nothing but the people's names recalls nothing). With ``person_gate`` set, a candidate the
adapter marks ``elsewhere`` (a memory about people the message does not name, while the
message names someone else: RECALL-2) takes no part at all — it can neither pass nor be the
rival another candidate must lead ("what is Lara's cat called?" does not recall Juno's cat).
With ``phatic_cut`` set, a message whose ``phatic`` score (how close it reads to everyday
chit-chat: greetings, laughter, thanks, plans to meet; RECALL-3) reaches it recalls only a
candidate whose ``distinct_cover`` also reaches ``phatic_distinct``: it must share something
distinctive with the memory, a clear dense lead alone is not enough ("good morning Omar!" does not
bring back Omar's birthday; "haha Mochi knocked over the vase again" still recalls Mochi). With
``phatic_plain`` that cover is the candidate's ``plain_distinct`` (the distinct cover without the
list's people words), so a name alone is not the distinctive word ("morning Chloe" does not
recall the short "Chloe is a Leo", whose distinct cover the name alone lifts to 0.15).
The decision depends on the *set* of candidates, never on their order; ties are broken by id.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import msgspec

from engine.errors import InvalidInput
from engine.memory.decay import SearchHit

__all__ = ["Evidence", "FusionRule", "chit_chat", "decide", "fuse"]


class FusionRule(msgspec.Struct, frozen=True, kw_only=True):
    """How one embedder's evidence is fused and where a reasonable match starts (RECALL-1).

    Attributes:
        dense_weight: weight of the dense score (>= 0).
        query_weight: weight of ``query_cover`` (>= 0).
        memory_weight: weight of ``memory_cover`` (>= 0).
        distinct_weight: weight of ``distinct_cover`` (>= 0).
        threshold: a candidate's fused score must reach this.
        lead: when set, the fused score must also exceed every other candidate's by this much.
        min_distinct: the smallest ``distinct_cover`` of a match (0 turns the gate off).
        solo_lead: when set, a candidate below ``min_distinct`` still passes the gate if its
            fused score exceeds every other candidate's by this much ...
        solo_dense: ... and its dense score reaches this.
        min_content: the smallest ``content`` of the message for a match's list (0: off).
        person_gate: candidates marked ``elsewhere`` take no part (RECALL-2).
        phatic_cut: when set, a message whose ``phatic`` score reaches it is chit-chat
            (RECALL-3): a candidate then also needs ``distinct_cover`` of at least ...
        phatic_distinct: ... this (above ``min_distinct``, the solo path is closed).
        phatic_plain: ... counted without the list's people words (``plain_distinct``).
        short_cut: when set (with ``phatic_cut``), a message of at most ``short_words`` words
            (its distinct index words: names, content words; function words and laughter are
            not words) is chit-chat from this lower score on: "hahaha Ben stop it"
            says too little to carry a fact, while a longer remark that reads as chatty may
            carry one, so it is chit-chat only from ``phatic_cut`` on.
        short_words: see ``short_cut``.
    """

    dense_weight: float = 1.0
    query_weight: float = 0.0
    memory_weight: float = 0.0
    distinct_weight: float = 0.0
    threshold: float = 0.0
    lead: float | None = None
    min_distinct: float = 0.0
    solo_lead: float | None = None
    solo_dense: float = 0.0
    min_content: float = 0.0
    person_gate: bool = False
    phatic_cut: float | None = None
    phatic_distinct: float = 0.0
    phatic_plain: bool = False
    short_cut: float | None = None
    short_words: int = 0

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
    content: float = 1.0
    elsewhere: bool = False
    """About other people than the ones the message names (RECALL-2, ``person_gate``)."""
    plain_distinct: float | None = None
    """The distinct cover without the list's people words (RECALL-3, ``phatic_plain``); None:
    not measured (``distinct_cover`` stands in)."""


def fuse(evidence: Evidence, rule: FusionRule) -> float:
    """The fused score of one candidate: a weighted sum, monotone in every component."""
    return (
        rule.dense_weight * evidence.dense
        + rule.query_weight * evidence.query_cover
        + rule.memory_weight * evidence.memory_cover
        + rule.distinct_weight * evidence.distinct_cover
    )


def chit_chat(rule: FusionRule, phatic: float, words: int | None = None) -> bool:
    """Whether a message of this ``phatic`` score and ``words`` distinct index words (None: not
    counted) is chit-chat under ``rule`` (RECALL-3)."""
    if rule.phatic_cut is None:
        return False
    if phatic >= rule.phatic_cut:
        return True
    short = rule.short_cut is not None and words is not None and words <= rule.short_words
    return short and phatic >= (rule.short_cut or 0.0)


def decide(
    candidates: Sequence[Evidence], rule: FusionRule, *, phatic: float = 0.0, words: int | None = None
) -> tuple[SearchHit, ...]:
    """The candidates that are reasonable matches, best first (ties by id), as search hits.

    ``phatic``: the message's chit-chat score (``phatic_cut``; 0 when not measured); ``words``:
    its number of distinct index words (``short_cut``; None when not counted).
    ``similarity`` of a hit is its fused score rounded to 3 decimals. The result is the same
    for any order of ``candidates``. An id given twice keeps its best evidence (with
    ``person_gate``, its best evidence not marked ``elsewhere``).
    """
    best: dict[str, tuple[float, float, float, float, float]] = {}
    for item in candidates:
        if rule.person_gate and item.elsewhere:
            continue
        chat_cover = item.distinct_cover
        if rule.phatic_plain and item.plain_distinct is not None:
            chat_cover = item.plain_distinct
        found = (fuse(item, rule), item.distinct_cover, item.dense, item.content, chat_cover)
        if item.id not in best or found > best[item.id]:  # ties on score: the larger cover, any order
            best[item.id] = found
    ranked = sorted(((rid, s[0]) for rid, s in best.items()), key=lambda pair: (-pair[1], pair[0]))
    chatting = chit_chat(rule, phatic, words)
    hits: list[SearchHit] = []
    for position, (rid, score) in enumerate(ranked):
        if score < rule.threshold:
            break
        margin = math.inf
        if len(ranked) > 1:
            margin = score - (ranked[1][1] if position == 0 else ranked[0][1])
        if rule.lead is not None and margin < rule.lead:
            continue
        _, distinct, dense, content, chat_cover = best[rid]
        if content < rule.min_content:
            continue
        if chatting and chat_cover < rule.phatic_distinct:
            continue
        if distinct < rule.min_distinct and (  # the solo path needs a rival to lead
            rule.solo_lead is None or len(ranked) < 2 or margin < rule.solo_lead or dense < rule.solo_dense
        ):
            continue
        hits.append(SearchHit(memory_id=rid, similarity=round(score, 3)))
    return tuple(hits)
