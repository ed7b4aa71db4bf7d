"""Contract: ``MessageLog``, ``MessageIntake``, ``TurnReads``, ``TurnRecords``, ``ChatLock`` and
``PersonaStore`` behave alike on the in-memory fakes and on Redis (single and cluster)."""

from __future__ import annotations

import asyncio

import msgspec
import pytest

from engine.errors import Conflict
from engine.images import ImageRef
from engine.lorebook import LoreBook, LoreState
from engine.model import ChatSettings, Persona
from engine.ports import NewMessage
from engine.summary import SummaryState, Tier
from tests.contract.builders import T0, finish_reply, new_message, request_log, turn_of
from tests.contract.stores import Stores
from tests.fixtures.pictures import png

pytestmark = pytest.mark.contract

CHAT = "web:hall"
HELLO = new_message("Welcome to the hall.", role="assistant")


async def test_messages_get_numbered_positions_and_the_greeting_comes_first_once(stores: Stores) -> None:
    chats = stores.chats()
    first = await chats.append(CHAT, new_message("one"), pending=False, greeting=HELLO)
    second = await chats.append(CHAT, new_message("two", minute=1), pending=False, greeting=HELLO)
    assert (first.id, first.position, second.id, second.position) == ("m1", 1.0, "m2", 2.0)
    history = await chats.history(CHAT, 10)
    assert [(m.id, m.role, m.text) for m in history] == [
        ("m0", "assistant", "Welcome to the hall."),
        ("m1", "user", "one"),
        ("m2", "user", "two"),
    ]
    assert history[1] == first
    assert await chats.message(CHAT, "m2") == second
    assert await chats.message(CHAT, "m9") is None


async def test_windows_and_counts_end_at_a_position(stores: Stores) -> None:
    chats = stores.chats()
    for i in range(5):
        await chats.append(CHAT, new_message(f"n{i}", minute=i), pending=False, greeting=None)
    assert [m.text for m in await chats.upto(CHAT, 4.0, 2)] == ["n2", "n3"]
    assert [m.text for m in await chats.history(CHAT, 2)] == ["n3", "n4"]
    assert await chats.count(CHAT, 3.0) == 3
    assert await chats.count(CHAT, 0.5) == 0
    assert await chats.history("web:empty", 5) == []


async def test_storing_a_message_reports_its_persona_version(stores: Stores) -> None:
    chats, personas = stores.chats(), stores.personas()
    _, missing = await chats.store_message(CHAT, new_message("hi"), pending=True, greeting=None)
    await personas.put(Persona(id="default", name="Ember", system_prompt="You are Ember."))
    _, version = await chats.store_message(CHAT, new_message("again"), pending=True, greeting=None)
    assert (missing, version) == (None, 1)


async def test_discarding_the_first_message_takes_the_greeting_along(stores: Stores) -> None:
    chats = stores.chats()
    first, _ = await chats.store_message(CHAT, new_message("hi"), pending=True, greeting=HELLO)
    await chats.discard(CHAT, first)
    assert await chats.history(CHAT, 10) == []
    assert await chats.oldest_pending(CHAT, 10.0) is None


async def test_the_pending_queue_answers_oldest_first(stores: Stores) -> None:
    chats = stores.chats()
    for i in range(3):
        await chats.store_message(CHAT, new_message(f"q{i}", minute=i), pending=True, greeting=None)
    oldest = await chats.oldest_pending(CHAT, 3.0)
    assert oldest is not None and oldest.text == "q0"
    assert await chats.oldest_pending(CHAT, 0.5) is None
    await chats.drop_pending(CHAT, "m1")
    after = await chats.oldest_pending(CHAT, 3.0)
    assert after is not None and after.text == "q1"


async def test_turn_inputs_bring_everything_a_turn_reads(stores: Stores) -> None:
    chats, personas, books, summaries = stores.chats(), stores.personas(), stores.books(), stores.summaries()
    await personas.put(Persona(id="default", name="Ember", system_prompt="You are Ember."))
    book = await books.put(LoreBook(id="lb-1", name="Hall"))
    await books.attach(CHAT, [book.id])
    tier = Tier(id="t1", level="recent", text="they met", first=1, last=1, messages=1, created_at=T0)
    assert await summaries.commit(CHAT, 0, SummaryState(upto=1.0, tiers=(tier,)))
    await chats.save_token_ratio("m", 1.234567)
    await chats.store_message(CHAT, new_message("old"), pending=False, greeting=None)
    await chats.store_message(CHAT, new_message("ask", minute=1), pending=True, greeting=None)
    await chats.store_message(CHAT, new_message("later", minute=2), pending=True, greeting=None)
    inputs = await chats.turn_inputs(
        CHAT, 3.0, 10, pending=True, persona="default", model="m", books=["lb-1", "lb-x", "lb-1"]
    )
    assert inputs.answered is not None and inputs.answered.text == "ask"
    assert [m.text for m in inputs.messages] == ["old", "ask"]
    assert (inputs.count, inputs.attached, inputs.persona_version) == (2, ("lb-1",), 1)
    assert (inputs.token_ratio, inputs.book_versions) == (1.23457, {"lb-1": 1})
    assert (inputs.summary.version, inputs.summary.tiers) == (1, (tier,))
    assert inputs.lore_state == LoreState()


