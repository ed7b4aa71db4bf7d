"""Saved memories on Redis: records, decay counters, vectors, optimistic concurrency.

Each scope list is one Redis Cluster hash tag, ``<prefix>:mem:{<list id>}:<part>`` (see
:class:`MemoryKeys`), so one Lua script can touch all parts of a list atomically:

- ``meta``  HASH ``rev`` (bumped by every record write), ``vrev`` (bumped whenever the stored
  vectors change), ``crev`` (bumped whenever decay changes a counter), ``gen`` (set by the first
  write: names this incarnation of the list), ``seq`` (save order), ``model`` (the embedder the
  vectors belong to).
- ``ids``   ZSET id → save order; ``recs`` HASH id → msgpack ``MemoryRecord``.
- ``ctr``   HASH of decay counters kept outside the blob so Lua updates them without decoding
  msgpack: ``u:<id>`` unused days, ``d:<id>`` last counted day (date ordinal), ``m:<id>`` last
  matched (µs since the epoch), ``h:<id>`` a hash of the text. They override the blob on load.
- ``vecs``  HASH id → little-endian float32 bytes of the ``model`` in ``meta``.

Atomicity is per list (what the rules need, and the most a Cluster allows): writes and decay
run as one script per list, and the scripts of a turn's lists share one pipelined round trip.
A write script checks everything first (the ``rev`` the caller read, ids that must or must not
exist, a forgotten memory no decay has reset since), then mutates: all or nothing per list. A
refused list comes back as a :class:`ListConflict` and the caller re-plans. Writes spanning
lists (MEM-7 rollbacks, MEM-10 moves) are atomic per list; a move writes the target list first,
so a refusal can duplicate a memory but never lose it. Decay does not bump ``rev``, so a turn's
own decay never makes its save conflict. Two workers applying the same day's search count each
memory's day once: a day is added only while the stored last counted day is earlier (DEC-5).

Each store keeps the lists it last read (records decoded, counters applied) under a tag of
``gen``, ``rev``, ``vrev`` and ``crev``; ``snapshot`` sends the tag, and the read script sends
back nothing more while the tag stands, only the counters when only ``crev`` moved, else the
whole list — so another process's write or decay is seen on the next read.

Round trips per turn: ``snapshot`` 1 (records, versions and any stale vectors), ``apply_decay``
1, ``apply_save``/``apply_writes`` 1; +1 once after the server lost its script cache.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

import msgspec
import numpy as np
import numpy.typing as npt
import redis.asyncio as aioredis
import redis.exceptions

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
    Updated,
    WritePlan,
    scope_list_of,
)
from storage import codec
from storage.errors import map_redis_errors
from storage.keys import KeyBuilder
from storage.scripts import lua

__all__ = [
    "DecayResult",
    "ListConflict",
    "ListState",
    "ListVectors",
    "MemoryKeys",
    "MemorySnapshot",
    "RedisMemoryStore",
    "WriteResult",
]

Vectors = npt.NDArray[np.float32]
_RECORD = msgspec.msgpack.Decoder(MemoryRecord)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_PARTS = ("meta", "ids", "recs", "ctr", "vecs")
_COPIES = 1024
"""How many lists' last read a store keeps (``snapshot`` sends only what changed since)."""

_SCRIPT_FILES = {
    "read": "memory_read",
    "write": "memory_write",
    "decay": "memory_decay",
    "vectors": "memory_vectors",
}
"""A call's name → its script in ``storage/lua/`` (KEYS and ARGV are described there)."""


def _escape(part: str | None) -> str:
    text = part or ""
    for char, code in (("%", "%25"), ("|", "%7C"), ("{", "%7B"), ("}", "%7D")):
        text = text.replace(char, code)
    return text


