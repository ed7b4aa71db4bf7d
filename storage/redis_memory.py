"""Saved memories on Redis: records, decay counters, vectors, and optimistic concurrency.

Layout. Every scope list is one Redis Cluster hash tag, ``hearth:mem:{<list id>}:<part>``
(see :class:`MemoryKeys`), so one Lua script can touch all parts of a list atomically:

- ``meta``  HASH ``rev`` (bumped by every record write), ``vrev`` (bumped whenever the stored
  vectors change), ``seq`` (save order), ``model`` (the embedder the vectors belong to).
- ``ids``   ZSET id → save order; ``recs`` HASH id → msgpack ``MemoryRecord``.
- ``ctr``   HASH of decay counters kept outside the msgpack blob, so Lua updates them without
  decoding it: ``u:<id>`` unused days, ``d:<id>`` last counted day (date ordinal), ``m:<id>``
  last matched (µs since the epoch, UTC), ``h:<id>`` a hash of the text (to drop and guard
  vectors). On load they override the blob's copies.
- ``vecs``  HASH id → little-endian float32 bytes of the ``model`` in ``meta``.

Atomicity is per list (it is what the rules need, and the most a Cluster allows): a write
batch or a decay is one script per list, and the scripts of a turn's lists go in one pipelined
round trip. A write script checks everything first (the ``rev`` the caller read, ids that must
or must not exist, a forgotten memory that must still be untouched by decay), then mutates, so
it applies wholly or not at all; a refused list comes back as a :class:`ListConflict` and the
caller re-plans. Writes spanning lists (MEM-7 rollback, MEM-10 moves) are atomic per list; a
move writes its target list before removing it from the source, so a refusal can duplicate a
memory but never lose it. Decay does not bump ``rev`` (counters do not make a plan stale except
for a forgotten memory, which the script re-checks), so a turn's own decay never conflicts with
its save. Two workers applying the same day's search count each memory's day once: an advance
happens only while the stored last counted day is before the plan's day (DEC-5).

Round trips per turn: ``snapshot`` 1 (records, versions and any stale vectors), ``apply_decay``
1, ``apply_save``/``apply_writes`` 1 (+1 only when a script cache was flushed). The id index
(``hearth:mem:index``, id → list) and the list registry are hints outside the lists' slots,
written in the same pipeline; readers verify them by loading the list.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any, Protocol

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
_SCOPE = msgspec.msgpack.Decoder(ScopeList)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_PARTS = ("meta", "ids", "recs", "ctr", "vecs")

_READ = """
local meta = redis.call('HMGET', KEYS[1], 'rev', 'vrev', 'model')
local ids = redis.call('ZRANGE', KEYS[2], 0, -1)
local recs = redis.call('HGETALL', KEYS[3])
local ctr = redis.call('HGETALL', KEYS[4])
local vrev, model = meta[2] or '0', meta[3] or ''
local full = ARGV[1] ~= '' and ARGV[1] == model and ARGV[2] ~= vrev
local vecs = full and redis.call('HGETALL', KEYS[5]) or redis.call('HKEYS', KEYS[5])
return {meta[1] or '0', vrev, model, ids, recs, ctr, vecs, full and 1 or 0}
"""

_WRITE = """
local rev, n, seen, vchanged = tonumber(redis.call('HGET', KEYS[1], 'rev') or '0'), tonumber(ARGV[2]), {}, false
if ARGV[1] ~= '' and tonumber(ARGV[1]) ~= rev then return {0, 'memory_changed', '', rev} end
local function has(id)
  if seen[id] == nil then seen[id] = redis.call('HEXISTS', KEYS[3], id) == 1 end
  return seen[id]
end
local function check(kind, id, b)
  if kind == 'S' then
    if has(id) then return 'memory_exists' end
    seen[id] = true
  elseif kind == 'U' or kind == 'F' then
    if not has(id) then return 'memory_missing' end
    local u = tonumber(redis.call('HGET', KEYS[4], 'u:' .. id) or '0')
    local m = redis.call('HGET', KEYS[4], 'm:' .. id) or ''
    if kind == 'F' and (u < tonumber(ARGV[b + 3]) or m ~= ARGV[b + 5]) then return 'memory_changed' end
  end
  if kind == 'D' or kind == 'F' then seen[id] = false end
