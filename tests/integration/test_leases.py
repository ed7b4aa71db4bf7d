"""Leases on a real Redis (PLT-6, SUM-5): chat and summary locks cannot outlive their holder.

Two services on two clients stand in for two web processes; a summary job read by a consumer
that never acknowledges it, with its lease left behind, stands in for a worker killed mid-job.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
import redis.asyncio as aioredis

from adapters.llm.tokens import OfflineTokenCounter
from adapters.worker.jobs import JobRunner
from engine.errors import Conflict
from engine.model import IncomingMessage, Persona
from engine.service import ChatService, ReplyDone, ServicePolicy
from engine.service.summaries import SummaryDesk
from engine.summary import SummaryPolicy
from engine.window import WindowPolicy
from storage.keys import KeyBuilder
from storage.lease import Lease, LeaseLost
from storage.redis_chat import RedisChatLock, RedisChatStore, RedisPersonaStore
from storage.redis_lore import RedisLoreStore
from storage.redis_summary import GROUP, RedisSummaryStore
from tests.fakes.ports import FixedClock, ScriptedChatModel
from tests.fixtures.servers import RedisServer, fresh_db
from tests.integration.test_summaries import Summarizer, chatter

pytestmark = pytest.mark.integration

KEYS = KeyBuilder(prefix="lease")
PERSONA = Persona(id="default", name="Ember", system_prompt="You are Ember, a warm innkeeper.")
T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
CHAT = "web:tavern"
TTL = 0.6  # a short lease so the tests outlast it many times over


@pytest.fixture
async def redis(redis_server: RedisServer) -> AsyncIterator[aioredis.Redis]:
    async with fresh_db(redis_server, 14) as client:
        yield client


@pytest.fixture
async def other(redis_server: RedisServer, redis: aioredis.Redis) -> AsyncIterator[aioredis.Redis]:
    """A second connection pool: the second web process."""
    async with redis_server.client(14) as client:  # closed even when the test fails
        yield client


def service(client: aioredis.Redis, model: ScriptedChatModel) -> ChatService:
    return ChatService(
        chats=RedisChatStore(client, KEYS),
        lock=RedisChatLock(client, KEYS, ttl=TTL, wait=30),
        personas=RedisPersonaStore(client, KEYS),
        lore=RedisLoreStore(client, KEYS),
        model=model,
        counter=OfflineTokenCounter(),
        clock=FixedClock(T0),
        policy=ServicePolicy(),
    )


def message(text: str, minute: int) -> IncomingMessage:
    return IncomingMessage(
        platform="web",
        space=CHAT,
        chat=CHAT,
        user="web:mira",
        display_name="Mira",
        text=text,
        sent_at=T0 + timedelta(minutes=minute),
    )


async def say(chat: ChatService, text: str, minute: int) -> list[object]:
    accepted = await chat.accept(message(text, minute), "default")
    return [e async for e in accepted.events]


async def replies(client: aioredis.Redis) -> list[tuple[str, str]]:
    """(the message it answers, reply text) of every stored reply, in log order."""
    log = await RedisChatStore(client, KEYS).history(CHAT, 100)
    return [(m.reply_to or "", m.text) for m in log if m.role == "assistant"]


async def test_plt6_a_turn_slower_than_the_lock_ttl_keeps_its_lock_and_is_answered_once(
    redis: aioredis.Redis, other: aioredis.Redis
) -> None:
    """Finding 5: a turn 5x longer than the TTL renews its lease; the second process waits its turn."""
    await RedisPersonaStore(redis, KEYS).put(PERSONA)
    slow = ScriptedChatModel("Welcome in, Mira, the stew is nearly ready.", delay=TTL * 2.5)
    quick = ScriptedChatModel("Of course, a room by the fire.")
    first = asyncio.create_task(say(service(redis, slow), "Hello Ember, anything warm tonight?", 0))
    await asyncio.sleep(TTL * 2)  # well past the TTL: an unrenewed lock would have expired by now
    second = await say(service(other, quick), "And could I have a room?", 1)
    done = await first
    assert isinstance(done[-1], ReplyDone) and isinstance(second[-1], ReplyDone)
    assert await replies(redis) == [
        ("m1", "Welcome in, Mira, the stew is nearly ready."),
        ("m2", "Of course, a room by the fire."),
    ]
    assert len(quick.prompts) == 1  # the second process answered only its own message
    assert await redis.exists(KEYS.lock(CHAT)) == 0  # released


async def test_plt6_a_turn_that_lost_its_lock_stores_no_reply(redis: aioredis.Redis) -> None:
    """The fence: once another holder has the chat's lock, the old turn's commit stores nothing."""
    await RedisPersonaStore(redis, KEYS).put(PERSONA)
    slow = ScriptedChatModel("This reply comes too late.", delay=TTL)
    turn = asyncio.create_task(say(service(redis, slow), "Is the cellar door locked?", 0))
    while not slow.prompts:  # the turn holds the lock and waits on the model
        await asyncio.sleep(0.01)
    # as if the lease had expired while the process froze, and another process took the chat
    await redis.set(KEYS.lock(CHAT), "someone-else", px=60_000)
    with pytest.raises(LeaseLost):
        await turn
    assert await replies(redis) == []
    pending = await RedisChatStore(redis, KEYS).oldest_pending(CHAT, 10)
    assert pending is not None and pending.id == "m1"  # still waits for the holder that has the lock
    assert await redis.get(KEYS.lock(CHAT)) == b"someone-else"  # the other holder's lock is untouched


async def test_plt6_a_chat_busy_longer_than_the_wait_answers_chat_busy_and_keeps_the_message(
    redis: aioredis.Redis,
) -> None:
    """The lock is taken by the turn's read (issue 12); a holder that keeps it makes the read give up."""
    await RedisPersonaStore(redis, KEYS).put(PERSONA)
    await redis.set(KEYS.lock(CHAT), "someone-else", px=60_000)
    model = ScriptedChatModel("Not now.")
    chat = ChatService(
        chats=RedisChatStore(redis, KEYS),
        lock=RedisChatLock(redis, KEYS, ttl=TTL, wait=0.3),
        personas=RedisPersonaStore(redis, KEYS),
        lore=RedisLoreStore(redis, KEYS),
        model=model,
        counter=OfflineTokenCounter(),
        clock=FixedClock(T0),
        policy=ServicePolicy(),
    )
    with pytest.raises(Conflict) as busy:
        await say(chat, "Is anyone there?", 0)
    assert busy.value.code == "chat_busy"
    assert model.prompts == []  # the model was never asked
    pending = await RedisChatStore(redis, KEYS).oldest_pending(CHAT, 10)
    assert pending is not None and pending.id == "m1"  # answered by the holder, or the next message
    assert await redis.get(KEYS.lock(CHAT)) == b"someone-else"


