"""Telegram messages → IncomingMessage (PLT-5) and who is addressed in groups (PLT-2)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from aiogram.types import Message, User

from adapters.telegram.ids import chat_key, parse_chat_key
from adapters.telegram.normalize import names_persona, normalize
from engine.errors import InvalidInput
from engine.images import Image
from tests.fakes.telegram_server import FakeTelegram

FAKE = FakeTelegram()  # used only to build updates; never started
ME = User(id=FAKE.bot_id, is_bot=True, first_name="Hearth", username=FAKE.username)
ALICE = FAKE.user(42, "Alice", username="alice")
GROUP = FAKE.group(-1001234, forum=True)


def message(update: dict[str, Any]) -> Message:
    return Message.model_validate(update.get("message") or update["channel_post"])


def test_plt_5_ids_of_private_group_and_topic_chats() -> None:
    assert chat_key(42) == "tg:42"
    assert chat_key(-1001234, 7) == "tg:-1001234/topic/7"
    assert parse_chat_key("tg:-1001234/topic/7") == (-1001234, 7)
    with pytest.raises(InvalidInput) as caught:
        parse_chat_key("web:room1")
    assert caught.value.code == "invalid_chat_id"


def test_plt_5_a_private_message_is_normalized_and_addressed() -> None:
    found = normalize(message(FAKE.message(FAKE.private(ALICE), ALICE, "hi there")), ME, "Ember")
    assert found is not None and found.addressed
    incoming = found.message
    assert (incoming.platform, incoming.space, incoming.chat, incoming.user) == (
        "telegram",
        "tg:42",
        "tg:42",
        "tg:42",
    )
    assert incoming.display_name == "Alice" and incoming.text == "hi there" and not incoming.is_mention
    assert (
        incoming.sent_at.tzinfo is not None and abs(incoming.sent_at - datetime.now(UTC)).total_seconds() < 60
    )


def test_plt_5_a_forum_topic_is_its_own_chat_in_the_group_space() -> None:
    found = normalize(message(FAKE.message(GROUP, ALICE, "hello", thread=7)), ME, "Ember")
    assert found is not None
    assert (found.message.space, found.message.chat) == ("tg:-1001234", "tg:-1001234/topic/7")


@pytest.mark.parametrize(
    ("text", "addressed"),
    [
        ("anyone seen the trailer?", False),
        ("@hearth_test_bot what do you think?", True),
        ("what do you think, @HEARTH_TEST_BOT", True),
        ("@someone_else what do you think?", False),
        ("Ember, what do you think?", True),
        ("ember?", True),
        ("the embers are still warm", False),
    ],
)
def test_plt_2_group_messages_are_addressed_by_mention_or_name(text: str, addressed: bool) -> None:
    found = normalize(message(FAKE.message(GROUP, ALICE, text)), ME, "Ember")
    assert found is not None and found.addressed is addressed and found.message.is_mention is addressed


def test_plt_2_a_reply_to_the_bot_is_addressed_a_reply_to_someone_else_is_not() -> None:
    bots = {"message_id": 5, "date": 0, "chat": GROUP, "from": ME.model_dump(exclude_none=True), "text": "hi"}
    bob = {"message_id": 6, "date": 0, "chat": GROUP, "from": FAKE.user(43, "Bob"), "text": "yo"}
    to_bot = normalize(
        message(FAKE.message(GROUP, ALICE, "sure", reply_to=bots)), ME, "Ember", reply_to="r-x"
    )
    to_bob = normalize(message(FAKE.message(GROUP, ALICE, "sure", reply_to=bob)), ME, "Ember")
    assert to_bot is not None and to_bot.addressed and to_bot.message.reply_to == "r-x"
    assert to_bob is not None and not to_bob.addressed


def test_plt_2_names_match_whole_words_and_the_first_name_of_a_long_one() -> None:
    assert names_persona("hey Seraphina!", "Seraphina the Healer")
    assert names_persona("SERAPHINA THE HEALER, hi", "Seraphina the Healer")
    assert not names_persona("the healer is here", "Seraphina the Healer")
    assert not names_persona("Emberly", "Ember")


def test_plt_5_media_become_text_and_captions_follow() -> None:
    sticker = {
        "file_id": "s",
        "file_unique_id": "s",
        "type": "regular",
        "width": 1,
        "height": 1,
        "is_animated": False,
        "is_video": False,
        "emoji": "😀",
    }
    photo = [{"file_id": "p", "file_unique_id": "p", "width": 1, "height": 1}]
    chat = FAKE.private(ALICE)
    with_sticker = normalize(message(FAKE.message(chat, ALICE, sticker=sticker)), ME, "Ember")
    bare_photo = normalize(message(FAKE.message(chat, ALICE, photo=photo)), ME, "Ember")
    captioned = normalize(message(FAKE.message(chat, ALICE, photo=photo, caption="my cat")), ME, "Ember")
    assert with_sticker is not None and with_sticker.message.text == "[sticker 😀]"
    assert bare_photo is not None and bare_photo.message.text == "[photo]"
    assert captioned is not None and captioned.message.text == "[photo] my cat"
    assert captioned.message.attachments == ("[photo]",)


def test_plt_6_service_messages_have_nothing_to_read() -> None:
    joined = FAKE.message(GROUP, ALICE, new_chat_members=[FAKE.user(44, "Cy")])
    assert normalize(message(joined), ME, "Ember") is None


def test_plt_5_a_message_sent_as_a_chat_is_authored_by_that_chat_and_never_a_bot() -> None:
    anonymous = FAKE.user(1087968824, "Group")
    update = FAKE.message(GROUP, anonymous | {"is_bot": True}, "Ember, hello", sender_chat=GROUP)
    found = normalize(message(update), ME, "Ember")
    assert found is not None and found.addressed
    assert (found.message.user, found.message.display_name) == ("tg:-1001234", "The Inn")


def test_plt_2_other_bots_are_stored_but_never_answered() -> None:
    other = FAKE.user(777, "OtherBot") | {"is_bot": True}
    found = normalize(message(FAKE.message(FAKE.private(ALICE), other, "Ember, ping")), ME, "Ember")
    assert found is not None and not found.addressed


def test_issue_30_a_fetched_photo_goes_as_a_picture_and_its_caption_stays_the_text() -> None:
    chat = FAKE.private(ALICE)
    photo = [{"file_id": "p", "file_unique_id": "p", "width": 1, "height": 1}]
    picture = Image(media_type="image/jpeg", data=b"\xff\xd8\xff", width=1, height=1)
    captioned = normalize(
        message(FAKE.message(chat, ALICE, photo=photo, caption="my cat")), ME, "Ember", pictures=(picture,)
    )
    bare = normalize(message(FAKE.message(chat, ALICE, photo=photo)), ME, "Ember", pictures=(picture,))
    assert captioned is not None and captioned.message.text == "my cat"
    assert captioned.message.images == (picture,) and captioned.message.attachments == ()
    assert bare is not None and bare.message.text == "" and bare.message.images == (picture,)
    document = {"file_id": "d", "file_unique_id": "d", "file_name": "plan.png", "mime_type": "image/png"}
    filed = normalize(message(FAKE.message(chat, ALICE, document=document)), ME, "Ember", pictures=(picture,))
    unfetched = normalize(message(FAKE.message(chat, ALICE, document=document)), ME, "Ember")
    assert filed is not None and filed.message.text == ""
    assert unfetched is not None and unfetched.message.text == "[file: plan.png]"
