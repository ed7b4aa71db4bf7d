"""The chat limits of a web process (issue 29, finding 4): replies in flight and messages a minute.

A session or user beyond its limits is refused at once, before anything touches Redis, and a
refusal counts nothing; other keys are never affected.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from adapters.web.limits import SHARED_SECONDS, ChatLimited, ChatLimiter, ChatLimits
from engine.errors import StorageUnavailable


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_a_key_with_its_replies_running_is_refused_until_one_ends() -> None:
    limiter = ChatLimiter(ChatLimits(concurrent=2, per_minute=100), clock=Clock())
    first = await limiter.admit(["session:a", "user:a"])
    second = await limiter.admit(["session:a", "user:a"])
    with pytest.raises(ChatLimited) as refused:
        await limiter.admit(["session:a", "user:a"])
    assert refused.value.code == "too_many_replies" and refused.value.retry_after == 1
    assert await limiter.admit(["session:b", "user:b"])  # another user is not affected
    with pytest.raises(ChatLimited):  # the same user from another session shares the user's slots
        await limiter.admit(["session:a2", "user:a"])
    first.release()
    first.release()  # releasing twice frees one slot only
    with second:
        third = await limiter.admit(["session:a", "user:a"])
    third.release()


async def test_messages_a_minute_refill_and_a_refusal_costs_nothing() -> None:
    clock = Clock()
    limiter = ChatLimiter(ChatLimits(concurrent=50, per_minute=3), clock=clock)
    for _ in range(3):
        (await limiter.admit(["user:a"])).release()
    with pytest.raises(ChatLimited) as refused:
        await limiter.admit(["user:a"])
    assert refused.value.code == "too_many_messages" and refused.value.retry_after == 20
    clock.now += 20  # one token back (3 a minute)
    (await limiter.admit(["user:a"])).release()
    with pytest.raises(ChatLimited):
        await limiter.admit(["user:a"])
    (await limiter.admit(["user:b"])).release()


async def test_the_shared_bucket_refuses_and_frees_the_slot() -> None:
    asked: list[tuple[str, int, float]] = []

    async def shared(key: str, capacity: int, rate: float) -> float:
        asked.append((key, capacity, rate))
        return 12.5 if len(asked) > 1 else 0.0

    limiter = ChatLimiter(ChatLimits(concurrent=1, per_minute=30), shared=shared, clock=Clock())
    ticket = await limiter.admit(["user:a"], shared_key="chat:bucket:user:a")
    ticket.release()
    with pytest.raises(ChatLimited) as refused:
        await limiter.admit(["user:a"], shared_key="chat:bucket:user:a")
    assert refused.value.code == "too_many_messages" and refused.value.retry_after == 13
    assert asked[0] == ("chat:bucket:user:a", 30, 0.5)
    limiter.check(["user:a"])  # the refused message holds no slot


async def test_an_unreachable_shared_bucket_admits_on_the_process_counters() -> None:
    """Issue 29 (Cluster failover): the node holding a user's shared bucket being away does not
    stop their chat; this process's own per-minute and in-flight counters still apply."""

    async def away(key: str, capacity: int, rate: float) -> float:
        raise StorageUnavailable("Redis is unreachable.")

    limiter = ChatLimiter(ChatLimits(concurrent=1, per_minute=30), shared=away, clock=Clock())
    ticket = await limiter.admit(["user:a"], shared_key="api:bucket:user:a")
    with pytest.raises(ChatLimited) as refused:
        await limiter.admit(["user:a"], shared_key="api:bucket:user:a")
    assert refused.value.code == "too_many_replies"  # the in-flight slot is still counted
    ticket.release()


async def test_a_shared_bucket_that_does_not_answer_is_left_alone_for_a_while() -> None:
    """A bucket node that hangs (failing over) delays a message by SHARED_SECONDS at most, and the
    next messages do not ask it until SHARED_PAUSE has passed."""
    asked: list[str] = []
    clock = Clock()

    async def hangs(key: str, capacity: int, rate: float) -> float:
        asked.append(key)
        await asyncio.sleep(30)
        return 0.0

    limiter = ChatLimiter(ChatLimits(concurrent=5, per_minute=30), shared=hangs, clock=clock)
    started = time.monotonic()
    (await limiter.admit(["user:a"], shared_key="api:bucket:user:a")).release()
    assert time.monotonic() - started < SHARED_SECONDS + 1.0
    (await limiter.admit(["user:a"], shared_key="api:bucket:user:a")).release()
    assert asked == ["api:bucket:user:a"]  # paused: not asked again
