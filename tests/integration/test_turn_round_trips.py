"""Issue 12: what one reply costs on its path, counted on a real Redis and the fake Claude.

A counting connection (``tests.fixtures.counting``) wraps the real redis-py client; the real
Anthropic SDK talks to the fake server. Each test sends a few turns and counts the round trips
and provider requests of a steady-state turn: they fail when a change adds one back.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime

import anthropic
import msgspec
import pytest
import redis.asyncio as aioredis

import adapters.recall.search as recall_module
from adapters.embedding import Embedder, make_embedder
from adapters.embedding.hashing import HashEmbedder
from adapters.llm.anthropic import AnthropicChatModel
from adapters.llm.retry import Attempts
from adapters.llm.tokens import LearnedTokenCounter, offline_count
from adapters.recall.search import EmbeddingRecall
from adapters.vector import FaissVectorIndex
from engine.lorebook import LoreBook, LoreEntry
from engine.memory import MemoryPolicy, space_list
from engine.model import IncomingMessage, Persona
from engine.ports import Vectors
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
# and the persona's document version come with the one read, a moved token ratio and the memory
# panel's "why" (the last use of the memories the turn sent) with the finish; a day's first turn
# adds the decay: 5, a day's first 6, as issue 12 allows
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
        self,
        redis: aioredis.Redis,
        fake: FakeAnthropic,
        made: list[Hearth],
        *,
        memory: bool,
        embedder: Embedder | None = None,
    ) -> None:
        keys = KeyBuilder(prefix="rt")
        self.sdk = sdk = anthropic.AsyncAnthropic(api_key="sk-test", base_url=fake.base_url, max_retries=0)
        self.counter = LearnedTokenCounter(MODEL)
        self.desk: MemoryDesk | None = None
        if memory:
            store = RedisMemoryStore(redis, keys)
            embedder = embedder or make_embedder("hash")
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
            model=AnthropicChatModel(sdk, Attempts("Claude", max_retries=0)),
            counter=self.counter,
            clock=self.clock,
            policy=ServicePolicy(default_model=MODEL),
        )

    async def furnish(self, book: LoreBook, facts: Sequence[str]) -> None:
        """The persona with ``book`` attached to the room, ``facts`` saved there, a document."""
        await self.service.personas.put(PERSONA)
        stored = await self.lore.put(book)
        await self.lore.attach("web:hearthroom", [stored.id])
        assert self.desk is not None
        room = space_list("ember", "web:hearthroom")
        for fact in facts:
            await self.desk.add(
                persona="ember", target=room, text=fact, pinned=False, source="person", now=DAY0
            )
        await self.desk.documents.add("ember", "inn.md", "# The inn\nThe inn has twelve rooms and a cellar.")
        await self.desk.embedded()

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
    # every turn: the learned token ratio, when it moved 5% (a young chat), goes with the finish
    assert per_turn == [PLAIN_TRIPS] * len(TALK), per_turn
    # a control: a cold process (no persona cached) pays one read more, not more provider calls
    cold = Hearth(redis, anthropic_fake, made, memory=False)
    counted.reset()
    seen = len(anthropic_fake.requests)
    await cold.say("And who is the bard by the window?")
    assert provider_paths(anthropic_fake, seen) == ["/v1/messages"]
    assert counted.count <= PLAIN_TRIPS + 1, counted.commands  # + the persona


async def test_issue_12_lore_memories_and_documents_stay_within_their_round_trips(
    trips: tuple[aioredis.Redis, RoundTrips], anthropic_fake: FakeAnthropic, made: list[Hearth]
) -> None:
    redis, counted = trips
    hearth = Hearth(redis, anthropic_fake, made, memory=True)
    valley = LoreBook(
        name="Valley",
        entries=(
            LoreEntry(id="1", keys=("dragon",), content="Dragons sleep through the winter."),
            LoreEntry(id="2", keys=("harbor",), content="The harbor freezes in January."),
        ),
    )
    await hearth.furnish(
        valley, ("Juno's cat is named Mochi", "Juno is allergic to peanuts", "Juno plays the cello")
    )
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
    assert hearth.service.memory is not None
    used = await hearth.service.memory.directory.uses([m.id for m in log.memories])
    assert set(used) == {m.id for m in log.memories}  # the panel's "why", noted with the finish
    assert {u.turn for u in used.values()} == {done.turn}


async def test_issue_12_every_loaded_turn_stays_within_six_round_trips_over_chat_days(
    trips: tuple[aioredis.Redis, RoundTrips],
    anthropic_fake: FakeAnthropic,
    made: list[Hearth],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """In all, not as a median: a young chat (its token ratio still moving) over three chat days
    (a day's first turn writes the decay), with the document version due on every turn (as in a
    real chat, where turns are more than ``DOCUMENT_CHECK_SECS`` apart: it comes with the turn's
    one read). A control shows the documents really are searched."""
    monkeypatch.setattr(recall_module, "DOCUMENT_CHECK_SECS", 0.0)
    redis, counted = trips
    hearth = Hearth(redis, anthropic_fake, made, memory=True)
    road = LoreBook(
        name="Road", entries=(LoreEntry(id="1", keys=("pass",), content="The pass closes in winter."),)
    )
    await hearth.furnish(
        road, ("Juno's cat is named Mochi", "Juno is allergic to peanuts", "Tomas brings the firewood")
    )
    await hearth.say("Evening! Is the stew ready?")
    per_turn: list[int] = []
    for day in range(3):
        if day:
            hearth.clock.advance(hours=24)
        for text in (
            *TALK[day * 2 : day * 2 + 3],
            "How many rooms does the inn have, and is there a cellar?",
        ):
            counted.reset()
            seen = len(anthropic_fake.requests)
            done = await hearth.say(text)
            assert provider_paths(anthropic_fake, seen) == ["/v1/messages"]
            per_turn.append(counted.count)
    assert max(per_turn) <= LOADED_TRIPS + 1, per_turn  # with lore, memories, documents (see LOADED_TRIPS)
    assert sorted(per_turn)[len(per_turn) // 2] == LOADED_TRIPS, per_turn
    sent = anthropic_fake.requests[-1].body
    assert "twelve rooms" in msgspec.json.encode(sent).decode(), "the document chunk was not sent"
    assert done.reply


class CountingEmbedder(HashEmbedder):
    """The real hash embedder, counting the query embeddings asked of it."""

    def __init__(self) -> None:
        super().__init__()
        self.queries = 0

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        self.queries += len(texts)
        return super().embed_queries(texts)


async def test_issue_12_a_chat_with_nothing_to_search_embeds_nothing(
    trips: tuple[aioredis.Redis, RoundTrips], anthropic_fake: FakeAnthropic, made: list[Hearth]
) -> None:
    """DEC-15 / issue 12 point 2: memory on, an embedder loaded, but no memory in play and no
    document: no turn embeds its message. Once the persona has a document, every turn embeds
    once (the control)."""
    redis, _ = trips
    embedder = CountingEmbedder()
    hearth = Hearth(redis, anthropic_fake, made, memory=True, embedder=embedder)
    await hearth.service.personas.put(PERSONA)
    for text in TALK[:3]:
        await hearth.say(text)
    assert embedder.queries == 0
    assert hearth.desk is not None
    await hearth.desk.documents.add("ember", "inn.md", "# The inn\nThe inn has twelve rooms and a cellar.")
    await hearth.desk.embedded()
    hearth.desk.recall.forget_documents("ember")  # as the process that uploads it does
    for text in TALK[3:6]:
        await hearth.say(text)
    assert embedder.queries == 3


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
