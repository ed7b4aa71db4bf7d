"""The chat page's own endpoints: the session, rooms and the request inspector (PLT-4, PRM-3).

``GET /app/session`` tells the page who it is (guest or user), which chat it is in (room ×
persona), the CSRF token for state-changing requests, and the chat's history. The inspector
returns a turn's request log with names and texts filled in for the person reading it: the
lore entries' display names and books, and the texts of the memories that are theirs.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, delete, get, post, put
from litestar.params import FromPath, FromQuery, JSONBody

from adapters.web.actions.chat import inspection
from adapters.web.actions.rooms import delete_room, rename_room
from adapters.web.actions.session import model_info, session_view
from adapters.web.app_auth import GUEST_COOKIE_AGE, current_session, set_session_cookie
from adapters.web.params import AccountService, Visitor, Web
from adapters.web.schemas.chat import (
    Inspection,
    NewRoom,
    Room,
    RoomDeleted,
    RoomMade,
    RoomRename,
    SessionView,
)
from adapters.web.session import COOKIE, MAIN_ROOM, owned_chat, require_user

__all__ = ["CHAT_ROUTES", "model_info"]


@get("/session")
async def session_info(
    request: Request[Any, Any, Any],
    web: Web,
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
    cookie = web.signer.dump(session) if fresh else cookie or ""
    view = await session_view(web, session, web.signer.csrf(cookie), persona, room, branch)
    response = Response(view)
    if fresh:
        set_session_cookie(response, web, request, cookie, GUEST_COOKIE_AGE)
    return response


@post("/rooms", status_code=201)
async def create_room(
    web: Web, visitor: Visitor, accounts: AccountService, data: JSONBody[NewRoom]
) -> RoomMade:
    """Create a room owned by the signed-in user."""
    require_user(visitor)
    room = await accounts.add_room(visitor.slug, data.name, now=web.clock.now())
    return RoomMade(room=Room(slug=room.slug, title=room.title))


@put("/rooms/{room:str}")
async def rename_room_route(
    web: Web, visitor: Visitor, room: FromPath[str], data: JSONBody[RoomRename]
) -> RoomMade:
    """Rename one of your rooms: only its title changes; its chats and memories stay."""
    require_user(visitor)
    return await rename_room(web, visitor, room, data.title)


@delete("/rooms/{room:str}", status_code=200)
async def delete_room_route(web: Web, visitor: Visitor, room: FromPath[str]) -> RoomDeleted:
    """Delete one of your rooms: its chats with every persona (and their branches, summaries and
    archive pages) go; memories about you saved in it stay as Global ones of each persona; the
    room's own memories go."""
    require_user(visitor)
    return await delete_room(web, visitor, room)


@get("/chats/{chat:str}/turns/{turn:str}")
async def inspect_turn(web: Web, visitor: Visitor, chat: FromPath[str], turn: FromPath[str]) -> Inspection:
    """The request inspector: what went into one reply and why (PRM-3, LORE-12)."""
    return await inspection(web, visitor, owned_chat(visitor, chat), turn)


CHAT_ROUTES = [session_info, create_room, rename_room_route, delete_room_route, inspect_turn]
