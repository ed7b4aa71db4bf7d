"""Telegram memory commands end to end (MEM-1..9, DEC-10, DEC-11, SUM-4; issue 6 items 4-6).

The real aiogram client and Dispatcher against the fake Bot API, real Redis and the fake
Anthropic server, as in ``test_telegram.py`` (whose harness this module reuses with its own
fake server, so update ids never collide). What people see is read from the fake chats; what
was stored is read through the memory desk or the web REST API (the same Redis, in process).
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import pytest
from litestar.testing import AsyncTestClient

from adapters.bootstrap import create_web_app
from adapters.telegram.bot import TelegramApp
from config.settings import load_settings
from engine.memory import (
    MemoryRecord,
    WritePlan,
    global_personal_list,
    personal_list,
    space_list,
)
from engine.memory.journal import Saved
from engine.model import MemoryLimits
from engine.service.memory import MemoryDesk
from engine.summary import SummaryState, Tier
from engine.window import WindowPolicy, live_window
from storage.redis_accounts import RedisAccountStore
from storage.redis_memory_directory import RedisMemoryDirectory
from tests.e2e.test_telegram import FAST, Harness, bot, group, person
from tests.fakes.anthropic_server import FakeAnthropic, Reply, ToolUse
from tests.fakes.telegram_server import FakeTelegram
from tests.fixtures.servers import ADMIN_TOKEN, RedisServer

pytestmark = pytest.mark.e2e

__all__ = ["bot"]  # the harness fixture of test_telegram.py, run against this module's fake server

PERSONA = "default"
# The web app's own routes still use a parameter style Litestar deprecates; not this module's concern.
_LITESTAR_DEPRECATIONS = (
    "ignore::litestar.exceptions.LitestarDeprecationWarning",
    "ignore:Deprecated 'query' parameter:DeprecationWarning",
)


def litestar_quiet(test: Any) -> Any:
    for rule in _LITESTAR_DEPRECATIONS:
        test = pytest.mark.filterwarnings(rule)(test)
    return test


@pytest.fixture(scope="module")
def telegram() -> Any:
    with FakeTelegram(token="700301:memory-token") as fake:
        yield fake


@pytest.fixture
async def web(bot: Harness, redis_server: RedisServer) -> AsyncIterator[AsyncTestClient[Any]]:
    """The web app's REST API on the bot's Redis, with the admin token."""
    env = {"REDIS_URL": redis_server.db(10), "HEARTH_ADMIN_TOKEN": ADMIN_TOKEN, "HEARTH_EMBEDDER": "hash"}
    async with AsyncTestClient(app=create_web_app(load_settings(env))) as client:
        client.headers["Authorization"] = f"Bearer {ADMIN_TOKEN}"
        yield client


def desk(bot: Harness) -> MemoryDesk:
    found = bot.hearth.service.memory
    assert found is not None
    return found


def directory(bot: Harness) -> RedisMemoryDirectory:
    return RedisMemoryDirectory(bot.hearth.redis, bot.hearth.keys)


def admin_room(bot: Harness) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A group, its admin and a member."""
    room, boss, alice = group(bot.fake), person(bot.fake, "Boss"), person(bot.fake, "Alice")
    bot.fake.set_member(room["id"], boss["id"], "administrator")
    return room, boss, alice


async def say(bot: Harness, chat: dict[str, Any], user: dict[str, Any], text: str) -> dict[str, Any]:
    """Send a message; returns the bot's latest message in that chat."""
    await bot.feed(bot.fake.message(chat, user, text))
    return bot.fake.bot_messages(chat["id"])[-1]


def buttons(message: dict[str, Any]) -> dict[str, str]:
    rows = message.get("reply_markup", {}).get("inline_keyboard", [])
    return {b["text"]: b["callback_data"] for row in rows for b in row}


async def press(bot: Harness, message: dict[str, Any], user: dict[str, Any], label: str) -> dict[str, Any]:
    """Press a button; returns the message as it stands afterwards."""
    await bot.feed(bot.fake.press(message, user, buttons(message)[label]))
    chat = message["chat"]["id"]
    return next(m for m in bot.fake.bot_messages(chat) if m["message_id"] == message["message_id"])


def last_answer(bot: Harness) -> dict[str, Any]:
    (call, *_) = reversed(bot.fake.calls("answerCallbackQuery"))
    assert call.status == 200
    return call.params


