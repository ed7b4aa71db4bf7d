"""``ArchiveDesk`` on the in-memory fakes, without an embedder (EPI-1..3, 5, 7, 11, 13)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engine.archive import Page, QueryOptions
from engine.errors import NotFound
from engine.service.archive import ArchiveDesk
from tests.fakes.ports import ScriptedChatModel
from tests.unit.service.world import ROOM, World

DEPLOY = [
    "The deploy broke with ECONNREFUSED at https://status.example.org/ping today.",
    "Look at /srv/app/settings.ini and error E4242 before trying again.",
]
GARDEN = ["The roses need pruning soon.", "Put the basil by the kitchen window."]


async def sessions(world: World) -> tuple[Page, Page]:
    """Two sessions eight hours apart, both closed and archived seven hours after the second."""
    start = world.clock.now()
    for text in DEPLOY:
        await world.say(text, reply=False)
    world.clock.current = start + timedelta(hours=8)
    for text in GARDEN:
        await world.say(text, reply=False)
    world.clock.current = start + timedelta(hours=15)
    deploy, garden = await world.archive.archive_sessions(ROOM)
    return deploy, garden


async def test_epi_1_closed_sessions_become_pages_once() -> None:
    world = await World(ScriptedChatModel()).start()
    start = world.clock.now()
    for text in DEPLOY:
        await world.say(text, reply=False)
    world.clock.current = start + timedelta(hours=8)
    await world.say(GARDEN[0], reply=False)
    (deploy,) = await world.archive.archive_sessions(ROOM)  # the garden session still runs
    assert deploy.body.splitlines() == ["Ember: Hello, traveller!", *(f"Alice: {t}" for t in DEPLOY)]
    assert {"https://status.example.org/ping", "/srv/app/settings.ini", "E4242"} <= set(deploy.keep)
    assert (deploy.layer, deploy.status, deploy.version) == ("episodic", "active", 1)
    assert await world.archive.archive_sessions(ROOM) == ()
    world.clock.advance(hours=7)
    (garden,) = await world.archive.archive_sessions(ROOM)
    assert "ECONNREFUSED" not in garden.body
    assert [p.id for p, _, _ in await world.archive.pages(ROOM)] == [deploy.id, garden.id]


async def test_epi_2_3_a_read_raises_the_score_and_feedback_drops_it() -> None:
    world = await World().start()
    deploy, garden = await sessions(world)
    world.clock.advance(days=20)
    before = {p.id: score for p, score, _ in await world.archive.pages(ROOM)}
    opened = await world.archive.read(deploy.id)
    assert (opened.read_count, opened.last_read_at) == (1, world.clock.now())
    judged = await world.archive.feedback(garden.id, "wrong", by="web:alice")
    after = {p.id: score for p, score, _ in await world.archive.pages(ROOM)}
    assert after[deploy.id] > before[deploy.id] and after[garden.id] < before[garden.id]
    assert (judged.salience, judged.feedback[0].by) == (0.0, "web:alice")
    with pytest.raises(NotFound) as missing:
        await world.archive.read("pg-none")
    assert missing.value.code == "page_not_found"


async def test_epi_13_lexical_search_counts_a_read_and_reports_how_it_searched() -> None:
    world = await World().start()
    deploy, garden = await sessions(world)
    found = await world.archive.search(ROOM, "basil window", QueryOptions())
    assert [f.item.id for f in found.items] == [garden.id]
    assert (found.status.search, found.status.embedder, found.status.persona) == ("lexical", None, "default")
    reads = {p.id: p.read_count for p, _, _ in await world.archive.pages(ROOM)}
    assert reads == {deploy.id: 0, garden.id: 1}
    text = await world.archive.tool_search(ROOM, "ECONNREFUSED deploy")
    assert text.startswith(f"[{deploy.id}]")
    assert "Nothing" in await world.archive.tool_search(ROOM, "volcano")


async def test_epi_5_11_the_sweep_evicts_cold_pages_and_restore_brings_a_version_back() -> None:
    world = await World().start()
    deploy, _ = await sessions(world)
    world.clock.advance(days=30)
    assert await world.archive.sweep() == {}
    world.clock.advance(days=90)
    assert await world.archive.sweep() == {"evicted": 2}
    assert {p.status for p, _, _ in await world.archive.pages(ROOM)} == {"evicted"}
    with pytest.raises(NotFound) as unknown:
        await world.archive.restore(deploy.id, 7)
    assert unknown.value.code == "no_such_version"


async def test_epi_7_a_near_empty_session_is_kept_but_marked() -> None:
    world = await World().start()
    start = world.clock.now()
    for _ in range(3):
        await world.say("ok", reply=False)
    world.clock.current = start + timedelta(hours=8)
    for text in GARDEN:
        await world.say(text, reply=False)
    world.clock.current = start + timedelta(days=1)
    empty, garden = await world.archive.archive_sessions(ROOM)
    marks = {p.id: low for p, _, low in await world.archive.pages(ROOM)}
    assert marks == {empty.id: True, garden.id: False}


class BrokenIndex:
    """A page recall whose background embedding fails for one chat (the port, faked)."""

    model = "fake"

    def __init__(self, broken: str) -> None:
        self.broken = broken
        self.indexed: list[str] = []

    async def warm(self) -> None:
        return None

    async def index(self, chat: str, ids: object) -> int:
        if chat == self.broken:
            raise RuntimeError("embedder crashed")
        self.indexed.append(chat)
        return 0

    async def embed(self, texts: object) -> list[bytes]:
        return []

    async def search(
        self, chat: str, query: str, allowed: object, limit: int, *, now: object = None
    ) -> list[tuple[str, float]]:
        return []

    async def clusters(self, chat: str, ids: object, threshold: float) -> tuple[tuple[str, ...], ...]:
        return ()


async def test_issue_28_a_queued_chat_whose_embedding_fails_stays_queued_with_the_rest() -> None:
    """EPI-13 (issue 28): the worker takes the chats searches queued; when embedding one fails,
    it and the chats not reached yet go back on the queue, the ones done do not."""
    world = await World(ScriptedChatModel()).start()
    recall = BrokenIndex("web:b")
    desk = ArchiveDesk(
        store=world.archive_store, clock=world.clock, settings=world.archive.settings, recall=recall
    )
    for chat in ("web:a", "web:b", "web:c"):
        await world.archive_store.queue_embedding(chat)
    with pytest.raises(RuntimeError):
        await desk.embed_queued()
    assert recall.indexed == ["web:a"]
    assert await world.archive_store.take_embedding_queue() == ["web:b", "web:c"]
