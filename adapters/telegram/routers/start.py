"""``/start`` (the persona's greeting) and ``/help``."""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.filters import Command, CommandStart
from aiogram.types import Message

from adapters.telegram.context import BotContext
from adapters.telegram.conversation import target_of
from adapters.telegram.delivery import send_text
from adapters.telegram.texts import help_text
from engine.prompt import fill_macros
from engine.service import ChatService

__all__ = ["create_router", "on_help", "on_start"]


async def on_start(message: Message, bot: Bot, service: ChatService, ctx: BotContext) -> None:
    """Greet like the persona does."""
    persona = await service.persona(ctx.persona)
    user = message.from_user.first_name if message.from_user else "friend"
    greeting = fill_macros(persona.greeting, char=persona.name, user=user).strip()
    await send_text(bot, target_of(message), greeting or f"Hi, I'm {persona.name}.")


async def on_help(message: Message, bot: Bot, service: ChatService, ctx: BotContext) -> None:
    """Say what the bot does and list the commands."""
    persona = await service.persona(ctx.persona)
    text = help_text(persona.name, (await bot.me()).username, bound=ctx.bots is not None)
    await send_text(bot, target_of(message), text)


def create_router() -> Router:
    """The greeting and help router."""
    router = Router(name="start")
    router.message.register(on_start, CommandStart())
    router.message.register(on_help, Command("help"))
    return router
