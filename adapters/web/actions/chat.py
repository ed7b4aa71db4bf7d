"""What the chat endpoints do, for the operator (``/api``) and the browser (``/app``, WebSocket).

Each function takes the ``web`` state and an already authorized chat id: the operator names any
chat (its ids qualified by the route), a browser only its own (``owned_chat``, the socket's
session check). Authentication and ownership stay in the routes; the service acts (PLT-4, PLT-5).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime
from typing import Literal

import msgspec

from adapters.web.schemas.chat import (
    ChatReply,
    InspectedLore,
    InspectedMemory,
    Inspection,
    MessageList,
    TurnView,
)
from adapters.web.schemas.frames import BrowserDone
from adapters.web.session import BrowserSession
from adapters.web.state import WebState
from engine.memory import global_list, global_personal_list, personal_list, space_list
from engine.model import IncomingMessage, Turn
from engine.requestlog import Context, LoreLog, RequestLog, WindowLog
from engine.service import Accepted, ReplyDone, ReplyEvent, ReplyFailed
from engine.turn import memory_space
from engine.validate import check_sent_at

__all__ = [
    "EMPTY_CONTEXT",
    "Author",
    "browser_done",
    "final_event",
    "history",
    "incoming",
    "inspection",
    "regenerate",
    "say",
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


def incoming(
    chat: str, user: str, name: str, text: str, sent_at: datetime, *, guest: bool = False
) -> IncomingMessage:
    """Normalize a web or API message (PLT-5)."""
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
) -> Accepted:
    """Store a message (sent now, or at ``sent_at`` within PLT-6's bounds) and start its reply."""
    now = web.clock.now()
    at = now if sent_at is None else check_sent_at(sent_at, now)
    message = incoming(chat, author.user, author.name, text, at, guest=author.guest)
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
    )