async def texts(bot: Harness, *targets: Any) -> list[str]:
    return [r.text for r in await desk(bot).list(targets)]


@litestar_quiet
async def test_mem_6b_remember_then_memories_shows_it_and_pin_pins_it_as_the_web_api_sees(
    bot: Harness, web: AsyncTestClient[Any]
) -> None:
    room, boss, _ = admin_room(bot)
    space = f"tg:{room['id']}"
    saved = await say(bot, room, boss, "/remember The inn's password is amber")
    assert saved["text"] == "🧠 Saved (for everyone in this group)."
    (record,) = await desk(bot).list([space_list(PERSONA, space)])
    assert (record.text, record.protected, record.pinned) == ("The inn's password is amber", True, False)
    listing = await say(bot, room, boss, "/memories")
    assert "The inn's password is amber" in listing["text"] and record.id in listing["text"]
    assert set(buttons(listing)) == {"📌 Pin 1", "🗑 Forget 1"}
    code = [e for e in listing["entities"] if e["type"] == "code"]
    assert code and code[0]["length"] == len(record.id)
    shown = await press(bot, listing, boss, "📌 Pin 1")
    assert "📌 The inn's password is amber" in shown["text"] and "Unpin 1" in buttons(shown)
    assert last_answer(bot)["text"].startswith("Pinned")
    response = await web.get("/api/memories", params={"scope": "space", "space": space})
    assert response.status_code == 200, response.text
    (seen,) = response.json()["memories"]
    assert (seen["id"], seen["text"], seen["pinned"]) == (record.id, record.text, True)


@litestar_quiet
async def test_mem_1_the_same_memories_from_the_web_api_and_telegram(
    bot: Harness, web: AsyncTestClient[Any]
) -> None:
    room, _, alice = admin_room(bot)
    space = f"tg:{room['id']}"
    created = await web.post(
        "/api/memories", json={"scope": "space", "space": space, "text": "Rooms cost 3 silver"}
    )
    assert created.status_code == 201, created.text
    assert "Rooms cost 3 silver" in (await say(bot, room, alice, "/memories"))["text"]
    bot.fake.private(alice)
    await say(bot, bot.fake.private(alice), alice, "/remember I take my tea without sugar")
    response = await web.get(
        "/api/memories", params={"scope": "personal", "owner": f"tg:{alice['id']}", "global": "true"}
    )
    # stored in the third person with the sender's name (issue 28)
    assert [m["text"] for m in response.json()["memories"]] == ["Alice takes their tea without sugar"]


async def test_mem_1_memories_come_in_pages_inside_a_forum_topic(bot: Harness) -> None:
    forum, boss = group(bot.fake, forum=True), person(bot.fake, "Boss")
    space = space_list(PERSONA, f"tg:{forum['id']}")
    for n in range(9):
        await desk(bot).add(
            persona=PERSONA,
            target=space,
            text=f"Fact {n}",
            pinned=False,
            source="person",
            now=datetime.now(UTC),
        )
    await bot.feed(bot.fake.message(forum, boss, "/memories", thread=7))
    (first,) = bot.fake.bot_messages(forum["id"])
    assert first["message_thread_id"] == 7 and "9 memories · page 1 of 2" in first["text"]
    assert "8. Fact 1" in first["text"] and "Fact 0" not in first["text"] and "2 ▶" in buttons(first)
    second = await press(bot, first, boss, "2 ▶")
    assert "page 2 of 2" in second["text"] and "9. Fact 0" in second["text"]
    assert set(buttons(second)) == {"📌 Pin 9", "🗑 Forget 9", "◀ 1"}
    assert "text" not in last_answer(bot)  # a page turn is answered without a toast
    assert "page 1 of 2" in (await press(bot, second, boss, "◀ 1"))["text"]


