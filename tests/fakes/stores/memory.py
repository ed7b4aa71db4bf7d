"""In-memory fakes of the memory ports: ``storage.redis_memory.RedisMemoryStore`` (scope lists,
optimistic concurrency, decay counters), ``RedisMemoryDirectory``, and a recall without embedder.

Results are the Redis store's own value types (``MemorySnapshot``, ``WriteResult``,
``DecayResult``), so code reading them sees the same shapes. Vectors are not kept: every list
reads as having none (``vector_version`` 0), like a deployment without an embedder.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime

import msgspec

from engine.errors import Conflict, InvalidInput
from engine.memory import (
    DecayPlan,
    Deleted,
    Forgotten,
    MemoryRecord,
    MemoryWrite,
    Saved,
    SavePlan,
    ScopeList,
    SearchResult,
    Updated,
    WritePlan,
    scope_list_of,
)
from engine.memory.decay import CounterChange
from engine.memory.model import Buried, MemoryUse
from engine.ports import DocumentVersion, Query, Vector, Vectors
from storage.redis_memory import DecayResult, ListConflict, ListState, MemorySnapshot, WriteResult
from tests.fakes.stores.data import InMemoryData

__all__ = ["InMemoryMemoryDirectory", "InMemoryMemoryStore", "InMemoryRecall"]


@dataclass
class _Counters:
    unused: int
    day: date | None
    matched: datetime | None


@dataclass
class _List:
    rev: int = 0
    seq: int = 0
    recs: dict[str, MemoryRecord] = field(default_factory=dict)
    order: dict[str, int] = field(default_factory=dict)
    ctr: dict[str, _Counters] = field(default_factory=dict)

    def records(self) -> list[MemoryRecord]:
        found = []
        for rid in sorted(self.order, key=lambda i: (self.order[i], i)):
            c = self.ctr[rid]
            found.append(
                msgspec.structs.replace(
                    self.recs[rid], unused_days=c.unused, last_counted_day=c.day, last_matched_at=c.matched
                )
            )
        return found


Op = tuple[str, MemoryRecord]  # S save, U update, D delete, F forget


def _ops_by_list(writes: Iterable[MemoryWrite]) -> dict[ScopeList, list[Op]]:
    ops: dict[ScopeList, list[Op]] = {}
    for write in writes:
        match write:
            case Updated(before=before, after=after) if scope_list_of(before) != scope_list_of(after):
                ops.setdefault(scope_list_of(after), []).append(("S", after))  # target first
                ops.setdefault(scope_list_of(before), []).append(("D", before))
            case Saved(after=record) | Updated(after=record):
                ops.setdefault(scope_list_of(record), []).append(
                    ("S" if isinstance(write, Saved) else "U", record)
                )
            case Deleted(before=record) | Forgotten(before=record):
                ops.setdefault(scope_list_of(record), []).append(
                    ("D" if isinstance(write, Deleted) else "F", record)
                )
    return ops


def _problem(lst: _List, ops: Sequence[Op]) -> tuple[str, str] | None:
    """What refuses the list's writes (code, memory id), checked before anything changes."""
    seen: dict[str, bool] = {}
    for kind, record in ops:
        rid = record.id
        has = seen.get(rid, rid in lst.recs)
        if kind == "S" and has:
            return "memory_exists", rid
        if kind in ("U", "F") and not has:
            return "memory_missing", rid
        if kind == "F" and rid in lst.ctr:
            stored = lst.ctr[rid]
            if stored.unused < record.unused_days or stored.matched != record.last_matched_at:
                return "memory_changed", rid
        if kind != "U":
            seen[rid] = kind == "S"
    return None


def _perform(lst: _List, ops: Sequence[Op]) -> None:
    for kind, record in ops:
        rid = record.id
        if kind in ("S", "U"):
            lst.recs[rid] = msgspec.structs.replace(record, hidden=False)  # hidden is per turn
        if kind == "S":
            lst.seq += 1
            lst.order[rid] = lst.seq
            lst.ctr[rid] = _Counters(record.unused_days, record.last_counted_day, record.last_matched_at)
        elif kind in ("D", "F"):
            lst.recs.pop(rid, None)
            lst.order.pop(rid, None)
            lst.ctr.pop(rid, None)
    lst.rev += 1


