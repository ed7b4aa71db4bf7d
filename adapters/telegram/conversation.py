"""The steps the chat and regenerate handlers share: store a message, stream a reply, remember it."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable

import msgspec
from aiogram import Bot
from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup, Message

from adapters.telegram.access import caller_of
from adapters.telegram.context import BotContext
from adapters.telegram.delivery import Target, deliver
from adapters.telegram.normalize import GROUP_TYPES, chat_of, normalize, topic_of
from adapters.telegram.pictures import pictures_of
from engine.service import ChatService, ReplyEvent

__all__ = [
    "Regenerate",
    "Swipe",
    "answer",
    "regenerate_keyboard",
    "swipe_keyboard",
    "take_message",
    "target_of",
]

log = logging.getLogger("hearth.telegram")


class Regenerate(CallbackData, prefix="regen"):
    """The ↻ button under a reply: regenerate that turn."""

    turn: str


class Swipe(CallbackData, prefix="swipe"):
    """‹ / › under a reply: show another version of it (regenerate keeps the old ones)."""

    turn: str


def regenerate_keyboard(turn: str) -> InlineKeyboardMarkup:
    """The ↻ button for a finished turn."""
    button = InlineKeyboardButton(text="↻", callback_data=Regenerate(turn=turn).pack())
    return InlineKeyboardMarkup(inline_keyboard=[[button]])


def swipe_keyboard(turns: tuple[str, ...], index: int) -> Callable[[str], InlineKeyboardMarkup]:
    """‹ n/m › and ↻ for a reply that has other versions (``turns``, this one at ``index``)."""

    def build(turn: str) -> InlineKeyboardMarkup:
        row = []
        if index > 0:
            row.append(InlineKeyboardButton(text="‹", callback_data=Swipe(turn=turns[index - 1]).pack()))
        if len(turns) > 1:
            row.append(InlineKeyboardButton(text=f"{index + 1}/{len(turns)}", callback_data="noop"))
        if index < len(turns) - 1:
            row.append(InlineKeyboardButton(text="›", callback_data=Swipe(turn=turns[index + 1]).pack()))
        row.append(InlineKeyboardButton(text="↻", callback_data=Regenerate(turn=turn).pack()))
        return InlineKeyboardMarkup(inline_keyboard=[row])

    return build


def target_of(message: Message, *, quote: bool = True) -> Target:
    """Where to answer ``message``: its chat and topic, quoting it in groups."""
    group = message.chat.type in GROUP_TYPES
    return Target(
        chat_id=message.chat.id,
        thread_id=topic_of(message),
        reply_to=message.message_id if (quote and group) else None,
        group=group,
    )


async def take_message(message: Message, bot: Bot, service: ChatService, ctx: BotContext) -> None:
    """Store a message the bot received; answer it in the background when it is addressed.

    Raises:
        InvalidInput: the text cannot be accepted (``text_too_long``...); nothing is stored.
    """
    chat = chat_of(message)
    persona = await service.persona(ctx.persona)
    replied = message.reply_to_message
    reply_to = await ctx.store.stored_id(chat, replied.message_id) if replied else None
    pictures = await pictures_of(message, bot) if message.photo or message.document else ()
    found = normalize(message, await bot.me(), persona.name, reply_to=reply_to, pictures=pictures)
    if found is None:
        log.debug("skipped a message with nothing to read in %s", chat)
        return
    incoming = found.message
    if (caller := caller_of(message)) is not None:  # a person linked to a web account speaks as it
        incoming = msgspec.structs.replace(incoming, user=await ctx.person(caller))
    accepted = await service.accept(incoming, ctx.persona, reply=found.addressed)
    await ctx.store.remember_messages(chat, {message.message_id: accepted.message.id})
    if found.addressed:
        ctx.replies.spawn(answer(bot, service, ctx, chat, target_of(message), accepted.events))
    else:
        async for _ in accepted.events:  # nothing to answer; closes the (empty) stream
            pass


async def answer(
    bot: Bot,
    service: ChatService,
    ctx: BotContext,
    chat: str,
    target: Target,
    events: AsyncIterator[ReplyEvent],
    *,
    parts: tuple[int, ...] = (),
    keyboard: Callable[[str], InlineKeyboardMarkup] = regenerate_keyboard,
) -> None:
    """Stream a reply into the chat and remember which messages show it."""
    delivered = await deliver(bot, target, events, ctx.policy, keyboard=keyboard, parts=parts)
    if delivered.turn is None:
        return
    await ctx.store.remember_parts(chat, delivered.turn, delivered.parts)
    turn, _ = await service.turn(chat, delivered.turn)
    if turn.reply_message is not None:
        await ctx.store.remember_messages(chat, dict.fromkeys(delivered.parts, turn.reply_message))