async def test_mem_1_personal_in_a_group_is_sent_privately_and_never_shown_in_the_group(bot: Harness) -> None:
    room, _, alice = admin_room(bot)
    bob = person(bot.fake, "Bob")
    private = bot.fake.private(alice)  # alice started the bot; bob never did
    assert (await say(bot, room, alice, "/remember I'm allergic to hazelnuts"))["text"] == (
        "🧠 Saved (about you, in this group)."
    )
    await say(bot, room, bob, "/remember My real name is Robert Quill")
    note = await say(bot, room, alice, "/personal")
    assert note["text"] == "📬 Alice, I sent what I remember about you to our private chat."
    (shown,) = bot.fake.bot_messages(private["id"])
    assert shown["text"].startswith("What I remember about you in The Inn and everywhere")
    assert "Alice is allergic to hazelnuts (here)" in shown["text"]  # whose it is (issue 28)
    bobs = personal_list(PERSONA, f"tg:{bob['id']}", f"tg:{room['id']}")
    assert await texts(bot, bobs) == ["Bob's real name is Robert Quill"]
    refused = await say(bot, room, bob, "/personal")
    assert "can't write to you privately yet" in refused["text"] and "@hearth_test_bot" in refused["text"]
    group_text = " ".join(m["text"] for m in bot.fake.bot_messages(room["id"]))
    assert "hazelnuts" not in group_text and "Robert" not in group_text
    after = await press(bot, shown, alice, "🗑 Forget 1")
    assert "I don't remember anything about you yet" in after["text"]
    assert await texts(bot, personal_list(PERSONA, f"tg:{alice['id']}", f"tg:{room['id']}")) == []


async def test_mem_9_a_non_admin_cannot_clear_or_change_the_space_memories(bot: Harness) -> None:
    room, boss, alice = admin_room(bot)
    space = space_list(PERSONA, f"tg:{room['id']}")
    await say(bot, room, boss, "/remember Quiet hours start at ten")
    refused = await say(bot, room, alice, "/clear")
    assert refused["text"].startswith("Only group admins can clear this group's memories")
    listing = await say(bot, room, alice, "/memories")
    await press(bot, listing, alice, "🗑 Forget 1")
    assert last_answer(bot)["show_alert"] is True
    assert "Only group admins" in last_answer(bot)["text"]
    await press(bot, listing, alice, "📌 Pin 1")
    question = await say(bot, room, boss, "/clear")
    await press(bot, question, alice, "Yes, forget 1")
    assert "Only group admins" in last_answer(bot)["text"]
    forget = await say(bot, room, alice, "/forget quiet")
    assert forget["text"].startswith("⚠️ Only group admins can forget this group's memories")
    (kept,) = await desk(bot).list([space])
    assert (kept.text, kept.pinned) == ("Quiet hours start at ten", False)


async def test_mem_9_clear_needs_a_second_separate_confirmation_for_pinned(bot: Harness) -> None:
    room, boss, alice = admin_room(bot)
    space = space_list(PERSONA, f"tg:{room['id']}")
    for fact in ("The cellar is locked", "Mira runs the kitchen"):
        await say(bot, room, boss, f"/remember {fact}")
    chatter = bot.fake.message(room, alice, "Never feed the goat")
    await bot.feed(chatter, bot.fake.message(room, boss, "/remember", reply_to=chatter["message"]))
    goat = next(r for r in await desk(bot).list([space]) if "goat" in r.text)
    await desk(bot).edit(goat.id, text=None, pinned=True, now=datetime.now(UTC))
    question = await say(bot, room, boss, "/clear")
    assert question["text"].startswith("Forget 2 unpinned memories of this group? This cannot be undone.")
    assert "The 1 pinned stay" in question["text"]
    first = await press(bot, question, boss, "Yes, forget 2")
    assert first["text"].startswith("Forgot 2 memories.") and "Also delete 1 pinned" in buttons(first)
    assert await texts(bot, space) == ["Never feed the goat"]
    second = await press(bot, first, boss, "Also delete 1 pinned")
    assert second["text"] == "Forgot 1 memory, pinned ones included." and not buttons(second)
    assert await texts(bot, space) == []
    private = bot.fake.private(alice)
    await say(bot, private, alice, "/remember I sleep in the attic")
    mine = await say(bot, private, alice, "/clear personal")
    await press(bot, mine, alice, "Yes, forget 1")
    assert await texts(bot, global_personal_list(PERSONA, f"tg:{alice['id']}")) == []