end
local function drop_vector(id) if redis.call('HDEL', KEYS[5], id) == 1 then vchanged = true end end
for i = 0, n - 1 do
  local problem = check(ARGV[3 + i * 7], ARGV[4 + i * 7], 3 + i * 7)
  if problem then return {0, problem, ARGV[4 + i * 7], rev} end
end
for i = 0, n - 1 do
  local b = 3 + i * 7
  local kind, id = ARGV[b], ARGV[b + 1]
  if kind == 'S' then
    redis.call('HSET', KEYS[3], id, ARGV[b + 2])
    redis.call('ZADD', KEYS[2], redis.call('HINCRBY', KEYS[1], 'seq', 1), id)
    redis.call('HSET', KEYS[4], 'u:' .. id, ARGV[b + 3], 'd:' .. id, ARGV[b + 4], 'm:' .. id, ARGV[b + 5],
      'h:' .. id, ARGV[b + 6])
    drop_vector(id)
  elseif kind == 'U' then
    redis.call('HSET', KEYS[3], id, ARGV[b + 2])
    if redis.call('HGET', KEYS[4], 'h:' .. id) ~= ARGV[b + 6] then
      redis.call('HSET', KEYS[4], 'h:' .. id, ARGV[b + 6])
      drop_vector(id)
    end
  else
    redis.call('HDEL', KEYS[3], id)
    redis.call('ZREM', KEYS[2], id)
    redis.call('HDEL', KEYS[4], 'u:' .. id, 'd:' .. id, 'm:' .. id, 'h:' .. id)
    drop_vector(id)
  end
