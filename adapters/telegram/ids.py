"""Platform-qualified ids of Telegram chats, spaces and users (SPEC §0, PLT-5).

A private chat, a group or a supergroup is one chat ``tg:<chat_id>``; a forum topic is its own
chat ``tg:<chat_id>/topic/<thread_id>`` in the group's space ``tg:<chat_id>``. A person's
private chat with a persona-bound bot (``TELEGRAM_BOT_TOKENS``) is ``tg:<user_id>/bot/<persona>``
(Telegram gives it the same id for every bot), in the space ``tg:<user_id>``. People are
``tg:<user_id>``; a message sent on behalf of a chat (an anonymous admin, a linked channel) is
authored by that chat's id.
"""

from __future__ import annotations

import re

from engine.errors import InvalidInput

__all__ = ["chat_key", "parse_chat_key", "space_key", "user_key"]

_CHAT = re.compile(r"tg:(-?\d+)(?:/topic/(\d+)|/bot/[A-Za-z0-9_.-]{1,64})?")


def chat_key(chat_id: int, thread_id: int | None = None, *, bot_persona: str | None = None) -> str:
    """The chat id of a Telegram chat, of one forum topic when ``thread_id`` is given, or of a
    private chat with the bot bound to ``bot_persona``."""
    if thread_id is not None:
        return f"tg:{chat_id}/topic/{thread_id}"
    return f"tg:{chat_id}" if bot_persona is None else f"tg:{chat_id}/bot/{bot_persona}"


def space_key(chat_id: int) -> str:
    """The space of a Telegram chat: the group (all its topics) or the private chat."""
    return f"tg:{chat_id}"


def user_key(user_id: int) -> str:
    """A Telegram person (or a chat that posts as itself)."""
    return f"tg:{user_id}"


def parse_chat_key(chat: str) -> tuple[int, int | None]:
    """``tg:-100/topic/7`` → ``(-100, 7)``; ``tg:42/bot/lyra`` → ``(42, None)``.

    Raises:
        InvalidInput: ``invalid_chat_id`` when ``chat`` is not a Telegram chat id.
    """
    found = _CHAT.fullmatch(chat)
    if found is None:
        raise InvalidInput(f"{chat[:40]!r} is not a Telegram chat id.", code="invalid_chat_id")
    thread = found.group(2)
    return int(found.group(1)), int(thread) if thread is not None else None