async def test_dec_10_privacy_opt_out_and_back_in(bot: Harness) -> None:
    room, _, alice = admin_room(bot)
    bob, user = person(bot.fake, "Bob"), f"tg:{alice['id']}"
    status = await say(bot, room, alice, "/privacy")
    assert status["text"].startswith("🔓 Personal memory is on for Alice")
    await press(bot, status, bob, "Opt out of personal memory")
    assert "belongs to someone else" in last_answer(bot)["text"]
    assert await directory(bot).opted_out([user]) == ()
    off = await press(bot, status, alice, "Opt out of personal memory")
    assert off["text"].startswith("🔒 Personal memory is off") and await directory(bot).opted_out([user]) == (
        user,
    )
    refused = await say(bot, room, alice, "/remember I live above the bakery")
    assert refused["text"].startswith("You opted out of personal memory")
    assert await texts(bot, personal_list(PERSONA, user, f"tg:{room['id']}")) == []
    await press(bot, off, alice, "Opt back in")
    assert await directory(bot).opted_out([user]) == ()


async def test_dec_11_reply_notices_follow_the_space_level(
    bot: Harness, anthropic_fake: FakeAnthropic
) -> None:
    """A save gets a receipt under the reply (Issue 31) that says as much as the level allows."""
    room, boss, alice = admin_room(bot)

    def saving(fact: str, reply: str) -> None:
        anthropic_fake.script(
            Reply(text="", tool_uses=(ToolUse(name="save_memory", input={"text": fact}),)), Reply(text=reply)
        )

    saving("Alice plays the oud", "Lovely instrument.")
    brief = await say(bot, room, alice, "Ember, I play the oud")
    assert brief["text"] == "🧠 saved: a personal memory"  # brief: the group is not told the text
    assert set(buttons(brief)) == {"Undo", "Pin"}
    reply = bot.fake.bot_messages(room["id"])[-2]
    assert reply["text"] == "Lovely instrument." and set(buttons(reply)) == {"↻"}  # the receipt says it
    assert brief["reply_to_message"]["message_id"] == reply["message_id"]
    refused = await say(bot, room, alice, "/notices full")
    assert refused["text"].startswith("Only group admins")
    levels = await say(bot, room, boss, "/notices full")
    assert levels["text"].startswith("Memory notices here: full.")
    saving("Alice's oud is named Layla", "What a name.")
    full = await say(bot, room, alice, "Ember, my oud is called Layla")
    assert full["text"] == "🧠 saved: “Alice's oud is named Layla”"
    named = bot.fake.bot_messages(room["id"])[-2]
    assert named["text"] == "What a name."
    anthropic_fake.script(Reply(text="A fine name."))
    again = await press(bot, named, alice, "↻")  # MEM-7: the save is rolled back
    assert again["text"] == "A fine name." and "entities" not in again
    assert await press(bot, full, alice, "Undo") == full  # its receipt's memory is already gone
    assert last_answer(bot)["text"] == "That memory is already gone."
    await press(bot, levels, boss, "off")
    assert await directory(bot).notice_level(f"tg:{room['id']}") == "off"
    saving("Alice practices at dawn", "Early bird.")
    assert (await say(bot, room, alice, "Ember, I practice at dawn"))["text"] == "Early bird."  # no receipt
    assert (await say(bot, room, boss, "/remember Music night is Friday"))["text"] == (
        "🧠 Saved (for everyone in this group)."
    )


async def test_dec_11_a_private_receipt_pins_and_undoes_the_saved_memory(
    bot: Harness, anthropic_fake: FakeAnthropic
) -> None:
    """Issue 31: in a private chat the receipt quotes the memory; Pin pins it, Undo deletes it."""
    alice = person(bot.fake, "Alice")
    chat = bot.fake.private(alice)
    user = f"tg:{alice['id']}"
    anthropic_fake.script(
        Reply(text="", tool_uses=(ToolUse(name="save_memory", input={"text": "Alice's cat is Mochi"}),)),
        Reply(text="What a lovely name for a cat."),
    )
    receipt = await say(bot, chat, alice, "My cat is called Mochi")
    reply = bot.fake.bot_messages(alice["id"])[-2]
    assert reply["text"] == "What a lovely name for a cat."  # no footer: the receipt says it
    assert receipt["text"] == "🧠 saved: “Alice's cat is Mochi”" and list(buttons(receipt)) == ["Undo", "Pin"]
    assert receipt["reply_to_message"]["message_id"] == reply["message_id"]
    here = personal_list(PERSONA, user, f"tg:{alice['id']}")
    (saved,) = await desk(bot).list([here, global_personal_list(PERSONA, user)])
    assert saved.text == "Alice's cat is Mochi" and not saved.pinned
    pinned = await press(bot, receipt, alice, "Pin")
    assert pinned["text"] == "📌 pinned: “Alice's cat is Mochi”" and list(buttons(pinned)) == ["Undo"]
    (record,) = await desk(bot).list([here, global_personal_list(PERSONA, user)])
    assert record.pinned
    undone = await press(bot, pinned, alice, "Undo")
    assert undone["text"] == "↩️ undone: “Alice's cat is Mochi”" and "reply_markup" not in undone
    assert await desk(bot).list([here, global_personal_list(PERSONA, user)]) == []


