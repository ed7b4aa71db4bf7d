"""The chat page's own endpoints: the session, rooms and the request inspector (PLT-4, PRM-3).

``GET /app/session`` tells the page who it is (guest or user), which chat it is in (room ×
persona), the CSRF token for state-changing requests, and the chat's history. The inspector
returns a turn's request log with names and texts filled in for the person reading it: the
lore entries' display names and books, and the texts of the memories that are theirs.
"""

from __future__ import annotations

import re
from typing import Any

from litestar import Request, Response, get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, FromQuery, JSONBody
from msgspec import UNSET

from adapters.web.accounts import Accounts
from adapters.web.actions.chat import turn_log
from adapters.web.actions.messages import branch_chat, root_chat
from adapters.web.actions.personas import avatar_url, persona_summaries, visible_persona
from adapters.web.app_auth import GUEST_COOKIE_AGE, current_session, set_session_cookie
from adapters.web.schemas.chat import (
    Branch,
    InspectedLore,
    InspectedMemory,
    Inspection,
    ModelInfo,
    NewRoom,
    PersonaCard,
    Room,
    RoomMade,
    SessionMessage,
    SessionView,
)
from adapters.web.session import COOKIE, MAIN_ROOM, BrowserSession, chat_for, owned_chat, require_user
from adapters.web.state import WebState
from engine.errors import NotFound
from engine.memory import global_list, global_personal_list, personal_list, space_list
from engine.model import StoredMessage
from engine.offline import OFFLINE_LABEL
from engine.prompt import fill_macros
from engine.requestlog import LoreLog, RequestLog
from engine.service.turn import memory_space

__all__ = ["CHAT_ROUTES", "model_info"]

_MAIN = Room(slug=MAIN_ROOM, title="Main room")
_BRANCH = re.compile(r"[0-9a-f]{8}")


def model_info(state: WebState) -> ModelInfo:
    """Which model answers, labelled for people (RUN-2)."""
    if state.settings.offline:
        return ModelInfo(name="offline", offline=True, label=OFFLINE_LABEL)
    return ModelInfo(name=state.settings.model, offline=False, label=f"Claude ({state.settings.model})")


async def _rooms(web: WebState, session: BrowserSession) -> list[Room]:
    if session.guest or web.accounts is None:
        return [_MAIN]
    return [_MAIN, *(Room(slug=r.slug, title=r.title) for r in await web.accounts.store.rooms(session.slug))]


async def _branches(web: WebState, chat: str) -> list[Branch]:
    if web.chat_controls is None:
        return []
    return [
        Branch(id=b.id, title=b.title, chat=b.chat) for b in await web.chat_controls.branches(root_chat(chat))
    ]


async def _history(web: WebState, session: BrowserSession, chat: str) -> list[SessionMessage]:
    """The chat's last 200 messages; each persona reply with alternatives carries ``swipes``."""
    swipes = await web.chat_controls.all_swipes(chat) if web.chat_controls else {}

    def view(m: StoredMessage) -> SessionMessage:
        alternatives = swipes.get(m.reply_to or "") if m.role == "assistant" else None
        return SessionMessage(
            id=m.id,
            role=m.role,
            name=m.name,
            text=m.text,
            sent_at=m.sent_at,
            turn=m.turn,
            mine=m.role == "user" and m.user == session.user,
            swipes=UNSET if alternatives is None else alternatives,
        )

    return [view(m) for m in await web.service.chats.history(chat, 200)]


@get("/session")
async def session_info(
    request: Request[Any, Any, Any],
    web: NamedDependency[WebState],
    persona: FromQuery[str] = "default",
    room: FromQuery[str] = MAIN_ROOM,
    branch: FromQuery[str | None] = None,
) -> Response[SessionView]:
    """Who this browser is, its chat (room × persona × branch), the CSRF token and the history.

    Each persona reply carries ``swipes`` (its alternatives' turn ids) when it has more than one.
    A browser without a valid session becomes a new guest (the cookie is set).
    """
    cookie = request.cookies.get(COOKIE)
    session = await current_session(web, cookie)
    fresh = session is None
    session = session or web.signer.new()
    cookie = web.signer.dump(session) if fresh else cookie
    rooms = await _rooms(web, session)
    if room not in {r.slug for r in rooms}:
        raise NotFound(f"There is no room {room!r}.", code="room_not_found")
    chosen = await visible_persona(web, session, persona)
    chat = chat_for(session, chosen.id, room)
    if branch is not None:
        if not _BRANCH.fullmatch(branch):
            raise NotFound(f"There is no branch {branch!r}.", code="branch_not_found")
        chat = branch_chat(chat, branch)
    avatars = await web.persona_extras.has_avatars() if web.persona_extras else set()
    reader = "You" if session.guest else session.slug
    view = SessionView(
        user=session.user,
        guest=session.guest,
        username=None if session.guest else session.slug,
        chat=chat,
        room=room,
        rooms=rooms,
        branch=branch,
        branches=await _branches(web, chat),
        csrf=web.signer.csrf(cookie or ""),
        memory=web.service.memory is not None,
        persona=PersonaCard(
            id=chosen.id,
            name=chosen.name,
            greeting=fill_macros(chosen.greeting, char=chosen.name, user=reader),
            avatar=avatar_url(chosen.id) if chosen.id in avatars else None,
        ),
        personas=await persona_summaries(web, session),
        model=model_info(web),
        messages=await _history(web, session, chat),
    )
    response = Response(view)
    if fresh:
        set_session_cookie(response, web, request, cookie or "", GUEST_COOKIE_AGE)
    return response


@post("/rooms", status_code=201)
async def create_room(
    web: NamedDependency[WebState],
    visitor: NamedDependency[BrowserSession],
    accounts: NamedDependency[Accounts],
    data: JSONBody[NewRoom],
) -> RoomMade:
    """Create a room owned by the signed-in user."""
    require_user(visitor)
    room = await accounts.add_room(visitor.slug, data.name, now=web.clock.now())
    return RoomMade(room=Room(slug=room.slug, title=room.title))


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


@get("/chats/{chat:str}/turns/{turn:str}")
async def inspect_turn(
    web: NamedDependency[WebState],
    visitor: NamedDependency[BrowserSession],
    chat: FromPath[str],
    turn: FromPath[str],
) -> Inspection:
    """The request inspector: what went into one reply and why (PRM-3, LORE-12)."""
    found, log = await turn_log(web, owned_chat(visitor, chat), turn)
    texts = await _memory_texts(web, visitor, log)
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
        summaries=log.summaries,
        documents=log.documents,
        usage=log.usage,
    )


CHAT_ROUTES = [session_info, create_room, inspect_turn]