async def test_mem_8_chat_settings_are_kept_and_read_with_the_turn(stores: Stores) -> None:
    """MEM-8 (issue 34): a chat's settings can be stored before its first message, are read by
    the turn's one read, and a chat never configured has memory on."""
    chats = stores.chats()
    assert await chats.chat_settings(CHAT) == ChatSettings()
    off = ChatSettings(memory="off", off_since=0.25, off_spans=((3.25, 7.25),))
    await chats.put_chat_settings(CHAT, off)
    assert await chats.chat_settings(CHAT) == off
    assert await chats.chat_settings("web:elsewhere") == ChatSettings()
    await chats.store_message(CHAT, new_message("ask"), pending=True, greeting=None)
    inputs = await chats.turn_inputs(CHAT, 1.0, 10, pending=True, persona="default", model="m")
    assert inputs.chat_settings == off
    await chats.put_chat_settings(CHAT, ChatSettings(memory="on", off_spans=off.off_spans))
    again = await chats.turn_inputs(CHAT, 1.0, 10, pending=False, persona="default", model="m")
    assert again.chat_settings.memory == "on" and again.chat_settings.off_spans == ((3.25, 7.25),)


async def test_turn_inputs_without_pending_messages(stores: Stores) -> None:
    chats = stores.chats()
    await chats.store_message(CHAT, new_message("said"), pending=False, greeting=None)
    idle = await chats.turn_inputs(CHAT, 5.0, 10, pending=True, persona="nobody", model="m")
    assert (idle.answered, idle.messages, idle.persona_version, idle.token_ratio) == (None, (), None, None)
    window = await chats.turn_inputs(CHAT, 5.0, 10, pending=False, persona="nobody", model="m")
    assert window.answered is None
    assert ([m.text for m in window.messages], window.count) == (["said"], 1)


async def test_finishing_a_turn_stores_its_reply_after_the_answered_message(stores: Stores) -> None:
    chats = stores.chats()
    await chats.store_message(CHAT, new_message("ask"), pending=True, greeting=None)
    await chats.store_message(CHAT, new_message("next", minute=1), pending=True, greeting=None)
    turn = turn_of(CHAT, "t1", ("m1",), 1.0, reply_message="r-t1")
    state = LoreState(turn="t1")
    reply = await chats.finish(
        turn, request_log(CHAT, "t1"), new_message("answer", role="assistant"), None, state
    )
    assert reply is not None and (reply.id, reply.position, reply.turn, reply.role) == (
        "r-t1",
        1.5,
        "t1",
        "assistant",
    )
    assert [m.text for m in await chats.history(CHAT, 10)] == ["ask", "answer", "next"]
    pending = await chats.oldest_pending(CHAT, 10.0)
    assert pending is not None and pending.id == "m2"
    assert await chats.answer_of(CHAT, "m1") == turn
    assert await chats.latest(CHAT) == turn
    assert await chats.get(CHAT, "t1") == (turn, request_log(CHAT, "t1"))
    assert await chats.get(CHAT, "t9") is None
    assert await stores.lore().state(CHAT) == state


async def test_a_failed_turn_leaves_no_reply_and_no_latest(stores: Stores) -> None:
    chats = stores.chats()
    await chats.store_message(CHAT, new_message("ask"), pending=True, greeting=None)
    failed = turn_of(CHAT, "t1", ("m1",), 1.0, status="failed", reply=None, error_code="llm_unavailable")
    assert await chats.finish(failed, request_log(CHAT, "t1"), None, None) is None
    assert await chats.latest(CHAT) is None
    assert await chats.answer_of(CHAT, "m1") is None
    assert await chats.oldest_pending(CHAT, 5.0) is None  # answered, if badly
    assert await chats.get(CHAT, "t1") is not None


