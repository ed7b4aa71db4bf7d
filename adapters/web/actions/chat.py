"""What the chat endpoints do, for the operator (``/api``) and the browser (``/app``, WebSocket).

Each function takes the ``web`` state and an already authorized chat id: the operator names any
chat (its ids qualified by the route), a browser only its own (``owned_chat``, the socket's
session check). Authentication and ownership stay in the routes; the service acts (PLT-4, PLT-5).
"""

from __future__ import annotations

import binascii
from collections.abc import AsyncIterator, Sequence
from datetime import datetime
from typing import Literal

import msgspec

from adapters.web.actions.messages import controls_of
from adapters.web.schemas.chat import (
    CastBody,
    CastReply,
    CastView,
    ChatReply,
    ChatSettingsBody,
    ChatSettingsView,
    ImageIn,
    InspectedLore,
    InspectedMemory,
    Inspection,
    MessageList,
    TurnView,
)
from adapters.web.schemas.frames import BrowserDone
from adapters.web.schemas.memory import DeepMemory
from adapters.web.session import BrowserSession
from adapters.web.state import WebState
from engine.cast import Cast, Strategy
from engine.errors import InvalidInput
from engine.images import MAX_IMAGE_BYTES, MAX_IMAGES, Image, check_images
from engine.memory import global_list, global_personal_list, personal_list, space_list
from engine.memory.mode import DEEP_ACTIVE_NOTE
from engine.model import ChatSettings, IncomingMessage, Persona, Turn
from engine.requestlog import Context, LoreLog, RequestLog, WindowLog
from engine.service import Accepted, ReplyDone, ReplyEvent, ReplyFailed, ReplySilent
from engine.turn import memory_space
from engine.validate import check_sent_at

__all__ = [
    "EMPTY_CONTEXT",
    "Author",
    "answer_last",
    "browser_done",
    "cast_reply",
    "cast_view",
    "chat_settings",
    "decode_images",
    "deep_memory",
    "final_event",
    "history",
    "incoming",
    "inspection",
    "put_cast",
    "put_chat_settings",
    "regenerate",
    "say",
    "speak_next",
    "stored_only",
    "turn_log",
    "turn_view",
]

EMPTY_CONTEXT = Context(
    lore=(), memories=(), window=WindowLog(messages=0, tokens=0, budget=0, dropped=0), tokens={}
)


class Author(msgspec.Struct, frozen=True, kw_only=True):
    """Who says a message: the operator names them, a browser is its session."""

    user: str
    name: str
    guest: bool = False


def decode_images(images: Sequence[ImageIn]) -> tuple[Image, ...]:
    """The pictures of a web or API message, checked (``engine.images.check_images``).

    Counted and measured before anything is decoded, so a fifth picture or a huge one costs
    no decoding.

    Raises:
        InvalidInput: ``too_many_images``, ``image_too_large``, ``image_type``, or
            ``image_invalid`` (``data`` is not base64).
    """
    if len(images) > MAX_IMAGES:
        check_images([(None, b"")] * len(images))  # raises too_many_images
    decoded: list[tuple[str | None, bytes]] = []
    for number, image in enumerate(images, start=1):
        if len(image.data) > (MAX_IMAGE_BYTES + 2) // 3 * 4 + 4:  # more than the limit, encoded
            size = len(image.data) * 3 // 4
            check_images([(None, b"")] * (number - 1) + [(None, bytes(size))])  # raises image_too_large
        try:
            data = binascii.a2b_base64(image.data, strict_mode=True)
        except binascii.Error:
            raise InvalidInput(f"Image {number}'s data is not base64.", code="image_invalid") from None
        decoded.append((image.media_type, data))
    return check_images(decoded)


def incoming(
    chat: str,
    user: str,
    name: str,
    text: str,
    sent_at: datetime,
    *,
    guest: bool = False,
    images: tuple[Image, ...] = (),
    greeting: int = 0,
    addressed: str | None = None,
) -> IncomingMessage:
    """Normalize a web or API message (PLT-5); ``addressed``: the cast member asked to answer."""
    platform: Literal["web", "telegram"] = "telegram" if chat.startswith("tg:") else "web"
    space = chat.split("/topic/")[0]
    return IncomingMessage(
        platform=platform,
        space=space,
        chat=chat,
        user=user,
        display_name=name,
        text=text,
        sent_at=sent_at,
        guest=guest,
        images=images,
        greeting=greeting,
        addressed=addressed,
    )


