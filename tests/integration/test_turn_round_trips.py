"""Issue 12: what one reply costs on its path, counted on a real Redis and the fake Claude.

A counting connection (``tests.fixtures.counting``) wraps the real redis-py client; the real
Anthropic SDK talks to the fake server. Each test sends a few turns and counts the round trips
and provider requests of a steady-state turn: they fail when a change adds one back.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import anthropic
import pytest
import redis.asyncio as aioredis

from adapters.embedding import make_embedder
from adapters.llm.anthropic import AnthropicChatModel
from adapters.llm.tokens import LearnedTokenCounter, offline_count
from adapters.recall import EmbeddingRecall
from adapters.vector import FaissVectorIndex
from engine.lorebook import LoreBook, LoreEntry
from engine.memory import MemoryPolicy, space_list
from engine.model import IncomingMessage, Persona
from engine.service import ChatService, ReplyDone, ServicePolicy
from engine.service.memory import MemoryDesk
from storage.keys import KeyBuilder
from storage.redis_chat import RedisChatLock, RedisChatStore, RedisPersonaStore
from storage.redis_documents import RedisDocumentStore
from storage.redis_lore import RedisLoreStore
from storage.redis_memory import RedisMemoryStore
from storage.redis_memory_directory import RedisMemoryDirectory
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.ports import FixedClock
from tests.fixtures.counting import RoundTrips, counting_client
from tests.fixtures.servers import RedisServer

pytestmark = pytest.mark.integration

DAY0 = datetime(2026, 5, 4, 18, 0, tzinfo=UTC)
MODEL = "claude-test-1"
# a steady-state turn: store the message (one script, with the persona's version), one read that
# takes the chat lock (issue 13's lease) in its script, one script that checks the lease, writes
# everything and frees the lock; issue 12 allows 4
PLAIN_TRIPS = 3
# + the memory filters and the memory lists (one script per list, pipelined); the book versions
# come with the one read, documents are checked every 5 s; a day's first turn adds the decay;
# issue 12 allows 6
LOADED_TRIPS = 5


@pytest.fixture
async def made() -> AsyncIterator[list[Hearth]]:
    hearths: list[Hearth] = []
    yield hearths
    for hearth in hearths:
        await hearth.sdk.close()


@pytest.fixture
async def trips(redis_server: RedisServer) -> AsyncIterator[tuple[aioredis.Redis, RoundTrips]]:
    if getattr(redis_server, "cluster", False):
        pytest.skip("round trips are counted on a single server (a cluster client routes per node)")
    counted = RoundTrips()
    client = counting_client(redis_server.db(9), counted)
    await client.flushdb()
    yield client, counted
    await client.flushdb()
    await client.aclose()


class Hearth:
    def __init__(
        self, redis: aioredis.Redis, fake: FakeAnthropic, made: list[Hearth], *, memory: bool
    ) -> None:
        keys = KeyBuilder(prefix="rt")
        self.sdk = sdk = anthropic.AsyncAnthropic(api_key="sk-test", base_url=fake.base_url, max_retries=0)
        self.counter = LearnedTokenCounter(MODEL)
        self.desk: MemoryDesk | None = None
        if memory:
            store = RedisMemoryStore(redis, keys)
            embedder = make_embedder("hash")
            assert embedder is not None
            documents = RedisDocumentStore(redis, keys)
            recall = EmbeddingRecall(store, embedder, FaissVectorIndex(), documents)
            self.desk = MemoryDesk(
                store=store,
                recall=recall,
                directory=RedisMemoryDirectory(redis, keys),
                policy=MemoryPolicy(),
                documents=documents,
            )
        self.lore = RedisLoreStore(redis, keys)
        self.clock = FixedClock(DAY0)
        made.append(self)
        self.service = ChatService(
            chats=RedisChatStore(redis, keys),
            lock=RedisChatLock(redis, keys),
            personas=RedisPersonaStore(redis, keys),
            lore=self.lore,
            memory=self.desk,
            model=AnthropicChatModel(sdk, max_retries=0),
            counter=self.counter,
            clock=self.clock,
            policy=ServicePolicy(default_model=MODEL),
        )

    async def say(self, text: str, chat: str = "web:hearthroom", user: str = "web:juno") -> ReplyDone:
        self.clock.advance(minutes=3)
        message = IncomingMessage(
            platform="web",
            space=chat,
            chat=chat,
            user=user,
            display_name="Juno",
            text=text,
            sent_at=self.clock.now(),
        )
        events = [e async for e in (await self.service.accept(message, "ember")).events]
        assert isinstance(events[-1], ReplyDone), events[-1]
        return events[-1]


PERSONA = Persona(
    id="ember", name="Ember", system_prompt="You are Ember, who keeps the inn's fire.", greeting="Welcome in!"
)


TALK = [
    "Lovely. Any news from the road?",
    "Tell me about the travellers from the north.",
    "Did they bring any furs to sell?",
    "I might buy one for my sister Ana, she is always cold.",
    "What did they say about the pass?",
    "Snow already? It's only October!",
    "Then we'd better stock up on firewood.",
    "Could you ask Tomas to bring two more carts tomorrow?",
]


def provider_paths(fake: FakeAnthropic, since: int) -> list[str]:
    return [r.path for r in fake.requests[since:]]


async def test_issue_12_a_plain_turn_makes_one_provider_call_and_few_round_trips(
    trips: tuple[aioredis.Redis, RoundTrips], anthropic_fake: FakeAnthropic, made: list[Hearth]
) -> None:
    redis, counted = trips
    hearth = Hearth(redis, anthropic_fake, made, memory=False)
    await hearth.service.personas.put(PERSONA)
    await hearth.say("Evening! Is the stew ready?")
    per_turn = []
    for text in TALK:
        seen = len(anthropic_fake.requests)
        counted.reset()
        done = await hearth.say(text)
        assert done.reply.startswith("Fake Claude heard:")
        assert provider_paths(anthropic_fake, seen) == ["/v1/messages"]  # no count_tokens, ever
        per_turn.append(counted.count)
    # the learned token ratio is written only when it moved 5% (a few times while a chat is young)
    assert max(per_turn) <= PLAIN_TRIPS + 1 and sum(per_turn) <= PLAIN_TRIPS * len(TALK) + 3, per_turn
    assert sorted(per_turn)[len(TALK) // 2] == PLAIN_TRIPS, per_turn
    # a control: a cold process (no persona cached) pays one read more, not more provider calls
    cold = Hearth(redis, anthropic_fake, made, memory=False)
    counted.reset()
    seen = len(anthropic_fake.requests)
    await cold.say("And who is the bard by the window?")
    assert provider_paths(anthropic_fake, seen) == ["/v1/messages"]
    assert counted.count <= PLAIN_TRIPS + 2, counted.commands  # + the persona, maybe the ratio


async def test_issue_12_lore_memories_and_documents_stay_within_their_round_trips(
    trips: tuple[aioredis.Redis, RoundTrips], anthropic_fake: FakeAnthropic, made: list[Hearth]
) -> None:
    redis, counted = trips
    hearth = Hearth(redis, anthropic_fake, made, memory=True)
    book = await hearth.lore.put(
        LoreBook(
            name="Valley",
            entries=(
                LoreEntry(id="1", keys=("dragon",), content="Dragons sleep through the winter."),
                LoreEntry(id="2", keys=("harbor",), content="The harbor freezes in January."),
            ),
        )
    )
    await hearth.service.personas.put(PERSONA)
    await hearth.lore.attach("web:hearthroom", [book.id])
    assert hearth.desk is not None
    room = space_list("ember", "web:hearthroom")
    for fact in ("Juno's cat is named Mochi", "Juno is allergic to peanuts", "Juno plays the cello"):
        await hearth.desk.add(
            persona="ember", target=room, text=fact, pinned=False, source="person", now=DAY0
        )
    await hearth.desk.documents.add("ember", "inn.md", "# The inn\nThe inn has twelve rooms and a cellar.")
    await hearth.desk.embedded()
    await hearth.say("Did you see a dragon near the harbor?")
    await hearth.say("My cat Mochi hid under the bed all night.")
    seen = len(anthropic_fake.requests)
    counted.reset()
    done = await hearth.say("The dragon flew over the harbor again, and Mochi hissed.")
    assert provider_paths(anthropic_fake, seen) == ["/v1/messages"]
    assert counted.count <= LOADED_TRIPS, counted.commands
    log = (await hearth.service.turn("web:hearthroom", done.turn))[1]
    assert {m.entry for m in log.lore if m.included} == {"1", "2"}  # the lore really was in play
    assert any(m.state == "active" for m in log.memories)


async def test_issue_12_the_token_ratio_is_learned_from_usage_and_shared_through_redis(
    trips: tuple[aioredis.Redis, RoundTrips], anthropic_fake: FakeAnthropic, made: list[Hearth]
) -> None:
    redis, _ = trips
    hearth = Hearth(redis, anthropic_fake, made, memory=False)
    await hearth.service.personas.put(PERSONA)
    text = "The travellers spoke of snow in the passes and wolves near the old mill."
    assert hearth.counter.estimate(text) == offline_count(text)  # nothing learned yet
    await hearth.say(text)
    learned = hearth.counter.ratio
    # the fake counts a token per 4 characters: far fewer than cl100k × 1.25 for English
    assert learned is not None and 0.4 < learned < 1.0
    assert hearth.counter.estimate(text) < offline_count(text)
    for _ in range(50):  # stored off the path; give the background write a moment
        if await redis.hget("rt:token_ratio", MODEL) is not None:
            break
        await asyncio.sleep(0.02)
    assert await redis.hget("rt:token_ratio", MODEL) is not None
    other = Hearth(redis, anthropic_fake, made, memory=False)  # another process learns it from Redis
    inputs = await other.service._read("web:hearthroom", 1e9, "ember")
    assert inputs.token_ratio is not None and other.counter.ratio == inputs.token_ratio
    assert abs(other.counter.ratio - learned) < 0.01