async def test_dec_11_only_the_memory_s_person_may_press_its_receipt(
    bot: Harness, anthropic_fake: FakeAnthropic
) -> None:
    """Issue 31, MEM-1: Bob pressing Undo or Pin under Alice's receipt is refused and changes
    nothing (even as a group admin); Alice's own press removes the memory. A group's own memory
    is changed by the group's admins only."""
    room, boss, alice = admin_room(bot)
    anthropic_fake.script(
        Reply(text="", tool_uses=(ToolUse(name="save_memory", input={"text": "Alice fears heights"}),)),
        Reply(text="I'll keep you off the tower."),
    )
    receipt = await say(bot, room, alice, "Ember, I'm afraid of heights")
    user = f"tg:{alice['id']}"
    lists = [personal_list(PERSONA, user, f"tg:{room['id']}"), global_personal_list(PERSONA, user)]
    assert await texts(bot, *lists) == ["Alice fears heights"]
    bob = person(bot.fake, "Bob")
    for other, label in ((bob, "Undo"), (boss, "Pin"), (boss, "Undo")):
        unchanged = await press(bot, receipt, other, label)
        assert unchanged == receipt
        answer = last_answer(bot)
        assert (
            answer["text"] == "Only the person this memory is about can change it." and answer["show_alert"]
        )
    (kept,) = await desk(bot).list(lists)
    assert kept.text == "Alice fears heights" and not kept.pinned
    undone = await press(bot, receipt, alice, "Undo")
    assert undone["text"] == "↩️ undone: a personal memory" and "reply_markup" not in undone
    assert await texts(bot, *lists) == []
    # the group's own memory: its admins decide, as under /memories
    anthropic_fake.script(
        Reply(
            text="",
            tool_uses=(ToolUse(name="save_memory", input={"text": "The inn has a well", "scope": "space"}),),
        ),
        Reply(text="Noted, for all of you."),
    )
    receipt = await say(bot, room, alice, "Ember, remember the inn has a well")
    assert receipt["text"] == "🧠 saved: a memory for this group"
    assert await press(bot, receipt, alice, "Pin") == receipt
    assert last_answer(bot)["text"] == "Only group admins can change this group's memories."
    pinned = await press(bot, receipt, boss, "Pin")
    assert pinned["text"] == "📌 pinned: a memory for this group"
    (well,) = await desk(bot).list([space_list(PERSONA, f"tg:{room['id']}")])
    assert well.text == "The inn has a well" and well.pinned


async def test_dec_11_remember_forgets_a_dormant_memory_for_room_and_explains_memory_full(
    bot: Harness,
) -> None:
    ember = await bot.hearth.service.persona(PERSONA)
    small = msgspec.structs.replace(ember, id="ember-small", memory=MemoryLimits(max_unpinned=1))
    await bot.hearth.service.personas.put(small)
    bot.app = TelegramApp.from_hearth(bot.hearth, persona="ember-small", policy=FAST)
    room, boss, _ = admin_room(bot)
    space = space_list("ember-small", f"tg:{room['id']}")
    old = datetime.now(UTC) - timedelta(days=30)
    dormant = MemoryRecord(
        id=f"mem-{secrets.token_hex(5)}", persona="ember-small", scope="space", space=space.space,
        text="The old well is dry", created_at=old, updated_at=old, source="import", unused_days=9,
    )  # fmt: skip
    await desk(bot).store.apply_writes(WritePlan(writes=(Saved(after=dormant),)))
    await directory(bot).record([(dormant.id, space)], [])
    await directory(bot).set_notice_level(space.space or "", "full")
    saved = await say(bot, room, boss, "/remember The new well is by the mill")
    assert saved["text"] == (
        "🧠 Saved (for everyone in this group): “The new well is by the mill”\n"
        "Forgot to make room: “The old well is dry”"
    )
    assert await texts(bot, space) == ["The new well is by the mill"]
    full = await say(bot, room, boss, "/remember The mill closes at dusk")
    assert full["text"].startswith("🧠 I couldn't remember that. This space memory list is full (1 of 1")
    assert await texts(bot, space) == ["The new well is by the mill"]


