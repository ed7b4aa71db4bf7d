"""``/notices [off|brief|full]``: how visible memory notices are in this space (DEC-11).

The level applies to the whole space (a group with all its topics, or a private chat): the
footer under replies that saved or forgot memories, and the confirmations of ``/remember`` and
``/forget``. Anyone may see it; in groups only admins change it (command or buttons).
"""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message

from adapters.telegram.access import is_admin, may_change_space
from adapters.telegram.conversation import target_of
from adapters.telegram.delivery import send_text
from adapters.telegram.ids import space_key
from adapters.telegram.memory_access import notice_level
from engine.errors import Forbidden
from engine.notices import NOTICE_LEVELS
from engine.ports import MemoryDirectory

__all__ = ["NoticeButton", "create_router", "on_button", "on_notices", "showing"]

MEANING = {
    "off": "say nothing when I save or forget memories",
    "brief": "say that I did, without the texts (the default)",
    "full": "show what I saved or forgot",
}
NOT_ADMIN = "Only group admins can change how memory notices show here."


class NoticeButton(CallbackData, prefix="ntc"):
    """Set the space's notice level."""

    level: str


def showing(level: str) -> tuple[str, InlineKeyboardMarkup]:
    """The current level, what each level means, and a button per level."""
    lines = [f"Memory notices here: {level}."]
    lines += [f"{'✓' if name == level else '•'} {name} — {MEANING[name]}" for name in NOTICE_LEVELS]
    buttons = [
        InlineKeyboardButton(
            text=f"✓ {name}" if name == level else name, callback_data=NoticeButton(level=name).pack()
        )
        for name in NOTICE_LEVELS
    ]
    return "\n".join(lines), InlineKeyboardMarkup(inline_keyboard=[buttons])


async def on_notices(message: Message, command: CommandObject, bot: Bot, directory: MemoryDirectory) -> None:
    """Show the level, or set it (admins, in groups)."""
    wanted, space, target = (command.args or "").strip().lower(), message.chat.id, target_of(message)
    if wanted and wanted not in NOTICE_LEVELS:
        await send_text(bot, target, "Use /notices off, /notices brief or /notices full.", markdown=False)
        return
    if wanted and not await is_admin(message, bot):
        await send_text(bot, target, NOT_ADMIN, markdown=False)
        return
    if wanted:
        await directory.set_notice_level(space_key(space), wanted)
    text, markup = showing(wanted or await notice_level(directory, space))
    await send_text(bot, target, text, markdown=False, markup=markup)


async def on_button(
    query: CallbackQuery, callback_data: NoticeButton, bot: Bot, directory: MemoryDirectory
) -> None:
    """Set the level from a button, if the presser may."""
    message, level = query.message, callback_data.level
    if not isinstance(message, Message) or level not in NOTICE_LEVELS:
        await query.answer("This message is too old; send /notices again.")
        return
    if not await may_change_space(bot, message.chat.id, query.from_user.id):
        raise Forbidden(NOT_ADMIN, code="not_group_admin")
    if level != await notice_level(directory, message.chat.id):
        await directory.set_notice_level(space_key(message.chat.id), level)
        text, markup = showing(level)
        await bot.edit_message_text(
            text=text, chat_id=message.chat.id, message_id=message.message_id, reply_markup=markup
        )
    await query.answer(f"Memory notices: {level}.")


def create_router() -> Router:
    """The notice level router."""
    router = Router(name="notices")
    router.message.register(on_notices, Command("notices"))
    router.callback_query.register(on_button, NoticeButton.filter())
    return router
