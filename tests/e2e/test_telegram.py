"""Telegram end to end in-process: the real aiogram client and Dispatcher against the fake Bot API,
real Redis and the fake Anthropic server (PLT-1..3, PLT-5, PLT-6; STYLE T5, T6).

Updates go through ``Dispatcher.feed_update`` exactly as polling and the webhook feed them;
assertions read what the fake chat shows and what the service stored. The worker and web
processes (polling, webhook) are covered in ``test_telegram_processes.py``.
"""

from __future__ import annotations

import base64
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import msgspec
import pytest
from aiogram.types import Update

from adapters.bootstrap import Hearth, build, install_personas
from adapters.telegram.bot import TelegramApp
from adapters.telegram.conversation import regenerate_keyboard
from adapters.telegram.delivery import DeliveryPolicy, ReplyStream, Target, deliver
from adapters.telegram.texts import COMMANDS
from config.settings import load_settings
from engine.errors import StorageUnavailable
from engine.lorebook import LoreBook
from engine.model import ModelSettings
from engine.service import ReplyDelta, ReplyEvent
from tests.fakes.anthropic_server import Error, FakeAnthropic, RecordedRequest, Reply
from tests.fakes.telegram_server import Failure, FakeTelegram
from tests.fixtures.pictures import jpeg, png
from tests.fixtures.servers import API_KEY, RedisServer

pytestmark = pytest.mark.e2e

FAST = DeliveryPolicy(private_interval=0.1, group_interval=0.1, typing_every=0.5)


@pytest.fixture(scope="module")
def telegram() -> Any:
    with FakeTelegram(token="700101:in-process-token") as fake:
        yield fake


class Harness:
    """The bot of one test: feed updates, wait for the replies, read what was stored."""

    def __init__(self, hearth: Hearth, app: TelegramApp, fake: FakeTelegram) -> None:
        self.hearth, self.app, self.fake = hearth, app, fake

    async def feed(self, *updates: dict[str, Any]) -> None:
        for update in updates:
            await self.app.feed(Update.model_validate(update, context={"bot": self.app.bot}))
        await self.app.context.replies.wait()

    async def stored(self, chat: str) -> list[tuple[str, str]]:
        return [(m.role, m.text) for m in await self.hearth.service.chats.history(chat, 100)]


@pytest.fixture
async def bot(
    redis_server: RedisServer, anthropic_fake: FakeAnthropic, telegram: FakeTelegram
) -> AsyncIterator[Harness]:
    async with running_bot(redis_server, anthropic_fake, telegram) as harness:
        yield harness


@asynccontextmanager
async def running_bot(
    redis_server: RedisServer, anthropic_fake: FakeAnthropic, telegram: FakeTelegram
) -> AsyncIterator[Harness]:
    """The bot of one test against ``telegram``, closed afterwards."""
    env = {
        "REDIS_URL": redis_server.db(10),
        "ANTHROPIC_API_KEY": API_KEY,
        "ANTHROPIC_BASE_URL": anthropic_fake.base_url,
        "HEARTH_LLM_MAX_RETRIES": "0",
        "HEARTH_EMBEDDER": "hash",
        "TELEGRAM_BOT_TOKEN": telegram.token,
        "TELEGRAM_API_BASE": telegram.base_url,
    }
    hearth = build(load_settings(env))
    await install_personas(hearth)
    app = TelegramApp.from_hearth(hearth, policy=FAST)
    harness = Harness(hearth, app, telegram)
    yield harness
    await app.close()
    await harness.app.close()
    await hearth.service.model.client.close()  # type: ignore[attr-defined]  # Hearth.close keeps it open
    await hearth.close()


def person(fake: FakeTelegram, name: str = "Alice") -> dict[str, Any]:
    return fake.user(secrets.randbelow(10**9) + 1000, name)


def group(fake: FakeTelegram, *, forum: bool = False) -> dict[str, Any]:
    return fake.group(-(10**12) - secrets.randbelow(10**9), forum=forum)


def replies(fake: FakeAnthropic) -> list[RecordedRequest]:
    return [r for r in fake.requests if r.path == "/v1/messages"]


def prompt_text(request: RecordedRequest) -> str:
    return "\n".join(b["text"] for m in request.body["messages"] for b in m["content"] if b["type"] == "text")


