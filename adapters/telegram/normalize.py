"""Telegram ``Message`` → ``IncomingMessage`` (PLT-5), and whether the persona is addressed (PLT-2).

In a private chat every message is for the persona. In a group it answers a message that
mentions the bot (``@username`` or a text mention), names the persona (whole word, any case),
or replies to one of the bot's messages; every other message is still stored as context.
Media become text the model can read (``[photo]``, ``[sticker 😀]``) followed by the caption;
a photo or image document fetched as a picture (``adapters.telegram.pictures``) goes with the
message as an image instead of its label, and the caption stays the text.
Messages with nothing to read (service messages: members joining, pins...) are skipped.
"""

from __future__ import annotations

import re
from datetime import UTC

import msgspec
from aiogram.types import Message, User

from adapters.telegram.ids import chat_key, space_key, user_key
from engine.images import Image
from engine.model import IncomingMessage

__all__ = [
    "GROUP_TYPES",
    "Normalized",
    "attachments_of",
    "chat_of",
    "display_name",
    "is_addressed",
    "mentions_bot",
    "names_persona",
    "normalize",
    "topic_of",
]

GROUP_TYPES = frozenset({"group", "supergroup"})


class Normalized(msgspec.Struct, frozen=True, kw_only=True):
    """A message ready for the service, and whether the persona should answer it."""

    message: IncomingMessage
    addressed: bool


def topic_of(message: Message) -> int | None:
    """The forum topic a message belongs to (None outside forum topics)."""
    return message.message_thread_id if message.is_topic_message else None


def chat_of(message: Message) -> str:
    """The Hearth chat id of a message's chat or forum topic."""
    return chat_key(message.chat.id, topic_of(message))


def attachments_of(message: Message, *, pictured: int = 0) -> tuple[str, ...]:
    """Media of a message, described as text (PLT-5 "attachments-as-text"); ``pictured``: how
    many of its pictures (the photo, then an image document) go as images, without a label."""
    found: list[str] = []
    photo_pictured = bool(message.photo) and pictured > 0
    document_pictured = pictured > (1 if message.photo else 0)
    if message.sticker is not None:
        found.append(f"[sticker {message.sticker.emoji or ''}]".replace(" ]", "]"))
    simple = (
        (message.photo and not photo_pictured, "[photo]"),
        (message.video, "[video]"),
        (message.animation, "[GIF]"),
        (message.voice, "[voice message]"),
        (message.video_note, "[video message]"),
        (message.location, "[location]"),
        (message.contact, "[contact]"),
    )
    found += [label for present, label in simple if present]
    if message.audio is not None:
        found.append(f"[audio: {message.audio.title or message.audio.file_name or 'untitled'}]")
    if message.document is not None and message.animation is None and not document_pictured:
        found.append(f"[file: {message.document.file_name or 'unnamed'}]")
    if message.poll is not None:
        found.append(f"[poll: {message.poll.question}]")
    if message.dice is not None:
        found.append(f"[dice {message.dice.emoji} {message.dice.value}]")
    return tuple(found)


def mentions_bot(message: Message, me: User) -> bool:
    """True when the text mentions the bot by ``@username`` or by a text mention."""
    text = message.text or message.caption or ""
    handle = f"@{me.username}".lower() if me.username else None
    for entity in message.entities or message.caption_entities or ():
        if entity.type == "text_mention" and entity.user is not None and entity.user.id == me.id:
            return True
        if entity.type == "mention" and handle and entity.extract_from(text).lower() == handle:
            return True
    return False


def names_persona(text: str, name: str) -> bool:
    """True when ``text`` names the persona: its full name, or its first name when it has several.

    Whole words only, any case: "Ember, hi" names Ember; "embers" does not.
    """
    words = name.split()
    names = {name.strip(), words[0]} if len(words) > 1 and len(words[0]) >= 3 else {name.strip()}
    return any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", text, re.IGNORECASE) for n in names if n)


def is_addressed(message: Message, me: User, persona_name: str) -> tuple[bool, bool]:
    """``(addressed, mentioned)`` for a message the bot received."""
    text = message.text or message.caption or ""
    mentioned = mentions_bot(message, me) or names_persona(text, persona_name)
    if message.chat.type not in GROUP_TYPES:
        return True, mentioned
    replied = message.reply_to_message
    to_bot = replied is not None and replied.from_user is not None and replied.from_user.id == me.id
    return mentioned or to_bot, mentioned


def _author(message: Message) -> tuple[str, str, bool] | None:
    """``(user id, display name, is a bot)`` of whoever sent the message."""
    if message.sender_chat is not None:
        chat = message.sender_chat
        return user_key(chat.id), (chat.title or chat.full_name or "someone")[:64], False
    if message.from_user is not None:
        user = message.from_user
        return user_key(user.id), (user.full_name.strip() or user.username or "someone")[:64], user.is_bot
    return None


def display_name(message: Message) -> str | None:
    """The display name of whoever sent ``message``, as its stored messages show it."""
    author = _author(message)
    return None if author is None else author[1]


def normalize(
    message: Message,
    me: User,
    persona_name: str,
    *,
    reply_to: str | None = None,
    pictures: tuple[Image, ...] = (),
) -> Normalized | None:
    """The message for the service, or None when it has nothing to read or no author.

    Args:
        message: the Telegram message (private chat, group or forum topic).
        me: the bot's own user.
        persona_name: the persona's name, which addresses it in groups.
        reply_to: the stored id of the message this one replies to, when known.
        pictures: its photo and image document, fetched (``adapters.telegram.pictures``).
    """
    author = _author(message)
    media = attachments_of(message, pictured=len(pictures))
    words = (message.text or message.caption or "").strip()
    text = " ".join([*media, words]).strip()
    if author is None or not (text or pictures):
        return None
    user, name, is_bot = author
    addressed, mentioned = is_addressed(message, me, persona_name)
    incoming = IncomingMessage(
        platform="telegram",
        space=space_key(message.chat.id),
        chat=chat_of(message),
        user=user,
        display_name=name,
        text=text,
        sent_at=message.date.astimezone(UTC),
        reply_to=reply_to,
        is_mention=mentioned,
        attachments=media,
        images=pictures,
    )
    return Normalized(message=incoming, addressed=addressed and not is_bot)
