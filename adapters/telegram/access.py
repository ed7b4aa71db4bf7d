"""Who may do what in a chat: group admins change space-wide settings; everyone their own things.

In a private chat the person is the only member, so they may change everything there. In a
group, space-wide changes (the group's memories, lorebooks, notice level) need a member whose
status (getChatMember) is ``creator`` or ``administrator``; an anonymous admin posting as the
group counts as one. A person's own memories and privacy belong to that person only, so a
message sent as a chat (an anonymous admin, a linked channel) has no person behind it.
"""

from __future__ import annotations

from aiogram import Bot
from aiogram.types import Message

__all__ = ["ADMIN_STATUSES", "caller_of", "is_admin", "may_change_space"]

ADMIN_STATUSES = frozenset({"creator", "administrator"})


async def may_change_space(bot: Bot, chat_id: int, user_id: int) -> bool:
    """Whether Telegram user ``user_id`` may change the space-wide settings of chat ``chat_id``.

    A private chat's id is its person's id (positive); groups have negative ids and ask
    getChatMember. The chat is named by id, not taken from where a button was pressed, so a
    button crafted in a private chat cannot reach a group's settings.
    """
    if chat_id > 0:
        return chat_id == user_id
    member = await bot.get_chat_member(chat_id=chat_id, user_id=user_id)
    return member.status in ADMIN_STATUSES


async def is_admin(message: Message, bot: Bot) -> bool:
    """Whether the sender may change chat-wide settings (always, in a private chat)."""
    if message.chat.type == "private":
        return True
    if message.sender_chat is not None:
        return message.sender_chat.id == message.chat.id  # an anonymous admin of this group
    if message.from_user is None:
        return False
    return await may_change_space(bot, message.chat.id, message.from_user.id)


def caller_of(message: Message) -> int | None:
    """The Telegram user id of the person who sent ``message`` (None when sent as a chat or a bot)."""
    user = message.from_user
    if message.sender_chat is not None or user is None or user.is_bot:
        return None
    return user.id
