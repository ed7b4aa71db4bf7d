"""Summary tiers end to end in-process on a real Redis: SUM-1..5, jobs, crashes, two workers."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
import redis.asyncio as aioredis

from adapters.llm.tokens import OfflineTokenCounter
from adapters.worker.jobs import JobRunner
from engine.model import IncomingMessage, ModelSettings, Persona
from engine.ports import ModelDone, ModelEvent, TextDelta
from engine.prompt import Prompt
from engine.requestlog import Usage
from engine.service import ChatService, ReplyDone, ServicePolicy
from engine.service.summaries import SummaryDesk
from engine.summary import SummaryPolicy
from engine.tools import ToolSpec
from engine.window import WindowPolicy
from storage.keys import KeyBuilder
from storage.redis_chat import RedisChatLock, RedisChatStore, RedisPersonaStore
from storage.redis_lore import RedisLoreStore
from storage.redis_summary import RedisSummaryStore
from tests.fakes.ports import FixedClock, ScriptedChatModel
from tests.fixtures.servers import RedisServer, fresh_db

pytestmark = pytest.mark.integration

PERSONA = Persona(id="default", name="Ember", system_prompt="You are Ember.")
T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
CHAT = "web:saga"


class Summarizer:
    """A chat model for summaries: names what it summarized; can crash, be slow, count overlaps."""

    provider = "scripted"

    def __init__(self, *, delay: float = 0.0, crash: int = 0) -> None:
        self.delay, self.crash = delay, crash
        self.active = self.most_active = self.calls = 0

    async def stream(
        self, prompt: Prompt, settings: ModelSettings, persona_name: str, tools: tuple[ToolSpec, ...] = ()
    ) -> AsyncIterator[ModelEvent]:
        self.calls += 1
        self.active += 1
        self.most_active = max(self.most_active, self.active)
        try:
            if self.crash:
                self.crash -= 1
                raise RuntimeError("worker died mid-job")
            await asyncio.sleep(self.delay)
            lines = prompt.messages[-1].text.splitlines()
            yield TextDelta(text=f"summary of {len(lines)} lines from «{lines[0][:30]}»")
            yield ModelDone(usage=Usage())
        finally:
            self.active -= 1


@pytest.fixture
async def redis(redis_server: RedisServer) -> AsyncIterator[aioredis.Redis]:
    async with fresh_db(redis_server, 8) as client:
        yield client


def build(
    redis: aioredis.Redis, summarizer: Summarizer
) -> tuple[ChatService, SummaryDesk, RedisSummaryStore, ScriptedChatModel]:
    keys = KeyBuilder(prefix="s")
    clock = FixedClock(T0)
    personas = RedisPersonaStore(redis, keys)
    store = RedisSummaryStore(redis, keys)
    desk = SummaryDesk(
        store=store,
        model=summarizer,
        personas=personas,
        clock=clock,
        policy=SummaryPolicy(chunk_messages=10),
        window=WindowPolicy(),
        default_model="m",
    )
    model = ScriptedChatModel()
    service = ChatService(
        chats=RedisChatStore(redis, keys),
        lock=RedisChatLock(redis, keys),
        personas=personas,
        lore=RedisLoreStore(redis, keys),
        model=model,
        counter=OfflineTokenCounter(),
        clock=clock,
        policy=ServicePolicy(),
        summaries=desk,
    )
    return service, desk, store, model


async def chatter(service: ChatService, n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        message = IncomingMessage(
            platform="web",
            space=CHAT,
            chat=CHAT,
            user="web:ana",
            display_name="Ana",
            text=f"Chapter {i}: the party walks on.",
            sent_at=T0 + timedelta(minutes=i),
        )
        accepted = await service.accept(message, "default", reply=False)
        async for _ in accepted.events:
            pass


async def ask(service: ChatService, text: str) -> ReplyDone:
    message = IncomingMessage(
        platform="web",
        space=CHAT,
        chat=CHAT,
        user="web:ana",
        display_name="Ana",
        text=text,
        sent_at=T0 + timedelta(days=1),
    )
    events = [e async for e in (await service.accept(message, "default")).events]
    assert isinstance(events[-1], ReplyDone)
    return events[-1]


async def drain(runner: JobRunner) -> None:
    while await runner.run_once():
        pass


async def test_sum_1_3_a_300_message_chat_folds_4_to_1_and_the_prompt_has_no_double_count(
    redis: aioredis.Redis,
) -> None:
    service, desk, store, model = build(redis, Summarizer())
    await service.personas.put(PERSONA)
    await chatter(service, 299)
    await ask(service, "Where are we?")  # message 300: 250 left the 50-message window → a job
    await drain(JobRunner(desk, store, block_ms=10))
    state, waiting = await desk.view(CHAT)
    # 250 out of the window = 25 chunks of 10: 16 → 4 merged → 1 long-term; 8 → 2 merged; 1 recent
    assert [len(state.level(lvl)) for lvl in ("long_term", "merged", "recent")] == [1, 2, 1]
    assert state.level("long_term")[0].messages == 160
    # the live window starts at its step (position 260, issue 12), so 251..259 wait: less than a
    # chunk (SUM-4); without the step it would be the one message the reply pushed out
    assert waiting == 9
    assert state.upto == 250  # greeting-less chat: positions 1..300
    await ask(service, "And now?")
    prompt = model.prompts[-1]
    summaries = [m.text for m in prompt.messages if m.slot == "summaries"]
    assert len(summaries) == 1
    body = summaries[0]
    assert body.index("«") >= 0
    order = [t.text for t in (*state.level("long_term"), *state.level("merged"), *state.level("recent"))]
    assert [body.index(text) for text in order] == sorted(body.index(text) for text in order)  # oldest first
    window = [m for m in prompt.messages if m.slot == "window"]
    assert all("Chapter 249:" not in m.text for m in window)  # summarized messages are not sent raw
    assert all("Chapter 258:" not in m.text for m in window)  # waiting for a full chunk (SUM-4)
    assert window[0].text.startswith("Chapter 259:")  # position 260, the live window's step (issue 12)


async def test_sum_5_a_job_killed_midway_is_retried_and_leaves_exactly_one_summary(
    redis: aioredis.Redis,
) -> None:
    summarizer = Summarizer(crash=1)
    service, desk, store, _ = build(redis, summarizer)
    await service.personas.put(PERSONA)
    await chatter(service, 69)
    await ask(service, "Still there?")  # 20 left the window → 2 chunks
    dying = JobRunner(desk, store, consumer="a", block_ms=10)
    with pytest.raises(RuntimeError):
        await dying.run_once()
    assert (await desk.view(CHAT))[0].tiers == ()
    await drain(JobRunner(desk, store, consumer="b", block_ms=10, reclaim_ms=0))
    state, _ = await desk.view(CHAT)
    assert [(t.first, t.last) for t in state.tiers] == [(1.0, 10.0), (11.0, 20.0)]
    await desk.store.enqueue(CHAT)  # a duplicate job, e.g. a crash after commit before ack
    await drain(JobRunner(desk, store, consumer="c", block_ms=10, reclaim_ms=0))
    assert [(t.first, t.last) for t in (await desk.view(CHAT))[0].tiers] == [(1.0, 10.0), (11.0, 20.0)]


async def test_sum_5_two_workers_never_summarize_the_same_chat_at_once(
    redis: aioredis.Redis, redis_server: RedisServer
) -> None:
    summarizer = Summarizer(delay=0.05)
    service, desk, store, _ = build(redis, summarizer)
    await service.personas.put(PERSONA)
    await chatter(service, 149)
    await ask(service, "Go on")
    async with redis_server.client(8) as other:  # closed even when a runner fails
        other_store = RedisSummaryStore(other, KeyBuilder(prefix="s"))
        for _ in range(3):
            await store.dequeued(CHAT)
            await store.enqueue(CHAT)  # several jobs for one chat, taken by two workers
        await asyncio.gather(
            drain(JobRunner(desk, store, consumer="a", block_ms=10)),
            drain(JobRunner(desk, other_store, consumer="b", block_ms=10)),
        )
        await drain(JobRunner(desk, store, consumer="a", block_ms=10))
    assert summarizer.most_active == 1
    state, waiting = await desk.view(CHAT)
    spans = sorted((t.first, t.last) for t in state.tiers)
    assert all(a[1] < b[0] for a, b in itertools.pairwise(spans))
    # 101..109 left the window (it steps at 110, issue 12): less than a chunk, they wait
    assert sum(t.messages for t in state.tiers) == 100 and waiting == 9


async def test_sum_5_without_an_llm_summaries_are_extractive_and_labelled(redis: aioredis.Redis) -> None:
    service, desk, store, _ = build(redis, Summarizer())
    desk.model = type("Offline", (), {"provider": "offline"})()  # type: ignore[assignment]
    await service.personas.put(PERSONA)
    await chatter(service, 59)
    await ask(service, "Recap?")
    await drain(JobRunner(desk, store, block_ms=10))
    (tier,) = (await desk.view(CHAT))[0].tiers
    assert tier.offline and tier.text.startswith("[extractive summary, no LLM]")
    assert "Chapter 0: the party walks on." in tier.text


async def test_sum_4_people_edit_and_rebuild_tiers(redis: aioredis.Redis) -> None:
    service, desk, store, _ = build(redis, Summarizer())
    await service.personas.put(PERSONA)
    await chatter(service, 59)
    await ask(service, "Recap?")
    await drain(JobRunner(desk, store, block_ms=10))
    (tier,) = (await desk.view(CHAT))[0].tiers
    edited = await desk.edit(CHAT, tier.id, "They crossed the river.")
    assert edited.edited and (await desk.view(CHAT))[0].tiers[0].text == "They crossed the river."
    await desk.rebuild(CHAT)
    assert (await desk.view(CHAT))[0].tiers == ()
    await drain(JobRunner(desk, store, block_ms=10))
    assert len((await desk.view(CHAT))[0].tiers) == 1
