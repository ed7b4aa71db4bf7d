"""Password hashing off the event loop: a small thread pool and two waiting lines in front of it.

argon2 costs about 0.2 s of CPU per hash. A web process runs at most ``slots`` of them at once,
on its own threads (never the event loop's, never the default executor that other work uses),
and those threads run at a lower CPU priority (``nice`` +10 on Linux, where each thread has its
own), so a sign-in flood takes at most that share of the CPU and yields it to chat turns first.
Attempts wait for a slot in one of two lines, each capped (beyond the cap ``sign_in_busy`` at
once):

- the **first** line, served first: attempts the gates in front judged likely legitimate, ranked
  (an address the account signed in from before, then an address's first attempt, then its
  second...). The best rank is served first and, within a rank, the newest; when the line is
  full the oldest waiter of the worst rank gives way (``sign_in_busy``). So a burst of first
  attempts (a flood's many addresses starting at once) is over quickly, and a person arriving
  after it is served next instead of being turned away;
- the **other** line, first come first served, full means ``sign_in_busy`` for the newcomer:
  everything else (addresses that keep trying).

So attempts from addresses that keep failing never make a likely-legitimate person wait behind
them.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import TypeVar

__all__ = ["Busy", "HashGate"]

T = TypeVar("T")


def _lower_priority(nice: int) -> None:
    """Lower the calling thread's CPU priority (Linux: per thread; elsewhere nothing happens)."""
    if nice and hasattr(os, "setpriority"):
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), nice)


class Busy(Exception):
    """The waiting line an attempt belongs to is full."""


class HashGate:
    """At most ``slots`` hashes at once on ``slots`` threads; two capped waiting lines.

    An attempt's ``rank`` places it: ``None`` in the other line, ``0, 1, 2...`` in the first
    line, where a lower rank is served (and kept, when the line is full) before a higher one.
    """

    def __init__(self, slots: int, *, first_waiting: int, other_waiting: int, nice: int = 10) -> None:
        self._free = slots
        self._pool = ThreadPoolExecutor(
            max_workers=slots,
            thread_name_prefix="hearth-argon2",
            initializer=_lower_priority,
            initargs=(nice,),
        )
        self._first: dict[int, deque[asyncio.Future[None]]] = {}
        self._other: deque[asyncio.Future[None]] = deque()
        self._first_cap = first_waiting
        self._other_cap = other_waiting

    def waiting(self, first: bool) -> int:
        """How many attempts wait in a line."""
        return sum(len(line) for line in self._first.values()) if first else len(self._other)

    def _place(self, rank: int | None) -> deque[asyncio.Future[None]]:
        """The line a new waiter joins, making room when it may (else ``Busy``)."""
        if rank is None:
            if len(self._other) >= self._other_cap:
                raise Busy
            return self._other
        if self.waiting(True) >= self._first_cap:
            worst = max((r for r, line in self._first.items() if line), default=None)
            if worst is None or worst < rank:
                raise Busy
            self._first[worst].popleft().set_exception(Busy())  # its oldest gives way
        return self._first.setdefault(rank, deque())

    @asynccontextmanager
    async def _slot(self, rank: int | None) -> AsyncIterator[None]:
        if self._free > 0 and not self.waiting(True) and not self._other:
            self._free -= 1
        else:
            line = self._place(rank)
            ticket: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            line.append(ticket)
            try:
                await ticket
            except asyncio.CancelledError:
                if ticket in line:
                    line.remove(ticket)
                elif ticket.done() and not ticket.cancelled() and ticket.exception() is None:
                    self._release()  # a slot was handed over as the waiter was cancelled
                raise
        try:
            yield
        finally:
            self._release()

    def _next(self) -> asyncio.Future[None] | None:
        for rank in sorted(r for r, line in self._first.items() if line):
            return self._first[rank].pop()  # the first line: the best rank, newest first
        return self._other.popleft() if self._other else None  # the other: oldest first

    def _release(self) -> None:
        while (ticket := self._next()) is not None:
            if not ticket.done():
                ticket.set_result(None)
                return
        self._free += 1

    async def run(self, work: Callable[[], T], *, rank: int | None) -> T:
        """Run ``work`` on the hashing threads once a slot is free.

        Raises:
            Busy: the line is full (and this attempt ranks no better than those in it).
        """
        async with self._slot(rank):
            return await asyncio.get_running_loop().run_in_executor(self._pool, work)

    async def run_now(self, work: Callable[[], T]) -> T:
        """Run ``work`` on the hashing threads without taking a slot (the one-off dummy hash)."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, work)
