"""``/clear``: forget all memories of a list, with the two-step pinned rule (MEM-9).

``/clear`` works on the space's list (group admins only, in groups); ``/clear personal`` on the
caller's personal lists as seen from here (this space's and Global). Nothing is deleted until a
button is pressed:

1. "Yes, forget N" deletes every unpinned entry, irreversibly; pinned ones survive and, when
   there are some, a second, separate question appears: "Also delete N pinned".
2. That second button deletes the pinned ones too.

Each press is checked again (an admin of the group; the person who asked, for personal lists),
so a button shown in a group cannot be used by someone who could not type the command.
"""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message

from adapters.telegram.access import caller_of, is_admin, may_change_space
from adapters.telegram.context import BotContext
from adapters.telegram.conversation import target_of
from adapters.telegram.delivery import send_text
from adapters.telegram.ids import space_key
from adapters.telegram.memory_access import desk_of, space_lists
from adapters.telegram.memory_views import plural
from engine.errors import Forbidden
from engine.memory import MemoryRecord, ScopeList, global_personal_list, personal_list
from engine.service import ChatService

__all__ = ["ClearButton", "create_router", "first_question", "on_button", "on_clear", "pinned_question"]

USAGE = "/clear forgets this chat's memories (group admins only, in groups); /clear personal forgets yours."
NOT_ADMIN = "Only group admins can clear this group's memories. /clear personal clears your own."

Question = tuple[str, InlineKeyboardMarkup | None]


class ClearButton(CallbackData, prefix="clr"):
    """A step of ``/clear``: ``all`` (unpinned), ``pinned`` (the second confirmation), ``keep``."""

    step: str
    view: str
    space: int
    owner: int = 0


def _of(view: str, space: int) -> str:
    where = "this group" if space < 0 else "this chat"
    return f"about you ({where}'s and Global)" if view == "p" else f"of {where}"


def _buttons(data: ClearButton, yes: str, no: str) -> InlineKeyboardMarkup:
    keep = ClearButton(step="keep", view=data.view, space=data.space, owner=data.owner)
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(text=yes, callback_data=data.pack()),
                InlineKeyboardButton(text=no, callback_data=keep.pack()),
            ]
        ]
    )


def pinned_question(view: str, space: int, owner: int, pinned: int) -> Question:
    """The second, separate question: delete the pinned entries too?"""
    verb, them = ("is", "it") if pinned == 1 else ("are", "them")
    text = f"{plural(pinned, 'pinned memory')} {_of(view, space)} {verb} left."
    text += f" Delete {them} too? This cannot be undone."
    step = ClearButton(step="pinned", view=view, space=space, owner=owner)
    return text, _buttons(step, f"Also delete {pinned} pinned", "Keep them")


def first_question(view: str, space: int, owner: int, records: list[MemoryRecord]) -> Question:
    """What ``/clear`` asks first, from the list's current entries."""
    pinned = sum(1 for r in records if r.pinned)
    unpinned = len(records) - pinned
    if not records:
        nothing = (
            "I have no personal memories of you to clear."
            if view == "p"
            else "There are no memories here to clear."
        )
        return nothing, None
    if not unpinned:
        return pinned_question(view, space, owner, pinned)
    text = f"Forget {plural(unpinned, 'unpinned memory')} {_of(view, space)}? This cannot be undone."
    if pinned:
        text += f" The {pinned} pinned stay unless you confirm that separately."
    step = ClearButton(step="all", view=view, space=space, owner=owner)
    return text, _buttons(step, f"Yes, forget {unpinned}", "Cancel")


async def _targets(ctx: BotContext, view: str, space: int, owner: int) -> tuple[ScopeList, ...]:
    if view == "s":
        return space_lists(ctx.persona, space)
    user = await ctx.person(owner)
    return personal_list(ctx.persona, user, space_key(space)), global_personal_list(ctx.persona, user)


async def on_clear(
    message: Message, command: CommandObject, bot: Bot, service: ChatService, ctx: BotContext
) -> None:
    """Ask before clearing the space's (or the caller's) memories."""
    arg, desk, target = (command.args or "").strip().lower(), desk_of(service), target_of(message)
    if arg not in ("", "personal"):
        await send_text(bot, target, USAGE, markdown=False)
        return
    view, caller = ("p" if arg else "s"), caller_of(message)
    if view == "s" and not await is_admin(message, bot):
        await send_text(bot, target, NOT_ADMIN, markdown=False)
        return
    if view == "p" and caller is None:
        raise Forbidden("Only a person has personal memories; send it as yourself.", code="no_person")
    owner = caller or 0
    records = await desk.list(await _targets(ctx, view, message.chat.id, owner))
    text, markup = first_question(view, message.chat.id, owner, records)
    await send_text(bot, target, text, markdown=False, markup=markup)


async def _check_presser(bot: Bot, data: ClearButton, presser: int) -> None:
    if data.view == "p" and presser != data.owner:
        raise Forbidden("Only the person who asked can confirm this.", code="not_yours")
    if data.view == "s" and not await may_change_space(bot, data.space, presser):
        raise Forbidden("Only group admins can clear this group's memories.", code="not_group_admin")


async def on_button(
    query: CallbackQuery, callback_data: ClearButton, bot: Bot, service: ChatService, ctx: BotContext
) -> None:
    """Perform the confirmed step and show what happened (and the pinned question, if any)."""
    message, data = query.message, callback_data
    if not isinstance(message, Message):
        await query.answer("This question is too old; send /clear again.")
        return
    await _check_presser(bot, data, query.from_user.id)
    text: str
    markup: InlineKeyboardMarkup | None = None
    if data.step == "keep":
        text = "OK, nothing more is deleted."
    else:
        desk, confirmed = desk_of(service), data.step == "pinned"
        plans = [
            await desk.clear(t, pinned_confirmed=confirmed)
            for t in await _targets(ctx, data.view, data.space, data.owner)
        ]
        deleted, left = sum(len(p.writes) for p in plans), sum(p.pinned_left for p in plans)
        text = f"Forgot {plural(deleted)}" + (", pinned ones included." if confirmed else ".")
        if left:
            question, markup = pinned_question(data.view, data.space, data.owner, left)
            text += f"\n\n{question}"
    await bot.edit_message_text(
        text=text, chat_id=message.chat.id, message_id=message.message_id, reply_markup=markup
    )
    await query.answer("Done.")


def create_router() -> Router:
    """The clear router."""
    router = Router(name="clear")
    router.message.register(on_clear, Command("clear"))
    router.callback_query.register(on_button, ClearButton.filter())
    return router
