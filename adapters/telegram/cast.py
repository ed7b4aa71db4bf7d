"""A Telegram group served by several bots, one per persona (CAST-1..CAST-6, PLT-2).

With ``TELEGRAM_BOT_TOKENS`` each bot speaks as one persona. Telegram gives every bot in a group
its own copy of a person's message, and bots never see each other's messages, so the engine
keeps the one shared conversation:

1. **Once.** Every copy is claimed in Redis (``TelegramStore.claim_message``, SET NX) under the
   chat and ``message_key``; the first bot to claim it processes it, the others drop theirs
   (``GroupOnce``, before any handler, so commands are handled once too). A command addressed
   to one bot (``/cmd@bram_bot``) is left to that bot.
2. **Members.** The group's members are the bound bots that are in it: asked with
   ``getChatMember`` when first seen and then once an hour, plus every bot that receives a
   message there. They are stored as the chat's cast (``ChatService.set_cast``), so every
   persona's prompt shows the others' replies by name, and the stored cast follows the
   membership; a cast set through REST is kept, and only its members whose bots are in the
   group answer there.
3. **One decision.** ``engine.cast.speakers`` picks who answers first: ``/as <name>``, then an
   ``@mention`` of a bot, is the person's own choice; otherwise a member the text names (the
   cast's strategy), then the member whose message it replies to, otherwise the strategy's
   choice (natural: one drawn). The
   message is stored once with that persona as ``addressed``, so the engine's turn answers with
   it, and that persona's bot streams the reply. Further replies the cast allows (``max_replies``)
   are each sent whole by their own persona's bot (a member without a bot there: by the bot
   that received the message, headed with its name).
4. **Privacy mode.** A bot with Telegram's group privacy on (and not an admin) sees only
   commands, mentions of it and replies to it. Such a bot still answers what it sees (the
   mentioned persona answers) and says so once in the group; the log says it too.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from hashlib import blake2b
from typing import Any

import msgspec
from aiogram import BaseMiddleware, Bot
from aiogram.exceptions import TelegramAPIError, TelegramForbiddenError
from aiogram.types import Message, TelegramObject

from adapters.telegram.context import BotContext, PersonaBots
from adapters.telegram.conversation import answer, read_message, target_of
from adapters.telegram.delivery import Target, send_text
from adapters.telegram.normalize import GROUP_TYPES, chat_of
from engine.cast import Cast, named_in, seed_of, speakers
from engine.service import ChatService, ReplyDone, ReplyEvent, ReplyFailed, ReplySilent

__all__ = [
    "PRIVACY_NOTICE",
    "GroupOnce",
    "chat_cast",
    "group_members",
    "mentioned_bot",
    "message_key",
    "persona_names",
    "replied_bot",
    "take_group_message",
    "voice_of",
]

log = logging.getLogger("hearth.telegram")

MEMBER = frozenset({"creator", "administrator", "member", "restricted"})
ADMIN = frozenset({"creator", "administrator"})
_COMMAND = re.compile(r"/[A-Za-z0-9_]{1,64}(?:@([A-Za-z0-9_]+))?(?:\s|$)")
RECENT = 12
"""How many of the chat's latest messages say who spoke last (CAST-6)."""

PRIVACY_NOTICE = (
    "ℹ️ I ({name}) only see messages here that mention me (@{username}) or reply to me, so I answer "
    "only those. For the whole cast to follow the conversation, make each of our bots an admin "
    "here, or turn privacy off in @BotFather (/setprivacy → Disable) and add the bot again."
)


