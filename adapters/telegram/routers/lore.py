"""``/lore``: list the deployment's lorebooks and this chat's; attach or detach one (LORE-1).

``/lore`` lists; ``/lore attach <id>`` and ``/lore detach <id>`` change the chat's set (a forum
topic has its own set). In groups only admins may change it (checked with getChatMember).
"""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from adapters.telegram.access import is_admin
from adapters.telegram.context import BotContext
from adapters.telegram.conversation import target_of
from adapters.telegram.delivery import send_text
from adapters.telegram.normalize import chat_of
from engine.service import ChatService
from engine.service.lore import LoreDesk

__all__ = ["create_router", "listing", "on_lore"]

USAGE = "Use /lore to list lorebooks, /lore attach <id> or /lore detach <id> to change this chat's."


async def listing(chat: str, lore: LoreDesk, persona_books: tuple[str, ...]) -> str:
    """The /lore text: every book, marked when attached here or always on for the persona."""
    books, attached = await lore.all(), set(await lore.attached(chat))
    if not books:
        return "There are no lorebooks yet. An operator can import them through the REST API."
    lines = ["Lorebooks (✓ attached to this chat, ★ always on for the persona):"]
    for book in books:
        mark = "★" if book.id in persona_books else "✓" if book.id in attached else "•"
        lines.append(f"{mark} {book.name or 'untitled'} — {book.id} ({book.entries} entries)")
    return "\n".join([*lines, "", USAGE])


async def change(chat: str, lore: LoreDesk, action: str, book: str) -> str:
    """Attach or detach one book; returns what to tell the person."""
    if action == "detach":
        if not await lore.remove(chat, book):
            return f"{book} is not attached to this chat."
        return f"Detached {book}."
    if not await lore.add(chat, book):
        return f"There is no lorebook {book}. /lore lists them."
    return f"Attached {book}; its entries can now enter this chat's replies."


async def on_lore(
    message: Message,
    command: CommandObject,
    bot: Bot,
    service: ChatService,
    lore: LoreDesk,
    ctx: BotContext,
) -> None:
    """List, attach or detach lorebooks."""
    action, _, book = (command.args or "").strip().partition(" ")
    chat, target = chat_of(message), target_of(message)
    if not action:
        persona = await service.persona(ctx.persona)
        text = await listing(chat, lore, persona.lorebooks)
    elif action not in ("attach", "detach") or not book.strip():
        text = USAGE
    elif not await is_admin(message, bot):
        text = "Only group admins can change this chat's lorebooks."
    else:
        text = await change(chat, lore, action, book.strip())
    await send_text(bot, target, text, markdown=False)


def create_router() -> Router:
    """The lorebook router."""
    router = Router(name="lore")
    router.message.register(on_lore, Command("lore"))
    return router