end
rev = redis.call('HINCRBY', KEYS[1], 'rev', 1)
if vchanged then redis.call('HINCRBY', KEYS[1], 'vrev', 1) end
return {1, '', '', rev}
"""

_DECAY = """
local day, n, advanced, reset = tonumber(ARGV[1]), tonumber(ARGV[2]), {}, {}
for i = 0, n - 1 do
  local b = 3 + i * 4
  local kind, id = ARGV[b], ARGV[b + 1]
  if redis.call('HEXISTS', KEYS[1], id) == 1 then
    local stored = tonumber(redis.call('HGET', KEYS[2], 'd:' .. id) or '') or -1
    if kind == 'r' then
      local counted = math.max(stored, tonumber(ARGV[b + 2]) or -1)
      redis.call('HSET', KEYS[2], 'u:' .. id, 0, 'd:' .. id, counted >= 0 and counted or '')
      local m = tonumber(redis.call('HGET', KEYS[2], 'm:' .. id) or '') or -1
      local new = tonumber(ARGV[b + 3]) or -1
      if new > m then redis.call('HSET', KEYS[2], 'm:' .. id, ARGV[b + 3]) end
      reset[#reset + 1] = id
    elseif stored < day then
      redis.call('HINCRBY', KEYS[2], 'u:' .. id, 1)
      redis.call('HSET', KEYS[2], 'd:' .. id, day)
      advanced[#advanced + 1] = id
    end
  end
end
return {advanced, reset}
"""

_PUT_VECTORS = """
local vrev, changed, stored = tonumber(redis.call('HGET', KEYS[1], 'vrev') or '0'), false, {}
if redis.call('HGET', KEYS[1], 'model') ~= ARGV[1] then
  redis.call('DEL', KEYS[3])
  redis.call('HSET', KEYS[1], 'model', ARGV[1])
  changed = true
end
for i = 0, tonumber(ARGV[2]) - 1 do
  local b = 3 + i * 3
  if redis.call('HGET', KEYS[2], 'h:' .. ARGV[b]) == ARGV[b + 1] then
    redis.call('HSET', KEYS[3], ARGV[b], ARGV[b + 2])
    stored[#stored + 1] = ARGV[b]
  end
end
if changed or #stored > 0 then vrev = redis.call('HINCRBY', KEYS[1], 'vrev', 1) end
return {vrev, stored}
"""

_SCRIPTS = {
    name: (src, hashlib.sha1(src.encode(), usedforsecurity=False).hexdigest())
    for name, src in (("read", _READ), ("write", _WRITE), ("decay", _DECAY), ("vectors", _PUT_VECTORS))
}


def _escape(part: str | None) -> str:
    text = part or ""
    for char, code in (("%", "%25"), ("|", "%7C"), ("{", "%7B"), ("}", "%7D")):
        text = text.replace(char, code)
    return text


class MemoryKeys(msgspec.Struct, frozen=True, kw_only=True):
    """Builds the keys of memory lists on top of a ``KeyBuilder``'s namespace."""

    keys: KeyBuilder = KeyBuilder()

    def list_id(self, scope: ScopeList) -> str:
        """A unique, brace-free name of a scope list, e.g. ``space|default|web:room1``."""
        if scope.scope == "global":
            parts: tuple[str | None, ...] = ("global", scope.owner)
        elif scope.scope == "space":
            parts = ("space", scope.persona, scope.space)
        elif scope.is_global:
            parts = ("gpersonal", scope.persona, scope.owner)
        else:
            parts = ("personal", scope.persona, scope.owner, scope.space)
        return "|".join(_escape(p) for p in parts)

    def part(self, scope: ScopeList, part: str) -> str:
        """One key of a list, hash-tagged by the list, e.g. ``hearth:mem:{space|p|s}:recs``."""
        return f"{self.keys.prefix}:mem:{{{self.list_id(scope)}}}:{part}"

    def parts(self, scope: ScopeList, *names: str) -> list[str]:
        """Several keys of one list, in the order named."""
        return [self.part(scope, name) for name in names]

    def index(self) -> str:
        """The id → list-id hint hash (outside any list's slot)."""
        return f"{self.keys.prefix}:mem:index"

    def registry(self) -> str:
        """The list-id → msgpack ``ScopeList`` hash of every list ever written."""
        return f"{self.keys.prefix}:mem:lists"


class ListVectors(msgspec.Struct, frozen=True, kw_only=True):
    """The stored vectors of one list: ids and their ``(n, dim)`` float32 rows."""

    ids: tuple[str, ...]
    matrix: Vectors


class ListState(msgspec.Struct, frozen=True, kw_only=True):
    """Versions and vector facts of one list as read.

    Attributes:
        version: the record revision (pass it back as the expected version of a write).
        vector_version: the vector revision (what an in-process vector index caches).
        model: the embedder the stored vectors belong to, or ``None``.
        vector_ids: ids that have a vector of ``model``.
        vectors: the vectors, when the read asked for them and the cache was stale.
    """

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
        """Record revision per list, the ``expected`` argument of the write methods."""
        return {scope: state.version for scope, state in self.lists.items()}

    def missing_vectors(self, model: str) -> tuple[MemoryRecord, ...]:
        """Records without a vector of ``model`` (all of a list whose vectors are another model's)."""
        return tuple(r for r in self.records if not self._has_vector(r, model))

    def _has_vector(self, record: MemoryRecord, model: str) -> bool:
        state = self.lists.get(scope_list_of(record))
        return state is not None and state.model == model and record.id in state.vector_ids


class ListConflict(msgspec.Struct, frozen=True, kw_only=True):
    """A list whose write was refused because it changed since it was read.

    ``code``: ``memory_changed`` (another write, or a decay touched a memory being forgotten),
    ``memory_exists`` (a saved id is taken) or ``memory_missing`` (an updated or forgotten id is gone).
    """

    scope: ScopeList
    code: str
    memory_id: str | None
    version: int


class WriteResult(msgspec.Struct, frozen=True, kw_only=True):
    """New record revisions of the lists written, and the lists refused (nothing written there)."""

    versions: dict[ScopeList, int]
    conflicts: tuple[ListConflict, ...] = ()

    @property
    def ok(self) -> bool:
        """Whether every list was written."""
        return not self.conflicts

    def raise_for_conflict(self) -> None:
        """Raise ``Conflict(code="memory_changed")`` when any list was refused."""
        if self.conflicts:
            first = self.conflicts[0]
            raise Conflict(
                f"The {first.scope.scope} memory list changed while this change was planned "
                f"({first.code}); try again.",
                code="memory_changed",
            )


class DecayResult(msgspec.Struct, frozen=True, kw_only=True):
    """Ids whose counter this application advanced a day, and ids it reset (matched)."""

    advanced: tuple[str, ...] = ()
    reset: tuple[str, ...] = ()


class IndexCache(Protocol):
    """The part of ``adapters.vector.VectorIndex`` that :meth:`RedisMemoryStore.load_for_search` needs."""

    def version(self, key: Hashable) -> int | None:
        """The version cached under ``key``, or ``None``."""
        ...

    def replace(self, key: Hashable, version: int, ids: Sequence[str], vectors: Vectors) -> None:
        """Cache ``vectors`` (rows of ``ids``) under ``key`` at ``version``."""
        ...


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _pairs(flat: Sequence[Any]) -> dict[str, Any]:
    return {_text(flat[i]): flat[i + 1] for i in range(0, len(flat), 2)}


def _text_hash(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def _micros(at: datetime | None) -> str:
    return "" if at is None else str((at - _EPOCH) // timedelta(microseconds=1))


def _version_arg(version: int | None) -> str:
    return "" if version is None else str(version)


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


def _matrix(raw: Mapping[str, bytes]) -> ListVectors:
    rows = {rid: np.frombuffer(blob, dtype="<f4") for rid, blob in raw.items()}
    dim = max((len(r) for r in rows.values()), default=0)
    ids = tuple(sorted(rid for rid, row in rows.items() if len(row) == dim))
    matrix = np.ascontiguousarray(np.stack([rows[i] for i in ids]) if ids else np.zeros((0, dim)), "float32")
    return ListVectors(ids=ids, matrix=matrix)


def _op(kind: str, record: MemoryRecord, expect: MemoryRecord | None = None) -> list[str | bytes]:
    if kind in ("D", "F"):
        seen = expect or record
        return [kind, record.id, b"", str(seen.unused_days), "", _micros(seen.last_matched_at), ""]
    blob = codec.ENCODER.encode(msgspec.structs.replace(record, hidden=False))
    return [
        kind,
        record.id,
        blob,
        str(record.unused_days),
        _ordinal(record.last_counted_day),
        _micros(record.last_matched_at),
        _text_hash(record.text),
    ]


def _ops_by_list(writes: Iterable[MemoryWrite]) -> dict[ScopeList, list[list[str | bytes]]]:
    ops: dict[ScopeList, list[list[str | bytes]]] = {}
    for write in writes:
        match write:
            case Saved(after=after):
                ops.setdefault(scope_list_of(after), []).append(_op("S", after))
            case Updated(before=before, after=after) if scope_list_of(before) != scope_list_of(after):
                ops.setdefault(scope_list_of(after), []).append(_op("S", after))
                ops.setdefault(scope_list_of(before), []).append(_op("D", before))
            case Updated(after=after):
                ops.setdefault(scope_list_of(after), []).append(_op("U", after))
            case Deleted(before=before):
                ops.setdefault(scope_list_of(before), []).append(_op("D", before))
            case Forgotten(before=before):
                ops.setdefault(scope_list_of(before), []).append(_op("F", before))
    return ops


class RedisMemoryStore:
    """Saved memories on one Redis client (must not decode responses: vectors are bytes)."""

    def __init__(self, client: aioredis.Redis, keys: KeyBuilder | None = None) -> None:
        self._r = client
        self._k = MemoryKeys(keys=keys or KeyBuilder())

    @classmethod
    def from_url(cls, url: str, keys: KeyBuilder | None = None) -> RedisMemoryStore:
        """A store on a new client for ``url``."""
        return cls(aioredis.from_url(url), keys)

    @property
    def keys(self) -> MemoryKeys:
        """The key builder (tests and tools use it to inspect Redis)."""
        return self._k

    async def _run(self, calls: Sequence[tuple[str, Sequence[Any]]]) -> list[Any]:
        """Pipeline script calls (``("read", keys+args)``) and plain commands; one round trip.

        A script missing from the server's cache (restart, SCRIPT FLUSH) is loaded and only
        the calls that failed are sent again.
        """
        results = await self._pipeline(calls)
        missing = [i for i, r in enumerate(results) if isinstance(r, redis.exceptions.NoScriptError)]
        if missing:
            await self._pipeline([("SCRIPT", ("LOAD", src)) for src, _ in _SCRIPTS.values()])
            again = await self._pipeline([calls[i] for i in missing])
            for i, result in zip(missing, again, strict=True):
                results[i] = result
        for result in results:
            if isinstance(result, redis.exceptions.RedisError):
                with map_redis_errors():
                    raise result
        return results

    async def _pipeline(self, calls: Sequence[tuple[str, Sequence[Any]]]) -> list[Any]:
        with map_redis_errors():
            async with self._r.pipeline(transaction=False) as pipe:
                for name, args in calls:
                    if name in _SCRIPTS:
                        pipe.execute_command("EVALSHA", _SCRIPTS[name][1], *args)
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
            model: the embedder whose vectors to fetch for lists whose vector version differs
                from ``cached``; ``None`` fetches no vectors.
            cached: the vector version the caller already holds per list.

        Returns:
            The snapshot; ``ListState.vectors`` is set for the lists whose vectors were fetched.

        Raises:
            StorageUnavailable: Redis failed.
        """
        unique = list(dict.fromkeys(scopes))
        known = cached or {}
        calls = [
            ("read", [5, *self._k.parts(s, *_PARTS), model or "", _version_arg(known.get(s))]) for s in unique
        ]
        results = await self._run(calls)
        records: list[MemoryRecord] = []
        lists: dict[ScopeList, ListState] = {}
        for scope, result in zip(unique, results, strict=True):
            found, lists[scope] = self._decode_list(result)
            records.extend(found)
        return MemorySnapshot(records=tuple(records), lists=lists)

    @staticmethod
    def _decode_list(result: Sequence[Any]) -> tuple[list[MemoryRecord], ListState]:
        rev, vrev, model, ids, recs, ctr, vecs, full = result
        blobs, counters = _pairs(recs), _pairs(ctr)
        order = [_text(i) for i in ids]
        records = [_counters(_RECORD.decode(blobs[i]), counters) for i in order if i in blobs]
        vectors = _matrix(_pairs(vecs)) if full else None
        state = ListState(
            version=int(rev),
            vector_version=int(vrev),
            model=_text(model) or None,
            vector_ids=frozenset(vectors.ids if vectors else (_text(v) for v in vecs)),
            vectors=vectors,
        )
        return records, state

    async def load(self, scopes: Sequence[ScopeList]) -> list[MemoryRecord]:
        """The records of ``scopes`` (list order, then save order), in one round trip."""
        return list((await self.snapshot(scopes)).records)

    async def load_for_search(
        self, scopes: Sequence[ScopeList], model: str, index: IndexCache
    ) -> MemorySnapshot:
        """``snapshot`` that also refreshes ``index`` under keys ``(scope, model)``; one round trip.

        Only lists whose vector version differs from the one ``index`` holds carry vectors back.
        """
        cached = {s: index.version((s, model)) for s in scopes}
        snap = await self.snapshot(scopes, model=model, cached=cached)
        for scope, state in snap.lists.items():
            if state.vectors is not None:
                index.replace((scope, model), state.vector_version, state.vectors.ids, state.vectors.matrix)
            elif state.model != model and cached.get(scope) != -1:
                empty = np.zeros((0, 0), dtype=np.float32)
                index.replace((scope, model), -1, (), empty)
        return snap

    async def versions(self, scopes: Sequence[ScopeList]) -> dict[ScopeList, ListState]:
        """Record and vector versions (and vector model) of each list, in one round trip."""
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
        """Perform journal entries (save, update, delete, forget, moves) in one round trip.

        Args:
            writes: the entries, in order (a ``WritePlan`` or any iterable of entries).
            expected: the record revision each list had when the writes were planned (from
                ``MemorySnapshot.versions``); a list whose revision moved on is refused whole.
                Lists absent from the mapping, or ``expected=None``, are not version-checked
                (their per-entry checks still apply).

        Returns:
            New revisions of the lists written, and the lists refused; the caller re-plans
            those from a fresh snapshot.

        Raises:
            StorageUnavailable: Redis failed.
        """
        entries = writes.writes if isinstance(writes, WritePlan) else tuple(writes)
        by_list = _ops_by_list(entries)
        if not by_list:
            return WriteResult(versions={})
        calls = self._hint_calls(entries)
        for scope, ops in by_list.items():
            check = "" if expected is None or scope not in expected else str(expected[scope])
            flat = [x for op in ops for x in op]
            calls.append(("write", [5, *self._k.parts(scope, *_PARTS), check, str(len(ops)), *flat]))
        results = (await self._run(calls))[-len(by_list) :]
        versions: dict[ScopeList, int] = {}
        conflicts: list[ListConflict] = []
        for scope, (ok, code, memory_id, rev, *_) in zip(by_list, results, strict=True):
            if ok:
                versions[scope] = int(rev)
            else:
                conflicts.append(
                    ListConflict(
                        scope=scope, code=_text(code), memory_id=_text(memory_id) or None, version=int(rev)
                    )
                )
        if conflicts:
            await self._restore_hints(entries, {c.scope for c in conflicts})
        return WriteResult(versions=versions, conflicts=tuple(conflicts))

    def _hint_calls(self, entries: Sequence[MemoryWrite]) -> list[tuple[str, Sequence[Any]]]:
        live: dict[str, str] = {}
        gone: list[str] = []
        registry: dict[str, bytes] = {}
        for write in entries:
            match write:
                case Saved(after=record) | Updated(after=record):
                    scope = scope_list_of(record)
                    live[record.id] = self._k.list_id(scope)
                    registry[live[record.id]] = codec.ENCODER.encode(scope)
                case Deleted(before=record) | Forgotten(before=record):
                    live.pop(record.id, None)
                    gone.append(record.id)
        calls: list[tuple[str, Sequence[Any]]] = []
        if gone:
            calls.append(("HDEL", (self._k.index(), *gone)))
        if live:
            calls.append(("HSET", (self._k.index(), *[x for kv in live.items() for x in kv])))
            calls.append(("HSET", (self._k.registry(), *[x for kv in registry.items() for x in kv])))
        return calls

    async def _restore_hints(self, entries: Sequence[MemoryWrite], refused: set[ScopeList]) -> None:
        # A refused list keeps its memories: put back the index entries the pipeline removed.
        back = {
            w.before.id: self._k.list_id(scope_list_of(w.before))
            for w in entries
            if isinstance(w, Deleted | Forgotten) and scope_list_of(w.before) in refused
        }
        if back:
            await self._run([("HSET", (self._k.index(), *[x for kv in back.items() for x in kv]))])

    async def apply_save(
        self, plan: SavePlan, expected: Mapping[ScopeList, int] | None = None
    ) -> WriteResult:
        """Perform a ``SavePlan``: the save and the forgetting it causes together or not at all.

        Args:
            plan: from ``engine.memory.plan_save``.
            expected: revisions as read (``MemorySnapshot.versions``); see ``apply_writes``.

        Returns:
            The result; on a conflict nothing was written and the caller re-plans.

        Raises:
            InvalidInput: ``save_plan_spans_lists`` when the plan's writes touch another list.
            StorageUnavailable: Redis failed.
        """
        target = scope_list_of(plan.record)
        if set(_ops_by_list(plan.writes)) - {target}:
            raise InvalidInput(
                "A save plan must write to one memory list only.", code="save_plan_spans_lists"
            )
        return await self.apply_writes(plan.writes, expected)

    async def apply_planned(
        self,
        scopes: Sequence[ScopeList],
        plan: Callable[[tuple[MemoryRecord, ...]], Iterable[MemoryWrite] | WritePlan | SavePlan],
        *,
        attempts: int = 3,
    ) -> tuple[tuple[MemoryWrite, ...], WriteResult]:
        """Load, plan and apply, re-planning from fresh records when a list changed meanwhile.

        Args:
            scopes: the lists the plan reads.
            plan: a pure planning function of the records (e.g. a ``plan_save`` partial); its
                refusals (``memory_full``...) propagate.
            attempts: how many times to try.

        Returns:
            The writes performed and the result.

        Raises:
            Conflict: ``memory_busy`` when every attempt met a concurrent change.
            StorageUnavailable: Redis failed.
        """
        for _ in range(attempts):
            snap = await self.snapshot(scopes)
            planned = plan(snap.records)
            writes = planned.writes if isinstance(planned, WritePlan | SavePlan) else tuple(planned)
            result = await self.apply_writes(writes, snap.versions)
            if result.ok:
                return writes, result
        raise Conflict("Memories kept changing while this change was made; try again.", code="memory_busy")

    async def apply_decay(self, plan: DecayPlan, records: Iterable[MemoryRecord]) -> DecayResult:
        """Apply one reply's counter changes, at most one counted day per memory per UTC day.

        Per memory, atomically in Redis: a match resets the counter (always); an unused day
        advances it by one only while its stored last counted day is before ``plan.day``, so a
        second worker applying the same day's plan changes nothing (DEC-5). Memories deleted
        meanwhile are skipped. Nothing happens for a failed search (DEC-8).

        Args:
            plan: from ``engine.memory.plan_decay``.
            records: the records the plan was made from (they tell each memory's list).

        Returns:
            The ids this call advanced and reset.

        Raises:
            StorageUnavailable: Redis failed.
        """
        if not plan.searched or not plan.changes:
            return DecayResult()
        lists = {r.id: scope_list_of(r) for r in records}
        used = {hit.memory_id for hit in plan.matches}
        by_list: dict[ScopeList, list[str]] = {}
        for change in plan.changes:
            if change.memory_id in lists:
                kind = "r" if change.memory_id in used else "a"
                by_list.setdefault(lists[change.memory_id], []).extend(
                    [
                        kind,
                        change.memory_id,
                        _ordinal(change.last_counted_day),
                        _micros(change.last_matched_at),
                    ]
                )
        day = str(plan.day.toordinal())
        calls = [
            ("decay", [2, *self._k.parts(s, "recs", "ctr"), day, str(len(args) // 4), *args])
            for s, args in by_list.items()
        ]
        results = await self._run(calls) if calls else []
        advanced = tuple(_text(i) for adv, _ in results for i in adv)
        reset = tuple(_text(i) for _, rst in results for i in rst)
        return DecayResult(advanced=advanced, reset=reset)

    async def missing_vectors(self, scopes: Sequence[ScopeList], model: str) -> list[MemoryRecord]:
        """Records of ``scopes`` with no vector of ``model`` (all of them after an embedder change)."""
        return list((await self.snapshot(scopes)).missing_vectors(model))

    async def put_vectors(
        self, model: str, records: Sequence[MemoryRecord], vectors: npt.ArrayLike
    ) -> tuple[str, ...]:
        """Store the vectors of ``records`` (row i belongs to record i) for embedder ``model``.

        A list whose vectors belong to another model drops them first. A vector is stored only
        while the memory still has the text it was computed from, so a text edited meanwhile
        is not paired with a stale vector (it stays missing and is embedded again).

        Returns:
            The ids whose vectors were stored.

        Raises:
            InvalidInput: ``vector_shape`` when the rows do not match the records.
            StorageUnavailable: Redis failed.
        """
        matrix = np.ascontiguousarray(np.asarray(vectors, dtype="<f4"))
        if matrix.ndim != 2 or matrix.shape[0] != len(records):
            raise InvalidInput(
                f"Expected {len(records)} vector rows, got an array of shape {matrix.shape}.",
                code="vector_shape",
            )
        by_list: dict[ScopeList, list[str | bytes]] = {}
        for record, row in zip(records, matrix, strict=True):
            by_list.setdefault(scope_list_of(record), []).extend(
                [record.id, _text_hash(record.text), row.tobytes()]
            )
        calls = [
            ("vectors", [3, *self._k.parts(s, "meta", "ctr", "vecs"), model, str(len(args) // 3), *args])
            for s, args in by_list.items()
        ]
        results = await self._run(calls) if calls else []
        return tuple(_text(i) for _, stored in results for i in stored)

    async def locate(self, memory_id: str) -> ScopeList | None:
        """The list a memory id was last written to (a hint: load the list to confirm)."""
        raw = await self._run([("HGET", (self._k.index(), memory_id))])
        if raw[0] is None:
            return None
        found = await self._run([("HGET", (self._k.registry(), raw[0]))])
        return _SCOPE.decode(found[0]) if found[0] is not None else None

    async def known_lists(self) -> list[ScopeList]:
        """Every list ever saved into (for MEM-10 persona deletion and operator listings)."""
        raw = await self._run([("HVALS", (self._k.registry(),))])
        return sorted((_SCOPE.decode(v) for v in raw[0]), key=self._k.list_id)
