"""``MemoryDesk`` on the in-memory fakes: people's writes (MEM-6b, MEM-9), rollback (MEM-7),
persona deletion (MEM-10), privacy (DEC-10) and notices (DEC-11)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

import numpy as np
import pytest

from engine.errors import Conflict, Forbidden, NotFound, StorageUnavailable
from engine.memory import (
    MemoryPolicy,
    MemoryRecord,
    ScopeList,
    SearchHit,
    SearchResult,
    global_list,
    personal_list,
    space_list,
)
from engine.memory.model import USE_EXCERPT_CHARS
from engine.ports import DocumentVersion, Vector
from engine.requestlog import MemoryNote
from engine.service import ReplyDone
from engine.service.memory import MemoryDesk
from tests.fakes.stores.memory import InMemoryMemoryStore, InMemoryRecall
from tests.unit.service.world import ROOM, World

ALICE = "web:alice"
SPACE = space_list("default", ROOM)
MINE = personal_list("default", ALICE, ROOM)


async def test_people_save_edit_pin_and_forget_memories() -> None:
    world = World()
    desk, now = world.memory, world.clock.now()
    saved = await desk.add(
        persona="default",
        target=SPACE,
        text="The tavern opens at dusk",
        pinned=False,
        source="person",
        now=now,
    )
    memory = saved.record.id
    assert (saved.record.protected, saved.record.source) == (True, "person")  # DEC-12
    assert await desk.locate(memory) == (SPACE, saved.record)
    edited = await desk.edit(memory, text="The tavern opens at nine", pinned=True, now=now)
    assert (edited.text, edited.pinned) == ("The tavern opens at nine", True)
    same = await desk.edit(memory, text="The tavern opens at nine", pinned=True, now=now)
    assert same.text == edited.text
    assert [r.text for r in await desk.list([SPACE, MINE])] == ["The tavern opens at nine"]
    forgotten = await desk.delete(memory)
    assert forgotten.id == memory and await desk.list([SPACE]) == []
    with pytest.raises(NotFound) as missing:
        await desk.locate(memory)
    assert missing.value.code == "memory_not_found"


async def test_mem_9_clearing_a_list_keeps_pinned_memories_until_confirmed() -> None:
    world = World()
    desk, now = world.memory, world.clock.now()
    for text, pinned in (
        ("Ana likes tea", False),
        ("Ana's cat is Mochi", True),
        ("Ana lives in Porto", False),
    ):
        await desk.add(persona="default", target=MINE, text=text, pinned=pinned, source="person", now=now)
    first = await desk.clear(MINE, pinned_confirmed=False)
    assert [r.text for r in await desk.list([MINE])] == ["Ana's cat is Mochi"]
    assert first.pinned_left == 1
    await desk.clear(MINE, pinned_confirmed=True)
    assert await desk.list([MINE]) == []


async def test_mem_7_a_rollback_undoes_a_turns_writes_but_not_pinned_ones() -> None:
    world = World()
    desk, now = world.memory, world.clock.now()
    kept = await desk.add(
        persona="default", target=SPACE, text="Doors close at two", pinned=True, source="person", now=now
    )
    turn = await desk.add(
        persona="default", target=SPACE, text="Bo ordered stew", pinned=False, source="model", now=now
    )
    await desk.rollback(turn.writes)
    assert [r.id for r in await desk.list([SPACE])] == [kept.record.id]
    with pytest.raises(NotFound):
        await desk.locate(turn.record.id)


async def test_mem_10_deleting_a_persona_moves_its_personal_memories_to_global() -> None:
    world = World()
    desk, now = world.memory, world.clock.now()
    await desk.add(
        persona="default", target=MINE, text="Ana is a baker", pinned=False, source="person", now=now
    )
    await desk.add(
        persona="default", target=SPACE, text="The hall is cold", pinned=False, source="person", now=now
    )
    assert await desk.delete_persona("default") == 1
    assert [r.text for r in await desk.list([global_list(ALICE)])] == ["Ana is a baker"]
    assert await desk.list([MINE]) == []
    assert await desk.delete_persona("nobody") == 0


async def test_dec_10_an_opted_out_person_has_no_memory_in_play() -> None:
    world = await World().start()
    mine = await world.memory.add(
        persona="default",
        target=MINE,
        text="Alice hates mornings",
        pinned=False,
        source="person",
        now=world.clock.now(),
    )
    await world.directory.set_privacy(ALICE, personal_memory=False)
    ctx = await world.memory.for_turn(
        persona="default",
        learn_from_chat=True,
        space=ROOM,
        participants=(ALICE,),
        guests=(),
        text="hi",
        message_at=world.clock.now(),
    )
    assert MINE not in ctx.scopes and SPACE in ctx.scopes
    # her lists are read beside the filters (issue 12), but nothing of them reaches the turn
    assert mine.record.id not in {r.id for r in ctx.records}


async def test_dec_11_notices_are_as_visible_as_the_space_wants() -> None:
    world = World()
    note = MemoryNote(kind="saved", id="mem-1", scope="space", text="The tavern opens at dusk")
    assert await world.memory.notices(ROOM, ()) == ()
    brief = await world.memory.notices(ROOM, (note,))
    await world.directory.set_notice_level(ROOM, "off")
    assert brief and await world.memory.notices(ROOM, (note,)) == ()
    await world.directory.set_notice_level(ROOM, "full")
    full = await world.memory.notices(ROOM, (note,))
    assert any("The tavern opens at dusk" in n for n in full)


async def test_documents_need_an_embedder() -> None:
    world = World()
    assert world.memory.documents is not None
    with pytest.raises(Conflict) as refused:
        await world.memory.documents.add("default", "notes", "# Notes\nSome text.")
    assert refused.value.code == "documents_unavailable"


class _BrokenDocuments(InMemoryRecall):
    """Embeds; every memory matches; the persona has documents, but their search breaks."""

    async def search(
        self, query: Vector, records: Sequence[MemoryRecord], scopes: Sequence[ScopeList]
    ) -> SearchResult:
        return SearchResult(ok=True, hits=tuple(SearchHit(memory_id=r.id, similarity=5.0) for r in records))

    async def has_documents(self, persona: str, seen: DocumentVersion | None = None) -> bool:
        return True

    async def documents(
        self, query: Vector, persona: str, seen: DocumentVersion | None = None
    ) -> tuple[str, ...]:
        raise RuntimeError("the document index is broken")


async def test_dec_8_a_broken_document_search_keeps_the_turns_memory_search(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The query, the memory search and the document search run side by side (issue 12): a
    document search that fails costs the turn its documents only — the memory still counts as
    used, and the failure is logged with its traceback."""
    world = World()
    store = world.memory_store
    recall = _BrokenDocuments(store, passages=lambda texts: np.ones((len(texts), 4), dtype=np.float32))
    desk = MemoryDesk(store=store, recall=recall, directory=world.directory, policy=MemoryPolicy())
    now = world.clock.now()
    saved = await desk.add(
        persona="default",
        target=SPACE,
        text="Juno's cat is called Mochi",
        pinned=False,
        source="person",
        now=now,
    )
    for turn in range(2):  # the second turn starts the query and the documents early
        with caplog.at_level(logging.ERROR, logger="hearth.memory"):
            ctx = await desk.for_turn(
                persona="default",
                learn_from_chat=True,
                space=ROOM,
                participants=(ALICE,),
                guests=(),
                text="how is Mochi doing?",
                message_at=now,
            )
        assert ctx.search_ok and ctx.documents == (), turn
        assert ctx.plan is not None and [m.memory_id for m in ctx.plan.matches] == [saved.record.id], turn
        assert "the document search of default failed" in caplog.text and "RuntimeError" in caplog.text
        caplog.clear()