def message_key(message: Message) -> str:
    """What names one person's message in every bot's copy of it.

    A supergroup numbers its messages once for everybody, so the ``message_id`` names it. A basic
    group numbers them per account, so there the key is the sender, the second it was sent and a
    digest of its text and media: two identical messages from one person within one second
    count as one.
    """
    if message.chat.type == "supergroup":
        return f"m{message.message_id}"
    sender = message.sender_chat or message.from_user
    media = [p.file_unique_id for p in message.photo or ()]
    for item in (message.document, message.sticker, message.voice, message.video, message.animation):
        if item is not None:
            media.append(item.file_unique_id)
    body = "\x00".join([message.text or message.caption or "", *media])
    digest = blake2b(body.encode(), digest_size=8).hexdigest()
    return f"b{sender.id if sender else 0}:{int(message.date.timestamp())}:{digest}"


def _command_for(message: Message) -> str | None:
    """The bot username a command names (``/cmd@name``), lower case; None otherwise."""
    found = _COMMAND.match(message.text or message.caption or "")
    if found is None or not found.group(1):
        return None
    return found.group(1).lower()


class GroupOnce(BaseMiddleware):
    """Let one bound bot process a group message that several of them received (step 1)."""

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        ctx, bot = data.get("ctx"), data.get("bot")
        if not (
            isinstance(event, Message)
            and isinstance(ctx, BotContext)
            and isinstance(bot, Bot)
            and ctx.bots is not None
            and event.chat.type in GROUP_TYPES
            and (persona := ctx.bots.persona_of(bot.id)) is not None
        ):
            return await handler(event, data)
        named = _command_for(event)
        if named is not None:  # a command for one bot: that bot alone takes it
            mine = named == ((await bot.me()).username or "").lower()
            return await handler(event, data) if mine else None
        if not await ctx.store.claim_message(event.chat.id, message_key(event)):
            await ctx.store.add_cast_bots(event.chat.id, {persona})
            log.debug("a message in %s was already taken by another bot of the cast", event.chat.id)
            return None
        return await handler(event, data)


def voice_of(bot: Bot, ctx: BotContext, persona: str) -> tuple[Bot, BotContext]:
    """The bot and context that speak as ``persona``: its bound bot, else ``bot`` as it is."""
    if ctx.bots is None or persona not in ctx.bots.personas:
        return bot, ctx
    return ctx.bots.bot(persona), ctx.speaking(persona)


async def _is_member(bot: Bot, chat_id: int) -> bool:
    try:
        member = await bot.get_chat_member(chat_id=chat_id, user_id=bot.id)
    except TelegramAPIError:
        return False
    return member.status in MEMBER


async def group_members(ctx: BotContext, bots: PersonaBots, chat_id: int, receiver: str) -> list[str]:
    """The bound personas whose bots are in the group, in ``TELEGRAM_BOT_TOKENS`` order (step 2)."""
    present = {receiver}
    if await ctx.store.cast_check_due(chat_id):
        found = await asyncio.gather(*(_is_member(b, chat_id) for b in bots.bots))
        present |= {p for p, member in zip(bots.personas, found, strict=True) if member}
        for persona in set(bots.personas) - present:
            await ctx.store.drop_cast_bot(chat_id, persona)
    await ctx.store.add_cast_bots(chat_id, present)
    known = await ctx.store.cast_bots(chat_id)
    return [p for p in bots.personas if p in known]


async def mentioned_bot(message: Message, bots: PersonaBots, members: list[str]) -> str | None:
    """The member whose bot a message mentions first (``@username`` or a text mention), if any."""
    text = message.text or message.caption or ""
    handles = {((await bots.bot(p).me()).username or "").lower(): p for p in members}
    for entity in message.entities or message.caption_entities or ():
        if entity.type == "text_mention" and entity.user is not None:
            found = bots.persona_of(entity.user.id)
        elif entity.type == "mention":
            found = handles.get(entity.extract_from(text).lstrip("@").lower())
        else:
            continue
        if found in members:
            return found
    return None


def replied_bot(message: Message, bots: PersonaBots, members: list[str]) -> str | None:
    """The member whose bot wrote the message this one replies to, if any."""
    replied = message.reply_to_message
    if replied is None or replied.from_user is None:
        return None
    found = bots.persona_of(replied.from_user.id)
    return found if found in members else None


