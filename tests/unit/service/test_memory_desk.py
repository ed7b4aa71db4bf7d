"""``MemoryDesk`` on the in-memory fakes: people's writes (MEM-6b, MEM-9), rollback (MEM-7),
persona deletion (MEM-10), privacy (DEC-10) and notices (DEC-11)."""

from __future__ import annotations

import pytest

from engine.errors import Conflict, NotFound
from engine.memory import global_list, personal_list, space_list
from engine.requestlog import MemoryNote
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
