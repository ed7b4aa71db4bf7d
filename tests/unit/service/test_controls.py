"""``MessageControls`` on the in-memory fakes: edits by the author only, swipes, branches."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from engine.errors import Conflict, Forbidden, LLMUnavailable, NotFound
from engine.service import ReplyDone
from engine.turn import memory_space
from tests.fakes.ports import ScriptedChatModel
from tests.unit.service.world import ROOM, World, drain


def last_done(events: Sequence[object]) -> ReplyDone:
    assert isinstance(events[-1], ReplyDone)
    return events[-1]


async def test_only_the_author_changes_a_message() -> None:
    """Issue 31: someone else's message stays theirs; deleting mine takes its reply along."""
    world = await World(ScriptedChatModel("Tea it is.")).start()
    last_done(await world.say("I like green tea"))
    with pytest.raises(Forbidden) as other:
        await world.controls.edit(ROOM, "m1", "web:bob", "I like coffee")
    with pytest.raises(Forbidden):
        await world.controls.delete(ROOM, "m1", "web:bob")
    assert other.value.code == "not_your_message"
    edited = await world.controls.edit(ROOM, "m1", "web:alice", "I like jasmine tea")
    assert (edited.text, edited.position) == ("I like jasmine tea", 1.0)
    assert await world.texts() == ["Hello, traveller!", "I like jasmine tea", "Tea it is."]
    removed = await world.controls.delete(ROOM, "m1", "web:alice")
    assert len(removed) == 2 and removed[0] == "m1"  # the reply went with it: no two replies in a row
    assert await world.texts() == ["Hello, traveller!"]
    with pytest.raises(NotFound) as gone:
        await world.controls.edit(ROOM, "m1", "web:alice", "again")
    assert gone.value.code == "message_not_found"


async def test_swipes_keep_every_take_and_the_chosen_one_is_what_the_next_turn_reads() -> None:
    model = ScriptedChatModel("Take one.", "Take two.", "Take three.")
    world = await World(model).start()
    one = last_done(await world.say("Say something"))
    two = last_done(await drain(await world.controls.regenerate(ROOM, one.turn)))
    three = last_done(await drain(await world.controls.regenerate(ROOM, two.turn)))
    latest = await world.chats.latest(ROOM)
    assert latest is not None and latest.id == three.turn
    swipes = await world.controls.swipes_of(ROOM, latest)
    assert (swipes.turns, swipes.index) == ((one.turn, two.turn, three.turn), 2)
    chosen, shown = await world.controls.choose(ROOM, two.turn)
    assert (shown.text, chosen.status) == ("Take two.", "done")
    assert (await world.texts())[-1] == "Take two."
    await world.say("And then?")
    window = [m.text for m in model.prompts[-1].messages if m.slot == "window"]
    assert "Take two." in window and not {"Take one.", "Take three."} & set(window)
    with pytest.raises(Conflict) as stale:
        await world.controls.choose(ROOM, one.turn)  # the latest reply is another one now
    assert stale.value.code == "not_a_swipe"


async def test_a_branch_copies_up_to_a_message_and_goes_its_own_way() -> None:
    world = await World(ScriptedChatModel("Hi.", "Lisbon!", "Porto!")).start()
    await world.say("Hello")
    await world.say("Moving to Lisbon")
    branch = f"{ROOM}=b-1a2b3c4d"
    assert await world.controls.branch(ROOM, "m1", branch) == 2  # the greeting and "Hello"
    assert await world.texts(branch) == ["Hello, traveller!", "Hello"]
    await world.say("Or Porto", chat=branch)
    assert await world.texts(branch) == ["Hello, traveller!", "Hello", "Or Porto", "Porto!"]
    assert "Or Porto" not in await world.texts()
    assert memory_space(branch) == memory_space(ROOM)
    with pytest.raises(NotFound):
        await world.controls.branch(ROOM, "m9", f"{ROOM}=b-2")


async def test_a_persona_reply_is_edited_and_the_next_turn_reads_the_edit() -> None:
    """Issue 31: the persona's replies can be edited (the window carries the edit) and deleted."""
    model = ScriptedChatModel("Tea it is.", "Noted.", "Gone.")
    world = await World(model).start()
    reply = last_done(await world.say("I like green tea"))
    edited = await world.controls.edit(ROOM, f"r-{reply.turn}", "web:alice", "Jasmine tea it is.")
    assert edited.text == "Jasmine tea it is."
    await world.say("And milk?")
    window = [m.text for m in model.prompts[-1].messages if m.slot == "window"]
    assert "Jasmine tea it is." in window and "Tea it is." not in window
    second = last_done(await world.say("Bye"))
    assert await world.controls.delete(ROOM, f"r-{second.turn}", "web:alice") == (f"r-{second.turn}",)
    assert (await world.texts())[-1] == "Bye"


async def test_the_last_unanswered_message_is_answered_on_request() -> None:
    """Issue 31: a failed turn (or a process that died mid-reply) leaves the person's message
    without a reply; answer_last answers it, and refuses when the last message has a reply."""
    model = ScriptedChatModel(LLMUnavailable("The model is down.", code="llm_unavailable"), "Back again.")
    world = await World(model).start()
    await world.say("Are you there?")
    assert (await world.texts())[-1] == "Are you there?"
    done = last_done(await drain(await world.controls.answer_last(ROOM)))
    assert done.reply == "Back again."
    assert await world.texts() == ["Hello, traveller!", "Are you there?", "Back again."]
    with pytest.raises(Conflict) as nothing:
        await world.controls.answer_last(ROOM)
    assert nothing.value.code == "nothing_to_answer"


async def test_a_message_whose_reply_never_started_is_answered_on_request() -> None:
    """Issue 31: the message was stored but the process stopped before its turn ran (it stays
    on the pending queue); answer_last answers it once."""
    world = await World(ScriptedChatModel("Here I am.")).start()
    await world.service.accept(world.message("Hello?"), "default")  # its events never run
    done = last_done(await drain(await world.controls.answer_last(ROOM)))
    assert done.reply == "Here I am."
    assert await world.texts() == ["Hello, traveller!", "Hello?", "Here I am."]


async def test_mem_8_a_branch_of_a_memory_off_chat_stays_memory_off() -> None:
    """MEM-8 (issue 34): a branch is a new chat, but a challenge chat's branch is no way around
    its memory-off mode: the branch keeps the mode and the stretch written memory-off."""
    world = await World(ScriptedChatModel("Porto!", "Lisbon!")).start()
    off = await world.service.set_memory(ROOM, "off")
    await world.say("Where to?")
    branch = f"{ROOM}=b-1a2b3c4d"
    await world.controls.branch(ROOM, "m1", branch)
    assert await world.service.chats.chat_settings(branch) == off
    plain = f"{ROOM}-other"
    await world.say("Hello", chat=plain)
    await world.controls.branch(plain, "m1", f"{plain}=b-5e6f7a8b")
    assert (await world.service.chats.chat_settings(f"{plain}=b-5e6f7a8b")).memory == "on"