async def persona_names(service: ChatService, members: list[str]) -> dict[str, list[str]]:
    """Each member's names that address it in text: its name, its first name when it has
    several, and its aliases."""
    names: dict[str, list[str]] = {}
    for persona_id in members:
        persona = await service.persona(persona_id)
        name, words = persona.name.strip(), persona.name.split()
        first = [words[0]] if len(words) > 1 and len(words[0]) >= 3 else []
        names[persona_id] = [name, *first, *persona.aliases]
    return names


async def chat_cast(service: ChatService, ctx: BotContext, chat: str, members: list[str]) -> Cast:
    """The cast that decides in a group chat (step 2).

    Without a cast set through REST, the group's bots: stored as the chat's cast (and remembered
    as this adapter's, ``TelegramStore.auto_cast``) whenever the membership changes. With one,
    its members whose bots are in the group (all of the group's bots when none is).
    """
    mine = Cast(personas=tuple(members))
    stored = await service.cast_of(chat)
    if stored is None or stored == await ctx.store.auto_cast(chat):
        if stored != mine:
            await service.set_cast(chat, mine)
            await ctx.store.set_auto_cast(chat, mine)
        return mine
    present = tuple(p for p in stored.personas if p in members)
    if not present:
        return mine
    return msgspec.structs.replace(
        stored,
        personas=present,
        muted=tuple(p for p in stored.muted if p in present),
        max_replies=min(stored.max_replies, len(present)),
    )


async def _privacy_notice(message: Message, bot: Bot, ctx: BotContext, name: str) -> None:
    """Say once in the group, and in the log, that this bot only sees mentions there (step 4)."""
    me = await bot.me()
    chat_id = message.chat.id
    if me.can_read_all_group_messages or await ctx.store.privacy_noticed(bot.id, chat_id):
        return
    try:
        member = await bot.get_chat_member(chat_id=chat_id, user_id=bot.id)
    except TelegramAPIError:
        return
    if member.status in ADMIN or not await ctx.store.notice_privacy_once(bot.id, chat_id):
        return
    log.warning(
        "@%s has group privacy on in chat %s and is not an admin there: it sees only commands, "
        "mentions of it and replies to it, and answers those as %s",
        me.username,
        chat_id,
        name,
    )
    notice = PRIVACY_NOTICE.format(name=name, username=me.username)
    await send_text(bot, target_of(message, quote=False), notice, markdown=False)


async def take_group_message(
    message: Message,
    bot: Bot,
    service: ChatService,
    ctx: BotContext,
    *,
    requested: str | None = None,
    text: str | None = None,
) -> None:
    """Store a group message once and have the chosen member's bot answer it (steps 2-4).

    Args:
        message: the message this bot claimed (``GroupOnce``).
        bot: the bot that received it.
        service: the chat service.
        ctx: the receiving bot's context (``ctx.bots`` set).
        requested: the member ``/as`` asked for.
        text: the text to store instead of the message's own (``/as``: what follows the name).

    Raises:
        InvalidInput: the text cannot be accepted; nothing is stored.
    """
    bots = ctx.bots
    if bots is None:
        raise RuntimeError("take_group_message needs persona-bound bots")
    chat = chat_of(message)
    receiver = ctx.persona
    members = await group_members(ctx, bots, message.chat.id, receiver)
    receiver_name = (await service.persona(receiver)).name
    await _privacy_notice(message, bot, ctx, receiver_name)
    found = await read_message(message, bot, ctx, receiver_name)
    if found is None:
        return
    incoming = found.message
    if text is not None:
        incoming = msgspec.structs.replace(incoming, text=text)
    cast = await chat_cast(service, ctx, chat, members)
    names = await persona_names(service, list(cast.personas))
    requested = requested or await mentioned_bot(message, bots, members)
    if requested is None and not named_in(incoming.text, names, cast.personas):
        requested = replied_bot(message, bots, members)  # a name in the text goes before a reply
    recent = [m.persona for m in await service.chats.history(chat, RECENT) if m.role == "assistant"]
    talkative = {p: (await service.persona(p)).talkativeness for p in cast.personas}
    chosen = speakers(
        cast,
        text=incoming.text,
        names=names,
        recent_speakers=recent,
        talkativeness=talkative,
        requested=requested,
        seed=seed_of(chat, message_key(message)),
    )
    speaker = chosen[0] if chosen else None
    if message.from_user is not None and message.from_user.is_bot:
        speaker = None  # another bot's message is context, never answered
    mention = incoming.is_mention or requested is not None
    incoming = msgspec.structs.replace(incoming, is_mention=mention, addressed=speaker)
    accepted = await service.accept(incoming, speaker or receiver, reply=speaker is not None)
    await ctx.store.remember_messages(chat, {message.message_id: accepted.message.id})
    if speaker is None:
        async for _ in accepted.events:  # nobody answers; closes the (empty) stream
            pass
        return
    log.info("group %s: %s answers (%s)", message.chat.id, speaker, "asked" if requested else "cast rule")
    ctx.replies.spawn(_answer_all(message, bot, service, ctx, speaker, members, accepted.events))