def chat_calls(fake: FakeTelegram, chat_id: int, *methods: str) -> list[Any]:
    return [c for c in fake.calls(*methods) if c.params.get("chat_id") == chat_id]


async def test_plt_3_a_private_reply_streams_as_a_draft_then_one_message(
    bot: Harness, anthropic_fake: FakeAnthropic
) -> None:
    """Issue 31: in a private chat the reply streams with sendMessageDraft (one draft id, the
    text so far each time), then the finished reply is sent once; nothing is edited."""
    reply = "Pull up a chair by the fire, Alice. The snow won't stop until morning, so tell me everything."
    anthropic_fake.script(Reply(text=reply, chunk_size=6, delay=0.03))
    alice = person(bot.fake)
    chat = bot.fake.private(alice)
    await bot.feed(bot.fake.message(chat, alice, "Evening, Ember!"))
    calls = chat_calls(
        bot.fake, alice["id"], "sendChatAction", "sendMessageDraft", "sendMessage", "editMessageText"
    )
    assert calls[0].method == "sendChatAction" and calls[0].params["action"] == "typing"
    assert [c.method for c in calls if c.method != "sendChatAction"][-1] == "sendMessage"
    drafts = bot.fake.drafts(alice["id"])
    assert len(drafts) >= 2 and len({d["draft_id"] for d in drafts}) == 1 and drafts[0]["draft_id"] != 0
    assert all(reply.startswith(d["text"]) for d in drafts) and len(drafts[-1]["text"]) > len(
        drafts[0]["text"]
    )
    assert not [c for c in calls if c.method == "editMessageText"]
    assert len([c for c in calls if c.method == "sendMessage"]) == 1
    assert bot.fake.draft_shown(alice["id"]) is None  # the sent reply took the draft's place
    (final,) = bot.fake.bot_messages(alice["id"])
    assert final["text"] == reply and final["reply_markup"]["inline_keyboard"][0][0]["text"] == "↻"
    stored = await bot.stored(f"tg:{alice['id']}")
    assert stored[-2:] == [("user", "Evening, Ember!"), ("assistant", reply)]


async def test_plt_3_a_group_reply_streams_by_editing_one_message(
    bot: Harness, anthropic_fake: FakeAnthropic
) -> None:
    """Issue 31: drafts are for private chats; in a group the reply message is edited as it grows."""
    reply = "Welcome in, everyone. The stew is hot and the cider is cold, so sit wherever you like."
    anthropic_fake.script(Reply(text=reply, chunk_size=6, delay=0.03))
    room, alice = group(bot.fake), person(bot.fake)
    await bot.feed(bot.fake.message(room, alice, f"@{bot.fake.username} good evening!"))
    assert not chat_calls(bot.fake, room["id"], "sendMessageDraft")
    sends = chat_calls(bot.fake, room["id"], "sendMessage")
    edits = [c.params["text"] for c in chat_calls(bot.fake, room["id"], "editMessageText")]
    assert len(sends) == 1 and len(edits) >= 2
    assert all(reply.startswith(text) for text in [sends[0].params["text"], *edits]) and edits[-1] == reply
    (final,) = bot.fake.bot_messages(room["id"])
    assert final["text"] == reply


async def test_plt_3_a_server_without_drafts_streams_by_edits_and_is_asked_once(
    redis_server: RedisServer, anthropic_fake: FakeAnthropic
) -> None:
    """Issue 31: a Bot API server that answers sendMessageDraft as unknown (404) gets edits; the
    bot remembers it and never asks again."""
    with FakeTelegram(token=f"{700900 + secrets.randbelow(99)}:no-drafts", drafts=False) as fake:
        async with running_bot(redis_server, anthropic_fake, fake) as bot:
            alice = person(fake)
            chat = fake.private(alice)
            for text, reply in (("Hi!", "Hello there, Alice, and welcome."), ("Again!", "Back so soon?")):
                anthropic_fake.script(Reply(text=reply, chunk_size=4, delay=0.03))
                await bot.feed(fake.message(chat, alice, text))
                assert fake.bot_messages(alice["id"])[-1]["text"] == reply
            (asked,) = chat_calls(fake, alice["id"], "sendMessageDraft")
            assert asked.status == 404
            edits = chat_calls(fake, alice["id"], "editMessageText")
            assert [c for c in edits if c.at > asked.at] and edits[-1].params["text"] == "Back so soon?"
            assert not fake.drafts(alice["id"])


