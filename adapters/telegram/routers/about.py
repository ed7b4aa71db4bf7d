"""``/about [text | clear]``: what the persona knows about you, in every chat (your persona's
description, SillyTavern's "user persona"). Telegram calls you by your Telegram name; the text
goes into every prompt of your turns right after the character's card, as the browser's
"About you" does. ``/about`` alone shows it, ``/about clear`` forgets it.
"""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from adapters.telegram.conversation import target_of
from adapters.telegram.delivery import send_text
from adapters.telegram.ids import user_key
from engine.errors import InvalidInput
from engine.ports import UserPersonaStore
from engine.user_persona import USER_DESCRIPTION_MAX_CHARS, UserPersona, check_user_description

__all__ = ["EMPTY", "create_router", "on_about"]

EMPTY = (
    "You have not told me about yourself yet. Send /about and a few lines about you "
    f"(up to {USER_DESCRIPTION_MAX_CHARS:,} characters); I keep them in mind in every chat."
)


async def on_about(
    message: Message, command: CommandObject, bot: Bot, user_personas: UserPersonaStore | None = None
) -> None:
    """Show, set or forget the sender's description of themselves."""
    target = target_of(message)
    if message.from_user is None or user_personas is None:
        await send_text(bot, target, "I cannot keep a description of you here.", markdown=False)
        return
    user, wanted = user_key(message.from_user.id), (command.args or "").strip()
    if not wanted:
        found = await user_personas.get(user)
        said = f"What I know about you:\n{found.description}" if found and found.description else EMPTY
    elif wanted.lower() == "clear":
        await user_personas.delete(user)
        said = "Forgotten: I no longer keep a description of you."
    else:
        try:
            description = check_user_description(wanted)
        except InvalidInput as exc:
            said = exc.message
        else:
            await user_personas.put(user, UserPersona(name="", description=description))
            said = "Noted. I keep this in mind about you in every chat; /about clear forgets it."
    await send_text(bot, target, said, markdown=False)


def create_router() -> Router:
    """The /about router."""
    router = Router(name="about")
    router.message.register(on_about, Command("about"))
    return router
