"""Leases: Redis locks that cannot outlive their holder (PLT-6).

A lease is one key holding a random token, set with a short TTL (``LEASE_TTL``, 10 s by
default) and renewed every third of it while the holder works. A holder that dies, or loses
Redis, stops renewing, so the key expires at most one TTL later, even when Redis restarts
from its AOF with the key in it. Release is compare-and-delete and never raises: after a
Redis error the key simply expires.

Renewal can still fail (Redis gone for longer than the TTL, a frozen process). Then another
holder may take the key, and the first one must not commit what it did under it: the holder's
final transaction is *fenced* — it WATCHes the key and commits only while the key still holds
its token (``fenced_pipeline``). The fence of the task's held leases travels in a context
variable, so the commit step needs no extra argument.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import secrets
import time
from collections.abc import AsyncIterator
from typing import Any

import redis.asyncio as aioredis
import redis.exceptions

from engine.errors import LockLost
from storage.errors import map_redis_errors

__all__ = ["LEASE_TTL", "Lease", "LeaseLost", "fenced_pipeline", "held_token"]

log = logging.getLogger("hearth.lease")

LEASE_TTL = 10.0
"""Seconds a lease lives without renewal: a dead holder's lock is free after at most this long."""

_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

# key -> token of the leases the current task holds (the fence its commit checks)
_HELD: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar("hearth_leases", default=None)


class LeaseLost(LockLost):
    """The holder's lease expired or was taken over before it committed; nothing was stored."""


def held_token(key: str) -> str | None:
    """The token of the lease on ``key`` that the current task holds, if any."""
    held = _HELD.get()
    return held.get(key) if held else None


def _mark(key: str, token: str | None) -> None:
    held = dict(_HELD.get() or {})
    if token is None:
        held.pop(key, None)
    else:
        held[key] = token
    _HELD.set(held)


class Lease:
    """One lease on ``key``: acquire, hold with renewal, release (an async context manager)."""

    def __init__(
        self,
        client: aioredis.Redis,
        key: str,
        *,
        ttl: float = LEASE_TTL,
        wait: float = 0.0,
    ) -> None:
        self._r = client
        self.key = key
        self.ttl = ttl
        self.wait = wait
        self.token = secrets.token_hex(16)
        self.lost = False
        self.acquired = False
        self._renewer: asyncio.Task[None] | None = None

    async def acquire(self) -> bool:
        """Take the key if free, polling up to ``wait`` seconds; whether this holder got it."""
        deadline = time.monotonic() + self.wait
        pause = 0.02
        with map_redis_errors():
            while True:
                if await self._r.set(self.key, self.token, nx=True, px=int(self.ttl * 1000)):
                    break
                if time.monotonic() >= deadline:
                    return False
                await asyncio.sleep(min(pause, max(0.0, deadline - time.monotonic())))
                pause = min(pause * 1.5, 0.25)
        self.acquired = True
        self._renewer = asyncio.create_task(self._renew())
        return True

    async def _renew(self) -> None:
        """Renew every third of the TTL; give up (``lost``) once the key is not ours or has expired."""
        ms = str(int(self.ttl * 1000))
        renewed = time.monotonic()
        while True:
            await asyncio.sleep(self.ttl / 3)
            try:
                ok = await self._r.eval(_RENEW, 1, self.key, self.token, ms)
            except redis.exceptions.RedisError as exc:
                if time.monotonic() - renewed >= self.ttl:
                    self._lose(f"Redis failed for longer than the TTL ({type(exc).__name__})")
                    return
                continue
            if not ok:
                self._lose("the key expired or another holder took it")
                return
            renewed = time.monotonic()

    def _lose(self, why: str) -> None:
        self.lost = True
        log.warning("lease %s lost: %s", self.key, why)

    async def release(self) -> None:
        """Stop renewing and delete the key if it is still ours; a Redis error is logged, not raised."""
        if self._renewer is not None:
            self._renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._renewer
            self._renewer = None
        if not self.acquired:
            return
        self.acquired = False
        try:
            await asyncio.wait_for(self._r.eval(_RELEASE, 1, self.key, self.token), timeout=self.ttl)
        except (redis.exceptions.RedisError, OSError, TimeoutError) as exc:
            log.warning("lease %s not released (%s); it expires by itself", self.key, type(exc).__name__)

    async def __aenter__(self) -> Lease:
        await self.acquire()
        if self.acquired:
            _mark(self.key, self.token)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if held_token(self.key) == self.token:
            _mark(self.key, None)
        await self.release()


@contextlib.asynccontextmanager
async def fenced_pipeline(client: aioredis.Redis, fence: str | None) -> AsyncIterator[Any]:
    """A MULTI pipeline that commits only while the lease on ``fence`` still holds this task's token.

    Yields a pipeline in MULTI mode; queue commands and ``await pipe.execute()`` as usual. Without
    a fence (``None``, or no lease held by this task), it is a plain MULTI pipeline.

    Raises:
        LeaseLost: the lease is gone or another holder has it; nothing was committed.
    """
    token = held_token(fence) if fence is not None else None
    if token is None:
        async with client.pipeline(transaction=True) as tx:
            yield tx
        return
    async with client.pipeline(transaction=True) as tx:
        yield _Fenced(tx, fence or "", token)


class _Fenced:
    """Queues commands, then WATCHes the fence, checks it and runs them in MULTI (retried on our renewal)."""

    def __init__(self, tx: Any, fence: str, token: str) -> None:
        self._tx = tx
        self._fence = fence
        self._token = token.encode()
        self._calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def __getattr__(self, name: str) -> Any:
        def queue(*args: Any, **kwargs: Any) -> _Fenced:
            self._calls.append((name, args, kwargs))
            return self

        return queue

    async def execute(self) -> list[Any]:
        for _ in range(5):
            await self._tx.watch(self._fence)
            if await self._tx.get(self._fence) != self._token:
                await self._tx.reset()
                raise LeaseLost("The lock was lost before this could be stored; another holder carries on.")
            self._tx.multi()
            for name, args, kwargs in self._calls:
                getattr(self._tx, name)(*args, **kwargs)
            try:
                return list(await self._tx.execute())
            except redis.exceptions.WatchError:
                continue  # our own renewal touched the key (or it was lost): check again
        raise LeaseLost("The lock kept changing while this was stored; another holder carries on.")