async def test_plt_2_group_chatter_is_stored_and_a_mention_is_answered_with_it_in_the_window(
    bot: Harness, anthropic_fake: FakeAnthropic
) -> None:
    room, alice, bob = group(bot.fake), person(bot.fake), person(bot.fake, "Bob")
    await bot.feed(
        bot.fake.message(room, alice, "Has anyone seen the lantern festival trailer?"),
        bot.fake.message(room, bob, "Not yet, is it any good?"),
    )
    assert replies(anthropic_fake) == [] and bot.fake.bot_messages(room["id"]) == []
    ask = bot.fake.message(room, alice, "@hearth_test_bot have you seen it?")
    await bot.feed(ask)
    (request,) = replies(anthropic_fake)
    window = prompt_text(request)
    for text in ("lantern festival trailer", "Not yet, is it any good?", "have you seen it?"):
        assert text in window
    (answer,) = bot.fake.bot_messages(room["id"])
    assert answer["reply_to_message"]["message_id"] == ask["message"]["message_id"]
    stored = await bot.stored(f"tg:{room['id']}")
    assert [role for role, _ in stored[-4:]] == ["user", "user", "user", "assistant"]


async def test_plt_2_a_name_or_a_reply_to_the_bot_addresses_it_in_a_group(
    bot: Harness, anthropic_fake: FakeAnthropic
) -> None:
    room, alice = group(bot.fake), person(bot.fake)
    await bot.feed(bot.fake.message(room, alice, "ember, are you awake?"))
    (first,) = bot.fake.bot_messages(room["id"])
    await bot.feed(bot.fake.message(room, alice, "the embers glow"))
    assert len(replies(anthropic_fake)) == 1
    await bot.feed(bot.fake.message(room, alice, "and what about now?", reply_to=first))
    assert len(replies(anthropic_fake)) == 2 and len(bot.fake.bot_messages(room["id"])) == 2
    stored = await bot.hearth.service.chats.history(f"tg:{room['id']}", 100)
    assert stored[-2].reply_to == stored[-4].id  # the reply names the stored answer it replies to


async def test_plt_1_a_forum_topic_is_its_own_chat_and_replies_stay_in_the_topic(
    bot: Harness, anthropic_fake: FakeAnthropic
) -> None:
    forum, alice = group(bot.fake, forum=True), person(bot.fake)
    await bot.feed(
        bot.fake.message(forum, alice, "General chatter", thread=None),
        bot.fake.message(forum, alice, "Ember, which road is safest?", thread=7),
    )
    (answer,) = bot.fake.bot_messages(forum["id"])
    assert answer["message_thread_id"] == 7
    assert all(
        c.params.get("message_thread_id") == 7 for c in chat_calls(bot.fake, forum["id"], "sendChatAction")
    )
    topic = await bot.stored(f"tg:{forum['id']}/topic/7")
    assert [t for r, t in topic if r == "user"] == ["Ember, which road is safest?"]
    assert "General chatter" not in prompt_text(replies(anthropic_fake)[0])


async def test_plt_3_a_5000_character_reply_arrives_as_two_messages(
    bot: Harness, anthropic_fake: FakeAnthropic
) -> None:
    paragraph = "The caravan reached the pass at dusk and the lanterns were lit one by one. " * 13
    reply = "\n\n".join([paragraph.strip()] * 5)
    assert len(reply) > 4800
    anthropic_fake.script(Reply(text=reply, chunk_size=400))
    ember = await bot.hearth.service.persona("default")  # the default's max_tokens would cut it at 4096
    long_winded = msgspec.structs.replace(ember, id="ember-long", model=ModelSettings(max_tokens=2000))
    await bot.hearth.service.personas.put(long_winded)
    bot.app = TelegramApp.from_hearth(bot.hearth, persona="ember-long", policy=FAST)
    alice = person(bot.fake)
    await bot.feed(bot.fake.message(bot.fake.private(alice), alice, "Tell me a long story"))
    first, second = bot.fake.bot_messages(alice["id"])
    assert max(len(first["text"]), len(second["text"])) <= 4096
    assert (first["text"] + " " + second["text"]).split() == reply.split()
    assert "reply_markup" not in first and second["reply_markup"]["inline_keyboard"]


