"""``/remember <text>`` and ``/forget <id or words>``: a person adds or removes one memory (MEM-6b).

``/remember`` sent as a reply to a message, without text, remembers that message's text.

Where ``/remember`` saves (protected, DEC-12):

- in a private chat: a personal memory about the caller, Global — it follows them into groups;
- in a group, from an admin: a memory of the group, shared by everyone in it;
- in a group, from anyone else: a personal memory about the caller, local to this group.

The confirmation follows the space's notice level (DEC-11): ``full`` shows what was saved and
what was forgotten to make room, ``brief`` only says so, ``off`` only acknowledges. A full list
that cannot make room (``memory_full``, DEC-13) is explained. A person who opted out of personal
memory (DEC-10) gets nothing personal saved.

``/forget`` takes a memory id (any of the caller's own, or the space's for admins) or words:
in a group the words search the group's memories (admins); in a private chat, the chat's and
the caller's. One match is forgotten at once; several are offered as buttons.
"""

from __future__ import annotations

import re

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message

from adapters.telegram.access import caller_of, is_admin, may_change_space
from adapters.telegram.context import BotContext
from adapters.telegram.conversation import target_of
from adapters.telegram.delivery import send_text
from adapters.telegram.ids import space_key
from adapters.telegram.memory_access import (
    check_may_change,
    desk_of,
    notice_level,
    own_lists,
    space_lists,
)
from adapters.telegram.memory_views import PER_PAGE, forgot_text, ordered, plural, saved_text, snippet
from adapters.telegram.normalize import display_name
from engine.errors import Conflict, Forbidden, NotFound
from engine.memory import MemoryRecord, ScopeList, global_personal_list, personal_list, space_list
from engine.ports import MemoryDirectory
from engine.service import ChatService
from engine.service.memory import MemoryDesk

__all__ = ["ForgetChoice", "create_router", "on_choice", "on_forget", "on_remember"]

MEMORY_ID = re.compile(r"mem-[A-Za-z0-9_-]{1,40}")
REMEMBER_USAGE = (
    "Tell me what to remember: /remember <text> (or reply /remember to a message). In a private "
    "chat it's about you and follows you everywhere; in a group, admins save a memory of the group "
    "and everyone else a personal one."
)
FORGET_USAGE = (
    "Tell me what to forget: /forget <memory id> or /forget <words it contains>. /memories lists them."
)
OPTED_OUT = "You opted out of personal memory, so I don't save anything about you. /privacy turns it back on."


class ForgetChoice(CallbackData, prefix="fgt"):
    """One of several memories that matched ``/forget <words>``."""

    memory: str


async def _remember_target(message: Message, bot: Bot, ctx: BotContext) -> tuple[ScopeList, str]:
    """The list ``/remember`` saves into, and how to describe it."""
    space, caller = message.chat.id, caller_of(message)
    group = message.chat.type != "private"
    if group and await is_admin(message, bot):
        return space_list(ctx.persona, space_key(space)), "for everyone in this group"
    if caller is None:
        raise Forbidden("Only a person has personal memories; send it as yourself.", code="no_person")
    user = await ctx.person(caller)
    if group:
        return personal_list(ctx.persona, user, space_key(space)), "about you, in this group"
    return global_personal_list(ctx.persona, user), "about you, everywhere"


async def on_remember(
    message: Message,
    command: CommandObject,
    bot: Bot,
    service: ChatService,
    ctx: BotContext,
    directory: MemoryDirectory,
) -> None:
    """Save a person-added memory and say what happened."""
    text, desk, replied = (command.args or "").strip(), desk_of(service), message.reply_to_message
    author = display_name(message)  # a personal memory's "I" is stored as their name
    if not text and replied is not None:
        text = (replied.text or replied.caption or "").strip()
        author = display_name(replied)
    if not text:
        await send_text(bot, target_of(message), REMEMBER_USAGE, markdown=False)
        return
    target, where = await _remember_target(message, bot, ctx)
    if target.owner is not None and await directory.opted_out([target.owner]):
        await send_text(bot, target_of(message), OPTED_OUT, markdown=False)
        return
    persona = await service.persona(ctx.persona)
    try:
        plan = await desk.add(
            persona=ctx.persona,
            target=target,
            text=text,
            pinned=False,
            source="person",
            now=ctx.clock.now(),
            limits=persona.memory,
            author=author,
        )
    except Conflict as exc:
        if exc.code != "memory_full":
            raise
        reply = f"🧠 I couldn't remember that. {exc.message} /memories or /personal lists them, with buttons."
    else:
        reply = saved_text(plan, await notice_level(directory, message.chat.id), where)
    await send_text(bot, target_of(message), reply, markdown=False)


