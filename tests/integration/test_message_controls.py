"""Message controls on a real Redis (issue 16): edit, delete, swipes, branches, stop generating."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from adapters.llm.stopping import STOP, StoppableModel
from engine.errors import Conflict, Forbidden, NotFound
from engine.service import ChatService, ReplyDelta, ReplyDone, ReplyEvent
from engine.service.controls import MessageControls
from engine.turn import memory_space
from storage.keys import KeyBuilder
from storage.redis_chat import RedisChatLock
from storage.redis_chat_controls import RedisChatControls
from tests.fakes.ports import FixedClock, ScriptedChatModel
from tests.fixtures.servers import RedisServer, fresh_db
from tests.integration.test_chat_service import make_service, message

pytestmark = pytest.mark.integration


@pytest.fixture
async def redis(redis_server: RedisServer) -> AsyncIterator[aioredis.Redis]:
    async with fresh_db(redis_server, 4) as client:
        yield client


async def drain(events: AsyncIterator[ReplyEvent]) -> ReplyEvent:
    last: ReplyEvent | None = None
    async for event in events:
        last = event
    assert last is not None
    return last


async def setup(redis: aioredis.Redis, model: ScriptedChatModel) -> tuple[ChatService, MessageControls]:
    service = await make_service(redis, model, FixedClock())
    keys = KeyBuilder(prefix="t")
    return service, MessageControls(service, RedisChatControls(redis, keys), RedisChatLock(redis, keys))


async def test_only_the_author_edits_or_deletes_a_message(redis: aioredis.Redis) -> None:
    """Issue 31: persona replies are editable; deleting one's message deletes its reply."""
    service, controls = await setup(redis, ScriptedChatModel("Hello Alice."))
    accepted = await service.accept(message("I like green tea"), "default")
    done = await drain(accepted.events)
    assert isinstance(done, ReplyDone)
    mine = accepted.message.id
    with pytest.raises(Forbidden) as caught:
        await controls.edit("web:room", mine, "web:bob", "hacked")
    assert caught.value.code == "not_your_message"
    reply = await controls.edit("web:room", f"r-{done.turn}", "web:alice", "Hello, dear Alice.")
    assert [m.text for m in await service.chats.history("web:room", 10)][-1] == "Hello, dear Alice."
    assert reply.role == "assistant"
    changed = await controls.edit("web:room", mine, "web:alice", "I like jasmine tea")
    assert changed.text == "I like jasmine tea"
    assert [m.text for m in await service.chats.history("web:room", 10)][1] == "I like jasmine tea"
    assert await controls.delete("web:room", mine, "web:alice") == (mine, f"r-{done.turn}")
    assert [m.id for m in await service.chats.history("web:room", 10)] == ["m0"]  # the reply went too
    with pytest.raises(NotFound):
        await controls.delete("web:room", mine, "web:alice")


async def test_regenerate_keeps_alternatives_and_the_chosen_one_is_what_the_next_turn_sees(
    redis: aioredis.Redis,
) -> None:
    model = ScriptedChatModel("First take.", "Second take.", "Third take.")
    service, controls = await setup(redis, model)
    first = await drain((await service.accept(message("Say something"), "default")).events)
    assert isinstance(first, ReplyDone)
    second = await drain(await controls.regenerate("web:room", first.turn))
    third = await drain(await controls.regenerate("web:room", second.turn))  # type: ignore[union-attr]
    assert isinstance(second, ReplyDone) and isinstance(third, ReplyDone)
    latest = await service.chats.latest("web:room")
    assert latest is not None
    swipes = await controls.swipes_of("web:room", latest)
    assert swipes.turns == (first.turn, second.turn, third.turn) and swipes.index == 2
    chosen, shown = await controls.choose("web:room", first.turn)
    assert shown.text == "First take." and chosen.status == "done"
    history = [m.text for m in await service.chats.history("web:room", 10)]
    assert history[-1] == "First take." and "Third take." not in history
    await drain((await service.accept(message("And then?"), "default")).events)
    window = [m.text for m in model.prompts[-1].messages if m.slot == "window"]
    assert "First take." in window and "Second take." not in window and "Third take." not in window
    with pytest.raises(Conflict) as caught:  # no longer the latest reply
        await controls.choose("web:room", second.turn)
    assert caught.value.code == "not_a_swipe"


async def test_a_branch_copies_up_to_a_message_and_shares_the_memory_space(redis: aioredis.Redis) -> None:
    service, controls = await setup(redis, ScriptedChatModel("Hi.", "Lisbon!"))
    one = await service.accept(message("Hello"), "default")
    await drain(one.events)
    await drain((await service.accept(message("Moving to Lisbon"), "default")).events)
    copied = await controls.branch("web:room", one.message.id, "web:room=b-1a2b3c4d")
    assert copied == 2  # the greeting and "Hello"
    branch = [m.text for m in await service.chats.history("web:room=b-1a2b3c4d", 10)]
    assert branch == ["Hello, traveller!", "Hello"]
    assert memory_space("web:room=b-1a2b3c4d") == memory_space("web:room") == "web:room"
    assert memory_space("tg:-100/topic/7") == "tg:-100"
    await drain((await service.accept(message("Or Porto", chat="web:room=b-1a2b3c4d"), "default")).events)
    original = [m.text for m in await service.chats.history("web:room", 10)]
    assert "Or Porto" not in original and "Moving to Lisbon" in original


async def test_stop_ends_the_reply_and_keeps_the_words_so_far(redis: aioredis.Redis) -> None:
    slow = ScriptedChatModel("one two three four five six seven eight", delay=0.3)
    service, _ = await setup(redis, slow)
    service.model = StoppableModel(slow)  # as the bootstrap wires it
    stop = asyncio.Event()

    async def run() -> ReplyEvent:
        STOP.set(stop)
        events = (await service.accept(message("Tell me a story"), "default")).events
        last: ReplyEvent | None = None
        async for event in events:
            if isinstance(event, ReplyDelta):
                stop.set()  # the person presses Stop after the first words
            last = event
        assert last is not None
        return last

    done = await asyncio.wait_for(asyncio.create_task(run()), timeout=5)
    assert isinstance(done, ReplyDone) and done.reply == "one two three four"
    assert [m.text for m in await service.chats.history("web:room", 10)][-1] == "one two three four"
    # without a stop signal the same model streams to the end
    unstopped = await drain((await service.accept(message("Again"), "default")).events)
    assert isinstance(unstopped, ReplyDone) and unstopped.reply.startswith("reply to:")


async def test_a_message_left_without_a_reply_is_answered_on_request(redis: aioredis.Redis) -> None:
    """Issue 31: a message stored by a process that stopped before its reply (still on the
    pending queue), or whose turn failed (taken off it), is answered by ``answer_last``."""
    service, controls = await setup(redis, ScriptedChatModel("Here I am.", "Still here."))
    await service.accept(message("Hello?"), "default")  # the process died: its events never ran
    done = await drain(await controls.answer_last("web:room"))
    assert isinstance(done, ReplyDone) and done.reply == "Here I am."
    with pytest.raises(Conflict) as nothing:
        await controls.answer_last("web:room")
    assert nothing.value.code == "nothing_to_answer"
    assert await controls.delete("web:room", f"r-{done.turn}", "web:alice")
    again = await drain(await controls.answer_last("web:room"))  # its reply deleted: answered anew
    assert isinstance(again, ReplyDone) and again.reply == "Still here."
    texts = [m.text for m in await service.chats.history("web:room", 10)]
    assert texts[-2:] == ["Hello?", "Still here."]