class MemoryKeys(msgspec.Struct, frozen=True, kw_only=True):
    """Builds the keys of memory lists on top of a ``KeyBuilder``'s namespace."""

    keys: KeyBuilder

    def list_id(self, scope: ScopeList) -> str:
        """A unique, brace-free name of a scope list, e.g. ``space|default|web:room1``."""
        parts: tuple[str | None, ...] = {
            "global": ("global", scope.owner),
            "space": ("space", scope.persona, scope.space),
            "personal": ("personal", scope.persona, scope.owner, scope.space),
        }[scope.scope]
        if scope.is_global:
            parts = ("gpersonal", scope.persona, scope.owner)
        return "|".join(_escape(p) for p in parts)

    def part(self, scope: ScopeList, part: str) -> str:
        """One key of a list, hash-tagged by the list, e.g. ``hearth:mem:{space|p|s}:recs``."""
        return f"{self.keys.prefix}:mem:{{{self.list_id(scope)}}}:{part}"

    def parts(self, scope: ScopeList, *names: str) -> list[str]:
        """Several keys of one list, in the order named."""
        return [self.part(scope, name) for name in names]


class ListVectors(msgspec.Struct, frozen=True, kw_only=True, eq=False):
    """The stored vectors of one list: ids (sorted) and their ``(n, dim)`` float32 rows."""

    ids: tuple[str, ...]
    matrix: Vectors


class ListState(msgspec.Struct, frozen=True, kw_only=True):
    """One list as read: ``version`` (record revision, the ``expected`` of a write),
    ``vector_version`` (what a vector index caches), the vectors' ``model``, the ids that have
    a vector of it, and the ``vectors`` themselves when a read fetched them."""

    version: int
    vector_version: int
    model: str | None
    vector_ids: frozenset[str] = frozenset()
    vectors: ListVectors | None = None


class MemorySnapshot(msgspec.Struct, frozen=True, kw_only=True):
    """The records of some lists (list order, then save order) and each list's state."""

    records: tuple[MemoryRecord, ...]
    lists: dict[ScopeList, ListState]

    @property
    def versions(self) -> dict[ScopeList, int]:
        """Record revision per list: the ``expected`` argument of the write methods."""
        return {scope: state.version for scope, state in self.lists.items()}

    def missing_vectors(self, model: str) -> tuple[MemoryRecord, ...]:
        """Records with no vector of ``model`` (all of a list whose vectors are another model's)."""
        return tuple(r for r in self.records if not self._has_vector(r, model))

    def _has_vector(self, record: MemoryRecord, model: str) -> bool:
        state = self.lists.get(scope_list_of(record))
        return state is not None and state.model == model and record.id in state.vector_ids


class ListConflict(msgspec.Struct, frozen=True, kw_only=True):
    """A list whose writes were refused (nothing written there) because it changed since read.

    ``code``: ``memory_changed`` (another write, or a decay reset a memory being forgotten),
    ``memory_exists`` (a saved id is taken), ``memory_missing`` (an updated/forgotten id is gone).
    """

    scope: ScopeList
    code: str
    memory_id: str | None
    version: int


class WriteResult(msgspec.Struct, frozen=True, kw_only=True):
    """New record revisions of the lists written, and the lists refused."""

    versions: dict[ScopeList, int]
    conflicts: tuple[ListConflict, ...] = ()

    @property
    def ok(self) -> bool:
        """Whether every list was written."""
        return not self.conflicts

    def raise_for_conflict(self) -> None:
        """Raise ``Conflict(code="memory_changed")`` when any list was refused."""
        for first in self.conflicts[:1]:
            raise Conflict(
                f"The {first.scope.scope} memory list changed while this change was planned "
                f"({first.code}); try again.",
                code="memory_changed",
            )


class DecayResult(msgspec.Struct, frozen=True, kw_only=True):
    """Ids whose counter this application advanced a day, and ids it reset (matched)."""

    advanced: tuple[str, ...] = ()
    reset: tuple[str, ...] = ()