async def test_plt_3_flood_control_retry_after_is_waited_out(
    bot: Harness, anthropic_fake: FakeAnthropic
) -> None:
    anthropic_fake.script(Reply(text="Slow down, friend. I'm right here."))
    bot.fake.fail("sendMessage", Failure(status=429, retry_after=1))
    alice = person(bot.fake)
    await bot.feed(bot.fake.message(bot.fake.private(alice), alice, "hello?"))
    refused, sent = chat_calls(bot.fake, alice["id"], "sendMessage")
    assert (refused.status, sent.status) == (429, 200)
    assert sent.at - refused.at >= 1.0
    assert [m["text"] for m in bot.fake.bot_messages(alice["id"])] == ["Slow down, friend. I'm right here."]


async def test_plt_6_a_failed_turn_tells_the_user_briefly_and_keeps_the_message(
    bot: Harness, anthropic_fake: FakeAnthropic
) -> None:
    anthropic_fake.script(Error(status=529))
    alice = person(bot.fake)
    await bot.feed(bot.fake.message(bot.fake.private(alice), alice, "Are you there?"))
    (notice,) = bot.fake.bot_messages(alice["id"])
    assert notice["text"].startswith("⚠️") and "saved" in notice["text"] and "reply_markup" not in notice
    assert await bot.stored(f"tg:{alice['id']}") == [
        ("assistant", "Hi, I'm Ember. Pull up a chair by the fire — what's on your mind today?"),
        ("user", "Are you there?"),
    ]


async def test_plt_1_the_same_update_delivered_twice_is_processed_once(
    bot: Harness, anthropic_fake: FakeAnthropic
) -> None:
    alice = person(bot.fake)
    update = bot.fake.message(bot.fake.private(alice), alice, "Only once, please")
    await bot.feed(update, update)
    assert len(replies(anthropic_fake)) == 1 and len(bot.fake.bot_messages(alice["id"])) == 1
    assert [t for r, t in await bot.stored(f"tg:{alice['id']}") if r == "user"] == ["Only once, please"]