class InMemoryMemoryStore:
    """``MemoryStore`` in memory, atomic per list exactly as the Redis scripts are."""

    def __init__(self) -> None:
        self._lists: dict[ScopeList, _List] = {}

    def _list(self, scope: ScopeList) -> _List:
        return self._lists.setdefault(scope, _List())

    async def snapshot(self, scopes: Sequence[ScopeList]) -> MemorySnapshot:
        """See ``engine.ports.MemoryStore.snapshot``."""
        records: list[MemoryRecord] = []
        lists: dict[ScopeList, ListState] = {}
        for scope in dict.fromkeys(scopes):
            lst = self._lists.get(scope) or _List()
            records.extend(lst.records())
            lists[scope] = ListState(version=lst.rev, vector_version=0, model=None)
        return MemorySnapshot(records=tuple(records), lists=lists)

    async def load(self, scopes: Sequence[ScopeList]) -> list[MemoryRecord]:
        """The records of ``scopes`` (list order, then save order)."""
        return list((await self.snapshot(scopes)).records)

    async def apply_writes(
        self, writes: Iterable[MemoryWrite] | WritePlan, expected: Mapping[ScopeList, int] | None = None
    ) -> WriteResult:
        """See ``engine.ports.MemoryStore.apply_writes``."""
        entries = writes.writes if isinstance(writes, WritePlan) else tuple(writes)
        versions: dict[ScopeList, int] = {}
        conflicts: list[ListConflict] = []
        for scope, ops in _ops_by_list(entries).items():
            lst = self._list(scope)
            problem: tuple[str, str | None] | None = None
            if expected is not None and scope in expected and expected[scope] != lst.rev:
                problem = ("memory_changed", None)
            problem = problem or _problem(lst, ops)
            if problem is not None:
                conflicts.append(
                    ListConflict(scope=scope, code=problem[0], memory_id=problem[1], version=lst.rev)
                )
                continue
            _perform(lst, ops)
            versions[scope] = lst.rev
        return WriteResult(versions=versions, conflicts=tuple(conflicts))

    async def apply_save(
        self, plan: SavePlan, expected: Mapping[ScopeList, int] | None = None
    ) -> WriteResult:
        """See ``engine.ports.MemoryStore.apply_save``."""
        if set(_ops_by_list(plan.writes)) - {scope_list_of(plan.record)}:
            raise InvalidInput("A save plan must write to one memory list.", code="save_plan_spans_lists")
        return await self.apply_writes(plan.writes, expected)

    async def apply_decay(self, plan: DecayPlan, records: Iterable[MemoryRecord]) -> DecayResult:
        """See ``engine.ports.MemoryStore.apply_decay``."""
        lists = {r.id: scope_list_of(r) for r in records}
        used = {hit.memory_id for hit in plan.matches}
        by_list: dict[ScopeList, list[CounterChange]] = {}
        for change in plan.changes if plan.searched else ():
            if change.memory_id in lists:
                by_list.setdefault(lists[change.memory_id], []).append(change)
        advanced: list[str] = []
        reset: list[str] = []
        for scope, changes in by_list.items():
            lst = self._list(scope)
            for change in changes:
                rid = change.memory_id
                counters = lst.ctr.get(rid)
                if rid not in lst.recs or counters is None:
                    continue
                stored = counters.day.toordinal() if counters.day else -1
                if rid in used:
                    planned = change.last_counted_day.toordinal() if change.last_counted_day else -1
                    counted = max(stored, planned)
                    counters.unused, counters.day = 0, date.fromordinal(counted) if counted >= 0 else None
                    new = change.last_matched_at
                    if new is not None and (counters.matched is None or new > counters.matched):
                        counters.matched = new
                    reset.append(rid)
                elif stored < plan.day.toordinal():
                    counters.unused, counters.day = counters.unused + 1, plan.day
                    advanced.append(rid)
        return DecayResult(advanced=tuple(advanced), reset=tuple(reset))


