"""The chat service on a real Redis: storage, ordering under concurrency, failures, regenerate."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from adapters.llm.tokens import OfflineTokenCounter
from engine.errors import Conflict, LLMRateLimited, NotFound
from engine.model import IncomingMessage, Persona
from engine.service import ChatService, ReplyDelta, ReplyDone, ReplyEvent, ReplyFailed, ServicePolicy
from storage.keys import KeyBuilder
from storage.redis_chat import RedisChatLock, RedisChatStore, RedisPersonaStore
from storage.redis_lore import RedisLoreStore
from tests.fakes.ports import FixedClock, ScriptedChatModel
from tests.fixtures.servers import RedisServer, fresh_db

pytestmark = pytest.mark.integration

PERSONA = Persona(id="default", name="Ember", system_prompt="You are Ember.", greeting="Hello, traveller!")


@pytest.fixture
async def redis(redis_server: RedisServer) -> AsyncIterator[aioredis.Redis]:
    async with fresh_db(redis_server, 3) as client:
        yield client


async def make_service(redis: aioredis.Redis, model: ScriptedChatModel, clock: FixedClock) -> ChatService:
    keys = KeyBuilder(prefix="t")
    service = ChatService(
        chats=RedisChatStore(redis, keys),
        lock=RedisChatLock(redis, keys),
        personas=RedisPersonaStore(redis, keys),
        lore=RedisLoreStore(redis, keys),
        model=model,
        counter=OfflineTokenCounter(),
        clock=clock,
        policy=ServicePolicy(),
    )
    await service.personas.put(PERSONA)
    return service


def message(
    text: str, chat: str = "web:room", user: str = "web:alice", clock: FixedClock | None = None
) -> IncomingMessage:
    return IncomingMessage(
        platform="web",
        space=chat,
        chat=chat,
        user=user,
        display_name=user.split(":")[1],
        text=text,
        sent_at=(clock or FixedClock()).now(),
    )


async def drain(events: AsyncIterator[ReplyEvent]) -> list[ReplyEvent]:
    return [e async for e in events]


async def test_a_message_is_stored_after_the_greeting_and_answered(redis: aioredis.Redis) -> None:
    clock = FixedClock()
    service = await make_service(redis, ScriptedChatModel("Nice to meet you!"), clock)
    accepted = await service.accept(message("Hi Ember"), "default")
    events = await drain(accepted.events)
    assert [e.text for e in events if isinstance(e, ReplyDelta)] == ["Nice to ", "meet you!"]
    done = events[-1]
    assert isinstance(done, ReplyDone) and done.reply == "Nice to meet you!"
    history = await service.chats.history("web:room", 10)
    assert [(m.role, m.text) for m in history] == [
        ("assistant", "Hello, traveller!"),
        ("user", "Hi Ember"),
        ("assistant", "Nice to meet you!"),
    ]
    assert history[2].turn == done.turn
    turn, log = await service.turn("web:room", done.turn)
    assert turn.answers == ("m1",) and turn.status == "done"
    assert log.window.messages == 2 and log.prompt[0].text == "You are Ember."


async def test_two_messages_at_once_from_two_processes_are_both_answered_in_order(
    redis: aioredis.Redis, redis_server: RedisServer
) -> None:
    clock = FixedClock()
    async with redis_server.client(3) as other_client:  # closed even when a turn fails
        first = await make_service(redis, ScriptedChatModel(delay=0.05), clock)
        second = await make_service(other_client, ScriptedChatModel(delay=0.05), clock)
        a = await first.accept(message("first question"), "default")
        b = await second.accept(message("second question", user="web:bob"), "default")
        done_b, done_a = await asyncio.gather(drain(b.events), drain(a.events))
    reply_a, reply_b = done_a[-1], done_b[-1]
    assert isinstance(reply_a, ReplyDone) and isinstance(reply_b, ReplyDone)
    assert reply_a.reply == "reply to: first question"
    assert reply_b.reply == "reply to: bob: second question"
    history = await first.chats.history("web:room", 10)
    assert [m.text for m in history] == [
        "Hello, traveller!",
        "first question",
        "reply to: first question",
        "second question",
        "reply to: bob: second question",
    ]


async def test_plt_6_a_persistent_model_failure_keeps_the_message(redis: aioredis.Redis) -> None:
    failure = LLMRateLimited("Claude answered 529 overloaded_error", code="llm_overloaded", status=529)
    service = await make_service(redis, ScriptedChatModel(failure, "Back again."), FixedClock())
    accepted = await service.accept(message("are you there?"), "default")
    (failed,) = await drain(accepted.events)
    assert isinstance(failed, ReplyFailed) and failed.code == "llm_overloaded"
    assert "saved" in failed.message
    history = await service.chats.history("web:room", 10)
    assert [m.text for m in history] == ["Hello, traveller!", "are you there?"]
    turn, log = await service.turn("web:room", failed.turn or "")
    assert turn.status == "failed" and log.error and "529" in log.error
    # the next message is answered normally and its window still holds the unanswered one
    again = await drain((await service.accept(message("hello?"), "default")).events)
    assert isinstance(again[-1], ReplyDone)
    _, log2 = await service.turn("web:room", again[-1].turn)
    assert [m.text for m in log2.prompt if m.slot == "window"][-2:] == ["are you there?", "hello?"]


async def test_regenerate_replaces_the_latest_reply_only(redis: aioredis.Redis) -> None:
    service = await make_service(redis, ScriptedChatModel("one", "two", "three"), FixedClock())
    first = (await drain((await service.accept(message("q1"), "default")).events))[-1]
    second = (await drain((await service.accept(message("q2"), "default")).events))[-1]
    assert isinstance(first, ReplyDone) and isinstance(second, ReplyDone)
    with pytest.raises(Conflict):
        await service.regenerate("web:room", first.turn)
    redone = (await drain(await service.regenerate("web:room", second.turn)))[-1]
    assert isinstance(redone, ReplyDone) and redone.reply == "three"
    history = await service.chats.history("web:room", 10)
    assert [m.text for m in history] == ["Hello, traveller!", "q1", "one", "q2", "three"]
    old, _ = await service.turn("web:room", second.turn)
    assert old.status == "superseded"
    new, _ = await service.turn("web:room", redone.turn)
    assert new.replaces == second.turn


async def test_reply_false_stores_without_answering_and_the_next_turn_sees_it(redis: aioredis.Redis) -> None:
    """MEM-4: the listened-to message is context for the next turn, which replies to alice's only."""
    model = ScriptedChatModel()
    service = await make_service(redis, model, FixedClock())
    quiet = await service.accept(message("just chatting", user="web:bob"), "default", reply=False)
    assert await drain(quiet.events) == []
    done = (await drain((await service.accept(message("Ember?"), "default")).events))[-1]
    assert isinstance(done, ReplyDone)
    turn, _ = await service.turn("web:room", done.turn)
    assert turn.answers == ("m2",)
    stored = await service.chats.message("web:room", "m1")
    assert stored is not None and stored.listened
    assert [m.text for m in model.prompts[0].messages if m.slot == "window"] == [
        "Hello, traveller!",
        "bob: just chatting",
        "alice: Ember?",
    ]


async def test_chats_do_not_see_each_other(redis: aioredis.Redis) -> None:
    model = ScriptedChatModel()
    service = await make_service(redis, model, FixedClock())
    await drain((await service.accept(message("secret in room A", chat="web:a"), "default")).events)
    await drain((await service.accept(message("hello from B", chat="web:b"), "default")).events)
    window_b = [m.text for m in model.prompts[1].messages if m.slot == "window"]
    assert all("secret" not in t for t in window_b)


async def test_unknown_persona_stores_nothing(redis: aioredis.Redis) -> None:
    service = await make_service(redis, ScriptedChatModel(), FixedClock())
    with pytest.raises(NotFound):
        await service.accept(message("hi"), "nobody")
    assert await service.chats.history("web:room", 10) == []
