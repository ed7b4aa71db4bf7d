"""Builders shared by the memory tests: fixed ids, explicit times, one-call reply steps."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec

from engine.memory import (
    DecayPlan,
    MemoryPolicy,
    MemoryRecord,
    MemoryTurn,
    NewMemory,
    SavePlan,
    ScopeList,
    SearchHit,
    SearchResult,
    Source,
    apply_decay,
    plan_decay,
    plan_save,
    scopes_in_play,
    space_list,
)

__all__ = [
    "ALICE",
    "BOB",
    "POLICY",
    "S2",
    "SPACE",
    "P",
    "S",
    "at",
    "by_id",
    "hits",
    "mem",
    "reply",
    "save",
    "turn",
]

P = "hearth"
S = "web:room1"
S2 = "web:room2"
ALICE = "web:alice"
BOB = "web:bob"
SPACE = space_list(P, S)
POLICY = MemoryPolicy()
T0 = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)


def at(day: int, hour: int = 12, minute: int = 0) -> datetime:
    """A UTC moment on chat-calendar day ``day`` (day 0 is 2025-03-03)."""
    return T0.replace(hour=hour, minute=minute) + timedelta(days=day)


def mem(memory_id: str, key: ScopeList = SPACE, *, day: int = 0, **fields: Any) -> MemoryRecord:
    """A memory of list ``key`` created and updated on ``day``; ``fields`` override the rest."""
    created = at(day)
    base = MemoryRecord(
        id=memory_id,
        persona=key.persona or P,
        scope=key.scope,
        text=f"fact {memory_id}",
        space=key.space,
        owner=key.owner,
        is_global=key.is_global,
        created_at=created,
        updated_at=created,
    )
    return msgspec.structs.replace(base, **fields)


def hits(*pairs: tuple[str, float]) -> SearchResult:
    """A successful search that found the given ``(memory_id, similarity)`` pairs."""
    return SearchResult(hits=tuple(SearchHit(memory_id=i, similarity=s) for i, s in pairs))


def turn(*participants: str, space: str = S, **fields: Any) -> MemoryTurn:
    """A turn of persona ``P`` in ``space`` answering ``participants``."""
    return MemoryTurn(persona=P, space=space, participants=participants, **fields)


def reply(
    records: Sequence[MemoryRecord],
    when: datetime,
    search: SearchResult,
    *participants: str,
    policy: MemoryPolicy = POLICY,
) -> tuple[tuple[MemoryRecord, ...], DecayPlan]:
    """Run one reply's search in space ``S`` and apply it, as the service would.

    The turn answers ``participants``, or ``ALICE`` when none are named.
    """
    scopes = scopes_in_play(turn(*(participants or (ALICE,))))
    plan = plan_decay(records, scopes, search, when, policy)
    return apply_decay(records, plan), plan


def by_id(records: Sequence[MemoryRecord], memory_id: str) -> MemoryRecord:
    """The record with ``memory_id``."""
    return next(r for r in records if r.id == memory_id)


def save(
    records: Sequence[MemoryRecord],
    memory_id: str = "new",
    target: ScopeList = SPACE,
    *,
    text: str = "a new fact",
    source: Source = "model",
    when: datetime | None = None,
    policy: MemoryPolicy = POLICY,
    search_available: bool = True,
    **options: Any,
) -> SavePlan:
    """``plan_save`` by persona ``P`` with everyday defaults; ``options`` go to ``NewMemory``."""
    new = NewMemory(id=memory_id, persona=P, target=target, text=text, source=source, **options)
    return plan_save(records, new, now=when or at(0), policy=policy, search_available=search_available)
