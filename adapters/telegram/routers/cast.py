"""``/as <name> <message>``: the named member of the group's cast answers (CAST-4, PLT-2).

Only with persona-bound bots (``TELEGRAM_BOT_TOKENS``) in a group: the name is a member's
persona id, its name (or first name) or its bot's ``@username``; the message after it is stored
and that persona's bot answers it (``adapters.telegram.cast``). In a private chat with such a
bot the command explains where it works; with one ``TELEGRAM_BOT_TOKEN`` it is an unknown
command, as it always was.
"""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.dispatcher.event.bases import SkipHandler
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from adapters.telegram.cast import group_members, persona_names, take_group_message
from adapters.telegram.context import BotContext
from adapters.telegram.conversation import target_of
from adapters.telegram.delivery import send_text
from adapters.telegram.normalize import GROUP_TYPES
from engine.service import ChatService

__all__ = ["ELSEWHERE", "USAGE", "create_router", "on_as"]

USAGE = "Write /as <name> <message>, e.g. /as {example} what do you think?"
ELSEWHERE = "/as works in a group with several of our bots: there it picks which persona answers."


async def _member(service: ChatService, bot_ctx: BotContext, members: list[str], wanted: str) -> str | None:
    """The member ``wanted`` names: a persona id, a name, a first name or a bot's @username."""
    wanted = wanted.lstrip("@").casefold()
    names = await persona_names(service, members)
    bots = bot_ctx.bots
    for persona in members:
        handle = ((await bots.bot(persona).me()).username or "").casefold() if bots else ""
        if wanted in {persona.casefold(), handle, *(n.casefold() for n in names[persona])}:
            return persona
    return None


async def on_as(
    message: Message, bot: Bot, service: ChatService, ctx: BotContext, command: CommandObject
) -> None:
    """Store the message after the name and let that member answer it."""
    if ctx.bots is None:
        raise SkipHandler  # one unbound bot: not a command it knows
    target = target_of(message)
    if message.chat.type not in GROUP_TYPES:
        await send_text(bot, target, ELSEWHERE, markdown=False)
        return
    members = await group_members(ctx, ctx.bots, message.chat.id, ctx.persona)
    names = await persona_names(service, members)
    wanted, _, text = (command.args or "").strip().partition(" ")
    persona = await _member(service, ctx, members, wanted) if wanted else None
    if persona is None or not text.strip():
        known = ", ".join(names[p][0] for p in members)
        head = (
            f"There is no {wanted!r} in this group's cast ({known}). " if wanted and persona is None else ""
        )
        await send_text(bot, target, head + USAGE.format(example=names[members[0]][-1]), markdown=False)
        return
    await take_group_message(message, bot, service, ctx, requested=persona, text=text.strip())


def create_router() -> Router:
    """The ``/as`` router."""
    router = Router(name="cast")
    router.message.register(on_as, Command("as"))
    return router
