"""Where each memory lives, and who opted out of personal memory (DEC-10).

- ``mem:where``      HASH memory id → JSON ``ScopeList`` (so ``PATCH/DELETE /api/memories/{id}``
  find the list; a stale entry only points at a list that no longer has the id → 404).
- ``mem:used{mem:where}`` HASH memory id → msgpack ``MemoryUse`` (the last turn that used it; in
  ``mem:where``'s slot, so a write removes both in one transaction on a Redis Cluster).
- ``mem:tomb:{<id>}`` STRING a forgotten memory and its last use (msgpack ``Buried``), kept a few
  seconds for Undo (one key: a Redis Cluster reads and deletes it in one command).
- ``privacy:optout`` SET of users whose personal memories are never read, searched or saved.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

import msgspec
import redis.asyncio as aioredis
from redis.typing import EncodableT, FieldT

from engine.errors import StorageUnavailable
from engine.memory import ScopeList
from engine.memory.model import Buried, MemoryUse
from storage.errors import map_redis_errors
from storage.keys import KeyBuilder
from storage.replies import blob, text
from storage.shared import Call, Cooldown, run_split

__all__ = ["RedisMemoryDirectory"]

_SCOPE = msgspec.json.Decoder(ScopeList)
_BURIED = msgspec.msgpack.Decoder(Buried)
_USE = msgspec.msgpack.Decoder(MemoryUse)
log = logging.getLogger("hearth.storage")


class RedisMemoryDirectory:
    """The id → list index and the privacy opt-outs."""

    def __init__(self, client: aioredis.Redis, keys: KeyBuilder) -> None:
        self._r = client
        prefix = keys.prefix
        self._prefix = prefix
        self._where = f"{prefix}:mem:where"
        self._optout = f"{prefix}:privacy:optout"
        self._used = f"{prefix}:mem:used{{{self._where}}}"
        self._cooldown = Cooldown.of(client)

    async def locate(self, memory: str) -> ScopeList | None:
        """The list a memory id belongs to, or None."""
        with map_redis_errors():
            raw = await self._r.hget(self._where, memory)
        return _SCOPE.decode(raw) if raw is not None else None

    async def note_use(self, memories: Iterable[str], use: MemoryUse) -> None:
        """See ``engine.ports.Directory.note_use``."""
        packed = msgspec.msgpack.encode(use)
        mapping: dict[FieldT, EncodableT] = dict.fromkeys(memories, packed)
        if mapping:
            with map_redis_errors():
                await self._r.hset(self._used, mapping=mapping)

    async def uses(self, memories: Iterable[str]) -> dict[str, MemoryUse]:
        """See ``engine.ports.Directory.uses``."""
        wanted = list(dict.fromkeys(memories))
        if not wanted:
            return {}
        with map_redis_errors():
            raw = await self._r.hmget(self._used, wanted)
        return {m: _USE.decode(blob(v)) for m, v in zip(wanted, raw, strict=True) if v is not None}

    async def bury(self, buried: Buried, seconds: int) -> None:
        """See ``engine.ports.Directory.bury``."""
        with map_redis_errors():
            await self._r.set(self._tomb(buried.record.id), msgspec.msgpack.encode(buried), ex=seconds)

    async def unbury(self, memory: str) -> Buried | None:
        """See ``engine.ports.Directory.unbury``."""
        with map_redis_errors():
            raw = await self._r.getdel(self._tomb(memory))
        return _BURIED.decode(blob(raw)) if raw is not None else None

    def _tomb(self, memory: str) -> str:
        return f"{self._prefix}:mem:tomb:{{{memory}}}"

    async def record(self, placed: Iterable[tuple[str, ScopeList]], removed: Iterable[str]) -> None:
        """Note where memories were saved and which were deleted."""
        mapping: dict[FieldT, EncodableT] = {memory: msgspec.json.encode(scope) for memory, scope in placed}
        gone = [m for m in removed if m not in mapping]
        if not mapping and not gone:
            return
        with map_redis_errors():
            async with self._r.pipeline(transaction=True) as tx:
                if mapping:
                    tx.hset(self._where, mapping=mapping)
                if gone:
                    tx.hdel(self._where, *gone)
                    tx.hdel(self._used, *gone)
                await tx.execute()

    async def all_lists(self) -> list[ScopeList]:
        """Every list that holds a memory (a scan: for operator commands)."""
        with map_redis_errors():
            raw = await self._r.hvals(self._where)
        return list(dict.fromkeys(_SCOPE.decode(v) for v in raw))

    async def lists_of(self, persona: str) -> list[ScopeList]:
        """Every list holding a memory of ``persona`` (a scan: for rare admin operations)."""
        with map_redis_errors():
            raw = await self._r.hvals(self._where)
        scopes = (_SCOPE.decode(v) for v in raw)
        return list(dict.fromkeys(s for s in scopes if s.persona == persona))

    async def notice_level(self, space: str) -> str:
        """A space's memory-notice visibility (DEC-11): ``off``, ``brief`` (default) or ``full``."""
        with map_redis_errors():
            raw = await self._r.hget(self._settings(space), "memory_notices")
        return text(raw) if raw else "brief"

    async def set_notice_level(self, space: str, level: str) -> None:
        """Set a space's memory-notice visibility."""
        with map_redis_errors():
            await self._r.hset(self._settings(space), "memory_notices", level)

    def _settings(self, space: str) -> str:
        return f"{self._prefix}:space:{{{space}}}:settings"

    async def filters(self, users: Iterable[str], space: str) -> tuple[tuple[str, ...], frozenset[str]]:
        """In one round trip: which users opted out (DEC-10), and the space's blocked memory ids.

        The opt-outs are deployment-wide (another Cluster slot than the space's): while their node
        is unreachable every user counts as opted out, so nobody's personal memory is read on a
        guess, and the turn goes on with the space's memories.
        """
        wanted = list(dict.fromkeys(users))
        shared: list[Call] = [("SMISMEMBER", (self._optout, *wanted))] if wanted else []
        (blocked,), flags = await run_split(
            self._r, [("SMEMBERS", (self._blocked(space),))], shared, self._cooldown
        )
        if flags and isinstance(failed := flags[0], Exception):
            if not isinstance(failed, StorageUnavailable):
                raise failed
            log.info("privacy opt-outs unreachable (%s): no personal memory this turn", failed.message)
            return tuple(wanted), frozenset(m.decode() for m in blocked)
        opted = tuple(u for u, f in zip(wanted, flags[0] if flags else [], strict=True) if f)
        return opted, frozenset(m.decode() for m in blocked)

    async def set_blocked(self, space: str, memories: Iterable[str]) -> None:
        """Replace a space's blocklist: memories never searched, carried or aged there (DEC-10)."""
        ids = list(dict.fromkeys(memories))
        with map_redis_errors():
            async with self._r.pipeline(transaction=True) as tx:
                tx.delete(self._blocked(space))
                if ids:
                    tx.sadd(self._blocked(space), *ids)
                await tx.execute()

    def _blocked(self, space: str) -> str:
        return f"{self._prefix}:space:{{{space}}}:blocked"

    async def opted_out(self, users: Iterable[str]) -> tuple[str, ...]:
        """Which of ``users`` opted out of personal memory."""
        wanted = list(dict.fromkeys(users))
        if not wanted:
            return ()
        with map_redis_errors():
            flags = await self._r.smismember(self._optout, wanted)
        return tuple(u for u, f in zip(wanted, flags, strict=True) if f)

    async def set_privacy(self, user: str, *, personal_memory: bool) -> None:
        """Opt a user in to or out of personal memory."""
        with map_redis_errors():
            if personal_memory:
                await self._r.srem(self._optout, user)
            else:
                await self._r.sadd(self._optout, user)