class InMemoryMemoryDirectory:
    """``Directory`` in memory, with the privacy and space settings the web and Telegram change."""

    def __init__(self, data: InMemoryData | None = None) -> None:
        """``data``: where the uses are kept, shared with the chat store's ``finish``."""
        self._where: dict[str, ScopeList] = {}
        self._optout: set[str] = set()
        self._blocked: dict[str, frozenset[str]] = {}
        self._notices: dict[str, str] = {}
        self._used: dict[str, MemoryUse] = data.memory_uses if data is not None else {}
        self._tombs: dict[str, Buried] = {}  # without expiry: the fake's clock never moves

    async def locate(self, memory: str) -> ScopeList | None:
        """See ``engine.ports.Directory.locate``."""
        return self._where.get(memory)

    async def record(self, placed: Iterable[tuple[str, ScopeList]], removed: Iterable[str]) -> None:
        """See ``engine.ports.Directory.record``."""
        mapping = dict(placed)
        for gone in removed:
            if gone not in mapping:
                self._where.pop(gone, None)
                self._used.pop(gone, None)
        self._where.update(mapping)

    async def filters(self, users: Iterable[str], space: str) -> tuple[tuple[str, ...], frozenset[str]]:
        """See ``engine.ports.Directory.filters``."""
        opted = tuple(u for u in dict.fromkeys(users) if u in self._optout)
        return opted, self._blocked.get(space, frozenset())

    async def lists_of(self, persona: str) -> list[ScopeList]:
        """See ``engine.ports.Directory.lists_of``."""
        return list(dict.fromkeys(s for s in self._where.values() if s.persona == persona))

    async def notice_level(self, space: str) -> str:
        """See ``engine.ports.Directory.notice_level``."""
        return self._notices.get(space) or "brief"

    async def note_use(self, memories: Iterable[str], use: MemoryUse) -> None:
        """See ``engine.ports.Directory.note_use``."""
        self._used.update(dict.fromkeys(memories, use))

    async def uses(self, memories: Iterable[str]) -> dict[str, MemoryUse]:
        """See ``engine.ports.Directory.uses``."""
        return {m: self._used[m] for m in memories if m in self._used}

    async def bury(self, buried: Buried, seconds: int) -> None:
        """See ``engine.ports.Directory.bury``."""
        self._tombs[buried.record.id] = buried

    async def unbury(self, memory: str) -> Buried | None:
        """See ``engine.ports.Directory.unbury``."""
        return self._tombs.pop(memory, None)

    async def set_notice_level(self, space: str, level: str) -> None:
        """Set a space's memory-notice visibility."""
        self._notices[space] = level

    async def set_blocked(self, space: str, memories: Iterable[str]) -> None:
        """Replace a space's blocklist."""
        self._blocked[space] = frozenset(memories)

    async def set_privacy(self, user: str, *, personal_memory: bool) -> None:
        """Opt a user in to or out of personal memory."""
        if personal_memory:
            self._optout.discard(user)
        else:
            self._optout.add(user)


class InMemoryRecall:
    """``MemoryRecall`` on the fake store: without ``passages`` it is ``adapters.recall.NoRecall``
    (nothing is searched, DEC-1); with ``passages`` (a text → vector function) it embeds, but no
    memory or document ever matches, so turns behave as if nothing were relevant."""

    def __init__(
        self,
        store: InMemoryMemoryStore,
        passages: Callable[[Sequence[str]], Vectors] | None = None,
        *,
        model: str = "fake-4",
    ) -> None:
        self._store = store
        self._passages = passages
        self.available = passages is not None
        self.model = model if passages is not None else "none"
        self.batches: list[int] = []  # the size of every ``embed_passages`` call

    async def load(self, scopes: Sequence[ScopeList]) -> list[MemoryRecord]:
        """The memories of ``scopes``."""
        return await self._store.load(scopes)

    async def warm(self) -> None:
        """Nothing to prepare."""

    async def embed(self, text: str) -> Query:
        """The query (only called when ``available``)."""
        row: Vector = (await self.embed_passages([text]))[0]
        return Query(text, row)

    async def search(
        self, query: Query, records: Sequence[MemoryRecord], scopes: Sequence[ScopeList]
    ) -> SearchResult:
        """A search that finds nothing."""
        return SearchResult(ok=True)

    async def embed_passages(self, texts: Sequence[str]) -> Vectors:
        """The passages' vectors.

        Raises:
            Conflict: ``documents_unavailable`` without an embedder.
        """
        if self._passages is None:
            raise Conflict("There is no embedder.", code="documents_unavailable")
        self.batches.append(len(texts))
        return self._passages(texts)

    async def documents(
        self, query: Query, persona: str, seen: DocumentVersion | None = None
    ) -> tuple[str, ...]:
        """No document ever matches."""
        return ()

    async def has_documents(self, persona: str, seen: DocumentVersion | None = None) -> bool:
        """Documents are never searched."""
        return False

    def forget_documents(self, persona: str) -> None:
        """No cache."""