async def test_mem_6b_forget_by_words_by_choice_and_by_id(bot: Harness) -> None:
    room, boss, alice = admin_room(bot)
    private = bot.fake.private(alice)
    mine = global_personal_list(PERSONA, f"tg:{alice['id']}")
    for fact in ("Mochi is a grey cat", "Mochi likes tuna", "Pip is a dog"):
        await say(bot, private, alice, f"/remember {fact}")
    assert (await say(bot, private, alice, "/forget pip"))["text"] == "🧠 Forgot 1 memory."
    assert "No memory here mentions “parrot”" in (await say(bot, private, alice, "/forget parrot"))["text"]
    choice = await say(bot, private, alice, "/forget MOCHI")
    assert choice["text"].startswith("2 memories mention “MOCHI”") and set(buttons(choice)) == {"🗑 1", "🗑 2"}
    done = await press(bot, choice, alice, "🗑 1")
    assert done["text"] == "🧠 Forgot 1 memory." and not buttons(done)
    (left,) = await desk(bot).list([mine])
    await say(bot, room, boss, "/remember Lanterns go out at midnight")
    (lanterns,) = await desk(bot).list([space_list(PERSONA, f"tg:{room['id']}")])
    refused = await say(bot, room, alice, f"/forget {lanterns.id}")
    assert refused["text"] == "⚠️ Only group admins can change this group's memories."
    not_yours = await say(bot, room, boss, f"/forget {left.id}")
    assert not_yours["text"] == "⚠️ There is no such memory that you can change here."
    await say(bot, room, alice, "/remember I sit by the window")
    (window,) = await desk(bot).list([personal_list(PERSONA, f"tg:{alice['id']}", f"tg:{room['id']}")])
    assert (await say(bot, room, alice, f"/forget {window.id}"))["text"] == "🧠 Forgot 1 memory."
    assert (await say(bot, private, alice, f"/forget {left.id}"))["text"] == "🧠 Forgot 1 memory."
    assert await desk(bot).list([mine]) == []


async def test_sum_4_summary_shows_the_tiers_and_the_unsummarized_count(bot: Harness) -> None:
    room, _, alice = admin_room(bot)
    chat = f"tg:{room['id']}"
    empty = await say(bot, room, alice, "/summary")
    assert (
        "None yet" in empty["text"]
        and "Every message that left my live window is summarized." in empty["text"]
    )
    for n in range(53):
        await bot.feed(bot.fake.message(room, alice, f"chatter number {n}"))
    tier = Tier(
        id="sum-1", level="recent", text="Alice chattered about numbers.", first=0.0, last=1.0,
        messages=2, created_at=datetime.now(UTC),
    )  # fmt: skip
    summaries = bot.hearth.service.summaries
    assert summaries is not None
    assert await summaries.store.commit(chat, 0, SummaryState(tiers=(tier,)))
    history = await bot.hearth.service.chats.history(chat, 100)
    # WIN-1: 50 messages at most, the live window starting at its step (issue 12)
    waiting = len(history) - len(live_window(history, WindowPolicy(), 200_000).messages)
    assert waiting > len(history) - 50 - 1
    shown = await say(bot, room, alice, "/summary")
    assert "Recent summaries (1)\n• Alice chattered about numbers." in shown["text"]
    assert f"{waiting} messages left my live window and are waiting to be summarized." in shown["text"]