def _target(message: Message, bot: Bot, voice: Bot) -> Target:
    """Where ``voice`` answers ``message`` that ``bot`` received: quoting it, except in a basic
    group, whose message ids differ per bot, by another bot."""
    return target_of(message, quote=voice.id == bot.id or message.chat.type == "supergroup")


_END = (ReplyDone, ReplyFailed, ReplySilent)


async def _one_reply(events: AsyncIterator[ReplyEvent]) -> AsyncIterator[ReplyEvent]:
    """The events of the next reply in ``events``, up to and including the one that ends it."""
    async for event in events:
        yield event
        if isinstance(event, _END):
            return


async def _replay(events: list[ReplyEvent]) -> AsyncIterator[ReplyEvent]:
    for event in events:
        yield event


async def _answer_all(
    message: Message,
    bot: Bot,
    service: ChatService,
    ctx: BotContext,
    speaker: str,
    members: list[str],
    events: AsyncIterator[ReplyEvent],
) -> None:
    """Stream the first reply through ``speaker``'s bot; send each further one whole through its
    own persona's bot. ``events`` is always consumed to the end (the chat's lock)."""
    chat = chat_of(message)
    try:
        voice, voice_ctx = voice_of(bot, ctx, speaker)
        await _answer(voice, service, voice_ctx, chat, _target(message, bot, voice), _one_reply(events))
        while reply := [event async for event in _one_reply(events)]:
            done = next((e for e in reply if isinstance(e, ReplyDone)), None)
            persona = done.persona if done is not None and isinstance(done.persona, str) else None
            if persona is None or persona not in members:  # no bot of its own here: headed with its name
                voice, voice_ctx = bot, ctx
                if done is not None:
                    named = f"{done.persona_name or persona}: {done.reply}"
                    reply = [msgspec.structs.replace(done, reply=named) if e is done else e for e in reply]
            else:
                voice, voice_ctx = voice_of(bot, ctx, persona)
            await _answer(voice, service, voice_ctx, chat, _target(message, bot, voice), _replay(reply))
    finally:
        async for _ in events:  # what is left after a failure
            pass


async def _answer(
    voice: Bot,
    service: ChatService,
    ctx: BotContext,
    chat: str,
    target: Target,
    events: AsyncIterator[ReplyEvent],
) -> None:
    """``answer`` through the chosen bot; one that may no longer post there leaves the group's cast."""
    try:
        await answer(voice, service, ctx, chat, target, events)
    except TelegramForbiddenError:
        log.warning(
            "%s's bot may not post in chat %s any more; it leaves that group's cast",
            ctx.persona,
            target.chat_id,
        )
        await ctx.store.drop_cast_bot(target.chat_id, ctx.persona)
