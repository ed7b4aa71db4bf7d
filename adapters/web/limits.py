"""Chat limits of the web process: replies in flight and messages per minute, per session and user.

One browser (or one user named by the operator API) must not be able to take the process's
Redis connections and model calls away from everyone else. Every message or regenerate that
would start a reply passes :meth:`ChatLimiter.admit` first, with the keys it counts against: the
browser session and the user on the WebSocket, the user on the operator's REST chat.

- **Replies in flight** (``concurrent``, default 2): a key with that many replies still running
  is refused at once (``too_many_replies``); nothing waits in a queue, so a session's backlog
  never holds a Redis connection, a model call or memory. The slot is freed when the reply ends
  (also when its socket went away mid-reply: the turn still finishes and is stored).
- **Messages per minute** (``per_minute``, default 30): a token bucket per key in this process
  (``per_minute`` at once, refilled at ``per_minute`` a minute), refused with
  ``too_many_messages`` and the seconds until a message is allowed again. The user's bucket is
  also kept in Redis (``bucket``), so a user's sockets on several web processes share it; that
  costs one Redis call per admitted message, never one per refused message.

Both are checked before anything touches Redis: a flood of frames is refused in memory. The
limits are per key, far below the Redis pool of a process (100 connections), so other users'
turns keep their connections.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Awaitable, Callable, Sequence

import msgspec

from engine.errors import HearthError, StorageUnavailable

log = logging.getLogger("hearth.web.limits")

__all__ = ["ChatLimited", "ChatLimiter", "ChatLimits", "SharedBucket", "Ticket"]

SharedBucket = Callable[[str, int, float], Awaitable[float]]
"""Takes a token from a shared bucket (key, capacity, tokens a second): 0, or seconds to wait."""

_PRUNE_AT = 10_000  # keys kept before idle, full buckets are forgotten
SHARED_SECONDS = 0.5
"""The longest a message waits for the shared bucket; past it (or on a Redis error) it is admitted
on this process's counters alone."""
SHARED_PAUSE = 2.0
"""Seconds the shared bucket is left alone after it failed (its node may be failing over)."""


class ChatLimits(msgspec.Struct, frozen=True, kw_only=True):
    """The chat limits (``HEARTH_CHAT_CONCURRENT``, ``HEARTH_CHAT_PER_MINUTE``)."""

    concurrent: int = 2
    per_minute: int = 30


class ChatLimited(HearthError):
    """A message refused by a chat limit; ``retry_after`` seconds until one would be admitted."""

    default_code = "too_many_messages"

    def __init__(self, message: str, *, code: str, retry_after: int) -> None:
        super().__init__(message, code=code)
        self.retry_after = max(retry_after, 1)


class _Bucket:
    __slots__ = ("at", "tokens")

    def __init__(self, tokens: float, at: float) -> None:
        self.tokens = tokens
        self.at = at


class ChatLimiter:
    """The in-process counters of :class:`ChatLimits` (one per web process)."""

    def __init__(
        self,
        limits: ChatLimits,
        *,
        shared: SharedBucket | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limits = limits
        self._shared = shared
        self._clock = clock
        self._running: dict[str, int] = {}
        self._buckets: dict[str, _Bucket] = {}
        self._shared_back = 0.0  # clock value before which the shared bucket is not asked

    @property
    def _rate(self) -> float:
        return self.limits.per_minute / 60

    def _refill(self, key: str, now: float) -> _Bucket:
        capacity = self.limits.per_minute
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket(float(capacity), now)
        bucket.tokens = min(float(capacity), bucket.tokens + (now - bucket.at) * self._rate)
        bucket.at = now
        return bucket

    def _prune(self, now: float) -> None:
        if len(self._buckets) < _PRUNE_AT:
            return
        full = float(self.limits.per_minute)
        for key in [k for k, b in self._buckets.items() if b.tokens + (now - b.at) * self._rate >= full]:
            if key not in self._running:
                del self._buckets[key]

    def check(self, keys: Sequence[str]) -> None:
        """Refuse (without taking anything) when a key has too many replies running or no token.

        Raises:
            ChatLimited: ``too_many_replies`` or ``too_many_messages``.
        """
        for key in keys:
            if self._running.get(key, 0) >= self.limits.concurrent:
                raise ChatLimited(
                    f"{self.limits.concurrent} replies are still being written; wait for one to finish.",
                    code="too_many_replies",
                    retry_after=1,
                )
        now = self._clock()
        for key in keys:
            bucket = self._refill(key, now)
            if bucket.tokens < 1:
                raise _too_many(self.limits.per_minute, (1 - bucket.tokens) / self._rate)

    def _add(self, keys: Sequence[str], step: int) -> None:
        for key in keys:
            left = self._running.get(key, 0) + step
            if left > 0:
                self._running[key] = left
            else:
                self._running.pop(key, None)

    async def admit(self, keys: Sequence[str], *, shared_key: str | None = None) -> Ticket:
        """Count one message against ``keys`` (and ``shared_key``'s bucket in Redis, when given).

        Returns:
            The reply's in-flight slots: ``with ticket:`` around the reply (or ``release()``).

        Raises:
            ChatLimited: ``too_many_replies`` or ``too_many_messages`` (nothing was counted).
        """
        self._prune(self._clock())
        self.check(keys)
        for key in keys:
            self._buckets[key].tokens -= 1
        ticket = Ticket(self, tuple(keys))  # running from here, also while Redis answers
        if self._shared is not None and shared_key is not None and self._clock() >= self._shared_back:
            try:
                async with asyncio.timeout(SHARED_SECONDS):
                    wait = await self._shared(shared_key, self.limits.per_minute, self._rate)
            except (StorageUnavailable, TimeoutError) as exc:
                # the bucket's node is away or slow (a Cluster failover): this process's own
                # counters still apply, and a chat whose keys are reachable goes on answering
                reason = exc.message if isinstance(exc, StorageUnavailable) else "no answer in time"
                log.warning("chat limits not shared for %.0f s: %s", SHARED_PAUSE, reason)
                self._shared_back = self._clock() + SHARED_PAUSE
                wait = 0.0
            except BaseException:
                ticket.release()
                raise
            if wait:
                ticket.release()
                raise _too_many(self.limits.per_minute, wait)
        return ticket


class Ticket:
    """The in-flight slots of one admitted reply: held from admission until it is released."""

    def __init__(self, limiter: ChatLimiter, keys: tuple[str, ...]) -> None:
        self._limiter = limiter
        self._keys = keys
        self._held = True
        limiter._add(keys, 1)

    def release(self) -> None:
        """Free the slots (once; later calls do nothing)."""
        if self._held:
            self._held = False
            self._limiter._add(self._keys, -1)

    def __enter__(self) -> Ticket:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _too_many(per_minute: int, wait: float) -> ChatLimited:
    seconds = max(1, math.ceil(wait))
    return ChatLimited(
        f"More than {per_minute} messages a minute; try again in {seconds} s.",
        code="too_many_messages",
        retry_after=seconds,
    )
