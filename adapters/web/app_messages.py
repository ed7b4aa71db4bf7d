"""Message controls of the browser chat (issue 16): edit, delete, swipes, branches, guest chat move.

- ``PUT /app/chats/{chat}/messages/{id}`` ``{text}`` and ``DELETE`` the same: one's own messages.
- ``POST /app/chats/{chat}/turns/{turn}/choose``: show another alternative (swipe) of the latest
  reply; it is what the next turn sees.
- ``POST /app/chats/{chat}/branches`` ``{message}``: a new chat with the conversation up to that
  message; memories are shared with the original (MEM-1, seed 004).
- ``POST /app/guest-chat/ticket`` (as a guest) then, once signed in or up,
  ``POST /app/guest-chat/move`` ``{ticket}``: the guest's conversation moves into the account —
  into the main room when it is empty (a new account), else into a new room "Guest chat". The
  ticket is signed with the session secret and names the guest, so only the browser that was
  that guest can claim its chat, and only for 10 minutes.
"""

from __future__ import annotations

import hmac
import secrets
from typing import Any

import msgspec
from litestar import Request, delete, post, put
from litestar.di import NamedDependency
from litestar.params import FromPath

from adapters.web.api import decode_body
from adapters.web.app_auth import accounts_of, owned_chat, require_user
from adapters.web.session import MAIN_ROOM, BrowserSession, chat_for
from adapters.web.state import WebState
from engine.errors import ConfigError, Forbidden, InvalidInput
from engine.model import StoredMessage
from engine.service.controls import BRANCH_MARK, MessageControls
from storage.redis_chat_controls import Branch, RedisChatControls

__all__ = ["MESSAGE_ROUTES", "branch_chat", "root_chat"]

TICKET_SECONDS = 600


def _controls(state: WebState) -> tuple[MessageControls, RedisChatControls]:
    if state.controls is None or state.chat_controls is None:
        raise ConfigError("Message controls are not configured.", code="controls_unavailable")
    return state.controls, state.chat_controls


def root_chat(chat: str) -> str:
    """The chat a branch was made from (a chat that is no branch is its own root)."""
    return chat.split(BRANCH_MARK)[0]


def branch_chat(chat: str, branch: str) -> str:
    """The chat id of one branch of ``chat``."""
    return f"{root_chat(chat)}{BRANCH_MARK}{branch}"


class EditBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``PUT /app/chats/{chat}/messages/{message}``."""

    text: str


def _message_view(m: StoredMessage) -> dict[str, Any]:
    return {"id": m.id, "role": m.role, "name": m.name, "text": m.text, "sent_at": m.sent_at, "turn": m.turn}


@put("/chats/{chat:str}/messages/{message:str}")
async def edit_message(
    request: Request[Any, Any, Any],
    visitor: NamedDependency[BrowserSession],
    chat: FromPath[str],
    message: FromPath[str],
) -> dict[str, Any]:
    """Change the text of one of your own messages."""
    state: WebState = request.app.state.web
    chat_id = owned_chat(visitor, chat)
    body: EditBody = decode_body(await request.body(), EditBody)
    controls, _ = _controls(state)
    changed = await controls.edit(chat_id, message, visitor.user, body.text)
    return {"message": _message_view(changed)}


@delete("/chats/{chat:str}/messages/{message:str}", status_code=200)
async def delete_message(
    request: Request[Any, Any, Any],
    visitor: NamedDependency[BrowserSession],
    chat: FromPath[str],
    message: FromPath[str],
) -> dict[str, Any]:
    """Delete one of your own messages (the persona's reply to it stays)."""
    state: WebState = request.app.state.web
    chat_id = owned_chat(visitor, chat)
    controls, _ = _controls(state)
    await controls.delete(chat_id, message, visitor.user)
    return {"deleted": message}


@post("/chats/{chat:str}/turns/{turn:str}/choose", status_code=200)
async def choose_swipe(
    request: Request[Any, Any, Any],
    visitor: NamedDependency[BrowserSession],
    chat: FromPath[str],
    turn: FromPath[str],
) -> dict[str, Any]:
    """Show another alternative of the latest reply; the next turn sees it (MEM-7 per swipe)."""
    state: WebState = request.app.state.web
    chat_id = owned_chat(visitor, chat)
    controls, _ = _controls(state)
    chosen, message = await controls.choose(chat_id, turn)
    swipes = await controls.swipes_of(chat_id, chosen)
    return {"message": _message_view(message), "swipes": msgspec.to_builtins(swipes)}


class BranchBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /app/chats/{chat}/branches``."""

    message: str
    title: str = ""


@post("/chats/{chat:str}/branches", status_code=201)
async def make_branch(
    request: Request[Any, Any, Any], visitor: NamedDependency[BrowserSession], chat: FromPath[str]
) -> dict[str, Any]:
    """A new chat with this conversation up to a message; memories stay shared with this one."""
    state: WebState = request.app.state.web
    chat_id = owned_chat(visitor, chat)
    body: BranchBody = decode_body(await request.body(), BranchBody)
    controls, store = _controls(state)
    found = await state.service.chats.message(chat_id, body.message)
    branch_id = secrets.token_hex(4)
    target = branch_chat(chat_id, branch_id)
    copied = await controls.branch(chat_id, body.message, target)
    words = " ".join((found.text if found else "").split()[:6])
    title = (body.title.strip() or (f"Branch: {words}" if words else "Branch"))[:80]
    record = Branch(
        id=branch_id,
        chat=target,
        title=title,
        source=chat_id,
        message=body.message,
        created_at=state.clock.now().timestamp(),
    )
    await store.add_branch(root_chat(chat_id), record)
    return {"branch": {"id": branch_id, "chat": target, "title": title}, "messages": copied}


def _ticket_mac(state: WebState, payload: str) -> str:
    return state.signer._mac("guest-chat", payload)


@post("/guest-chat/ticket", status_code=200)
async def guest_ticket(
    request: Request[Any, Any, Any], visitor: NamedDependency[BrowserSession]
) -> dict[str, Any]:
    """A guest's claim on its own chats, to move them into the account it signs in to next."""
    state: WebState = request.app.state.web
    if not visitor.guest:
        raise Forbidden("Only a guest has a guest chat to move.", code="not_a_guest")
    _, store = _controls(state)
    chats = [chat_for(visitor, p.id) for p in await state.service.personas.all()]
    messages = sum([0 if await store.is_empty(c) else 1 for c in chats])
    payload = f"{visitor.slug}~{int(state.clock.now().timestamp()) + TICKET_SECONDS}"
    return {"ticket": f"{payload}.{_ticket_mac(state, payload)}", "has_chat": messages > 0}


class MoveBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /app/guest-chat/move``."""

    ticket: str


def _guest_of(state: WebState, ticket: str) -> BrowserSession:
    payload, _, mac = ticket.rpartition(".")
    slug, _, expires = payload.partition("~")
    valid = hmac.compare_digest(mac.encode(), _ticket_mac(state, payload).encode()) and expires.isdigit()
    if not valid or int(expires) < state.clock.now().timestamp() or not slug.startswith("guest-"):
        raise InvalidInput("The guest chat ticket is not valid (or too old).", code="invalid_ticket")
    return BrowserSession(slug=slug)


@post("/guest-chat/move", status_code=200)
async def move_guest_chat(
    request: Request[Any, Any, Any], visitor: NamedDependency[BrowserSession]
) -> dict[str, Any]:
    """Move the guest's conversations into the signed-in account (issue 16, point 4)."""
    require_user(visitor)
    state: WebState = request.app.state.web
    body: MoveBody = decode_body(await request.body(), MoveBody)
    guest = _guest_of(state, body.ticket)
    _, store = _controls(state)
    personas = await state.service.personas.all()
    sources = [(p.id, chat_for(guest, p.id)) for p in personas]
    sources = [(p, c) for p, c in sources if not await store.is_empty(c)]
    if not sources:
        return {"room": None, "moved": 0}
    main_free = all([await store.is_empty(chat_for(visitor, p)) for p, _ in sources])
    room = MAIN_ROOM
    if not main_free:
        made = await accounts_of(state).add_room(visitor.slug, "Guest chat", now=state.clock.now())
        room = made.slug
    name = visitor.slug

    def adopt(m: StoredMessage) -> StoredMessage:
        if m.role != "user" or m.user != guest.user:
            return m
        return msgspec.structs.replace(m, user=visitor.user, name=name, guest=False)

    moved = 0
    for persona, source in sources:
        target = chat_for(visitor, persona, room)
        if not await store.is_empty(target):
            continue
        moved += await store.copy(source, target, upto=float("inf"), rewrite=adopt)
        await store.clear(source)
    return {"room": room, "moved": moved}


MESSAGE_ROUTES = [
    edit_message,
    delete_message,
    choose_swipe,
    make_branch,
    guest_ticket,
    move_guest_chat,
]
