"""Memory writes as journal entries, and rolling a turn's writes back (MEM-7).

Every write plan is a tuple of :data:`MemoryWrite` entries (a tagged union). A turn keeps the
entries of the writes it made in its journal, so regenerating the turn can undo them with
:func:`plan_rollback`. Tags are prefixed ``memory_`` so the entries can join the turn journal's
union next to other kinds of entries.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import msgspec

from engine.memory.model import MemoryRecord

__all__ = [
    "Deleted",
    "Forgotten",
    "MemoryWrite",
    "Saved",
    "Updated",
    "WritePlan",
    "apply_writes",
    "plan_rollback",
    "written_id",
]


class Saved(msgspec.Struct, frozen=True, kw_only=True, tag="memory_saved"):
    """A new memory was stored."""

    after: MemoryRecord


class Updated(msgspec.Struct, frozen=True, kw_only=True, tag="memory_updated"):
    """A memory was replaced by a new version (same id)."""

    before: MemoryRecord
    after: MemoryRecord


class Deleted(msgspec.Struct, frozen=True, kw_only=True, tag="memory_deleted"):
    """A memory was deleted on purpose (model tool, person, clear-all)."""

    before: MemoryRecord


class Forgotten(msgspec.Struct, frozen=True, kw_only=True, tag="memory_forgotten"):
    """A dormant memory was forgotten to make room in a full list (DEC-11)."""

    before: MemoryRecord


MemoryWrite = Saved | Updated | Deleted | Forgotten


class WritePlan(msgspec.Struct, frozen=True, kw_only=True):
    """Writes to perform together, in order; empty when there is nothing to do."""

    writes: tuple[MemoryWrite, ...] = ()


def written_id(write: MemoryWrite) -> str:
    """The id of the memory a write touches."""
    match write:
        case Saved(after=record) | Updated(after=record):
            return record.id
        case Deleted(before=record) | Forgotten(before=record):
            return record.id


def apply_writes(records: Iterable[MemoryRecord], writes: Iterable[MemoryWrite]) -> tuple[MemoryRecord, ...]:
    """The records after performing ``writes`` in order: the semantics a store implements.

    A saved memory is appended, an updated one keeps its place, a deleted or forgotten one
    disappears (deleting an id that is already gone is not an error).
    """
    by_id = {r.id: r for r in records}
    for write in writes:
        result = _result(write)
        if result is None:
            by_id.pop(written_id(write), None)
        else:
            by_id[result.id] = result
    return tuple(by_id.values())


def plan_rollback(journal: Sequence[MemoryWrite], current: Iterable[MemoryRecord]) -> WritePlan:
    """Undo a turn's memory writes, newest first, without touching pinned entries (MEM-5, MEM-7).

    Args:
        journal: the writes the turn made, oldest first.
        current: the memories as stored now (only the ids the journal names matter).

    Returns:
        The writes that restore the state before the turn: a saved memory is deleted, an
        updated one gets its earlier content back (keeping its current decay counters), a
        deleted or forgotten one is stored again. A memory that is pinned now, or was pinned
        before the write, is left as it is; so is one a later change removed, or re-created.
    """
    state: dict[str, MemoryRecord | None] = {r.id: r for r in current}
    undo: list[MemoryWrite] = []
    for write in reversed(journal):
        step = _undo(write, state.get(written_id(write)))
        if step is None:
            continue
        undo.append(step)
        state[written_id(step)] = _result(step)
    return WritePlan(writes=tuple(undo))


def _result(write: MemoryWrite) -> MemoryRecord | None:
    match write:
        case Saved(after=record) | Updated(after=record):
            return record
        case Deleted() | Forgotten():
            return None


def _undo(write: MemoryWrite, now: MemoryRecord | None) -> MemoryWrite | None:
    match write:
        case Saved():
            return Deleted(before=now) if now is not None and not now.pinned else None
        case Updated(before=before):
            if now is None or now.pinned or before.pinned:
                return None
            restored = msgspec.structs.replace(
                before,
                unused_days=now.unused_days,
                last_counted_day=now.last_counted_day,
                last_matched_at=now.last_matched_at,
                hidden=now.hidden,
            )
            return Updated(before=now, after=restored)
        case Deleted(before=before) | Forgotten(before=before):
            return Saved(after=before) if now is None and not before.pinned else None
