"""``/memories`` (the space's list) and ``/personal`` (the caller's), with their buttons (MEM-1, MEM-5).

``/memories`` shows the group's memories to everyone; its pin/unpin and forget buttons work for
group admins only. In a private chat it shows what the persona remembers about the person (as
``/personal`` does): that is where a private chat's memories are kept. ``/personal`` shows what the
persona remembers about the caller — personal memories of this space, Global ones, and the
caller's ``global`` ones — and in a group it is sent privately: the group only learns that
it was sent, or that the person must start a private chat with the bot first. Every press
re-reads the lists and redraws the page, and is answered (answerCallbackQuery).
"""

from __future__ import annotations

import logging

from aiogram import Bot, Router
from aiogram.exceptions import TelegramBadRequest, TelegramForbiddenError
from aiogram.filters import Command
from aiogram.types import CallbackQuery, Chat, Message

from adapters.telegram.access import caller_of, may_change_space
from adapters.telegram.context import BotContext
from adapters.telegram.conversation import target_of
from adapters.telegram.delivery import Target, send_chunk, send_text
from adapters.telegram.memory_access import check_may_change, desk_of, load_listing
from adapters.telegram.memory_views import Listing, MemoryButton, listing_chunk, listing_keyboard
from adapters.telegram.normalize import GROUP_TYPES
from engine.errors import NotFound
from engine.ports import MemoryDirectory
from engine.service import ChatService
from engine.service.memory import MemoryDesk

__all__ = ["create_router", "on_button", "on_memories", "on_personal"]

log = logging.getLogger("hearth.telegram")

OWN_TITLE = "What I remember about you"
PRIVACY_NOTE = "Personal memory is off for you (/privacy): these are kept but not used."
NO_PERSON = "Personal memories belong to people; send /personal as yourself, not as the group."


def space_title(chat_id: int) -> str:
    """The title of a space's list."""
    return "Memories of this group" if chat_id < 0 else "Memories of this chat"


def space_note(chat_id: int) -> str:
    """In a private chat, where the memories about the person are (``/remember`` saves there)."""
    return "" if chat_id < 0 else "What I remember about you personally is in /personal."


async def _show(
    bot: Bot, target: Target, listing: Listing, desk: MemoryDesk, edit: int | None = None
) -> None:
    chunk = listing_chunk(listing, desk.policy)
    await send_chunk(bot, target, chunk, markup=listing_keyboard(listing), edit=edit)


async def on_memories(
    message: Message, bot: Bot, service: ChatService, ctx: BotContext, directory: MemoryDirectory
) -> None:
    """Show the space's memories with their buttons (the person's own, in a private chat)."""
    if message.chat.type not in GROUP_TYPES:
        await on_personal(message, bot, service, ctx, directory)
        return
    desk = desk_of(service)
    space = message.chat.id
    listing = await load_listing(
        desk,
        persona=ctx.persona,
        view="s",
        space=space,
        user=None,
        title=space_title(space),
        note=space_note(space),
    )
    await _show(bot, target_of(message), listing, desk)


async def _privacy_note(directory: MemoryDirectory, user: str) -> str:
    return PRIVACY_NOTE if await directory.opted_out([user]) else ""


def _own_title(chat: Chat) -> str:
    if chat.type in GROUP_TYPES:
        return f"{OWN_TITLE} in {chat.title or 'this group'} and everywhere"
    return OWN_TITLE


async def on_personal(
    message: Message, bot: Bot, service: ChatService, ctx: BotContext, directory: MemoryDirectory
) -> None:
    """Show the caller's memories: here in a private chat, privately from a group."""
    caller = caller_of(message)
    if caller is None:
        await send_text(bot, target_of(message), NO_PERSON, markdown=False)
        return
    desk, user = desk_of(service), await ctx.person(caller)
    listing = await load_listing(
        desk,
        persona=ctx.persona,
        view="p",
        space=message.chat.id,
        user=user,
        title=_own_title(message.chat),
        note=await _privacy_note(directory, user),
    )
    if message.chat.type not in GROUP_TYPES:
        await _show(bot, target_of(message), listing, desk)
        return
    await send_text(bot, target_of(message), await _send_privately(bot, caller, message, listing, desk))


async def _send_privately(bot: Bot, caller: int, message: Message, listing: Listing, desk: MemoryDesk) -> str:
    """Send the list to the caller's private chat; returns what to say in the group (no content)."""
    name = message.from_user.first_name if message.from_user else "friend"
    try:
        await _show(bot, Target(chat_id=caller), listing, desk)
    except (TelegramForbiddenError, TelegramBadRequest) as exc:
        log.info("could not write to %s privately: %s", caller, exc)
        handle = f"@{(await bot.me()).username}"
        return (
            f"{name}, I can't write to you privately yet: open a chat with {handle}, press Start, "
            "then send /personal again."
        )
    return f"📬 {name}, I sent what I remember about you to our private chat."


async def _act(
    query: CallbackQuery, data: MemoryButton, bot: Bot, desk: MemoryDesk, ctx: BotContext, user: str
) -> str:
    """Pin, unpin or forget the pressed entry; returns the toast to show."""
    if data.action == "page":
        return ""
    scope, record = await desk.locate(data.memory)

    async def admin() -> bool:
        return await may_change_space(bot, data.space, query.from_user.id)

    await check_may_change(scope, persona=ctx.persona, space=data.space, user=user, admin=admin)
    if data.action == "forget":
        await desk.delete(record.id)
        return "Forgotten."
    pinned = data.action == "pin"
    await desk.edit(record.id, text=None, pinned=pinned, now=ctx.clock.now())
    return "Pinned: I'll always keep it in mind." if pinned else "Unpinned."


async def on_button(
    query: CallbackQuery,
    callback_data: MemoryButton,
    bot: Bot,
    service: ChatService,
    ctx: BotContext,
    directory: MemoryDirectory,
) -> None:
    """Act on the pressed entry (or turn the page), then redraw the list."""
    message = query.message
    if not isinstance(message, Message):
        await query.answer("This list is too old; send /memories again.")
        return
    desk, user, view = desk_of(service), await ctx.person(query.from_user.id), callback_data.view
    try:
        toast = await _act(query, callback_data, bot, desk, ctx, user)
    except NotFound:
        toast = "That memory is already gone."
    title = space_title(callback_data.space)
    if view == "p":
        title = (
            OWN_TITLE
            if callback_data.space == message.chat.id
            else (message.text or OWN_TITLE).split("\n")[0]
        )
    listing = await load_listing(
        desk,
        persona=ctx.persona,
        view=view,
        space=callback_data.space,
        user=user if view == "p" else None,
        title=title,
        page=callback_data.page,
        note=await _privacy_note(directory, user) if view == "p" else space_note(callback_data.space),
    )
    await _show(bot, target_of(message, quote=False), listing, desk, edit=message.message_id)
    await query.answer(toast or None)


def create_router() -> Router:
    """The memory list router."""
    router = Router(name="memories")
    router.message.register(on_memories, Command("memories"))
    router.message.register(on_personal, Command("personal"))
    router.callback_query.register(on_button, MemoryButton.filter())
    return router
