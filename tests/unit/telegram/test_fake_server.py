"""The fake Bot API answers the way aiogram expects Telegram to (so e2e tests mean something)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from aiogram import Bot
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.exceptions import TelegramBadRequest, TelegramConflictError, TelegramNotFound, TelegramRetryAfter
from aiogram.methods import GetUpdates

from tests.fakes.telegram_server import Failure, FakeTelegram


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeTelegram]:
    with FakeTelegram(token="700901:contract-token") as server:
        yield server


@pytest.fixture
async def bot(fake: FakeTelegram) -> AsyncIterator[Bot]:
    session = AiohttpSession(api=TelegramAPIServer.from_base(fake.base_url))
    client = Bot(token=fake.token, session=session)
    yield client
    await session.close()


async def test_get_me_and_a_scripted_429_parse_as_aiogram_types(fake: FakeTelegram, bot: Bot) -> None:
    me = await bot.get_me()
    assert (me.id, me.username, me.is_bot) == (fake.bot_id, fake.username, True)
    fake.fail("getMe", Failure(status=429, retry_after=3))
    with pytest.raises(TelegramRetryAfter) as caught:
        await bot.get_me()
    assert caught.value.retry_after == 3


async def test_get_updates_confirms_by_offset_and_conflicts_with_a_webhook(
    fake: FakeTelegram, bot: Bot
) -> None:
    alice = fake.user(5, "Alice")
    chat = fake.private(alice)
    fake.enqueue(fake.message(chat, alice, "one"), fake.message(chat, alice, "two"))
    first = await bot(GetUpdates(timeout=0))
    assert [u.message.text for u in first if u.message] == ["one", "two"]
    assert await bot(GetUpdates(offset=first[-1].update_id + 1, timeout=0)) == []
    await bot.set_webhook("https://example.org/hook", secret_token="s3cret")
    with pytest.raises(TelegramConflictError):
        await bot(GetUpdates(timeout=0))
    await bot.delete_webhook()


async def test_messages_are_checked_like_telegram_checks_them(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.user(6, "Alice")
    chat = fake.private(alice)
    sent = await bot.send_message(chat["id"], "  hello  ")
    assert sent.text == "hello" and fake.bot_messages(6)[-1]["text"] == "hello"
    with pytest.raises(TelegramBadRequest, match="not modified"):
        await bot.edit_message_text("hello", chat_id=chat["id"], message_id=sent.message_id)
    with pytest.raises(TelegramBadRequest, match="too long"):
        await bot.send_message(chat["id"], "x" * 4097)
    with pytest.raises(TelegramBadRequest, match="chat not found"):
        await bot.send_message(123456789, "hi")
    html = await bot.send_message(chat["id"], "<b>bold</b> &amp; plain", parse_mode="HTML")
    assert html.text == "bold & plain" and [(e.type, e.offset, e.length) for e in html.entities or ()] == [
        ("bold", 0, 4)
    ]
    with pytest.raises(TelegramBadRequest, match="Unsupported start tag"):
        await bot.send_message(chat["id"], "<blink>hi</blink>", parse_mode="HTML")


async def test_drafts_show_in_private_chats_until_the_bot_sends_a_message(
    fake: FakeTelegram, bot: Bot
) -> None:
    """Bot API 9 ``sendMessageDraft`` (Issue 31): private chats only, a non-zero draft id."""
    alice = fake.user(31, "Alice")
    chat = fake.private(alice)
    assert await bot.send_message_draft(chat_id=chat["id"], draft_id=7, text="Hel") is True
    assert await bot.send_message_draft(chat_id=chat["id"], draft_id=7, text="Hello") is True
    assert [d["text"] for d in fake.drafts(31)] == ["Hel", "Hello"]
    assert fake.draft_shown(31) == {"draft_id": 7, "text": "Hello"} and fake.bot_messages(31) == []
    await bot.send_message(chat["id"], "Hello there")
    assert fake.draft_shown(31) is None and [d["text"] for d in fake.drafts(31)] == ["Hel", "Hello"]
    with pytest.raises(TelegramBadRequest, match="draft_id"):
        await bot.send_message_draft(chat_id=chat["id"], draft_id=0, text="x")
    room = fake.group(-100031)
    with pytest.raises(TelegramBadRequest, match="TEXTDRAFT_PEER_INVALID"):
        await bot.send_message_draft(chat_id=room["id"], draft_id=1, text="x")


async def test_a_server_without_drafts_answers_the_method_as_unknown() -> None:
    with FakeTelegram(token="700931:old-server", drafts=False) as old:
        session = AiohttpSession(api=TelegramAPIServer.from_base(old.base_url))
        client = Bot(token=old.token, session=session)
        chat = old.private(old.user(32, "Alice"))
        with pytest.raises(TelegramNotFound):
            await client.send_message_draft(chat_id=chat["id"], draft_id=1, text="x")
        await session.close()
        assert old.drafts(32) == [] and old.calls("sendMessageDraft")[0].status == 404