async def test_mem_7_the_regenerate_button_rewrites_the_reply_in_place(
    bot: Harness, anthropic_fake: FakeAnthropic
) -> None:
    anthropic_fake.script(Reply(text="First take."), Reply(text="Second take, **better**."))
    alice = person(bot.fake)
    chat = f"tg:{alice['id']}"
    await bot.feed(bot.fake.message(bot.fake.private(alice), alice, "Say something"))
    (shown,) = bot.fake.bot_messages(alice["id"])
    old = await bot.hearth.service.chats.latest(chat)
    data = shown["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
    await bot.feed(bot.fake.press(shown, alice, data))
    (rewritten,) = bot.fake.bot_messages(alice["id"])
    assert rewritten["message_id"] == shown["message_id"] and rewritten["text"] == "Second take, better."
    assert rewritten["entities"] == [{"type": "bold", "offset": 13, "length": 6}]
    new = await bot.hearth.service.chats.latest(chat)
    assert new is not None and old is not None and new.replaces == old.id
    assert (await bot.stored(chat))[-1] == ("assistant", "Second take, **better**.")
    await bot.feed(bot.fake.press(rewritten | {"reply_markup": shown["reply_markup"]}, alice, data))
    assert len(replies(anthropic_fake)) == 2  # the stale button changes nothing
    assert chat_calls(bot.fake, alice["id"], "editMessageText")[-1].params["text"] == "Second take, better."


async def test_mem_7_the_regenerate_command_replaces_the_latest_reply(
    bot: Harness, anthropic_fake: FakeAnthropic
) -> None:
    anthropic_fake.script(Reply(text="One."), Reply(text="Two."))
    room, alice = group(bot.fake), person(bot.fake)
    await bot.feed(bot.fake.message(room, alice, "/regenerate@hearth_test_bot"))
    assert bot.fake.bot_messages(room["id"])[-1]["text"] == "There is no reply to write again yet."
    await bot.feed(bot.fake.message(room, alice, "Ember, count for me"))
    await bot.feed(bot.fake.message(room, alice, "/regenerate"))
    assert [m["text"] for m in bot.fake.bot_messages(room["id"])][1:] == ["Two."]


async def test_plt_3_start_greets_help_explains_and_the_menu_is_registered(bot: Harness) -> None:
    alice = person(bot.fake)
    chat = bot.fake.private(alice)
    await bot.feed(bot.fake.message(chat, alice, "/start"), bot.fake.message(chat, alice, "/help"))
    greeting, help_text = (m["text"] for m in bot.fake.bot_messages(alice["id"]))
    assert greeting == "Hi, I'm Ember. Pull up a chair by the fire — what's on your mind today?"
    assert "I'm Ember" in help_text and "/regenerate" in help_text and "@hearth_test_bot" in help_text
    assert await bot.stored(f"tg:{alice['id']}") == []  # commands are not conversation
    await bot.app.set_commands()
    assert [c["command"] for c in bot.fake.commands()] == list(COMMANDS)
    assert bot.fake.commands("ru")[0] == {"command": "start", "description": "Поздороваться"}


async def test_lore_1_lore_lists_and_only_group_admins_attach(bot: Harness) -> None:
    book = await bot.hearth.lore.put(LoreBook(id=f"tavern-{secrets.token_hex(3)}", name="Tavern lore"))
    room, alice, boss = group(bot.fake), person(bot.fake), person(bot.fake, "Boss")
    bot.fake.set_member(room["id"], boss["id"], "administrator")
    chat = f"tg:{room['id']}"
    await bot.feed(bot.fake.message(room, alice, f"/lore attach {book.id}"))
    assert await bot.hearth.lore.attached(chat) == []
    assert "Only group admins" in bot.fake.bot_messages(room["id"])[-1]["text"]
    await bot.feed(
        bot.fake.message(room, boss, f"/lore attach {book.id}"), bot.fake.message(room, alice, "/lore")
    )
    assert await bot.hearth.lore.attached(chat) == [book.id]
    assert f"✓ Tavern lore — {book.id} (0 entries)" in bot.fake.bot_messages(room["id"])[-1]["text"]
    await bot.feed(bot.fake.message(room, boss, "/lore attach no-such-book"))
    assert "There is no lorebook no-such-book" in bot.fake.bot_messages(room["id"])[-1]["text"]
    await bot.feed(bot.fake.message(room, boss, f"/lore detach {book.id}"))
    assert await bot.hearth.lore.attached(chat) == []


async def test_plt_6_odd_updates_are_handled_and_nothing_is_lost(
    bot: Harness, anthropic_fake: FakeAnthropic
) -> None:
    sticker = {
        "file_id": "s",
        "file_unique_id": "s",
        "type": "regular",
        "width": 1,
        "height": 1,
        "is_animated": False,
        "is_video": False,
        "emoji": "🔥",
    }
    photo = [{"file_id": "p", "file_unique_id": "p", "width": 1, "height": 1}]
    alice, room = person(bot.fake), group(bot.fake)
    chat = bot.fake.private(alice)
    first = bot.fake.message(chat, alice, "Remember the blue door.")
    await bot.feed(first)
    await bot.feed(
        bot.fake.edit(first, "Remember the red door."),
        bot.fake.message(chat, alice, sticker=sticker),
        bot.fake.message(chat, alice, "/dance"),
        bot.fake.message(chat, alice, "x" * 10_000),
        bot.fake.message(room, alice, photo=photo),
        bot.fake.message(bot.fake.channel(-(10**12) - 7), None, "Channel news"),
    )
    users = [t for r, t in await bot.stored(f"tg:{alice['id']}") if r == "user"]
    assert users == ["Remember the blue door.", "[sticker 🔥]", "x" * 10_000]
    assert [t for r, t in await bot.stored(f"tg:{room['id']}") if r == "user"] == ["[photo]"]
    texts = [m["text"] for m in bot.fake.bot_messages(alice["id"])]
    assert "I don't know /dance. Try /help." in texts and len(replies(anthropic_fake)) == 3
    await bot.feed(bot.fake.message(chat, alice, "y" * 16_001))
    assert "16,000" in bot.fake.bot_messages(alice["id"])[-1]["text"]
    assert [t for r, t in await bot.stored(f"tg:{alice['id']}") if r == "user"] == users


async def test_plt_3_refused_formatting_falls_back_to_plain_text_and_a_vanished_message_is_resent(
    bot: Harness,
) -> None:
    alice = person(bot.fake)
    target = Target(chat_id=bot.fake.private(alice)["id"])
    bot.fake.fail("sendMessage", Failure(status=400, description="Bad Request: can't parse entities: boom"))
    stream = ReplyStream(bot.app.bot, target, FAST)
    await stream.show("**Hi** there")
    refused, plain = chat_calls(bot.fake, alice["id"], "sendMessage")
    assert refused.params["entities"] and "entities" not in plain.params
    (shown,) = bot.fake.bot_messages(alice["id"])
    assert shown["text"] == "Hi there" and "entities" not in shown
    bot.fake.fail(
        "editMessageText", Failure(status=400, description="Bad Request: message to edit not found")
    )
    await stream.show("**Hi** there, again")
    assert [m["text"] for m in bot.fake.bot_messages(alice["id"])] == ["Hi there", "Hi there, again"]
    assert stream.parts == (bot.fake.bot_messages(alice["id"])[-1]["message_id"],)


async def test_plt_6_a_service_failure_mid_stream_becomes_a_short_notice(bot: Harness) -> None:
    async def events() -> AsyncIterator[ReplyEvent]:
        yield ReplyDelta(text="Let me think about the ")
        raise StorageUnavailable("Redis is unreachable: ConnectionError")

    alice = person(bot.fake)
    target = Target(chat_id=bot.fake.private(alice)["id"])
    delivered = await deliver(bot.app.bot, target, events(), FAST, keyboard=regenerate_keyboard)
    (notice,) = bot.fake.bot_messages(alice["id"])
    assert delivered.turn is None and delivered.parts == (notice["message_id"],)
    assert notice["text"].startswith("⚠️ Something went wrong on my side")


def _images(request: RecordedRequest) -> list[tuple[str, bytes]]:
    return [
        (b["source"]["media_type"], base64.b64decode(b["source"]["data"]))
        for m in request.body["messages"]
        for b in m["content"]
        if b["type"] == "image"
    ]


async def test_issue_30_a_telegram_photo_reaches_claude_as_an_image_block_with_its_caption(
    bot: Harness, anthropic_fake: FakeAnthropic
) -> None:
    anthropic_fake.script(Reply(text="What a fluffy cat!"), Reply(text="A diagram."))
    alice = person(bot.fake)
    chat = bot.fake.private(alice)
    small, large = jpeg(90, 60), jpeg(1280, 960) + b"\x00" * 2048
    too_big = jpeg(4000, 3000) + b"\x00" * (6 * 1024 * 1024)  # over 5 MB: a smaller size is taken
    photo = bot.fake.photo((small, 90, 60), (large, 1280, 960), (too_big, 4000, 3000))
    await bot.feed(bot.fake.message(chat, alice, photo=photo, caption="my cat"))
    (request,) = replies(anthropic_fake)
    assert _images(request) == [("image/jpeg", large)]
    last = request.body["messages"][-1]["content"]
    assert last[-1] == {"type": "text", "text": "my cat"}
    stored = await bot.hearth.service.chats.history(f"tg:{alice['id']}", 10)
    (said,) = [m for m in stored if m.role == "user"]
    assert said.text == "my cat" and [(r.width, r.height) for r in said.images] == [(1280, 960)]
    mine = {p["file_id"] for p in photo}
    got = [c.params["file_id"] for c in bot.fake.calls("getFile") if c.params.get("file_id") in mine]
    assert got == [photo[1]["file_id"]]  # only the largest size within 5 MB is fetched
    # an image sent as a file (a document) is a picture too; a PDF stays a label
    diagram = png(300, 200, seed=5)
    await bot.feed(
        bot.fake.message(chat, alice, document=bot.fake.document(diagram, "plan.png", "image/png"))
    )
    assert _images(replies(anthropic_fake)[-1])[-1] == ("image/png", diagram)
    await bot.feed(
        bot.fake.message(chat, alice, document=bot.fake.document(b"%PDF-1.7", "plan.pdf", "application/pdf"))
    )
    users = [t for r, t in await bot.stored(f"tg:{alice['id']}") if r == "user"]
    assert users == ["my cat", "", "[file: plan.pdf]"]