async def say(
    web: WebState,
    chat: str,
    author: Author,
    text: str,
    persona: str,
    *,
    sent_at: datetime | None = None,
    reply: bool = True,
    images: Sequence[ImageIn] = (),
    greeting: int = 0,
    addressed: str | None = None,
) -> Accepted:
    """Store a message (sent now, or at ``sent_at`` within PLT-6's bounds) with its pictures, and
    start its reply; a new chat opens with the persona's greeting number ``greeting``; in a chat
    with a cast, ``addressed`` is the member asked to answer (CAST-4)."""
    now = web.clock.now()
    at = now if sent_at is None else check_sent_at(sent_at, now)
    pictures = decode_images(images)
    message = incoming(
        chat,
        author.user,
        author.name,
        text,
        at,
        guest=author.guest,
        images=pictures,
        greeting=greeting,
        addressed=addressed,
    )
    return await web.service.accept(message, persona, reply=reply)


async def stored_only(accepted: Accepted) -> ChatReply:
    """The answer to a message stored without a reply (the events only finish the turn)."""
    async for _ in accepted.events:
        pass
    return ChatReply(turn=None, reply=None, context=EMPTY_CONTEXT, message=accepted.message.id)


async def regenerate(
    web: WebState, chat: str, turn: str, *, keep_alternatives: bool = False
) -> AsyncIterator[ReplyEvent]:
    """Answer the latest turn's message again (MEM-7); the browser keeps the old reply as a swipe."""
    if keep_alternatives and web.controls is not None:
        return await web.controls.regenerate(chat, turn)
    return await web.service.regenerate(chat, turn)


async def answer_last(web: WebState, chat: str) -> AsyncIterator[ReplyEvent]:
    """Answer the chat's last message, a person's message left without a reply (a failed turn, or
    a process that died mid-reply): 409 ``nothing_to_answer`` when it has one."""
    controls, _ = controls_of(web)
    return await controls.answer_last(chat)


async def speak_next(web: WebState, chat: str, persona: str) -> AsyncIterator[ReplyEvent]:
    """ "Who speaks next": the cast member ``persona`` answers the chat's newest message (CAST-4)."""
    return await web.service.speak_next(chat, persona)


async def cast_reply(events: AsyncIterator[ReplyEvent]) -> ChatReply | ReplyFailed | None:
    """Drain a chat-with-a-cast's events into its answer: every member's reply in order (the
    first as ``reply``), nobody's (``silent``), or the failure when no reply came."""
    done: list[ReplyDone] = []
    failed: ReplyFailed | None = None
    silent = False
    async for event in events:
        if isinstance(event, ReplyDone):
            done.append(event)
        elif isinstance(event, ReplyFailed):
            failed = event
        elif isinstance(event, ReplySilent):
            silent = True
    if silent:
        return ChatReply(turn=None, reply=None, context=EMPTY_CONTEXT, replies=[])
    if not done:
        return failed
    first = done[0]
    replies = [
        CastReply(turn=d.turn, persona=str(d.persona), persona_name=str(d.persona_name), reply=d.reply)
        for d in done
    ]
    return ChatReply(
        turn=first.turn,
        reply=first.reply,
        context=first.context,
        notices=tuple(n for d in done for n in d.notices),
        persona=first.persona,
        persona_name=first.persona_name,
        replies=replies if isinstance(first.persona, str) else msgspec.UNSET,
    )


def _cast_view(chat: str, cast: Cast | None) -> CastView:
    if cast is None:
        return CastView(chat=chat, personas=[], strategy="natural", max_replies=1, muted=[])
    return CastView(
        chat=chat,
        personas=list(cast.personas),
        strategy=cast.strategy,
        max_replies=cast.max_replies,
        muted=list(cast.muted),
    )


async def cast_view(web: WebState, chat: str) -> CastView:
    """A chat's cast (CAST-1); ``personas`` empty: no cast."""
    return _cast_view(chat, await web.service.cast_of(chat))


async def put_cast(web: WebState, chat: str, body: CastBody) -> CastView:
    """Set a chat's cast (checked by ``engine.cast.check_cast``: 422 naming the problem)."""
    strategy: Strategy = body.strategy  # type: ignore[assignment]  # check_cast refuses others
    cast = Cast(
        personas=tuple(body.personas),
        strategy=strategy,
        max_replies=body.max_replies,
        muted=tuple(body.muted),
    )
    return _cast_view(chat, await web.service.set_cast(chat, cast))


async def final_event(events: AsyncIterator[ReplyEvent]) -> ReplyDone | ReplyFailed | None:
    """Drain a turn's events; the last ``done`` or ``error`` (None: nothing was produced)."""
    final: ReplyDone | ReplyFailed | None = None
    async for event in events:
        if isinstance(event, ReplyDone | ReplyFailed):
            final = event
    return final


