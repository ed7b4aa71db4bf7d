"""The time-match signal of recall, through the production search (RECALL-1, issue 28).

Real Redis, the production ``EmbeddingRecall`` with the shipped decision parameters (hash
embedder: the same signals, fast). Only the message's time changes between two searches, so a
change of probability is the signal's doing: a message naming a period ("yesterday") puts a
memory created outside it below one created in it, or one whose text names that period; the
first loses probability, the others lose none.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
import redis.asyncio as aioredis

from adapters.recall.search import EmbeddingRecall
from engine.memory import personal_list, space_list
from storage.keys import KeyBuilder
from tests.fixtures.desks import hash_desk
from tests.fixtures.servers import RedisServer, fresh_db

pytestmark = pytest.mark.integration

ROOM = "web:den"
MELANIE = "web:melanie"
SATURDAY = datetime(2026, 11, 28, 15, tzinfo=UTC)


@pytest.fixture
async def redis(redis_server: RedisServer) -> AsyncIterator[aioredis.Redis]:
    async with fresh_db(redis_server, 10) as client:
        yield client


async def _setup(redis: aioredis.Redis) -> tuple[EmbeddingRecall, list[object], dict[str, str]]:
    desk, recall, _ = hash_desk(redis, KeyBuilder(prefix="hearth"), EmbeddingRecall)
    own, shared = personal_list("default", MELANIE, ROOM), space_list("default", ROOM)
    notes = [
        (own, "Goes to pottery classes every Saturday", SATURDAY),
        (own, "Drives an old green Volvo to pottery", SATURDAY - timedelta(days=9)),
        (shared, "The pottery fair was on 28 November 2026", SATURDAY - timedelta(days=9)),
    ]
    ids = {}
    for target, text, now in notes:
        plan = await desk.add(
            persona="default", target=target, text=text, pinned=False, source="person", now=now
        )
        ids[text] = plan.record.id
    scopes = [own, shared]
    records = await recall.load(scopes)
    return recall, [records, scopes], ids


async def _scores(
    recall: EmbeddingRecall, loaded: list[object], text: str, **turn: object
) -> dict[str, float]:
    records, scopes = loaded
    found = await recall.search(await recall.embed(text), records, scopes, **turn)  # type: ignore[arg-type]
    assert found.ok
    return {h.memory_id: h.similarity for h in found.scores}


async def test_recall_1_a_named_period_lowers_memories_created_outside_it(redis: aioredis.Redis) -> None:
    """ "yesterday", asked the day after the Saturday: the Saturday's memory loses no
    probability, nor does the one saved earlier that names the Saturday; the one created nine
    days before loses some."""
    recall, loaded, ids = await _setup(redis)
    message = "What did Melanie do about pottery yesterday?"
    undated = await _scores(recall, loaded, message, at=None)
    dated = await _scores(recall, loaded, message, at=SATURDAY + timedelta(days=1))
    saturday, volvo = (
        ids["Goes to pottery classes every Saturday"],
        ids["Drives an old green Volvo to pottery"],
    )
    fair = ids["The pottery fair was on 28 November 2026"]
    assert dated[saturday] >= undated[saturday]
    assert dated[fair] >= undated[fair]
    assert dated[volvo] < undated[volvo]
