"""``/regenerate``, the ↻ button and ‹ / ›: write the chat's latest reply again, keeping the old one.

The new reply replaces the old one in place: the messages that showed it are edited (extra
ones deleted, missing ones sent), and only the newest reply carries working buttons. The old
replies are kept as alternatives (swipes): ‹ and › show them again, and the one shown
is what the next turn sees. MEM-7 applies per version: moving away from one undoes its memory
writes. With persona-bound bots, ``/regenerate`` is carried out by the bot of the persona who
wrote the reply (only that bot can edit its messages).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from aiogram import Bot, F, Router
from aiogram.filters import Command
from aiogram.types import CallbackQuery, Message

from adapters.telegram.cast import voice_of
from adapters.telegram.context import BotContext
from adapters.telegram.conversation import Regenerate, Swipe, answer, swipe_keyboard, target_of
from adapters.telegram.delivery import send_text
from adapters.telegram.normalize import GROUP_TYPES, chat_of
from engine.errors import Conflict, NotFound
from engine.requestlog import summarize_context
from engine.service import ChatService, ReplyDone, ReplyEvent
from engine.service.controls import MessageControls

__all__ = ["create_router", "on_button", "on_command", "on_swipe"]


async def _regenerate(
    bot: Bot,
    service: ChatService,
    controls: MessageControls | None,
    ctx: BotContext,
    chat: str,
    turn: str,
    target_message: Message,
    parts: tuple[int, ...],
) -> None:
    """Start writing ``turn`` again (raises Conflict / NotFound when it is not the latest)."""
    if controls is None:
        events = await service.regenerate(chat, turn)
        keyboard = swipe_keyboard((), 0)
    else:
        old, _ = await service.turn(chat, turn)
        before = (await controls.swipes_of(chat, old)).turns
        events = await controls.regenerate(chat, turn)
        keyboard = swipe_keyboard((*before, "new"), len(before))  # the new one is the last
    target = target_of(target_message, quote=False)
    ctx.replies.spawn(answer(bot, service, ctx, chat, target, events, parts=parts, keyboard=keyboard))


async def on_command(
    message: Message, bot: Bot, service: ChatService, ctx: BotContext, controls: MessageControls | None
) -> None:
    """Regenerate the chat's latest reply."""
    chat = chat_of(message)
    latest = await service.chats.latest(chat)
    if latest is None:
        await send_text(bot, target_of(message), "There is no reply to write again yet.", markdown=False)
        return
    parts = await ctx.store.parts(chat, latest.id)
    group = message.chat.type in GROUP_TYPES  # a private chat is this bot's own
    voice, voice_ctx = voice_of(bot, ctx, latest.persona) if group else (bot, ctx)
    await _regenerate(voice, service, controls, voice_ctx, chat, latest.id, message, parts)


async def on_button(
    query: CallbackQuery,
    callback_data: Regenerate,
    bot: Bot,
    service: ChatService,
    ctx: BotContext,
    controls: MessageControls | None,
) -> None:
    """Regenerate the reply the button sits under, if it is still the latest."""
    message = query.message
    if not isinstance(message, Message):
        await query.answer("This message is too old to change.")
        return
    chat = chat_of(message)
    parts = await ctx.store.parts(chat, callback_data.turn) or (message.message_id,)
    try:
        await _regenerate(bot, service, controls, ctx, chat, callback_data.turn, message, parts)
    except (Conflict, NotFound):
        await query.answer("Only the latest reply can be written again.")
        return
    await query.answer("Writing it again… (the old version is kept: ‹)")


async def _shown(done: ReplyDone) -> AsyncIterator[ReplyEvent]:
    yield done


async def on_swipe(
    query: CallbackQuery,
    callback_data: Swipe,
    bot: Bot,
    service: ChatService,
    ctx: BotContext,
    controls: MessageControls | None,
) -> None:
    """Show another version of the latest reply in place of the current one."""
    message = query.message
    if not isinstance(message, Message) or controls is None:
        await query.answer("This message is too old to change.")
        return
    chat = chat_of(message)
    current = await service.chats.latest(chat)
    try:
        chosen, _ = await controls.choose(chat, callback_data.turn)
    except (Conflict, NotFound):
        await query.answer("Only the latest reply has other versions to show.")
        return
    _, log = await service.turn(chat, chosen.id)
    swipes = await controls.swipes_of(chat, chosen)
    parts = (await ctx.store.parts(chat, current.id) if current else ()) or (message.message_id,)
    done = ReplyDone(turn=chosen.id, reply=chosen.reply or "", context=summarize_context(log))
    keyboard = swipe_keyboard(swipes.turns, swipes.index)
    target = target_of(message, quote=False)
    await answer(bot, service, ctx, chat, target, _shown(done), parts=parts, keyboard=keyboard)
    await query.answer(f"Version {swipes.index + 1} of {len(swipes.turns)}")


async def on_noop(query: CallbackQuery) -> None:
    """The n/m label between ‹ and ›."""
    await query.answer()


def create_router() -> Router:
    """The regenerate router."""
    router = Router(name="regenerate")
    router.message.register(on_command, Command("regenerate"))
    router.callback_query.register(on_button, Regenerate.filter())
    router.callback_query.register(on_swipe, Swipe.filter())
    router.callback_query.register(on_noop, F.data == "noop")
    return router
