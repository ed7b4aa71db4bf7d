"""``/privacy``: opt out of personal memory, or back in, with a button (DEC-10).

Opting out is per person, for every space and persona: their personal memories are then never
read, searched, aged or saved; the ones already saved are kept, unused, until they opt back in
or delete them (``/personal``, ``/clear personal``). The button works only for the person it
was shown to.
"""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.filters import Command
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message

from adapters.telegram.access import caller_of
from adapters.telegram.context import BotContext
from adapters.telegram.conversation import target_of
from adapters.telegram.delivery import send_text
from engine.errors import Forbidden
from engine.ports import MemoryDirectory

__all__ = ["PrivacyButton", "create_router", "on_button", "on_privacy", "status"]

ON = (
    "🔓 Personal memory is on for {name}: I may remember things about you (/personal lists them) "
    "and use them when you talk to me. If you opt out, I stop reading, using and saving personal "
    "memories about you; the ones already saved are kept, unused."
)
OFF = (
    "🔒 Personal memory is off for {name}: I don't read, use or save personal memories about you. "
    "The ones saved before are kept, unused; /clear personal deletes them."
)


class PrivacyButton(CallbackData, prefix="prv"):
    """Turn personal memory ``on`` or off for ``owner`` (a Telegram user id)."""

    on: bool
    owner: int


def status(name: str, owner: int, *, opted_out: bool) -> tuple[str, InlineKeyboardMarkup]:
    """The privacy status and the button that flips it."""
    label = "Opt back in" if opted_out else "Opt out of personal memory"
    data = PrivacyButton(on=opted_out, owner=owner)
    markup = InlineKeyboardMarkup(
        inline_keyboard=[[InlineKeyboardButton(text=label, callback_data=data.pack())]]
    )
    return (OFF if opted_out else ON).format(name=name), markup


async def on_privacy(message: Message, bot: Bot, ctx: BotContext, directory: MemoryDirectory) -> None:
    """Show whether personal memory is on for the caller, with a button to change it."""
    caller = caller_of(message)
    if caller is None or message.from_user is None:
        raise Forbidden("Privacy settings belong to people; send /privacy as yourself.", code="no_person")
    opted = bool(await directory.opted_out([await ctx.person(caller)]))
    text, markup = status(message.from_user.first_name, caller, opted_out=opted)
    await send_text(bot, target_of(message), text, markdown=False, markup=markup)


async def on_button(
    query: CallbackQuery,
    callback_data: PrivacyButton,
    bot: Bot,
    ctx: BotContext,
    directory: MemoryDirectory,
) -> None:
    """Opt the presser out or back in, if the button is theirs."""
    if query.from_user.id != callback_data.owner:
        raise Forbidden("This button belongs to someone else; send /privacy to see yours.", code="not_yours")
    await directory.set_privacy(await ctx.person(callback_data.owner), personal_memory=callback_data.on)
    message = query.message
    if isinstance(message, Message):
        text, markup = status(query.from_user.first_name, callback_data.owner, opted_out=not callback_data.on)
        await bot.edit_message_text(
            text=text, chat_id=message.chat.id, message_id=message.message_id, reply_markup=markup
        )
    await query.answer("Personal memory is on." if callback_data.on else "Opted out of personal memory.")


def create_router() -> Router:
    """The privacy router."""
    router = Router(name="privacy")
    router.message.register(on_privacy, Command("privacy"))
    router.callback_query.register(on_button, PrivacyButton.filter())
    return router
