"""A message whose turn breaks never wedges its chat (issue 13, finding 2), on a real Redis.

Before: an unexpected error in a pending message's turn left it pending; every later message
to the chat answered it first, hit the same error, and failed too — for ever.
"""

from __future__ import annotations

import logging

import pytest
import redis.asyncio as aioredis

from engine.model import Persona
from engine.service import ReplyDone, ReplyFailed
from tests.fakes.ports import FixedClock, ScriptedChatModel
from tests.integration.test_chat_service import drain, make_service, message, redis

pytestmark = pytest.mark.integration
__all__ = ["redis"]  # the fixture, shared with the chat service tests


async def test_plt_6_a_message_whose_turn_breaks_is_dropped_and_later_messages_are_answered(
    redis: aioredis.Redis, caplog: pytest.LogCaptureFixture
) -> None:
    clock = FixedClock()
    service = await make_service(redis, ScriptedChatModel("Hello Alice!"), clock)
    await service.personas.put(Persona(id="ghost", name="Ghost", system_prompt="You are a ghost."))
    stuck = await service.accept(message("Are you there, ghost?", clock=clock), "ghost")  # pending, not run
    await service.personas.delete("ghost")  # its turn can no longer run: the persona is gone
    with caplog.at_level(logging.ERROR, logger="hearth.service"):
        for text in ("Hi Ember, it's Alice", "Still there, Ember?"):
            events = await drain((await service.accept(message(text, clock=clock), "default")).events)
            assert isinstance(events[-1], ReplyDone)
    assert any("dropped pending message" in r.message and r.exc_info for r in caplog.records)
    late = await drain(stuck.events)  # the broken one's stream ends normally (a later turn read it)
    assert isinstance(late[-1], ReplyDone | ReplyFailed)
    assert await redis.zcard("t:chat:{web:room}:pending") == 0
    history = [m.text for m in await service.chats.history("web:room", 10)]
    assert "Are you there, ghost?" in history  # kept in the log, only taken off the queue
    assert history[-4:] == ["Hi Ember, it's Alice", "Hello Alice!", "Still there, Ember?", history[-1]]