async def test_a_superseded_reply_leaves_the_log(stores: Stores) -> None:
    chats = stores.chats()
    await chats.store_message(CHAT, new_message("ask"), pending=True, greeting=None)
    first = turn_of(CHAT, "t1", ("m1",), 1.0, reply_message="r-t1")
    await finish_reply(chats, CHAT, first, "first try")
    second = turn_of(CHAT, "t2", ("m1",), 1.0, reply_message="r-t2", replaces="t1")
    superseded = msgspec.structs.replace(first, status="superseded")
    await chats.finish(
        second, request_log(CHAT, "t2"), new_message("second try", role="assistant"), superseded
    )
    assert [m.text for m in await chats.history(CHAT, 10)] == ["ask", "second try"]
    assert await chats.latest(CHAT) == second
    found = await chats.get(CHAT, "t1")
    assert found is not None and found[0].status == "superseded"


async def test_the_chat_lock_serializes_and_gives_up_when_busy(stores: Stores) -> None:
    lock, other = stores.lock(), stores.lock()
    async with lock.hold(CHAT):
        with pytest.raises(Conflict) as busy:
            async with other.hold(CHAT):
                pass  # pragma: no cover - never reached
        async with other.hold("web:elsewhere"):
            pass
    assert busy.value.code == "chat_busy"
    order: list[str] = []

    async def turn(name: str) -> None:
        async with lock.hold(CHAT):
            order.append(f"{name} in")
            await asyncio.sleep(0.02)
            order.append(f"{name} out")

    await asyncio.gather(turn("a"), turn("b"))
    assert order in (["a in", "a out", "b in", "b out"], ["b in", "b out", "a in", "a out"])


async def test_personas_are_versioned_and_sorted(stores: Stores) -> None:
    personas = stores.personas()
    ember = Persona(id="ember", name="Ember", system_prompt="You are Ember.")
    ash = Persona(id="ash", name="Ash", system_prompt="You are Ash.")
    assert await personas.versioned("ember") is None
    await personas.put(ember)
    await personas.put(ash)
    renamed = msgspec.structs.replace(ember, name="Embers")
    await personas.put(renamed)
    assert await personas.versioned("ember") == (2, renamed)
    assert await personas.get("ash") == ash
    assert [p.id for p in await personas.all()] == ["ash", "ember"]
    assert await personas.delete("ash") is True
    assert await personas.delete("ash") is False
    assert await personas.get("ash") is None


def _pictured(text: str, ids: tuple[str, ...], minute: int = 0) -> NewMessage:
    refs = tuple(ImageRef(id=i, media_type="image/png", width=8, height=6, size=10) for i in ids)
    return msgspec.structs.replace(new_message(text, minute=minute), images=refs)


async def test_issue_30_pictures_are_stored_with_their_message_and_read_back_by_id(stores: Stores) -> None:
    chats = stores.chats()
    data = {"ia": png(seed=1), "ib": png(seed=2)}
    stored, _ = await chats.store_message(
        CHAT, _pictured("look", ("ia", "ib")), pending=True, greeting=None, images=list(data.items())
    )
    assert [r.id for r in stored.images] == ["ia", "ib"]
    assert (await chats.message(CHAT, stored.id)) == stored  # the refs live in the message
    assert await chats.images(CHAT, ["ia", "ib", "gone"]) == data
    assert await chats.images("web:other", ["ia"]) == {}


async def test_issue_30_a_chat_keeps_its_newest_30_pictures_the_oldest_go(stores: Stores) -> None:
    chats = stores.chats()
    for n in range(32):
        image = (f"i{n:02}", png(seed=n))
        await chats.store_message(
            CHAT, _pictured(f"p{n}", (image[0],), minute=n), pending=False, greeting=None, images=[image]
        )
    kept = await chats.images(CHAT, [f"i{n:02}" for n in range(32)])
    assert sorted(kept) == [f"i{n:02}" for n in range(2, 32)]
    assert kept["i31"] == png(seed=31)


async def test_issue_30_deleting_a_message_deletes_its_pictures(stores: Stores) -> None:
    chats, controls = stores.chats(), stores.controls()
    stored, _ = await chats.store_message(
        CHAT, _pictured("look", ("ix",)), pending=False, greeting=None, images=[("ix", png())]
    )
    assert await controls.remove_message(CHAT, stored.id)
    assert await chats.images(CHAT, ["ix"]) == {}
    await chats.store_message(
        CHAT, _pictured("more", ("iy",)), pending=False, greeting=None, images=[("iy", png())]
    )
    await chats.drop_images(CHAT, ["iy"])
    assert await chats.images(CHAT, ["iy"]) == {}


async def test_issue_30_a_notice_is_shown_once_per_chat(stores: Stores) -> None:
    chats = stores.chats()
    assert await chats.first_notice(CHAT, "no_vision")
    assert not await chats.first_notice(CHAT, "no_vision")
    assert await chats.first_notice("web:elsewhere", "no_vision")
