"""The browser chat: the session endpoint and the streaming WebSocket (PLT-4, API.md).

Frames in: ``{"type": "message", "text", "persona"?}``, ``{"type": "regenerate", "turn"}``.
Frames out: ``{"type": "delta", "text"}``…, then ``{"type": "done", "turn", "reply", "context"}``
or ``{"type": "error", "code", "message"}``. A browser may only open its own chats. If the
browser goes away mid-reply the turn still runs to the end, so the reply is stored.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import msgspec
from litestar import Request, Response, WebSocket, get, websocket
from litestar.exceptions import WebSocketDisconnect

from adapters.web.api import incoming
from adapters.web.session import COOKIE, BrowserSession, chat_for
from adapters.web.state import WebState
from engine.errors import PersonaBotError
from engine.offline import OFFLINE_LABEL
from engine.service import ReplyEvent

__all__ = ["chat_socket", "session_info"]

log = logging.getLogger("hearth.web")
_FRAME = msgspec.json.Decoder(dict[str, Any])
_ENCODE = msgspec.json.Encoder()
_COOKIE_AGE = 365 * 24 * 3600


def _model_info(state: WebState) -> dict[str, Any]:
    if state.settings.offline:
        return {"name": "offline", "offline": True, "label": OFFLINE_LABEL}
    return {"name": state.settings.model, "offline": False, "label": f"Claude ({state.settings.model})"}


@get("/app/session", include_in_schema=False)
async def session_info(request: Request[Any, Any, Any], persona: str = "default") -> Response[Any]:
    """Who this browser is, its chat with the persona and the chat's history."""
    state: WebState = request.app.state.web
    session = state.signer.load(request.cookies.get(COOKIE))
    fresh = session is None
    session = session or state.signer.new()
    service = state.service
    chosen = await service.persona(persona)
    chat = chat_for(session, chosen.id)
    history = await service.chats.history(chat, 200)
    body = {
        "user": session.user,
        "guest": session.guest,
        "chat": chat,
        "persona": {"id": chosen.id, "name": chosen.name, "greeting": chosen.greeting},
        "personas": [{"id": p.id, "name": p.name} for p in await service.personas.all()],
        "model": _model_info(state),
        "messages": [
            {
                "id": m.id,
                "role": m.role,
                "name": m.name,
                "text": m.text,
                "sent_at": m.sent_at,
                "turn": m.turn,
            }
            for m in history
        ],
    }
    response = Response(body)
    if fresh:
        response.set_cookie(
            COOKIE, state.signer.dump(session), max_age=_COOKIE_AGE, httponly=True, samesite="lax"
        )
    return response


def _owns(session: BrowserSession, chat: str) -> bool:
    base = f"web:g-{session.key}"
    return chat == base or chat.startswith(base + ".")


async def _send(socket: WebSocket[Any, Any, Any], frame: dict[str, Any]) -> bool:
    try:
        await socket.send_data(_ENCODE.encode(frame).decode(), mode="text")
    except Exception:
        return False
    return True


async def _relay(socket: WebSocket[Any, Any, Any], events: AsyncIterator[ReplyEvent]) -> bool:
    alive = True
    async for event in events:
        if alive:
            frame = msgspec.to_builtins(event)
            alive = await _send(socket, frame)
    return alive


async def _handle(
    socket: WebSocket[Any, Any, Any],
    state: WebState,
    session: BrowserSession,
    chat: str,
    frame: dict[str, Any],
) -> bool:
    kind = frame.get("type")
    if kind == "message":
        text, persona = frame.get("text"), frame.get("persona") or "default"
        if not isinstance(text, str) or not isinstance(persona, str):
            return await _send(
                socket, {"type": "error", "code": "invalid_frame", "message": "text must be a string."}
            )
        name = "You"
        message = incoming(chat, session.user, name, text, state.clock.now(), guest=session.guest)
        accepted = await state.service.accept(message, persona)
        return await _relay(socket, accepted.events)
    if kind == "regenerate":
        turn = frame.get("turn")
        if not isinstance(turn, str):
            return await _send(
                socket, {"type": "error", "code": "invalid_frame", "message": "turn must be a string."}
            )
        return await _relay(socket, await state.service.regenerate(chat, turn))
    return await _send(
        socket, {"type": "error", "code": "invalid_frame", "message": f"Unknown frame type {kind!r}."}
    )


@websocket("/ws/chats/{chat:str}")
async def chat_socket(socket: WebSocket[Any, Any, Any], chat: str) -> None:
    """Stream replies to one browser chat."""
    state: WebState = socket.app.state.web
    session = state.signer.load(socket.cookies.get(COOKIE))
    if session is None or not _owns(session, chat):
        await socket.close(code=4403, reason="not your chat")
        return
    await socket.accept()
    while True:
        try:
            raw = await socket.receive_data(mode="text")
        except WebSocketDisconnect:
            return
        try:
            frame = _FRAME.decode(raw)
            alive = await _handle(socket, state, session, chat, frame)
        except msgspec.DecodeError:
            alive = await _send(
                socket, {"type": "error", "code": "invalid_json", "message": "The frame is not JSON."}
            )
        except PersonaBotError as exc:
            log.info("chat frame refused: %s", exc.code)
            alive = await _send(socket, {"type": "error", "code": exc.code, "message": exc.message})
        except Exception:
            log.exception("chat frame failed")
            alive = await _send(
                socket, {"type": "error", "code": "internal_error", "message": "Something broke on our side."}
            )
        if not alive:
            return