async def test_plt6_a_lease_whose_holder_died_frees_the_chat_within_its_ttl(redis: aioredis.Redis) -> None:
    """Finding 1: a lock left behind (the holder died or its release failed) expires by itself."""
    await RedisPersonaStore(redis, KEYS).put(PERSONA)
    dead = Lease(redis, KEYS.lock(CHAT), ttl=TTL)
    assert await dead.acquire()
    assert dead._renewer is not None
    dead._renewer.cancel()  # the holder stops renewing: it died (its release never runs)
    started = time.monotonic()
    done = await say(service(redis, ScriptedChatModel("Good evening, Mira.")), "Evening, Ember!", 0)
    assert isinstance(done[-1], ReplyDone) and done[-1].reply == "Good evening, Mira."
    assert time.monotonic() - started < TTL + 1.5


async def test_plt6_release_after_a_redis_error_does_not_raise(redis_server: RedisServer) -> None:
    """A release that cannot reach Redis is logged, not raised: the turn's result still reaches the user."""
    client = redis_server.client(14)
    lease = Lease(client, KEYS.lock("web:cut"), ttl=TTL)
    assert await lease.acquire()
    await client.aclose()
    broken = aioredis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.2)  # nobody listens
    lease._r = broken
    await lease.release()  # must not raise
    await broken.aclose()


async def test_sum5_a_job_left_by_a_killed_worker_is_reclaimed_and_done(redis: aioredis.Redis) -> None:
    """Finding 6: the dead worker's job is claimed again once its lease expires, and summarized.

    Before: the reclaiming worker found the dead worker's 300 s lock, acknowledged the job
    without summarizing, and the backlog stayed in neither the window nor a summary.
    """
    keys = KeyBuilder(prefix="s6")
    await RedisPersonaStore(redis, keys).put(PERSONA)
    store = RedisSummaryStore(redis, keys)
    desk = SummaryDesk(
        store=store,
        model=Summarizer(),
        personas=RedisPersonaStore(redis, keys),
        clock=FixedClock(T0),
        policy=SummaryPolicy(chunk_messages=10),
        window=WindowPolicy(max_messages=20),
        default_model="m",
    )
    chat = ChatService(
        chats=RedisChatStore(redis, keys),
        lock=RedisChatLock(redis, keys),
        personas=RedisPersonaStore(redis, keys),
        lore=RedisLoreStore(redis, keys),
        model=ScriptedChatModel(),
        counter=OfflineTokenCounter(),
        clock=FixedClock(T0),
        policy=ServicePolicy(),
        summaries=desk,
    )
    await chatter(chat, 34)
    await store.ensure_group()
    assert await store.enqueue("web:saga")
    # the worker that dies: it takes the job, holds the summary lease, and is killed -9
    stream = store.streams_of("web:saga")[0]  # the chat's shard of the job queue
    taken = await redis.xreadgroup(GROUP, "dead-worker", {stream: ">"}, count=10)
    assert taken and taken[0][1]
    await redis.set(keys.chat("web:saga", "summary_lock"), "dead-worker-token", px=int(TTL * 1000))
    live = JobRunner(desk, store, consumer="live-worker", block_ms=50, reclaim_ms=300)
    deadline = time.monotonic() + 10
    while not (await store.state("web:saga")).tiers and time.monotonic() < deadline:
        await live.run_once()
        await asyncio.sleep(0.1)
    state = await store.state("web:saga")
    assert state.tiers, "the reclaimed job was never done"
    assert [t.messages for t in state.tiers] == [10]  # one chunk, once (the window keeps the rest)
    pending = await redis.xpending(stream, GROUP)
    assert pending["pending"] == 0  # acknowledged only after it ran