async def test_link_joins_the_telegram_identity_with_the_web_user(bot: Harness) -> None:
    room, _, alice = admin_room(bot)
    private, web_user = bot.fake.private(alice), f"web:alice{secrets.token_hex(3)}"
    accounts = RedisAccountStore(bot.hearth.redis, bot.hearth.keys)
    await say(bot, private, alice, "/remember I collect old maps")
    seen, code = secrets.token_hex(4).upper(), secrets.token_hex(4).upper()
    for made in (seen, code):
        assert await accounts.put_link_code(made, web_user, 600)
    burnt = await say(bot, room, alice, f"/link {seen}")
    assert burnt["text"].startswith("Everyone here could see that code, so it no longer works.")
    assert (await say(bot, private, alice, f"/link {seen}"))["text"].startswith(
        "That code is unknown or expired"
    )
    linked = await say(bot, private, alice, f"/link {code.lower()}")
    assert linked["text"].startswith("🔗 Linked to your web account") and "I moved 1 memory" in linked["text"]
    assert await texts(bot, global_personal_list(PERSONA, web_user)) == ["Alice collects old maps"]
    assert await texts(bot, global_personal_list(PERSONA, f"tg:{alice['id']}")) == []
    await bot.feed(bot.fake.message(room, alice, "just chatting"))
    (stored,) = [
        m for m in await bot.hearth.service.chats.history(f"tg:{room['id']}", 10) if m.role == "user"
    ]
    assert stored.user == web_user
    await say(bot, room, alice, "/personal")  # sent privately, read as the linked web user
    (shown,) = [m for m in bot.fake.bot_messages(private["id"]) if m["text"].startswith("What I remember")]
    assert "Alice collects old maps (Global)" in shown["text"]


async def test_plt_3_the_memory_commands_are_in_the_menu_in_every_language(bot: Harness) -> None:
    await bot.app.set_commands()
    commands = [c["command"] for c in bot.fake.commands()]
    for command in (
        "memories",
        "personal",
        "remember",
        "forget",
        "clear",
        "privacy",
        "notices",
        "summary",
        "link",
    ):
        assert command in commands
    for language in ("ru", "pt", "vi", "he"):
        localized = {c["command"]: c["description"] for c in bot.fake.commands(language)}
        assert set(localized) == set(commands) and localized["memories"] != "What I remember about this chat"
    alice = person(bot.fake)
    help_text = (await say(bot, bot.fake.private(alice), alice, "/help"))["text"]
    assert "/remember <text>" in help_text and "/personal" in help_text and "/clear personal" in help_text


async def test_mem_8_memory_command_admins_switch_a_group_and_anyone_their_private_chat(
    bot: Harness, anthropic_fake: FakeAnthropic
) -> None:
    """MEM-8 (issue 34): ``/memory off`` by a member of a group is refused and changes nothing;
    by an admin it puts the chat in memory-off mode, where a scripted save stores nothing and no
    tool is offered; ``/memory on`` brings memory back; in a private chat the person decides."""
    room, boss, alice = admin_room(bot)
    chat = f"tg:{room['id']}"
    chats = bot.hearth.service.chats
    refused = await say(bot, room, alice, "/memory off")
    assert refused["text"].startswith("Only group admins can switch memory")
    assert (await chats.chat_settings(chat)).memory == "on"
    switched = await say(bot, room, boss, "/memory off")
    assert switched["text"].startswith("Memory is off in this chat")
    assert (await chats.chat_settings(chat)).memory == "off"
    assert (await say(bot, room, alice, "/memory"))["text"].startswith("Memory is off in this chat")

    anthropic_fake.script(
        Reply(text="", tool_uses=(ToolUse(name="save_memory", input={"text": "Alice plays the oud"}),)),
        Reply(text="Lovely instrument."),
    )
    before = len([r for r in anthropic_fake.requests if r.path == "/v1/messages"])
    answer = await say(bot, room, alice, "Ember, I play the oud")
    assert answer["text"] == "Lovely instrument."  # no "Saved" notice: nothing was saved
    asked = [r for r in anthropic_fake.requests if r.path == "/v1/messages"][before]
    assert not asked.body.get("tools")
    owner = f"tg:{alice['id']}"
    assert await texts(bot, personal_list(PERSONA, owner, chat), space_list(PERSONA, chat)) == []

    assert (await say(bot, room, boss, "/memory on"))["text"].startswith("Memory is on in this chat")
    assert (await chats.chat_settings(chat)).memory == "on"
    private = bot.fake.private(alice)
    mine = await say(bot, private, alice, "/memory off")
    assert mine["text"].startswith("Memory is off in this chat")
    assert (await chats.chat_settings(f"tg:{private['id']}")).memory == "off"
    assert (await say(bot, private, alice, "/memory maybe"))["text"] == "Use /memory off or /memory on."
