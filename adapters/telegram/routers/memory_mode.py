"""``/memory [off|on]``: switch this chat to memory-off mode and back (MEM-8, DEEP-4).

In a memory-off chat the persona's replies neither read nor save any memory (a clean slate every
time, e.g. a challenge chat); the deep memory pass and the archive leave it alone. Switching back
on brings every memory back, as nothing was removed. The mode belongs to this chat (a forum topic
has its own). Anyone may see it; in groups only admins change it.
"""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from adapters.telegram.access import is_admin
from adapters.telegram.conversation import target_of
from adapters.telegram.delivery import send_text
from adapters.telegram.normalize import chat_of
from engine.service import ChatService

__all__ = ["NOT_ADMIN", "create_router", "on_memory"]

NOT_ADMIN = "Only group admins can switch memory on or off here."
SAYS = {
    "on": "Memory is on in this chat: I read and save memories as usual.",
    "off": (
        "Memory is off in this chat: I neither read nor save memories here, so every "
        "conversation starts from the same clean slate. /memory on brings them back."
    ),
}


async def on_memory(message: Message, command: CommandObject, bot: Bot, service: ChatService) -> None:
    """Show the chat's memory mode, or switch it (admins, in groups)."""
    wanted, target, chat = (command.args or "").strip().lower(), target_of(message), chat_of(message)
    if wanted and wanted not in SAYS:
        await send_text(bot, target, "Use /memory off or /memory on.", markdown=False)
        return
    if wanted and not await is_admin(message, bot):
        await send_text(bot, target, NOT_ADMIN, markdown=False)
        return
    if wanted:
        settings = await service.set_memory(chat, "on" if wanted == "on" else "off")
    else:
        settings = await service.chats.chat_settings(chat)
    await send_text(bot, target, SAYS[settings.memory], markdown=False)


def create_router() -> Router:
    """The memory mode router."""
    router = Router(name="memory_mode")
    router.message.register(on_memory, Command("memory"))
    return router
