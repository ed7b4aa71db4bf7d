"""Commands Hearth does not know (PLT-6).

In a private chat, or when addressed to this bot (``/foo@this_bot``), the person gets a hint.
A bare unknown command in a group is probably for another bot, so it is left alone. Commands
are not conversation, so they are not stored.
"""

from __future__ import annotations

import re

from aiogram import Bot, F, Router
from aiogram.types import Message

from adapters.telegram.conversation import target_of
from adapters.telegram.delivery import send_text

__all__ = ["COMMAND", "create_router", "on_unknown"]

COMMAND = re.compile(r"/([A-Za-z0-9_]{1,64})(?:@([A-Za-z0-9_]+))?(?:\s|$)")


async def on_unknown(message: Message, bot: Bot) -> None:
    """Point to /help when the unknown command was meant for this bot."""
    found = COMMAND.match(message.text or "")
    if found is None:
        return
    username = ((await bot.me()).username or "").lower()
    mention = (found.group(2) or "").lower()
    if mention and mention != username:
        return
    if message.chat.type != "private" and not mention:
        return
    await send_text(bot, target_of(message), f"I don't know /{found.group(1)}. Try /help.", markdown=False)


def create_router() -> Router:
    """The unknown-command router (included after every known command)."""
    router = Router(name="unknown")
    router.message.register(on_unknown, F.text.regexp(COMMAND.pattern))
    return router
