"""``/regenerate`` and the ↻ button: write the chat's latest reply again (MEM-7 applies).

The new reply replaces the old one in place: the messages that showed it are edited (extra
ones deleted, missing ones sent), and only the newest reply carries a working button.
"""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.filters import Command
from aiogram.types import CallbackQuery, Message

from adapters.telegram.context import BotContext
from adapters.telegram.conversation import Regenerate, answer, target_of
from adapters.telegram.delivery import send_text
from adapters.telegram.normalize import chat_of
from engine.errors import Conflict, NotFound
from engine.service import ChatService

__all__ = ["create_router", "on_button", "on_command"]


async def on_command(message: Message, bot: Bot, service: ChatService, ctx: BotContext) -> None:
    """Regenerate the chat's latest reply."""
    chat = chat_of(message)
    latest = await service.chats.latest(chat)
    if latest is None:
        await send_text(bot, target_of(message), "There is no reply to write again yet.", markdown=False)
        return
    events = await service.regenerate(chat, latest.id)
    parts = await ctx.store.parts(chat, latest.id)
    ctx.replies.spawn(answer(bot, service, ctx, chat, target_of(message, quote=False), events, parts=parts))


async def on_button(
    query: CallbackQuery, callback_data: Regenerate, bot: Bot, service: ChatService, ctx: BotContext
) -> None:
    """Regenerate the reply the button sits under, if it is still the latest."""
    message = query.message
    if not isinstance(message, Message):
        await query.answer("This message is too old to change.")
        return
    chat = chat_of(message)
    try:
        events = await service.regenerate(chat, callback_data.turn)
    except (Conflict, NotFound):
        await query.answer("Only the latest reply can be written again.")
        return
    await query.answer("Writing it again…")
    parts = await ctx.store.parts(chat, callback_data.turn) or (message.message_id,)
    ctx.replies.spawn(answer(bot, service, ctx, chat, target_of(message, quote=False), events, parts=parts))


def create_router() -> Router:
    """The regenerate router."""
    router = Router(name="regenerate")
    router.message.register(on_command, Command("regenerate"))
    router.callback_query.register(on_button, Regenerate.filter())
    return router
