"""The deep memory pass after each summarized chunk (DEEP-1..4) on a real Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
import redis.asyncio as aioredis

from adapters.embedding import make_embedder
from adapters.llm.tokens import OfflineTokenCounter
from adapters.recall.search import EmbeddingRecall
from adapters.vector import FaissVectorIndex
from adapters.worker.jobs import JobRunner
from engine.memory import MemoryPolicy, personal_list, space_list
from engine.memory.deep import DeepPolicy
from engine.model import IncomingMessage, ModelSettings, Persona
from engine.ports import ModelDone, ModelEvent, TextDelta
from engine.prompt import Prompt
from engine.requestlog import Usage
from engine.service import ChatService, ServicePolicy
from engine.service.deep import DeepPass
from engine.service.memory import MemoryDesk
from engine.service.summaries import SummaryDesk
from engine.summary import SummaryPolicy
from engine.tools import ToolSpec
from engine.window import WindowPolicy
from storage.keys import KeyBuilder
from storage.redis_chat import RedisChatLock, RedisChatStore, RedisPersonaStore
from storage.redis_lore import RedisLoreStore
from storage.redis_memory import RedisMemoryStore
from storage.redis_memory_directory import RedisMemoryDirectory
from storage.redis_summary import RedisSummaryStore
from tests.fakes.ports import FixedClock, ScriptedChatModel
from tests.fixtures.servers import RedisServer, fresh_db

pytestmark = pytest.mark.integration

PERSONA = Persona(id="default", name="Ember", system_prompt="You are Ember.")
T0 = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
ROOM = "web:camp"


class Model:
    """Summaries as text; the deep pass gets ``deep`` (JSON or garbage)."""

    def __init__(self, deep: str, provider: str = "scripted") -> None:
        self.deep, self.provider, self.deep_calls = deep, provider, 0

    async def stream(
        self, prompt: Prompt, settings: ModelSettings, persona_name: str, tools: tuple[ToolSpec, ...] = ()
    ) -> AsyncIterator[ModelEvent]:
        if "Answer only JSON" in prompt.messages[0].text:
            self.deep_calls += 1
            yield TextDelta(text=self.deep)
        else:
            yield TextDelta(text="They talked by the campfire.")
        yield ModelDone(usage=Usage())


@pytest.fixture
async def redis(redis_server: RedisServer) -> AsyncIterator[aioredis.Redis]:
    async with fresh_db(redis_server, 9) as client:
        yield client


async def run(
    redis: aioredis.Redis, model: Model, *, persona: Persona = PERSONA, chat: str = ROOM, guest: bool = False
) -> MemoryDesk:
    keys = KeyBuilder(prefix="d")
    clock = FixedClock(T0)
    store = RedisMemoryStore(redis, keys)
    hashing = make_embedder("hash")
    assert hashing is not None
    memory = MemoryDesk(
        store=store,
        recall=EmbeddingRecall(store, hashing, FaissVectorIndex()),
        directory=RedisMemoryDirectory(redis, keys),
        policy=MemoryPolicy(),
    )
    personas = RedisPersonaStore(redis, keys)
    await personas.put(persona)
    summary_store = RedisSummaryStore(redis, keys)
    deep = DeepPass(
        model=model,
        memory=memory,
        reports=summary_store,
        clock=clock,  # type: ignore[arg-type]
        policy=DeepPolicy(),
        default_model="m",
        chats=RedisChatStore(redis, keys),
    )
    desk = SummaryDesk(
        store=summary_store,
        model=model,
        personas=personas,
        clock=clock,  # type: ignore[arg-type]
        policy=SummaryPolicy(chunk_messages=20, chunks_per_job=1),
        window=WindowPolicy(),
        default_model="m",
        deep=deep,
    )
    service = ChatService(
        chats=RedisChatStore(redis, keys),
        lock=RedisChatLock(redis, keys),
        personas=personas,
        lore=RedisLoreStore(redis, keys),
        model=ScriptedChatModel(),
        counter=OfflineTokenCounter(),
        clock=clock,
        policy=ServicePolicy(),
        summaries=desk,
        memory=memory,
    )
    lines = ["My sister Ana lives in Porto.", "I'm allergic to peanuts, by the way.", "The weather is nice."]
    for i in range(70):
        user = "web:juno" if i % 2 == 0 else "web:bo"
        message = IncomingMessage(
            platform="web",
            space=chat,
            chat=chat,
            user=user,
            display_name=user[4:].title(),
            text=lines[i % 3],
            sent_at=T0 + timedelta(minutes=i),
            guest=guest,
        )
        async for _ in (await service.accept(message, persona.id, reply=i == 69)).events:
            pass
    while await JobRunner(desk, summary_store, block_ms=10).run_once():
        pass
    run.reports = await summary_store.reports(chat)  # type: ignore[attr-defined]
    return memory


async def test_deep_1_durable_facts_from_a_summarized_chunk_become_unpinned_memories(
    redis: aioredis.Redis,
) -> None:
    model = Model(  # juno speaks first (label P1), then bo (P2): facts name speakers by label (MEM-4)
        '{"facts": [{"text": "Juno\'s sister Ana lives in Porto", "about": "P1"},'
        ' {"text": "Bo is allergic to peanuts", "about": "P2"},'
        ' {"text": "Juno likes X", "about": "Nobody"}, {"text": "f4"}, {"text": "f5"}]}'
    )
    memory = await run(redis, model)
    juno = await memory.list([personal_list("default", "web:juno", ROOM)])
    bo = await memory.list([personal_list("default", "web:bo", ROOM)])
    assert [(r.text, r.source, r.pinned, r.protected) for r in juno] == [
        ("Juno's sister Ana lives in Porto", "deep", False, False)
    ]
    assert [r.text for r in bo] == ["Bo is allergic to peanuts"]
    (report,) = run.reports  # type: ignore[attr-defined]
    assert report.status == "saved" and len(report.saved) == 2  # DEEP-3: bounded, about writers only


async def test_deep_schema_invalid_output_is_rejected_reported_and_changes_nothing(
    redis: aioredis.Redis,
) -> None:
    memory = await run(redis, Model('{"facts": [{"txt": "wrong field"}]}'))
    assert await memory.list([space_list("default", ROOM), personal_list("default", "web:juno", ROOM)]) == []
    (report,) = run.reports  # type: ignore[attr-defined]
    assert report.status == "rejected" and "invalid JSON output" in report.reason


async def test_deep_4_never_in_memory_off_personas_and_never_without_an_llm(redis: aioredis.Redis) -> None:
    quiet = Persona(id="default", name="Ember", system_prompt="You are Ember.", learn_from_chat=False)
    model = Model('{"facts": [{"text": "x"}]}')
    await run(redis, model, persona=quiet)
    assert model.deep_calls == 0 and "does not learn" in run.reports[0].reason  # type: ignore[attr-defined]
    await redis.flushdb()
    offline = Model('{"facts": []}', provider="offline")
    await run(redis, offline)
    assert offline.deep_calls == 0 and "no LLM" in run.reports[0].reason  # type: ignore[attr-defined]


async def test_deep_3_per_platform_switch_defaults_to_web(redis: aioredis.Redis) -> None:
    model = Model('{"facts": [{"text": "x"}]}')
    await run(redis, model, chat="tg:-100777")
    assert model.deep_calls == 0 and "off on telegram" in run.reports[0].reason  # type: ignore[attr-defined]