class _SlowRecall(InMemoryRecall):
    """Embeds; loading a list (the background embedding of new memories) waits for ``go``."""

    def __init__(self, store: InMemoryMemoryStore) -> None:
        super().__init__(store, passages=lambda texts: np.ones((len(texts), 4), dtype=np.float32))
        self.go = asyncio.Event()
        self.loaded: list[Sequence[ScopeList]] = []

    async def load(self, scopes: Sequence[ScopeList]) -> list[MemoryRecord]:
        await self.go.wait()
        self.loaded.append(scopes)
        return await super().load(scopes)


async def _saved_on_a_slow_desk() -> tuple[MemoryDesk, _SlowRecall]:
    """A desk whose background embedding waits, right after a person saved a memory."""
    world = World()
    recall = _SlowRecall(world.memory_store)
    desk = MemoryDesk(
        store=world.memory_store, recall=recall, directory=world.directory, policy=MemoryPolicy()
    )
    await desk.add(
        persona="default",
        target=SPACE,
        text="Ana's cat is Mochi",
        pinned=False,
        source="person",
        now=world.clock.now(),
    )
    return desk, recall


async def test_close_lets_the_background_embedding_of_a_new_memory_finish() -> None:
    """A process stopping right after a memory was saved still embeds it before Redis closes."""
    desk, recall = await _saved_on_a_slow_desk()
    asyncio.get_running_loop().call_later(0.05, recall.go.set)
    await desk.close(grace=5.0)
    assert recall.loaded == [[SPACE]]
    await desk.close(grace=5.0)  # idle: returns at once