async def turn_log(web: WebState, chat: str, turn: str) -> tuple[Turn, RequestLog]:
    """A turn and its request log (PRM-3)."""
    return await web.service.turn(chat, turn)


async def turn_view(web: WebState, chat: str, turn: str) -> TurnView:
    """The operator's view of a turn."""
    found, log = await turn_log(web, chat, turn)
    return TurnView(turn=found.id, status=found.status, request=log)


async def history(web: WebState, chat: str, limit: int) -> MessageList:
    """The chat's newest ``limit`` messages, oldest first."""
    return MessageList(messages=await web.service.chats.history(chat, limit))


async def browser_done(web: WebState, chat: str, done: ReplyDone, message: str | None) -> BrowserDone:
    """``done`` with the ids the page's message controls need: the reply's message, the sent
    message (``message``, when one was sent) and the reply's alternatives."""
    found = await web.service.chats.get(chat, done.turn)
    swipes = None
    if web.controls is not None and found is not None:
        swipes = await web.controls.swipes_of(chat, found[0])
    reply_message = found[0].reply_message if found else None
    return BrowserDone.of(done, reply_message, message, swipes)


async def _lore_view(web: WebState, lore: tuple[LoreLog, ...]) -> list[InspectedLore]:
    books = {b: await web.lore.get(b) for b in dict.fromkeys(d.book for d in lore)}
    rows = []
    for d in lore:
        book = books.get(d.book)
        entry = next((e for e in book.entries if e.id == d.entry), None) if book else None
        display = (
            d.name or (entry.comment if entry else "") or (entry.keys[0] if entry and entry.keys else "")
        )
        rows.append(
            InspectedLore(
                book=d.book,
                book_name=book.name if book else d.book,
                entry=d.entry,
                name=display or f"entry {d.entry}",
                included=d.included,
                reason=d.reason,
            )
        )
    return rows


async def _memory_texts(web: WebState, visitor: BrowserSession, log: RequestLog) -> dict[str, str]:
    desk = web.service.memory
    if desk is None or visitor.guest or not log.memories:
        return {}
    space = memory_space(log.chat)
    lists = [
        space_list(log.persona, space),
        personal_list(log.persona, visitor.user, space),
        global_personal_list(log.persona, visitor.user),
        global_list(visitor.user),
    ]
    return {r.id: r.text for r in await desk.list(lists)}


async def inspection(web: WebState, reader: BrowserSession, chat: str, turn: str) -> Inspection:
    """What went into one reply and why, with names filled in and the reader's own memories'
    texts (PRM-3, LORE-12)."""
    found, log = await turn_log(web, chat, turn)
    texts = await _memory_texts(web, reader, log)
    return Inspection(
        turn=found.id,
        status=found.status,
        created_at=log.created_at,
        provider=log.provider,
        model=log.model,
        duration_ms=log.duration_ms,
        attempts=log.attempts,
        error=log.error,
        slots=log.slots,
        stable_count=log.stable_count,
        window=log.window,
        lore=await _lore_view(web, log.lore),
        memories=[InspectedMemory.of(m, texts.get(m.id)) for m in log.memories],
        memory_writes=log.memory_writes,
        refused_writes=log.refused_writes,
        recall=log.recall,
        summaries=log.summaries,
        documents=log.documents,
        usage=log.usage,
        settings=log.settings,
    )


async def chat_settings(web: WebState, chat: str) -> ChatSettingsView:
    """A chat's settings (a chat never switched, or not started yet, has memory on)."""
    found = await web.service.chats.chat_settings(chat)
    return ChatSettingsView(chat=chat, memory=found.memory)


async def put_chat_settings(web: WebState, chat: str, body: ChatSettingsBody) -> ChatSettingsView:
    """Switch a chat's memory mode (MEM-8); a chat not started yet starts in that mode.

    Nothing in the memory lists changes: switching back on brings every memory back.
    """
    settings = await web.service.set_memory(chat, body.memory)
    return ChatSettingsView(chat=chat, memory=settings.memory)


def deep_memory(web: WebState, chat: str, persona: Persona, settings: ChatSettings) -> DeepMemory:
    """The memory panel's deep-memory badge: active exactly when the pass applies to ``chat``
    (the persona's switches, the chat's platform, not memory-off, an LLM; DEEP-3, DEEP-4)."""
    desk = web.service.summaries
    deep = desk.deep if desk is not None else None
    if deep is None:
        return DeepMemory(active=False, note="deep memory is not part of this deployment")
    reason = deep.skip_reason(chat, persona, settings)
    if reason:
        return DeepMemory(active=False, note=reason)
    return DeepMemory(active=True, note=DEEP_ACTIVE_NOTE.format(edits=deep.policy.max_edits))
