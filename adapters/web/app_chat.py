"""The chat page's own endpoints: the session, rooms and the request inspector (PLT-4, PRM-3).

``GET /app/session`` tells the page who it is (guest or user), which chat it is in (room ×
persona), the CSRF token for state-changing requests, and the chat's history. The inspector
returns a turn's request log with names and texts filled in for the person reading it: the
lore entries' display names and books, and the texts of the memories that are theirs.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
from litestar import Request, Response, get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, FromQuery

from adapters.web.api import decode_body
from adapters.web.app_auth import (
    GUEST_COOKIE_AGE,
    accounts_of,
    current_session,
    owned_chat,
    require_user,
    set_session_cookie,
)
from adapters.web.app_messages import branch_chat, root_chat
from adapters.web.app_personas import persona_summaries, visible_persona
from adapters.web.session import COOKIE, MAIN_ROOM, BrowserSession, chat_for
from adapters.web.state import WebState
from engine.errors import NotFound
from engine.memory import global_list, global_personal_list, personal_list, space_list
from engine.offline import OFFLINE_LABEL
from engine.prompt import fill_macros
from engine.requestlog import LoreLog, RequestLog
from engine.turn import memory_space

__all__ = ["CHAT_ROUTES", "model_info"]

_MAIN = {"slug": MAIN_ROOM, "title": "Main room"}
_BRANCH = re.compile(r"[0-9a-f]{8}")


def model_info(state: WebState) -> dict[str, Any]:
    """Which model answers, labelled for people (RUN-2)."""
    if state.settings.offline:
        return {"name": "offline", "offline": True, "label": OFFLINE_LABEL}
    return {"name": state.settings.model, "offline": False, "label": f"Claude ({state.settings.model})"}


async def _rooms(state: WebState, session: BrowserSession) -> list[dict[str, str]]:
    if session.guest or state.accounts is None:
        return [_MAIN]
    return [
        _MAIN,
        *({"slug": r.slug, "title": r.title} for r in await state.accounts.store.rooms(session.slug)),
    ]


async def _swipes(state: WebState, chat: str) -> dict[str, list[str]]:
    return await state.chat_controls.all_swipes(chat) if state.chat_controls else {}


async def _branches(state: WebState, chat: str) -> list[dict[str, str]]:
    if state.chat_controls is None:
        return []
    return [
        {"id": b.id, "title": b.title, "chat": b.chat}
        for b in await state.chat_controls.branches(root_chat(chat))
    ]


@get("/session")
async def session_info(
    request: Request[Any, Any, Any],
    persona: FromQuery[str] = "default",
    room: FromQuery[str] = MAIN_ROOM,
    branch: FromQuery[str | None] = None,
) -> Response[Any]:
    """Who this browser is, its chat (room × persona × branch), the CSRF token and the history.

    Each persona reply carries ``swipes`` (its alternatives' turn ids) when it has more than one.
    """
    state: WebState = request.app.state.web
    cookie = request.cookies.get(COOKIE)
    session = await current_session(state, cookie)
    fresh = session is None
    session = session or state.signer.new()
    cookie = state.signer.dump(session) if fresh else cookie
    rooms = await _rooms(state, session)
    if room not in {r["slug"] for r in rooms}:
        raise NotFound(f"There is no room {room!r}.", code="room_not_found")
    service = state.service
    chosen = await visible_persona(state, session, persona)
    chat = chat_for(session, chosen.id, room)
    if branch is not None:
        if not _BRANCH.fullmatch(branch):
            raise NotFound(f"There is no branch {branch!r}.", code="branch_not_found")
        chat = branch_chat(chat, branch)
    history = await service.chats.history(chat, 200)
    swipes = await _swipes(state, chat)
    avatars = await state.persona_extras.has_avatars() if state.persona_extras else set()
    body = {
        "user": session.user,
        "guest": session.guest,
        "username": None if session.guest else session.slug,
        "chat": chat,
        "room": room,
        "rooms": rooms,
        "branch": branch,
        "branches": await _branches(state, chat),
        "csrf": state.signer.csrf(cookie or ""),
        "memory": service.memory is not None,
        "persona": {
            "id": chosen.id,
            "name": chosen.name,
            "greeting": fill_macros(
                chosen.greeting, char=chosen.name, user="You" if session.guest else session.slug
            ),
            "avatar": f"/app/personas/{chosen.id}/avatar" if chosen.id in avatars else None,
        },
        "personas": await persona_summaries(state, session),
        "model": model_info(state),
        "messages": [
            {
                "id": m.id,
                "role": m.role,
                "name": m.name,
                "text": m.text,
                "sent_at": m.sent_at,
                "turn": m.turn,
                "mine": m.role == "user" and m.user == session.user,
                **({"swipes": swipes[m.reply_to]} if m.reply_to in swipes and m.role == "assistant" else {}),
            }
            for m in history
        ],
    }
    response: Response[Any] = Response(body)
    if fresh:
        set_session_cookie(response, request, cookie or "", GUEST_COOKIE_AGE)
    return response


class NewRoom(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /app/rooms``."""

    name: str


@post("/rooms", status_code=201)
async def create_room(
    request: Request[Any, Any, Any], visitor: NamedDependency[BrowserSession]
) -> dict[str, Any]:
    """Create a room owned by the signed-in user."""
    require_user(visitor)
    state: WebState = request.app.state.web
    body: NewRoom = decode_body(await request.body(), NewRoom)
    room = await accounts_of(state).add_room(visitor.slug, body.name, now=state.clock.now())
    return {"room": {"slug": room.slug, "title": room.title}}


async def _lore_view(state: WebState, lore: tuple[LoreLog, ...]) -> list[dict[str, Any]]:
    books = {b: await state.lore.get(b) for b in dict.fromkeys(d.book for d in lore)}
    rows = []
    for d in lore:
        book = books.get(d.book)
        entry = next((e for e in book.entries if e.id == d.entry), None) if book else None
        display = (
            d.name or (entry.comment if entry else "") or (entry.keys[0] if entry and entry.keys else "")
        )
        rows.append(
            {
                "book": d.book,
                "book_name": book.name if book else d.book,
                "entry": d.entry,
                "name": display or f"entry {d.entry}",
                "included": d.included,
                "reason": d.reason,
            }
        )
    return rows


async def _memory_texts(
    state: WebState, visitor: NamedDependency[BrowserSession], log: RequestLog
) -> dict[str, str]:
    desk = state.service.memory
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


@get("/chats/{chat:str}/turns/{turn:str}")
async def inspect_turn(
    request: Request[Any, Any, Any],
    visitor: NamedDependency[BrowserSession],
    chat: FromPath[str],
    turn: FromPath[str],
) -> dict[str, Any]:
    """The request inspector: what went into one reply and why (PRM-3, LORE-12)."""
    state: WebState = request.app.state.web
    found, log = await state.service.turn(owned_chat(visitor, chat), turn)
    texts = await _memory_texts(state, visitor, log)
    return {
        "turn": found.id,
        "status": found.status,
        "created_at": log.created_at,
        "provider": log.provider,
        "model": log.model,
        "duration_ms": log.duration_ms,
        "attempts": log.attempts,
        "error": log.error,
        "slots": [msgspec.to_builtins(s) for s in log.slots],
        "stable_count": log.stable_count,
        "window": msgspec.to_builtins(log.window),
        "lore": await _lore_view(state, log.lore),
        "memories": [{**msgspec.to_builtins(m), "text": texts.get(m.id)} for m in log.memories],
        "memory_writes": [msgspec.to_builtins(w) for w in log.memory_writes],
        "summaries": log.summaries,
        "documents": log.documents,
        "usage": msgspec.to_builtins(log.usage) if log.usage else None,
    }


CHAT_ROUTES = [session_info, create_room, inspect_turn]
