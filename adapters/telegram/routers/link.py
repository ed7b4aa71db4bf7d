"""``/link <code>``: join this Telegram identity with a web account (SPEC §0 "user").

The web app gives a signed-in person a single-use code (``storage.redis_accounts``, 10 minutes).
Sent to the bot in a private chat, it links
``tg:<id>`` to ``web:<name>``: from then on the person's Telegram messages are authored by the
web user, so personal and global memories, privacy and history are one person's on both
platforms. Memories saved under ``tg:<id>`` before are moved to the web user (same lists,
same pin; a list that is full keeps the rest under the old id, and the reply says how many).
An opt-out of personal memory (DEC-10) carries over. A code sent in a group has been seen by
everyone there, so it is spent without linking anything.
"""

from __future__ import annotations

from datetime import datetime

import msgspec
from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from adapters.telegram.access import caller_of
from adapters.telegram.context import BotContext
from adapters.telegram.conversation import target_of
from adapters.telegram.delivery import send_text
from adapters.telegram.ids import user_key
from adapters.telegram.memory_access import desk_of
from adapters.telegram.memory_views import plural
from engine.errors import Conflict, InvalidInput
from engine.ports import LinkCodes, MemoryDirectory
from engine.service import ChatService
from engine.service.memory import MemoryDesk

__all__ = ["create_router", "move_memories", "on_link"]

USAGE = "Sign in to the web app, make a link code there, and send it here: /link <code>."
IN_GROUP = "Send /link <code> to me in a private chat: here everyone would see your code."
BURNT = (
    "Everyone here could see that code, so it no longer works. Make a new one in the web app and "
    "send it to me in a private chat: /link <code>."
)
UNKNOWN = (
    "That code is unknown or expired (a code works once, for 10 minutes). Make a new one in the web app."
)


async def move_memories(
    desk: MemoryDesk, directory: MemoryDirectory, old: str, new: str, now: datetime
) -> tuple[int, int]:
    """Move every memory owned by ``old`` to the same lists of ``new``.

    Returns:
        How many moved, and how many stayed because the new list was full.
    """
    moved = kept = 0
    for scope in [s for s in await directory.all_lists() if s.owner == old]:
        target = msgspec.structs.replace(scope, owner=new)
        for record in await desk.list([scope]):
            model_pin = record.pinned and record.source in ("model", "deep")  # only people pin
            try:
                await desk.add(
                    persona=record.persona,
                    target=target,
                    text=record.text,
                    pinned=record.pinned,
                    source="person" if model_pin else record.source,
                    now=now,
                )
            except (Conflict, InvalidInput):
                kept += 1
                continue
            await desk.delete(record.id)
            moved += 1
    if await directory.opted_out([old]):
        await directory.set_privacy(new, personal_memory=False)
    return moved, kept


def _linked_text(user: str, moved: int, kept: int) -> str:
    text = f"🔗 Linked to your web account {user.removeprefix('web:')}."
    text += " What I remember about you now follows you between the web app and Telegram."
    if moved:
        text += f" I moved {plural(moved)} I had saved about you here."
    if kept:
        text += f" {plural(kept)} stayed with your Telegram identity: the web account's lists were full."
    return text


async def on_link(
    message: Message,
    command: CommandObject,
    bot: Bot,
    service: ChatService,
    ctx: BotContext,
    accounts: LinkCodes,
    directory: MemoryDirectory,
) -> None:
    """Redeem a link code and join the identities."""
    target, caller = target_of(message), caller_of(message)
    if message.chat.type != "private" or caller is None:
        shown = (command.args or "").strip() and await accounts.redeem_link_code(command.args or "")
        await send_text(bot, target, BURNT if shown else IN_GROUP, markdown=False)
        return
    if not (command.args or "").strip():
        await send_text(bot, target, USAGE, markdown=False)
        return
    user = await accounts.redeem_link_code(command.args or "")
    if user is None:
        await send_text(bot, target, UNKNOWN, markdown=False)
        return
    before = await ctx.person(caller)
    await ctx.store.link(caller, user)
    moved = kept = 0
    if before == user_key(caller):  # a previous link's memories belong to that web account
        moved, kept = await move_memories(desk_of(service), directory, before, user, ctx.clock.now())
    await send_text(bot, target, _linked_text(user, moved, kept), markdown=False)


def create_router() -> Router:
    """The link router."""
    router = Router(name="link")
    router.message.register(on_link, Command("link"))
    return router
