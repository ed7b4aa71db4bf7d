"""Password hashing's waiting lines (issue 29, finding 6): attempts judged likely legitimate are
served before the repeated guesses of a flood, each line is capped, and hashes run on their own
threads, never more at once than the slots."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable

import pytest

from adapters.web.hashing import Busy, HashGate


def _recorder(order: list[str], release: threading.Event) -> Callable[[str], str]:
    """Work that records its name; the one named "running" holds its slot until ``release``."""

    def work(name: str) -> str:
        if name == "running":
            release.wait(5)
        order.append(name)
        return name

    return work


async def test_the_first_line_is_served_before_the_other_and_both_are_capped() -> None:
    gate = HashGate(1, first_waiting=2, other_waiting=2)
    order: list[str] = []
    release = threading.Event()
    work = _recorder(order, release)

    running = asyncio.create_task(gate.run(lambda: work("running"), rank=None))
    await asyncio.sleep(0.05)
    guesses = [asyncio.create_task(gate.run(lambda n=n: work(f"guess{n}"), rank=None)) for n in range(2)]
    await asyncio.sleep(0.01)
    with pytest.raises(Busy):  # the other line is full
        await gate.run(lambda: work("guess2"), rank=None)
    person = asyncio.create_task(gate.run(lambda: work("person"), rank=1))
    await asyncio.sleep(0.01)
    assert gate.waiting(True) == 1 and gate.waiting(False) == 2
    release.set()
    await asyncio.gather(running, person, *guesses)
    assert order == ["running", "person", "guess0", "guess1"]


async def test_hashes_run_off_the_event_loop_never_more_than_the_slots() -> None:
    gate = HashGate(2, first_waiting=10, other_waiting=10)
    running, most = 0, 0
    lock = threading.Lock()
    loop_thread = threading.get_ident()

    def work() -> int:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.15)
        with lock:
            running -= 1
        return threading.get_ident()

    done = asyncio.Event()
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            await asyncio.sleep(0.01)

    async def hashes() -> list[int]:
        try:
            return await asyncio.gather(*(gate.run(work, rank=1 if n % 2 == 0 else None) for n in range(8)))
        finally:
            done.set()

    threads, _ = await asyncio.gather(hashes(), ticker())
    assert most == 2 and loop_thread not in threads
    # the loop kept running while the hashes did: 0.6 s of hashing is ~60 ticks on a quiet machine;
    # hashes on the loop itself would leave the ticker no turn until they were done
    assert ticks >= 3


async def test_a_cancelled_waiter_gives_its_place_back() -> None:
    gate = HashGate(1, first_waiting=1, other_waiting=1)
    release = threading.Event()
    running = asyncio.create_task(gate.run(lambda: release.wait(5), rank=1))
    await asyncio.sleep(0.05)
    waiter = asyncio.create_task(gate.run(lambda: "never", rank=1))
    await asyncio.sleep(0.01)
    waiter.cancel()
    await asyncio.sleep(0.01)
    assert gate.waiting(True) == 0
    release.set()
    await running
    assert await gate.run(lambda: "next", rank=1) == "next"


async def test_the_first_line_serves_the_newest_and_a_full_one_turns_the_oldest_away() -> None:
    """A burst of first attempts is over quickly: a person arriving after it is served next."""
    gate = HashGate(1, first_waiting=2, other_waiting=2)
    order: list[str] = []
    release = threading.Event()
    work = _recorder(order, release)

    running = asyncio.create_task(gate.run(lambda: work("running"), rank=1))
    await asyncio.sleep(0.05)
    burst = [asyncio.create_task(gate.run(lambda n=n: work(f"burst{n}"), rank=1)) for n in range(3)]
    await asyncio.sleep(0.01)
    person = asyncio.create_task(gate.run(lambda: work("person"), rank=1))
    await asyncio.sleep(0.01)
    release.set()
    results = await asyncio.gather(running, person, *burst, return_exceptions=True)
    assert [isinstance(r, Busy) for r in results] == [False, False, True, True, False]
    assert order == ["running", "person", "burst2"]
