"""``/persona``: choose who talks in this chat.

``/persona`` lists the deployment's shared personas as buttons (the current one marked ✓);
``/persona <id>`` or a button press chooses one for the whole chat (every topic). In a group
only its admins may choose; anyone may look. Personas private to a web account are never
offered here. The choice is kept in Redis (``TelegramStore.set_chat_persona``) and applied to
every update of that chat by the ``ChatPersona`` middleware.
"""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message

from adapters.telegram.access import is_admin, may_change_space
from adapters.telegram.context import BotContext
from adapters.telegram.conversation import target_of
from adapters.telegram.delivery import send_text
from engine.model import Persona
from engine.ports import PersonaOwners
from engine.service import ChatService

__all__ = ["PersonaPick", "create_router", "on_command", "on_pick"]

ADMINS_ONLY = "Only the group's admins can choose who talks here."


class PersonaPick(CallbackData, prefix="persona"):
    """A persona button of ``/persona``."""

    persona: str


async def _shared(service: ChatService, owners: PersonaOwners) -> list[Persona]:
    private = await owners.owners()
    return [p for p in await service.personas.all() if p.id not in private]


def _keyboard(personas: list[Persona], current: str) -> InlineKeyboardMarkup:
    rows = [
        [
            InlineKeyboardButton(
                text=("✓ " if p.id == current else "") + p.name,
                callback_data=PersonaPick(persona=p.id).pack(),
            )
        ]
        for p in personas
        if len(PersonaPick(persona=p.id).pack()) <= 64
    ]
    return InlineKeyboardMarkup(inline_keyboard=rows)


async def _choose(
    service: ChatService, ctx: BotContext, owners: PersonaOwners, chat_id: int, wanted: str
) -> str:
    """Choose a persona for the chat; returns what to say."""
    personas = {p.id: p for p in await _shared(service, owners)}
    found = personas.get(wanted) or next(
        (p for p in personas.values() if p.name.casefold() == wanted.casefold()), None
    )
    if found is None:
        return f"There is no persona {wanted!r} here. Send /persona to see who can talk."
    await ctx.store.set_chat_persona(chat_id, found.id)
    return f"{found.name} talks here now."


async def on_command(
    message: Message,
    bot: Bot,
    service: ChatService,
    ctx: BotContext,
    persona_owners: PersonaOwners,
    command: CommandObject,
) -> None:
    """List the personas, or choose one with ``/persona <id>``."""
    target = target_of(message)
    wanted = (command.args or "").strip()
    if wanted:
        if not await is_admin(message, bot):
            await send_text(bot, target, ADMINS_ONLY, markdown=False)
            return
        await send_text(
            bot, target, await _choose(service, ctx, persona_owners, message.chat.id, wanted), markdown=False
        )
        return
    personas = await _shared(service, persona_owners)
    current = await service.persona(ctx.persona)
    text = f"{current.name} talks here now. Choose who should talk in this chat:"
    await bot.send_message(
        chat_id=target.chat_id,
        message_thread_id=target.thread_id,
        text=text,
        reply_markup=_keyboard(personas, current.id),
    )


async def on_pick(
    query: CallbackQuery,
    callback_data: PersonaPick,
    bot: Bot,
    service: ChatService,
    ctx: BotContext,
    persona_owners: PersonaOwners,
) -> None:
    """A persona button: choose it (group admins only), then redraw the buttons."""
    message = query.message
    if not isinstance(message, Message):
        await query.answer("This list is too old; send /persona again.")
        return
    if not await may_change_space(bot, message.chat.id, query.from_user.id):
        await query.answer(ADMINS_ONLY, show_alert=True)
        return
    said = await _choose(service, ctx, persona_owners, message.chat.id, callback_data.persona)
    personas = await _shared(service, persona_owners)
    chosen = await ctx.store.chat_persona(message.chat.id) or ctx.persona
    await bot.edit_message_text(
        chat_id=message.chat.id,
        message_id=message.message_id,
        text=f"{said} Choose who should talk in this chat:",
        reply_markup=_keyboard(personas, chosen),
    )
    await query.answer(said)


def create_router() -> Router:
    """The persona router."""
    router = Router(name="persona")
    router.message.register(on_command, Command("persona"))
    router.callback_query.register(on_pick, PersonaPick.filter())
    return router
