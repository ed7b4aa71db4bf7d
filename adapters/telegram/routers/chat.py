"""Conversation: every message is stored; addressed ones are answered (PLT-2, PLT-3).

In a group of persona-bound bots (``TELEGRAM_BOT_TOKENS``) the cast decides who answers
(``adapters.telegram.cast``).
"""

from __future__ import annotations

from aiogram import Bot, F, Router
from aiogram.types import Message

from adapters.telegram.cast import take_group_message
from adapters.telegram.context import BotContext
from adapters.telegram.conversation import take_message
from adapters.telegram.normalize import GROUP_TYPES
from engine.service import ChatService

__all__ = ["create_router", "on_message"]


async def on_message(message: Message, bot: Bot, service: ChatService, ctx: BotContext) -> None:
    """Store the message; answer it (streaming, in the background) when it is addressed."""
    if ctx.bots is not None and message.chat.type in GROUP_TYPES:
        await take_group_message(message, bot, service, ctx)
        return
    await take_message(message, bot, service, ctx)


def create_router() -> Router:
    """The chat router."""
    router = Router(name="chat")
    router.message.register(on_message, F.chat.type.in_({"private", *GROUP_TYPES}))
    return router
