"""Open chat sockets bound to their session: signing out closes them, on every web process.

A signed-in browser's WebSocket is registered under its username and session id while it is
open. Signing out (one session) or signing out everywhere (every session of the account) is
announced on a Redis stream (``RedisAccountStore.announce_sign_out``); each web process follows
that stream (:class:`SignOutFeed`, one blocking read of at most a second at a time, resuming
from the last entry it saw, so nothing is missed while Redis answers) and closes its matching
sockets with the close code ``4401`` after an ``error`` frame ``signed_out``. The process that
signs out closes its own sockets at once, without waiting for the stream. Should the stream be
unreachable, the socket still checks its session before it starts each reply, so a revoked
session never gets another answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterator

from adapters.web.session import BrowserSession
from engine.errors import HearthError
from storage.redis_accounts import RedisAccountStore

__all__ = ["EVERY_SESSION", "SIGNED_OUT", "OpenSockets", "SignOutFeed"]

log = logging.getLogger("hearth.web")

SIGNED_OUT = 4401
"""The WebSocket close code of a socket whose session was signed out."""
EVERY_SESSION = "*"
"""The session id that stands for every session of an account ("sign out everywhere")."""
STOP_SECONDS = 2.0
"""How long a shutdown waits for the sign-out feed to stop after cancelling it."""

Closer = Callable[[], Awaitable[None]]


class OpenSockets:
    """This process's signed-in sockets by username and session id."""

    def __init__(self) -> None:
        self._open: dict[str, dict[int, tuple[str, Closer]]] = {}
        self._next = 0

    @contextlib.contextmanager
    def bound(self, session: BrowserSession, close: Closer) -> Iterator[None]:
        """Register a socket while the ``with`` block runs (guests have nothing to sign out)."""
        if session.guest:
            yield
            return
        self._next += 1
        number = self._next
        self._open.setdefault(session.slug, {})[number] = (session.sid, close)
        try:
            yield
        finally:
            sockets = self._open.get(session.slug, {})
            sockets.pop(number, None)
            if not sockets:
                self._open.pop(session.slug, None)

    def count(self, username: str) -> int:
        """How many sockets of the account are open here."""
        return len(self._open.get(username, {}))

    async def close(self, username: str, sid: str) -> int:
        """Close the account's sockets of session ``sid`` (every one for ``EVERY_SESSION``)."""
        sockets = self._open.get(username, {})
        numbers = [number for number, (session, _) in sockets.items() if sid in (EVERY_SESSION, session)]
        matching = [sockets.pop(number)[1] for number in numbers]
        if not sockets:
            self._open.pop(username, None)
        for close in matching:
            with contextlib.suppress(Exception):  # a socket that went away meanwhile
                await close()
        return len(matching)


class SignOutFeed:
    """Follows every web process's sign-outs and closes the matching sockets of this one."""

    def __init__(self, store: RedisAccountStore, sockets: OpenSockets, *, block_ms: int = 1000) -> None:
        self._store = store
        self._sockets = sockets
        self._block_ms = block_ms
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Start following (from now on)."""
        if self._task is None:
            self._task = asyncio.create_task(self._follow(), name="hearth-sign-out-feed")

    async def stop(self) -> None:
        """Stop following."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            # bounded: a blocking read that ignores its cancellation must not hold the shutdown
            done, _ = await asyncio.wait({task}, timeout=STOP_SECONDS)
            if not done:
                log.warning("the sign-out feed did not stop within %.0f s; left behind", STOP_SECONDS)

    async def _follow(self) -> None:
        cursor: str | None = None
        while True:
            try:
                if cursor is None:
                    cursor = await self._store.sign_out_cursor()
                cursor, signed_out = await self._store.sign_outs(cursor, block_ms=self._block_ms)
            except HearthError as exc:
                log.warning("sign-out feed: %s; retrying in 1 s", exc.code)
                await asyncio.sleep(1)
                continue
            except Exception:
                log.exception("sign-out feed failed; retrying in 1 s")
                await asyncio.sleep(1)
                continue
            for username, sid in signed_out:
                closed = await self._sockets.close(username, sid)
                if closed:
                    log.info("closed %d signed-out socket(s)", closed)
