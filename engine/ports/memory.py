"""The memory ports: scope lists with optimistic concurrency, and the directory of where memories live.

``storage.redis_memory.RedisMemoryStore`` implements ``MemoryStore`` (its ``MemorySnapshot``,
``WriteResult`` and ``DecayResult`` are the ``Snapshot``, ``Applied`` and ``DecayApplied`` here);
``storage.redis_memory_directory.RedisMemoryDirectory`` implements ``Directory``. Fakes:
``tests.fakes.stores.memory``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from engine.memory import DecayPlan, MemoryRecord, MemoryWrite, SavePlan, ScopeList, WritePlan
from engine.memory.model import Buried, MemoryUse

__all__ = ["Applied", "DecayApplied", "Directory", "MemoryPlaces", "MemoryStore", "MemoryUses", "Snapshot"]


class Snapshot(Protocol):
    """Records of some lists (list order, then save order) and each list's record version."""

    @property
    def records(self) -> tuple[MemoryRecord, ...]:
        """The records."""
        ...

    @property
    def versions(self) -> dict[ScopeList, int]:
        """Record revision per list read (0: a list never written): a write's ``expected``."""
        ...


class Applied(Protocol):
    """The outcome of a write: whether every list accepted it."""

    @property
    def ok(self) -> bool:
        """False when a list changed since it was read (nothing was written there); re-plan."""
        ...


class DecayApplied(Protocol):
    """The outcome of a turn's counter changes."""

    @property
    def advanced(self) -> tuple[str, ...]:
        """Ids whose unused-day counter this application advanced."""
        ...

    @property
    def reset(self) -> tuple[str, ...]:
        """Ids it reset (matched)."""
        ...


class MemoryStore(Protocol):
    """Saved memories per scope list; every write is atomic per list."""

    async def snapshot(self, scopes: Sequence[ScopeList]) -> Snapshot:
        """Read the records and versions of ``scopes`` (duplicates read once) in one round trip."""
        ...

    async def apply_save(self, plan: SavePlan, expected: Mapping[ScopeList, int] | None = None) -> Applied:
        """Perform a ``SavePlan`` (the save and the forgetting it causes together, or nothing).

        Args:
            plan: from ``engine.memory.plan_save``.
            expected: revisions as read (``Snapshot.versions``); a list that moved on is refused.

        Raises:
            InvalidInput: ``save_plan_spans_lists`` when the plan writes to another list too.
        """
        ...

    async def apply_writes(
        self, writes: Iterable[MemoryWrite] | WritePlan, expected: Mapping[ScopeList, int] | None = None
    ) -> Applied:
        """Perform journal entries in order, all or nothing per list.

        A list whose revision is not ``expected`` (when given for it) is refused whole, as is a
        list where a saved id is taken, an updated or forgotten id is gone, or a memory to forget
        was matched (its counters reset) since it was planned.
        """
        ...

    async def apply_decay(self, plan: DecayPlan, records: Sequence[MemoryRecord]) -> DecayApplied:
        """Apply one reply's counter changes, at most one counted day per memory per UTC day (DEC-5).

        A match resets a counter; an unused day adds one only while the stored last counted day
        is before ``plan.day``. Memories deleted meanwhile are skipped; a failed search (``not
        plan.searched``) changes nothing (DEC-8). Record revisions do not move.
        """
        ...


class MemoryPlaces(Protocol):
    """Where memories live, privacy opt-outs and space settings (DEC-10, DEC-11)."""

    async def locate(self, memory: str) -> ScopeList | None:
        """The list a memory id was last placed in, or None."""
        ...

    async def record(self, placed: Sequence[tuple[str, ScopeList]], removed: Sequence[str]) -> None:
        """Note where memories were saved and which were deleted (a placed id wins over removed)."""
        ...

    async def filters(self, users: Sequence[str], space: str) -> tuple[tuple[str, ...], frozenset[str]]:
        """Which of ``users`` opted out of personal memory (in the order asked, each once), and the
        space's blocked memory ids."""
        ...

    async def lists_of(self, persona: str) -> list[ScopeList]:
        """Every list holding a memory of ``persona`` (each once)."""
        ...

    async def notice_level(self, space: str) -> str:
        """A space's memory-notice visibility: ``off``, ``brief`` (default) or ``full``."""
        ...


class MemoryUses(Protocol):
    """Each memory's last use by a turn (the panel's "why"), and forgotten memories kept a moment
    for Undo."""

    async def note_use(self, memories: Sequence[str], use: MemoryUse) -> None:
        """Note that one turn sent ``memories`` to the model (each memory keeps its last use)."""
        ...

    async def uses(self, memories: Sequence[str]) -> dict[str, MemoryUse]:
        """The last use of those of ``memories`` that a turn has used."""
        ...

    async def bury(self, buried: Buried, seconds: int) -> None:
        """Keep a forgotten memory for ``seconds``, so that it can be restored as it was."""
        ...

    async def unbury(self, memory: str) -> Buried | None:
        """Take back a forgotten memory kept by ``bury`` (at most once), or None after its time."""
        ...


class Directory(MemoryPlaces, MemoryUses, Protocol):
    """The memory directory: places, settings, last uses and Undo (one Redis adapter implements it)."""