async def _candidates(message: Message, bot: Bot, desk: MemoryDesk, ctx: BotContext) -> list[MemoryRecord]:
    """The memories ``/forget <words>`` searches (see the module docstring)."""
    space = message.chat.id
    if message.chat.type != "private":
        if not await is_admin(message, bot):
            raise Forbidden(
                "Only group admins can forget this group's memories. Your own are in /personal, "
                "with buttons to forget them.",
                code="not_group_admin",
            )
        return await desk.list(space_lists(ctx.persona, space))
    caller = caller_of(message)
    own = own_lists(ctx.persona, await ctx.person(caller), space) if caller is not None else ()
    return await desk.list([*space_lists(ctx.persona, space), *own])


async def _forget_one(
    message: Message, bot: Bot, desk: MemoryDesk, ctx: BotContext, memory: str
) -> MemoryRecord:
    """Forget one memory by id, if the sender may."""
    scope, record = await desk.locate(memory)
    caller = caller_of(message)
    user = await ctx.person(caller) if caller is not None else None
    await check_may_change(
        scope, persona=ctx.persona, space=message.chat.id, user=user, admin=lambda: is_admin(message, bot)
    )
    await desk.delete(record.id)
    return record


def _choices(words: str, matches: list[MemoryRecord]) -> tuple[str, InlineKeyboardMarkup]:
    """The question and buttons when several memories match ``/forget <words>``."""
    shown = ordered(matches)[:PER_PAGE]
    lines = [f"{len(matches)} memories mention “{snippet(words, 60)}”. Which one should I forget?"]
    lines += [f"{n}. {snippet(r.text, 200)}" for n, r in enumerate(shown, start=1)]
    if len(matches) > len(shown):
        lines.append(f"…and {plural(len(matches) - len(shown))} more: use more words, or the id.")
    buttons = [
        InlineKeyboardButton(text=f"🗑 {n}", callback_data=ForgetChoice(memory=r.id).pack())
        for n, r in enumerate(shown, start=1)
    ]
    return "\n".join(lines), InlineKeyboardMarkup(
        inline_keyboard=[buttons[:4], buttons[4:]] if buttons[4:] else [buttons]
    )


async def on_forget(
    message: Message,
    command: CommandObject,
    bot: Bot,
    service: ChatService,
    ctx: BotContext,
    directory: MemoryDirectory,
) -> None:
    """Forget a memory named by id, or found by words (asking when several match)."""
    words, desk, target = (command.args or "").strip(), desk_of(service), target_of(message)
    if not words:
        await send_text(bot, target, FORGET_USAGE, markdown=False)
        return
    level = await notice_level(directory, message.chat.id)
    if MEMORY_ID.fullmatch(words) and await desk.directory.locate(words) is not None:
        record = await _forget_one(message, bot, desk, ctx, words)
        await send_text(bot, target, forgot_text([record], level), markdown=False)
        return
    needle = words.casefold()
    matches = [r for r in await _candidates(message, bot, desk, ctx) if needle in r.text.casefold()]
    if not matches:
        await send_text(
            bot,
            target,
            f"No memory here mentions “{snippet(words, 60)}”. /memories lists them.",
            markdown=False,
        )
    elif len(matches) == 1:
        record = await _forget_one(message, bot, desk, ctx, matches[0].id)
        await send_text(bot, target, forgot_text([record], level), markdown=False)
    else:
        text, markup = _choices(words, matches)
        await send_text(bot, target, text, markdown=False, markup=markup)


async def on_choice(
    query: CallbackQuery,
    callback_data: ForgetChoice,
    bot: Bot,
    service: ChatService,
    ctx: BotContext,
    directory: MemoryDirectory,
) -> None:
    """Forget the chosen memory, if the presser may, and say so in place of the question."""
    message = query.message
    if not isinstance(message, Message):
        await query.answer("This question is too old; send /forget again.")
        return
    desk, space = desk_of(service), message.chat.id
    try:
        scope, record = await desk.locate(callback_data.memory)
    except NotFound:
        await query.answer("That memory is already gone.")
        return

    async def admin() -> bool:
        return await may_change_space(bot, space, query.from_user.id)

    user = await ctx.person(query.from_user.id)
    await check_may_change(scope, persona=ctx.persona, space=space, user=user, admin=admin)
    await desk.delete(record.id)
    text = forgot_text([record], await notice_level(directory, space))
    await bot.edit_message_text(text=text, chat_id=space, message_id=message.message_id)
    await query.answer("Forgotten.")


def create_router() -> Router:
    """The remember/forget router."""
    router = Router(name="remember")
    router.message.register(on_remember, Command("remember"))
    router.message.register(on_forget, Command("forget"))
    router.callback_query.register(on_choice, ForgetChoice.filter())
    return router
