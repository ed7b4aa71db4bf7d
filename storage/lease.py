"""Leases: Redis locks that cannot outlive their holder (PLT-6).

A lease is one key holding a random token, set with a short TTL (``LEASE_TTL``, 10 s by
default) and renewed every third of it while the holder works. A holder that dies, or loses
Redis, stops renewing, so the key expires at most one TTL later, even when Redis restarts
from its AOF with the key in it. Release is compare-and-delete and never raises: after a
Redis error the key simply expires.

Renewal can still fail (Redis gone for longer than the TTL, a frozen process). Then another
holder may take the key, and the first one must not commit what it did under it: the holder's
final write is *fenced* — a script that writes only while the key still holds its token
(``held_token`` gives the token to pass). The task's leases travel in a context variable, so the
commit step needs no extra argument.

Fewer round trips: a *lazy* lease is not taken when its ``async with`` starts but by
the holder's first read, which sets the key in the same script (``acquire_with``); and the fenced
commit may delete the key in the same script too (``ended``: the lease stops renewing).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import redis.asyncio as aioredis
import redis.exceptions

from engine.errors import LockLost
from storage.errors import map_redis_errors
from storage.scripts import lua

__all__ = ["LEASE_TTL", "Lease", "LeaseLost", "held_token", "lease_of"]

log = logging.getLogger("hearth.lease")

LEASE_TTL = 10.0
"""Seconds a lease lives without renewal: a dead holder's lock is free after at most this long."""

_T = TypeVar("_T")

# key -> the leases the current task holds, or holds lazily (to take with its first read)
_HELD: contextvars.ContextVar[dict[str, Lease] | None] = contextvars.ContextVar("hearth_leases", default=None)


class LeaseLost(LockLost):
    """The holder's lease expired or was taken over before it committed; nothing was stored."""


def lease_of(key: str) -> Lease | None:
    """The lease on ``key`` that the current task holds, or holds lazily and has yet to take."""
    held = _HELD.get()
    return held.get(key) if held else None


def held_token(key: str) -> str | None:
    """The token of the lease on ``key`` that the current task holds (and has taken), if any."""
    lease = lease_of(key)
    return lease.token if lease is not None and lease.acquired else None


def _mark(key: str, lease: Lease | None) -> None:
    held = dict(_HELD.get() or {})
    if lease is None:
        held.pop(key, None)
    else:
        held[key] = lease
    _HELD.set(held)


class Lease:
    """One lease on ``key``: acquire, hold with renewal, release (an async context manager).

    ``lazy``: the ``async with`` does not take the key; the holder's first read does
    (``acquire_with``), and ``acquired`` tells whether it has.
    """

    def __init__(
        self,
        client: aioredis.Redis,
        key: str,
        *,
        ttl: float = LEASE_TTL,
        wait: float = 0.0,
        lazy: bool = False,
    ) -> None:
        self._r = client
        self.key = key
        self.ttl = ttl
        self.wait = wait
        self.lazy = lazy
        self.token = secrets.token_hex(16)
        self.lost = False
        self.acquired = False
        self._renewer: asyncio.Task[None] | None = None
        self._renew_script = client.register_script(lua("lease_renew"))
        self._release_script = client.register_script(lua("lease_release"))

    @property
    def ttl_ms(self) -> int:
        return int(self.ttl * 1000)

    async def acquire(self) -> bool:
        """Take the key if free, polling up to ``wait`` seconds; whether this holder got it."""

        async def take(token: str, ttl_ms: int) -> bool | None:
            with map_redis_errors():
                return True if await self._r.set(self.key, token, nx=True, px=ttl_ms) else None

        return await self.acquire_with(take, took=bool) is not None

    async def acquire_with(
        self, attempt: Callable[[str, int], Awaitable[_T | None]], *, took: Callable[[_T], bool]
    ) -> _T | None:
        """Take the key inside another call, polling up to ``wait`` seconds.

        ``attempt(token, ttl_ms)`` sets the key to ``token`` with ``SET NX PX`` when it needs the
        lease, and returns None when the key is busy; the lease is held from then on when
        ``took(result)``. Returns the first result that was not None, or None if the key stayed busy.
        """
        deadline = time.monotonic() + self.wait
        pause = 0.02
        while (result := await attempt(self.token, self.ttl_ms)) is None:
            if time.monotonic() >= deadline:
                return None
            await asyncio.sleep(min(pause, max(0.0, deadline - time.monotonic())))
            pause = min(pause * 1.5, 0.25)
        if took(result):
            self.acquired = True
            self._renewer = asyncio.create_task(self._renew())
        return result

    async def _renew(self) -> None:
        """Renew every third of the TTL; give up (``lost``) once the key is not ours or has expired."""
        renewed = time.monotonic()
        while True:
            await asyncio.sleep(self.ttl / 3)
            try:
                ok = await self._renew_script([self.key], [self.token, self.ttl_ms], self._r)
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

    async def _stop_renewing(self) -> None:
        if self._renewer is not None:
            self._renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._renewer
            self._renewer = None

    async def ended(self) -> None:
        """The holder's own fenced commit deleted the key: stop renewing (a lazy lease may be taken again)."""
        await self._stop_renewing()
        self.acquired = False

    async def release(self) -> None:
        """Stop renewing and delete the key if it is still ours; a Redis error is logged, not raised."""
        await self._stop_renewing()
        if not self.acquired:
            return
        self.acquired = False
        try:
            await asyncio.wait_for(self._release_script([self.key], [self.token], self._r), timeout=self.ttl)
        except (redis.exceptions.RedisError, OSError, TimeoutError) as exc:
            log.warning("lease %s not released (%s); it expires by itself", self.key, type(exc).__name__)

    async def __aenter__(self) -> Lease:
        if not self.lazy:
            await self.acquire()
        if self.lazy or self.acquired:
            _mark(self.key, self)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if lease_of(self.key) is self:
            _mark(self.key, None)
        await self.release()
