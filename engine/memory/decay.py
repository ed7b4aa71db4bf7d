"""Active and dormant memories: what one reply's search does to the counters (DEC-1..10).

Theory of operation. Every reply runs one search over the memories in play (scopes in play,
minus hidden ones). :func:`plan_decay` turns its result into a :class:`DecayPlan`; the service
applies the plan atomically (:func:`apply_decay` is the reference) and never edits counters
itself. Invariants:

- ``unused_days`` never goes below 0; it changes only on a successful search (DEC-8) and only
  for memories that search covered (DEC-9, DEC-10).
- A memory is dormant iff decay is enabled, it is unpinned and ``unused_days >= dormant_after``
  (DEC-6); with decay disabled everything is active and no counter moves (DEC-1, DEC-14).
- A memory gains at most one day per UTC day (DEC-5): ``last_counted_day`` records the last day
  already accounted for it. A day on which the memory was used (matched) is accounted by the
  match and is not an unused day. Applying the same day's search twice equals applying it once.
- Pinned memories never go dormant (MEM-5), so their counters do not advance; a match still
  resets them and sets ``last_matched_at``.
- A dormant match is recalled into the reply that matched it and becomes active again (DEC-7).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date, datetime

import msgspec

from engine.memory.model import MemoryPolicy, MemoryRecord, MemoryState, ScopeList, utc_day
from engine.memory.scopes import records_in_play

__all__ = [
    "SEARCH_FAILED",
    "CounterChange",
    "DecayPlan",
    "RecallReason",
    "SearchHit",
    "SearchResult",
    "apply_decay",
    "best_matches",
    "is_dormant",
    "memory_state",
    "plan_decay",
]


class SearchHit(msgspec.Struct, frozen=True, kw_only=True):
    """One memory the search found, with its similarity to the newest message."""

    memory_id: str
    similarity: float


class RecallReason(msgspec.Struct, frozen=True, kw_only=True):
    """Why the search used a memory or not (the request log's ``recall``): its probability of
    being a right memory and its two strongest signals (``engine.memory.decision``)."""

    id: str
    used: bool
    probability: float
    signals: tuple[tuple[str, float], ...]
    """``(signal, contribution to the logit)``, largest magnitude first."""
    held: str = ""
    """The rule that kept it unused whatever its probability: ``person`` (RECALL-2: about other
    people than the message names), ``names_only`` or ``chit_chat`` (RECALL-3); ``""``: none."""


class SearchResult(msgspec.Struct, frozen=True, kw_only=True):
    """The outcome of a reply's search; ``ok=False`` when it failed or was unavailable (DEC-8).
    ``hits`` are the memories the search used; ``scores`` every memory it scored, hit or not,
    with its probability (what the request log shows for a memory carried anyway);
    ``reasons``: the used and near-miss memories' reasons, best first."""

    ok: bool = True
    hits: tuple[SearchHit, ...] = ()
    scores: tuple[SearchHit, ...] = ()
    reasons: tuple[RecallReason, ...] = ()


SEARCH_FAILED = SearchResult(ok=False)
"""A search that did not happen or failed: it changes nothing (DEC-8)."""


class CounterChange(msgspec.Struct, frozen=True, kw_only=True):
    """New decay fields of one memory; everything else about the record stays as stored."""

    memory_id: str
    unused_days: int
    last_counted_day: date | None
    last_matched_at: datetime | None


class DecayPlan(msgspec.Struct, frozen=True, kw_only=True):
    """What one reply's search changes (the service applies it atomically).

    Attributes:
        day: the UTC day of the message answered.
        searched: ``False`` when the search failed; then nothing else is set (DEC-8).
        matches: the memories used by this reply (DEC-4), best first.
        changes: new counters of every memory whose decay fields change.
        recalled: dormant memories matched by this search (DEC-7): they go into this reply
            and are active again from the next one — these are the dormant→active switches.
        went_dormant: memories that reach ``dormant_after`` with this search (DEC-6): still
            carried by this reply (DEC-15), dormant from the next one.
    """

    day: date
    searched: bool = True
    matches: tuple[SearchHit, ...] = ()
    changes: tuple[CounterChange, ...] = ()
    recalled: tuple[str, ...] = ()
    went_dormant: tuple[str, ...] = ()

    @property
    def switched(self) -> bool:
        """Whether any memory switched between active and dormant (DEC-15)."""
        return bool(self.recalled or self.went_dormant)


def is_dormant(record: MemoryRecord, policy: MemoryPolicy) -> bool:
    """Whether ``record`` is dormant: decay on, unpinned, ``dormant_after`` unused days (DEC-6)."""
    return policy.decay_enabled and not record.pinned and record.unused_days >= policy.dormant_after


def memory_state(record: MemoryRecord, policy: MemoryPolicy) -> MemoryState:
    """``"dormant"`` or ``"active"`` (see :func:`is_dormant`)."""
    return "dormant" if is_dormant(record, policy) else "active"


def best_matches(
    pool: Iterable[MemoryRecord], search: SearchResult, policy: MemoryPolicy
) -> tuple[SearchHit, ...]:
    """The hits that count as used: up to ``used_matches`` best across all scopes (DEC-4).

    Hits for memories outside ``pool`` (not in play, hidden, unknown) are ignored, as are hits
    below ``policy.match_threshold``. Ties go to the smaller id, so the choice is deterministic.
    """
    if not search.ok:
        return ()
    known = {r.id for r in pool}
    best: dict[str, SearchHit] = {}
    for hit in search.hits:
        if hit.memory_id not in known:
            continue
        if policy.match_threshold is not None and hit.similarity < policy.match_threshold:
            continue
        if hit.memory_id not in best or hit.similarity > best[hit.memory_id].similarity:
            best[hit.memory_id] = hit
    ranked = sorted(best.values(), key=lambda h: (-h.similarity, h.memory_id))
    return tuple(ranked[: policy.used_matches])


def plan_decay(
    records: Iterable[MemoryRecord],
    scopes: Iterable[ScopeList],
    search: SearchResult,
    message_at: datetime,
    policy: MemoryPolicy,
) -> DecayPlan:
    """Plan the counter changes of one reply's search (DEC-2..10).

    Args:
        records: stored memories; those outside ``scopes`` or hidden are left alone.
        scopes: the scopes in play for the turn (see ``scopes_in_play``).
        search: the search over the memories in play; ``SEARCH_FAILED`` if it failed.
        message_at: time of the message answered (tz-aware); its UTC date is the chat day.
        policy: the persona's memory policy.

    Returns:
        The plan; an empty one (``searched=False``) when the search failed.

    Raises:
        InvalidInput: ``naive_datetime`` when ``message_at`` has no time zone.
    """
    day = utc_day(message_at)
    if not search.ok:
        return DecayPlan(day=day, searched=False)
    pool = records_in_play(records, scopes)
    matches = best_matches(pool, search, policy)
    if not policy.decay_enabled:
        return DecayPlan(day=day, matches=matches)
    used = {hit.memory_id for hit in matches}
    changes: list[CounterChange] = []
    recalled: list[str] = []
    went_dormant: list[str] = []
    for record in pool:
        change = _count(record, record.id in used, day, message_at)
        after = record if change is None else _applied(record, change)
        if change is None or after == record:
            continue
        changes.append(change)
        was, now = is_dormant(record, policy), is_dormant(after, policy)
        if was and not now:
            recalled.append(record.id)
        elif now and not was:
            went_dormant.append(record.id)
    return DecayPlan(
        day=day,
        matches=matches,
        changes=tuple(changes),
        recalled=tuple(recalled),
        went_dormant=tuple(went_dormant),
    )


def _matched_today(record: MemoryRecord, day: date) -> bool:
    """Whether ``record`` was already matched on ``day`` with nothing left to reset: its last
    match is kept to the day, so a second match the same day writes nothing."""
    return (
        record.unused_days == 0
        and record.last_counted_day is not None
        and record.last_counted_day >= day
        and record.last_matched_at is not None
        and utc_day(record.last_matched_at) >= day
    )


def _count(record: MemoryRecord, used: bool, day: date, at: datetime) -> CounterChange | None:
    if used and _matched_today(record, day):
        return None  # the day's match is noted already (DEC-5: once per day; nothing to write)
    if used:
        counted = max(day, record.last_counted_day) if record.last_counted_day else day
        return CounterChange(memory_id=record.id, unused_days=0, last_counted_day=counted, last_matched_at=at)
    already = record.last_counted_day is not None and record.last_counted_day >= day
    if record.pinned or already:
        return None
    return CounterChange(
        memory_id=record.id,
        unused_days=record.unused_days + 1,
        last_counted_day=day,
        last_matched_at=record.last_matched_at,
    )


def _applied(record: MemoryRecord, change: CounterChange) -> MemoryRecord:
    return msgspec.structs.replace(
        record,
        unused_days=change.unused_days,
        last_counted_day=change.last_counted_day,
        last_matched_at=change.last_matched_at,
    )


def apply_decay(records: Sequence[MemoryRecord], plan: DecayPlan) -> tuple[MemoryRecord, ...]:
    """The records with ``plan``'s counter changes applied (what the service stores).

    Records the plan does not name come back unchanged, in the same order.
    """
    by_id = {change.memory_id: change for change in plan.changes}
    return tuple(_applied(r, by_id[r.id]) if r.id in by_id else r for r in records)
