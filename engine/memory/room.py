"""Making room in a full scope list (DEC-11..14, MEM-2, MEM-5).

Saving into a full list forgets one dormant memory: never-matched ones first, then the one
matched longest ago; ties go to the oldest created, then the smallest id. Never forgotten: a
pinned memory (MEM-5), a Global personal memory and a protected one (DEC-12). When nothing
qualifies, when the turn's search is unavailable, or when decay is off, the save is refused
(DEC-13, DEC-14) by raising ``Conflict(code="memory_full")`` — the web adapter maps it to 409.
A full pinned allowance is refused the same way: forgetting never makes room for a pinned entry.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.errors import Conflict
from engine.memory.decay import is_dormant
from engine.memory.model import MemoryPolicy, MemoryRecord, ScopeList, scope_list_of

__all__ = ["can_forget", "check_room", "forget_candidates", "plan_room"]


def can_forget(record: MemoryRecord, policy: MemoryPolicy) -> bool:
    """Whether ``record`` may be forgotten for room: dormant, unpinned, not Global, unprotected."""
    return (
        is_dormant(record, policy)
        and not record.pinned
        and not record.protected
        and not (record.scope == "personal" and record.is_global)
    )


def _forget_order(record: MemoryRecord) -> tuple[bool, float, float, str]:
    matched = record.last_matched_at
    return (
        matched is not None,
        matched.timestamp() if matched else 0.0,
        record.created_at.timestamp(),
        record.id,
    )


def forget_candidates(
    records: Iterable[MemoryRecord], target: ScopeList, policy: MemoryPolicy
) -> tuple[MemoryRecord, ...]:
    """The memories of ``target`` that may be forgotten, first to forget first (DEC-11, DEC-12)."""
    mine = (r for r in records if scope_list_of(r) == target and can_forget(r, policy))
    return tuple(sorted(mine, key=_forget_order))


def plan_room(
    records: Iterable[MemoryRecord],
    target: ScopeList,
    policy: MemoryPolicy,
    *,
    pinned: bool,
    search_available: bool = True,
) -> MemoryRecord | None:
    """Decide how a new entry fits into ``target``.

    Args:
        records: stored memories (those of other lists are ignored).
        target: the list the new entry goes to.
        policy: the persona's memory policy.
        pinned: whether the new entry is pinned (pinned entries have their own allowance).
        search_available: whether this turn's search works; without it no dormant memory is
            forgotten (DEC-13).

    Returns:
        ``None`` when there is room, else the memory to forget for room (DEC-11).

    Raises:
        Conflict: ``memory_full`` when the list is full and nothing may be forgotten.
    """
    mine = [r for r in records if scope_list_of(r) == target]
    full = _full(mine, target, policy, pinned)
    if full is None:
        return None
    if pinned:
        raise Conflict(f"{full}; unpin or delete one first.", code="memory_full")
    if not policy.decay_enabled:
        raise Conflict(
            f"{full} and memory decay is off, so nothing is forgotten to make room; delete a memory first.",
            code="memory_full",
        )
    if not search_available:
        raise Conflict(
            f"{full} and memory search is unavailable right now, so no dormant memory can be "
            "forgotten to make room; try again later or delete a memory.",
            code="memory_full",
        )
    candidates = forget_candidates(mine, target, policy)
    if not candidates:
        raise Conflict(
            f"{full} and none of them can be forgotten: each is active, Global or protected. "
            "Delete one first.",
            code="memory_full",
        )
    return candidates[0]


def check_room(
    records: Iterable[MemoryRecord], target: ScopeList, policy: MemoryPolicy, *, pinned: bool
) -> None:
    """Refuse when ``target`` has no free place for one more pinned or unpinned entry.

    Used when an existing entry is pinned or unpinned: forgetting makes room only for new saves.

    Raises:
        Conflict: ``memory_full``.
    """
    full = _full([r for r in records if scope_list_of(r) == target], target, policy, pinned)
    if full is not None:
        raise Conflict(f"{full}; delete one first.", code="memory_full")


def _full(mine: list[MemoryRecord], target: ScopeList, policy: MemoryPolicy, pinned: bool) -> str | None:
    limit = policy.max_pinned if pinned else policy.max_unpinned
    used = sum(1 for r in mine if r.pinned == pinned)
    if used < limit:
        return None
    kind = "pinned" if pinned else "unpinned"
    return f"This {target.scope} memory list is full ({used} of {limit} {kind} entries)"