Call = tuple[str, Sequence[Any]]
"""A pipelined call: a script name of ``_SCRIPTS`` with keys and args, or a plain command."""


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _pairs(flat: Sequence[Any]) -> dict[str, Any]:
    return {_text(flat[i]): flat[i + 1] for i in range(0, len(flat), 2)}


def _text_hash(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def _micros(at: datetime | None) -> str:
    return "" if at is None else str((at - _EPOCH) // timedelta(microseconds=1))


def _ordinal(day: date | None) -> str:
    return "" if day is None else str(day.toordinal())


def _counters(record: MemoryRecord, ctr: Mapping[str, Any]) -> MemoryRecord:
    rid = record.id
    if f"u:{rid}" not in ctr:
        return record
    day, matched = _text(ctr.get(f"d:{rid}", b"")), _text(ctr.get(f"m:{rid}", b""))
    return msgspec.structs.replace(
        record,
        unused_days=int(ctr[f"u:{rid}"]),
        last_counted_day=date.fromordinal(int(day)) if day else None,
        last_matched_at=_EPOCH + timedelta(microseconds=int(matched)) if matched else None,
    )


class _Copy(msgspec.Struct, frozen=True, kw_only=True):
    """This process's copy of one list as last read: the read script's ``base`` tag and counter
    revision, the records as stored (``plain``) and with their counters (``records``), and the
    list's state without vectors."""

    base: str
    crev: str
    plain: tuple[MemoryRecord, ...]
    records: tuple[MemoryRecord, ...]
    state: ListState


def _decode_list(result: Sequence[Any], copy: _Copy | None) -> tuple[_Copy, ListVectors | None]:
    """One read script's reply on top of the copy the caller sent its tag of."""
    mode, rev, vrev, model, base, crev, ids, recs, ctr, vecs = result
    if int(mode) < 2 and copy is not None:
        if int(mode) == 0:
            return copy, None
        counters = _pairs(ctr)
        records = tuple(_counters(r, counters) for r in copy.plain)
        return msgspec.structs.replace(copy, crev=_text(crev), records=records), None
    blobs, counters = _pairs(recs), _pairs(ctr)
    order = [_text(i) for i in ids]
    plain = tuple(_RECORD.decode(blobs[i]) for i in order if i in blobs)
    vectors = _matrix(_pairs(vecs)) if int(mode) == 3 else None
    vector_ids = frozenset(vectors.ids if vectors else (_text(v) for v in vecs))
    state = ListState(
        version=int(rev), vector_version=int(vrev), model=_text(model) or None, vector_ids=vector_ids
    )
    records = tuple(_counters(r, counters) for r in plain)
    return _Copy(base=_text(base), crev=_text(crev), plain=plain, records=records, state=state), vectors


def _matrix(raw: Mapping[str, bytes]) -> ListVectors:
    rows = {rid: np.frombuffer(blob, dtype="<f4") for rid, blob in raw.items()}
    dim = max((len(r) for r in rows.values()), default=0)
    ids = tuple(sorted(rid for rid, row in rows.items() if len(row) == dim))
    matrix = np.stack([rows[i] for i in ids]) if ids else np.zeros((0, dim))
    return ListVectors(ids=ids, matrix=np.ascontiguousarray(matrix, dtype=np.float32))


def _op(kind: str, record: MemoryRecord) -> list[str | bytes]:
    matched = _micros(record.last_matched_at)
    if kind in ("D", "F"):  # F: the counters as planned, re-checked by the script
        return [kind, record.id, b"", str(record.unused_days), "", matched, ""]
    blob = codec.ENCODER.encode(msgspec.structs.replace(record, hidden=False))  # hidden is per turn
    day, text = _ordinal(record.last_counted_day), _text_hash(record.text)
    return [kind, record.id, blob, str(record.unused_days), day, matched, text]


def _ops_by_list(writes: Iterable[MemoryWrite]) -> dict[ScopeList, list[list[str | bytes]]]:
    ops: dict[ScopeList, list[list[str | bytes]]] = {}
    for write in writes:
        match write:
            case Updated(before=before, after=after) if scope_list_of(before) != scope_list_of(after):
                ops.setdefault(scope_list_of(after), []).append(_op("S", after))  # target first
                ops.setdefault(scope_list_of(before), []).append(_op("D", before))
            case Saved(after=record) | Updated(after=record):
                kind = "S" if isinstance(write, Saved) else "U"
                ops.setdefault(scope_list_of(record), []).append(_op(kind, record))
            case Deleted(before=record) | Forgotten(before=record):
                kind = "D" if isinstance(write, Deleted) else "F"
                ops.setdefault(scope_list_of(record), []).append(_op(kind, record))
    return ops


def _write_result(scopes: Sequence[ScopeList], results: Sequence[Any]) -> WriteResult:
    versions: dict[ScopeList, int] = {}
    conflicts: list[ListConflict] = []
    for scope, (ok, code, memory_id, rev) in zip(scopes, results, strict=True):
        if ok:
            versions[scope] = int(rev)
        else:
            found = _text(memory_id) or None
            conflicts.append(ListConflict(scope=scope, code=_text(code), memory_id=found, version=int(rev)))
    return WriteResult(versions=versions, conflicts=tuple(conflicts))


class RedisMemoryStore:
    """Saved memories on one Redis client (one that does not decode responses: vectors are bytes)."""

    def __init__(self, client: aioredis.Redis, keys: KeyBuilder) -> None:
        self._r = client
        self._k = MemoryKeys(keys=keys)
        self._scripts = {call: client.register_script(lua(name)) for call, name in _SCRIPT_FILES.items()}
        # lists as last read: an unchanged list is neither sent again nor decoded
        self._copies: OrderedDict[ScopeList, _Copy] = OrderedDict()

    @classmethod
    def from_url(cls, url: str, keys: KeyBuilder) -> RedisMemoryStore:
        """A store on a new client for ``url``."""
        return cls(aioredis.from_url(url), keys)

    @property
    def keys(self) -> MemoryKeys:
        """The key builder (tests and tools use it to inspect Redis)."""
        return self._k

    async def _run(self, calls: Sequence[Call]) -> list[Any]:
        """Pipeline ``calls`` in one round trip; a script the server lost (restart, SCRIPT FLUSH)
        is loaded and only the calls that failed are sent again."""
        results = await self._pipeline(calls)
        missing = [i for i, r in enumerate(results) if isinstance(r, redis.exceptions.NoScriptError)]
        if missing:
            with map_redis_errors():  # SCRIPT LOAD reaches every primary of a cluster
                for script in self._scripts.values():
                    await self._r.script_load(script.script)
            for i, result in zip(missing, await self._pipeline([calls[i] for i in missing]), strict=True):
                results[i] = result
        for result in results:
            if isinstance(result, redis.exceptions.RedisError):
                with map_redis_errors():
                    raise result
        return results

    async def _pipeline(self, calls: Sequence[Call]) -> list[Any]:
        with map_redis_errors():
            async with self._r.pipeline(transaction=False) as pipe:
                for name, args in calls:
                    if name in self._scripts:
                        pipe.execute_command("EVALSHA", self._scripts[name].sha, *args)
                    else:
                        pipe.execute_command(name, *args)
                return list(await pipe.execute(raise_on_error=False))

    async def snapshot(
        self,
        scopes: Sequence[ScopeList],
        *,
        model: str | None = None,
        cached: Mapping[ScopeList, int | None] | None = None,
    ) -> MemorySnapshot:
        """Read the records and state of every list of a turn in one round trip.

        Each list is read by one script, so its records, counters and versions agree.

        Args:
            scopes: the lists (duplicates are read once).
            model: fetch this embedder's vectors for lists whose vector version differs from
                ``cached``; ``None`` fetches none.
            cached: the vector version the caller already holds per list (``None``: none).

        Returns:
            The snapshot; ``ListState.vectors`` is set for the lists whose vectors came back.

        Raises:
            StorageUnavailable: Redis failed.
        """
        unique = list(dict.fromkeys(scopes))
        known = {s: v for s, v in (cached or {}).items() if v is not None}
        copies = [self._copies.get(s) for s in unique]
        calls: list[Call] = [
            (
                "read",
                [
                    5,
                    *self._k.parts(s, *_PARTS),
                    model or "",
                    str(known.get(s, "")),
                    copy.base if copy else "",
                    copy.crev if copy else "",
                ],
            )
            for s, copy in zip(unique, copies, strict=True)
        ]
        records: list[MemoryRecord] = []
        lists: dict[ScopeList, ListState] = {}
        for scope, copy, result in zip(unique, copies, await self._run(calls), strict=True):
            found, vectors = _decode_list(result, copy)
            self._keep(scope, found)
            lists[scope] = msgspec.structs.replace(found.state, vectors=vectors) if vectors else found.state
            records.extend(found.records)
        return MemorySnapshot(records=tuple(records), lists=lists)

    def _keep(self, scope: ScopeList, copy: _Copy) -> None:
        """Remember a list as read (the newest ``_COPIES`` lists; one without a tag is not kept)."""
        self._copies.pop(scope, None)
        if copy.base:
            self._copies[scope] = copy
            while len(self._copies) > _COPIES:
                self._copies.popitem(last=False)

    async def load(self, scopes: Sequence[ScopeList]) -> list[MemoryRecord]:
        """The records of ``scopes`` (list order, then save order), in one round trip."""
        return list((await self.snapshot(scopes)).records)

    async def versions(self, scopes: Sequence[ScopeList]) -> dict[ScopeList, ListState]:
        """Record and vector versions (and the vectors' model) of each list, in one round trip."""
        unique = list(dict.fromkeys(scopes))
        raw = await self._run([("HMGET", (self._k.part(s, "meta"), "rev", "vrev", "model")) for s in unique])
        return {
            scope: ListState(
                version=int(rev or 0), vector_version=int(vrev or 0), model=_text(m) if m else None
            )
            for scope, (rev, vrev, m) in zip(unique, raw, strict=True)
        }

    async def apply_writes(
        self, writes: Iterable[MemoryWrite] | WritePlan, expected: Mapping[ScopeList, int] | None = None
    ) -> WriteResult:
        """Perform journal entries (saves, updates, deletes, forgets, moves) in one round trip.

        Args:
            writes: the entries, in order (a ``WritePlan`` or any iterable of entries).
            expected: each list's record revision when the writes were planned
                (``MemorySnapshot.versions``); a list whose revision moved on is refused whole.
                Lists missing from it, or ``None``, are not version-checked (per-entry checks
                still apply: a saved id must be free, an updated or forgotten one present).

        Returns:
            New revisions of the lists written, and the lists refused; the caller re-plans
            those from a fresh snapshot and tries again.

        Raises:
            StorageUnavailable: Redis failed.
        """
        entries = writes.writes if isinstance(writes, WritePlan) else tuple(writes)
        by_list = _ops_by_list(entries)
        if not by_list:
            return WriteResult(versions={})
        calls: list[Call] = []
        for scope, ops in by_list.items():
            check = "" if expected is None or scope not in expected else str(expected[scope])
            args = [x for op in ops for x in op]
            calls.append(("write", [5, *self._k.parts(scope, *_PARTS), check, str(len(ops)), *args]))
        return _write_result(list(by_list), await self._run(calls))

    async def apply_save(
        self, plan: SavePlan, expected: Mapping[ScopeList, int] | None = None
    ) -> WriteResult:
        """Perform a ``SavePlan``: the save and the forgetting it causes happen together or not at all.

        Args:
            plan: from ``engine.memory.plan_save``.
            expected: revisions as read (``MemorySnapshot.versions``); see ``apply_writes``.

        Returns:
            The result; on a conflict nothing was written and the caller re-plans.

        Raises:
            InvalidInput: ``save_plan_spans_lists`` when the plan writes to another list too.
            StorageUnavailable: Redis failed.
        """
        if set(_ops_by_list(plan.writes)) - {scope_list_of(plan.record)}:
            raise InvalidInput("A save plan must write to one memory list.", code="save_plan_spans_lists")
        return await self.apply_writes(plan.writes, expected)

    async def apply_decay(self, plan: DecayPlan, records: Iterable[MemoryRecord]) -> DecayResult:
        """Apply one reply's counter changes, at most one counted day per memory per UTC day.

        Per memory, atomically in Redis: a match resets the counter (always; the last counted
        day and last matched time only move forward); an unused day adds one only while the
        stored last counted day is before ``plan.day``, so a second worker applying the same
        day's plan changes nothing (DEC-5). Memories deleted meanwhile are skipped; a failed
        search changes nothing (DEC-8). One script per list, all in one round trip.

        Args:
            plan: from ``engine.memory.plan_decay``.
            records: the records the plan was made from (they give each memory's list).

        Returns:
            The ids this call advanced and reset.

        Raises:
            StorageUnavailable: Redis failed.
        """
        lists = {r.id: scope_list_of(r) for r in records}
        used = {hit.memory_id for hit in plan.matches}
        by_list: dict[ScopeList, list[str]] = {}
        for change in plan.changes if plan.searched else ():
            if change.memory_id in lists:
                kind = "r" if change.memory_id in used else "a"
                day, matched = _ordinal(change.last_counted_day), _micros(change.last_matched_at)
                by_list.setdefault(lists[change.memory_id], []).extend([kind, change.memory_id, day, matched])
        day = str(plan.day.toordinal())
        calls: list[Call] = [
            ("decay", [3, *self._k.parts(s, "recs", "ctr", "meta"), day, str(len(args) // 4), *args])
            for s, args in by_list.items()
        ]
        results = await self._run(calls) if calls else []
        advanced = tuple(_text(i) for adv, _ in results for i in adv)
        return DecayResult(advanced=advanced, reset=tuple(_text(i) for _, rst in results for i in rst))

    async def missing_vectors(self, scopes: Sequence[ScopeList], model: str) -> list[MemoryRecord]:
        """Records of ``scopes`` with no vector of ``model`` (all of them after an embedder change)."""
        return list((await self.snapshot(scopes)).missing_vectors(model))

    async def put_vectors(
        self, model: str, records: Sequence[MemoryRecord], vectors: npt.ArrayLike
    ) -> tuple[str, ...]:
        """Store the vectors of ``records`` (row i is record i's) for embedder ``model``; one round trip.

        A list whose vectors belong to another model drops them first. A vector is stored only
        while its memory still has the text it was computed from, so a text edited meanwhile
        is never paired with a stale vector (it stays missing and is embedded again).

        Returns:
            The ids whose vectors were stored.

        Raises:
            InvalidInput: ``vector_shape`` when the rows do not match the records.
            StorageUnavailable: Redis failed.
        """
        matrix = np.ascontiguousarray(np.asarray(vectors, dtype="<f4"))
        if matrix.ndim != 2 or matrix.shape[0] != len(records):
            shape = matrix.shape
            raise InvalidInput(
                f"Expected {len(records)} vector rows, got shape {shape}.", code="vector_shape"
            )
        by_list: dict[ScopeList, list[str | bytes]] = {}
        for record, row in zip(records, matrix, strict=True):
            by_list.setdefault(scope_list_of(record), []).extend(
                [record.id, _text_hash(record.text), row.tobytes()]
            )
        calls: list[Call] = [
            ("vectors", [3, *self._k.parts(s, "meta", "ctr", "vecs"), model, str(len(args) // 3), *args])
            for s, args in by_list.items()
        ]
        results = await self._run(calls) if calls else []
        return tuple(_text(i) for _, stored in results for i in stored)
