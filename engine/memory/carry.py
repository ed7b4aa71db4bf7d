"""What a reply carries: pinned and active memories, and the recalled tail (MEM-3, MEM-5, DEC-15).

The *stable part* (pinned, then active memories) sits early in the prompt, before the last
cache breakpoint; it is built from the memories as they stood **before** the reply's search, so
it changes only on the reply after a memory switches between active and dormant. Memories the
search brings back go to the *tail* of that same reply, after the breakpoint.

Active memories are shared out fairly: scopes take turns (round-robin, in the order of the
scopes in play), each giving its newest remaining memory, until ``carry_limit`` is reached; a
scope with fewer memories leaves its share to the others. When the last round cannot take a
memory from every scope, the newest of that round win.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

import msgspec

from engine.memory.decay import DecayPlan, is_dormant
from engine.memory.model import MemoryPolicy, MemoryRecord, ScopeList, scope_list_of, utc_day
from engine.memory.scopes import records_in_play

__all__ = [
    "CarriedMemories",
    "CarriedMemory",
    "RecalledMemory",
    "ReplyMemories",
    "memories_for_reply",
    "select_carried",
]


class CarriedMemory(msgspec.Struct, frozen=True, kw_only=True):
    """A memory a turn carries; ``recent`` if updated within ``recent_days`` of now (MEM-3).

    Pinned memories are never marked recent: the mark would change their text in the stable
    part of the prompt for no gain, since they are always there anyway.
    """

    record: MemoryRecord
    recent: bool = False


class CarriedMemories(msgspec.Struct, frozen=True, kw_only=True):
    """Pinned memories (scope order, then oldest first) and active ones (newest first)."""

    pinned: tuple[CarriedMemory, ...] = ()
    active: tuple[CarriedMemory, ...] = ()

    @property
    def ids(self) -> frozenset[str]:
        """Ids of every memory carried."""
        return frozenset(c.record.id for c in (*self.pinned, *self.active))


class RecalledMemory(msgspec.Struct, frozen=True, kw_only=True):
    """A memory brought into the tail of a reply by its search, with the match's similarity."""

    record: MemoryRecord
    similarity: float


class ReplyMemories(msgspec.Struct, frozen=True, kw_only=True):
    """The memories of one reply: the stable part and the recalled tail (DEC-15)."""

    stable: CarriedMemories
    recalled: tuple[RecalledMemory, ...] = ()


def _newest_first(record: MemoryRecord) -> tuple[float, str]:
    return (-record.updated_at.timestamp(), record.id)


def select_carried(
    records: Iterable[MemoryRecord],
    scopes: Sequence[ScopeList],
    now: datetime,
    policy: MemoryPolicy,
) -> CarriedMemories:
    """Select what a turn carries (MEM-3, MEM-5).

    Args:
        records: stored memories; those outside ``scopes`` or hidden are not carried.
        scopes: the scopes in play, in round-robin order (see ``scopes_in_play``).
        now: time of the message answered (tz-aware).
        policy: the persona's memory policy.

    Returns:
        Every pinned memory in play, whole, and up to ``carry_limit`` active unpinned ones,
        spread evenly across the scopes. Dormant memories are not carried (only recalled).

    Raises:
        InvalidInput: ``naive_datetime`` when ``now`` has no time zone.
    """
    utc_day(now)  # refuse a naive ``now`` before comparing it with stored times
    order = {key: i for i, key in enumerate(scopes)}
    pool = records_in_play(records, scopes)
    pinned = sorted(
        (r for r in pool if r.pinned),
        key=lambda r: (order[scope_list_of(r)], r.created_at.timestamp(), r.id),
    )
    per_scope: list[list[MemoryRecord]] = [[] for _ in scopes]
    for r in pool:
        if not r.pinned and not is_dormant(r, policy):
            per_scope[order[scope_list_of(r)]].append(r)
    chosen = _fair_share([sorted(rs, key=_newest_first) for rs in per_scope], policy.carry_limit)
    cutoff = now - timedelta(days=policy.recent_days)
    return CarriedMemories(
        pinned=tuple(CarriedMemory(record=r) for r in pinned),
        active=tuple(
            CarriedMemory(record=r, recent=r.updated_at > cutoff) for r in sorted(chosen, key=_newest_first)
        ),
    )


def _fair_share(queues: list[list[MemoryRecord]], limit: int) -> list[MemoryRecord]:
    chosen: list[MemoryRecord] = []
    depth = 0
    while len(chosen) < limit:
        heads = [q[depth] for q in queues if len(q) > depth]
        if not heads:
            break
        room = limit - len(chosen)
        chosen.extend(heads if len(heads) <= room else sorted(heads, key=_newest_first)[:room])
        depth += 1
    return chosen


def memories_for_reply(
    records_before: Iterable[MemoryRecord],
    scopes: Sequence[ScopeList],
    plan: DecayPlan,
    now: datetime,
    policy: MemoryPolicy,
) -> ReplyMemories:
    """The memories of reply N: stable part from the states before its search, recalled tail.

    Args:
        records_before: stored memories as they stood before reply N's search.
        scopes: the scopes in play for the reply.
        plan: the plan of reply N's search (see ``plan_decay``).
        now: time of the message answered (tz-aware).
        policy: the persona's memory policy.

    Returns:
        ``stable`` exactly as :func:`select_carried` builds it from ``records_before`` — so the
        search's effects show from reply N+1 on (DEC-15) — and ``recalled``: every memory this
        search used that the stable part does not already carry, best match first. That is each
        dormant match (DEC-7) and also an active match that did not fit ``carry_limit``, so a
        matched memory is never missing from its reply.
    """
    before = tuple(records_before)
    stable = select_carried(before, scopes, now, policy)
    carried = stable.ids
    by_id = {r.id: r for r in before}
    recalled = tuple(
        RecalledMemory(record=by_id[hit.memory_id], similarity=hit.similarity)
        for hit in plan.matches
        if hit.memory_id in by_id and hit.memory_id not in carried
    )
    return ReplyMemories(stable=stable, recalled=recalled)
