"""``ChatService`` on the in-memory fakes: what a person sees of storing and answering messages."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import msgspec
import pytest

from engine.errors import Conflict, LLMUnavailable, NotFound
from engine.lorebook import LoreBook, LoreEntry
from engine.service import ReplyDelta, ReplyDone, ReplyFailed, ServicePolicy
from engine.user_persona import UserPersona
from tests.fakes.ports import ScriptedChatModel
from tests.unit.service.world import PERSONA, ROOM, World, drain


def done(events: Sequence[object]) -> ReplyDone:
    last = events[-1]
    assert isinstance(last, ReplyDone), last
    return last


async def test_the_first_message_follows_the_greeting_and_its_reply_streams() -> None:
    world = await World(ScriptedChatModel("Welcome, Alice.")).start()
    events = await world.say("Hi there")
    assert "".join(e.text for e in events if isinstance(e, ReplyDelta)) == "Welcome, Alice."
    assert await world.texts() == ["Hello, traveller!", "Hi there", "Welcome, Alice."]
    turn, log = await world.service.turn(ROOM, done(events).turn)
    assert (turn.answers, turn.status, turn.reply) == (("m1",), "done", "Welcome, Alice.")
    assert log.prompt[0].text == "You are Ember."


async def test_messages_sent_together_are_answered_in_the_order_they_came() -> None:
    model = ScriptedChatModel(delay=0.01)
    world = await World(model).start()
    first = await world.service.accept(world.message("one?"), "default")
    second = await world.service.accept(world.message("two?", user="web:bob"), "default")
    replies = await asyncio.gather(drain(second.events), drain(first.events))
    assert {done(r).reply for r in replies} == {"reply to: one?", "reply to: Bob: two?"}
    assert await world.texts() == [
        "Hello, traveller!",
        "one?",
        "reply to: one?",
        "two?",
        "reply to: Bob: two?",
    ]


async def test_a_failed_reply_keeps_the_message_for_the_next_turn() -> None:
    model = ScriptedChatModel(LLMUnavailable("The model is down.", code="llm_unavailable"), "Back.")
    world = await World(model).start()
    (failed,) = await world.say("anyone?")
    assert isinstance(failed, ReplyFailed) and failed.code == "llm_unavailable"
    assert await world.texts() == ["Hello, traveller!", "anyone?"]
    back = done(await world.say("hello?"))
    _, log = await world.service.turn(ROOM, back.turn)
    assert [m.text for m in log.prompt if m.slot == "window"][-2:] == ["anyone?", "hello?"]


async def test_only_the_latest_reply_can_be_regenerated() -> None:
    world = await World(ScriptedChatModel("first", "second", "again")).start()
    one = done(await world.say("q1"))
    two = done(await world.say("q2"))
    with pytest.raises(Conflict):
        await world.service.regenerate(ROOM, one.turn)
    redone = done(await drain(await world.service.regenerate(ROOM, two.turn)))
    assert await world.texts() == ["Hello, traveller!", "q1", "first", "q2", "again"]
    old, _ = await world.service.turn(ROOM, two.turn)
    new, _ = await world.service.turn(ROOM, redone.turn)
    assert (old.status, new.replaces) == ("superseded", two.turn)


async def test_a_message_stored_without_a_reply_is_context_for_the_next_turn() -> None:
    """MEM-4: the next turn sees the listened-to message but replies only to alice's (issue 29)."""
    model = ScriptedChatModel()
    world = await World(model).start()
    assert await world.say("just saying", user="web:bob", reply=False) == []
    answer = done(await world.say("Ember?"))
    turn, _ = await world.service.turn(ROOM, answer.turn)
    assert turn.answers == ("m2",)
    window = [m.text for m in model.prompts[0].messages if m.slot == "window"]
    assert window == ["Hello, traveller!", "Bob: just saying", "Alice: Ember?"]


async def test_an_unknown_persona_stores_nothing_and_chats_stay_apart() -> None:
    model = ScriptedChatModel()
    world = await World(model).start()
    with pytest.raises(NotFound):
        await world.say("hi", persona="nobody")
    assert await world.texts() == []
    await world.say("the secret is 42", chat="web:a")
    await world.say("what is the secret?", chat="web:b")
    assert all("42" not in m.text for m in model.prompts[1].messages)


async def test_a_persona_change_reaches_the_next_turn() -> None:
    model = ScriptedChatModel()
    world = await World(model).start()
    await world.say("hi")
    await world.personas.put(msgspec.structs.replace(PERSONA, system_prompt="You are Ember, a dragon."))
    await world.say("and now?")
    assert [p.messages[0].text for p in model.prompts] == ["You are Ember.", "You are Ember, a dragon."]


async def test_lore_a_scan_past_its_budget_keeps_what_it_found_and_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A pool whose scan could be slow runs off the loop within ``lore_seconds`` (issue 29, LORE-16)."""
    world = await World(ScriptedChatModel("Noted.")).start()
    entries = tuple(LoreEntry(id=str(n), keys=("lamp",), content=f"Lamp {n} burns.") for n in range(400))
    stored = await world.lore.put(LoreBook(name="Lamps", token_budget=32_000, entries=entries))
    await world.lore.attach(ROOM, [stored.id])
    roomy = done(await world.say("the lamp is lit"))
    included = [d for d in roomy.context.lore if d.included]
    assert len(included) == 400
    world.service.policy = ServicePolicy(lore_seconds=0.0)  # every check finds the budget spent
    with caplog.at_level("WARNING", logger="hearth.service"):
        cut = done(await world.say("another lamp"))
    kept = [d for d in cut.context.lore if d.included]
    assert 0 < len(kept) < 400  # what was activated before the budget ran out, nothing more
    logged = [r.getMessage() for r in caplog.records]
    assert any("stopped after its budget" in line and ROOM in line for line in logged), logged


async def test_issue_31_the_user_persona_names_user_and_its_description_reaches_the_prompt() -> None:
    """Issue 31: the answered person's own persona is ``{{user}}`` in the card and lore, and its
    description sits in the ``user_persona`` slot right after the card; another person's turn
    carries neither."""
    world = await World().start(
        msgspec.structs.replace(PERSONA, system_prompt="You are Ember. You serve {{user}}.")
    )
    world.data.user_personas["web:alice"] = UserPersona(
        name="Lady Ann", description="{{user}} is a knight who hates {{char}}'s stew."
    )
    (*_, answered) = await world.say("Hello!")
    _, log = await world.service.turn(ROOM, done([answered]).turn)
    assert log.prompt[0].text == "You are Ember. You serve Lady Ann."
    assert log.prompt[1].slot == "user_persona"
    assert log.prompt[1].text == (
        "About Lady Ann, the person you are talking with:\nLady Ann is a knight who hates Ember's stew."
    )
    (*_, other) = await world.say("And me?", user="web:bob")
    _, log = await world.service.turn(ROOM, done([other]).turn)
    assert log.prompt[0].text == "You are Ember. You serve Bob."
    assert not any(m.slot == "user_persona" for m in log.prompt)