async def test_close_stops_a_stuck_background_embedding_after_its_grace(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An embedding that cannot finish does not hold the shutdown; it is stopped and logged."""
    desk, recall = await _saved_on_a_slow_desk()
    with caplog.at_level(logging.WARNING, logger="hearth.memory"):
        await asyncio.wait_for(desk.close(grace=0.05), 2.0)
    assert recall.loaded == [] and "background embedding still running" in caplog.text
    await asyncio.wait_for(desk.embedded(), 1.0)  # nothing left running


async def test_a_write_while_the_directory_is_unreachable_is_kept_and_noted_by_the_next_write() -> None:
    """Issue 29: the directory (memory id → list) is deployment-wide, on another Redis Cluster node
    than the list; while that node fails over a write still succeeds, and the next write notes
    both, so the first memory can be found by its id again."""
    world = World()
    desk, now = world.memory, world.clock.now()
    record = world.directory.record

    async def unreachable(*_: object) -> None:
        raise StorageUnavailable("Redis is unreachable: ConnectionError")

    world.directory.record = unreachable  # type: ignore[method-assign]
    first = await desk.add(
        persona="default", target=SPACE, text="The well is dry", pinned=False, source="person", now=now
    )
    assert [r.text for r in await desk.list([SPACE])] == ["The well is dry"]
    world.directory.record = record  # type: ignore[method-assign]
    second = await desk.add(
        persona="default", target=SPACE, text="The mill burned", pinned=False, source="person", now=now
    )
    assert (await desk.locate(first.record.id))[1].text == "The well is dry"
    assert (await desk.locate(second.record.id))[1].text == "The mill burned"


async def test_a_turn_notes_the_last_use_of_the_memories_it_sent() -> None:
    """Issue 31 (MEM-3): each memory a reply used keeps that turn, its time and the start of the
    message it answered, on one line and cut short; a later turn replaces it; a forgotten memory
    loses it."""
    world = await World().start()
    desk, now = world.memory, world.clock.now()
    text = "The tavern opens at dusk"
    saved = await desk.add(persona="default", target=SPACE, text=text, pinned=True, source="person", now=now)
    assert await desk.uses([saved.record]) == {}
    long = "When does the\ntavern open? " + "x" * 300
    first = next(e for e in await world.say(long) if isinstance(e, ReplyDone))
    use = (await desk.uses([saved.record]))[saved.record.id]
    assert use.turn == first.turn and use.chat == ROOM
    assert use.excerpt.startswith("When does the tavern open? xx") and use.excerpt.endswith("…")
    assert len(use.excerpt) == USE_EXCERPT_CHARS
    second = next(e for e in await world.say("And tonight?") if isinstance(e, ReplyDone))
    later = (await desk.uses([saved.record]))[saved.record.id]
    assert (later.turn, later.excerpt) == (second.turn, "And tonight?") and later.at > use.at
    await desk.delete(saved.record.id)
    assert await desk.uses([saved.record]) == {}
    await desk.restore(saved.record.id, lambda _: True)  # Undo brings the "why" back too
    assert (await desk.uses([saved.record]))[saved.record.id] == later


async def test_a_forgotten_memory_is_restored_as_it_was_once() -> None:
    """Issue 31 (Undo Forget): restore brings back the same id, text, pin and list; a second
    restore, or one for somebody else's list, is refused and changes nothing."""
    world = World()
    desk, now = world.memory, world.clock.now()
    saved = await desk.add(
        persona="default", target=MINE, text="Alice is afraid of bats", pinned=True, source="person", now=now
    )
    memory = saved.record.id
    await desk.delete(memory)
    assert await desk.list([MINE]) == []
    with pytest.raises(Forbidden) as refused:
        await desk.restore(memory, lambda scope: scope.owner == "web:bob")
    assert refused.value.code == "not_your_memory" and await desk.list([MINE]) == []
    restored = await desk.restore(memory, lambda scope: scope.owner == ALICE)
    assert restored == saved.record
    assert await desk.list([MINE]) == [saved.record]
    assert await desk.locate(memory) == (MINE, saved.record)
    with pytest.raises(NotFound) as again:
        await desk.restore(memory, lambda _: True)
    assert again.value.code == "memory_not_restorable"
    assert await desk.list([MINE]) == [saved.record]
