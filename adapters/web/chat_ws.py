"""The browser chat's streaming WebSocket (PLT-4, API.md); the page's session is ``app_chat``.

Frames in: ``{"type": "message", "text", "persona"?}``, ``{"type": "regenerate", "turn"}``,
``{"type": "stop"}`` (stop generating: the reply so far is kept).
Frames out: ``{"type": "delta", "text"}``…, then ``{"type": "done", "turn", "reply", "context"}``
or ``{"type": "error", "code", "message"}``; after a regenerate ``{"type": "swipes", "message",
"turns", "index"}`` lists the reply's alternatives (the old replies are kept).
Each reply runs in its own task, so ``stop`` frames are read while it streams.
A browser may only open its own chats, and only from this app's own pages (``Origin``, when
sent, must be this host). If the browser goes away mid-reply the turn still runs to the end, so
the reply is stored.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

import msgspec
from litestar import WebSocket, websocket
from litestar.exceptions import WebSocketDisconnect
from litestar.params import FromPath

from adapters.llm.stopping import STOP
from adapters.web.api import incoming
from adapters.web.app_auth import current_session, origin_ok
from adapters.web.app_personas import visible_persona
from adapters.web.session import COOKIE, BrowserSession
from adapters.web.state import WebState
from engine.errors import PersonaBotError
from engine.service import ReplyEvent

__all__ = ["chat_socket"]

log = logging.getLogger("hearth.web")
_FRAME = msgspec.json.Decoder(dict[str, Any])
_ENCODE = msgspec.json.Encoder()
_RUNNING: set[asyncio.Task[bool]] = set()  # replies outlive a closed socket: keep them referenced


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
        await visible_persona(state, session, persona)
        name = "You" if session.guest else session.slug
        message = incoming(chat, session.user, name, text, state.clock.now(), guest=session.guest)
        accepted = await state.service.accept(message, persona)
        return await _relay(socket, accepted.events)
    if kind == "regenerate":
        turn = frame.get("turn")
        if not isinstance(turn, str):
            return await _send(
                socket, {"type": "error", "code": "invalid_frame", "message": "turn must be a string."}
            )
        if state.controls is None:
            return await _relay(socket, await state.service.regenerate(chat, turn))
        alive = await _relay(socket, await state.controls.regenerate(chat, turn))
        latest = await state.service.chats.latest(chat)
        if alive and latest is not None:
            swipes = await state.controls.swipes_of(chat, latest)
            alive = await _send(socket, {"type": "swipes", **msgspec.to_builtins(swipes)})
        return alive
    return await _send(
        socket, {"type": "error", "code": "invalid_frame", "message": f"Unknown frame type {kind!r}."}
    )


@websocket("/ws/chats/{chat:str}")
async def chat_socket(socket: WebSocket[Any, Any, Any], chat: FromPath[str]) -> None:
    """Stream replies to one browser chat."""
    state: WebState = socket.app.state.web
    session = await current_session(state, socket.cookies.get(COOKIE))
    same_site = origin_ok(socket.headers.get("origin"), socket.headers.get("host"))
    if session is None or not same_site or not session.owns(chat):
        await socket.close(code=4403, reason="not your chat")
        return
    await socket.accept()
    replies: set[asyncio.Task[bool]] = set()
    stop = asyncio.Event()
    while True:
        try:
            raw = await socket.receive_data(mode="text")
        except WebSocketDisconnect:
            return  # a reply still running finishes and is stored
        try:
            frame = _FRAME.decode(raw)
        except msgspec.DecodeError:
            await _send(
                socket, {"type": "error", "code": "invalid_json", "message": "The frame is not JSON."}
            )
            continue
        if frame.get("type") == "stop":
            stop.set()
            continue
        if any(not t.done() for t in replies):
            await _send(socket, {"type": "error", "code": "reply_running", "message": "Wait for the reply."})
            continue
        stop = asyncio.Event()
        task = asyncio.create_task(_guarded(socket, state, session, chat, frame, stop))
        replies.add(task)
        _RUNNING.add(task)
        task.add_done_callback(replies.discard)
        task.add_done_callback(_RUNNING.discard)


async def _guarded(
    socket: WebSocket[Any, Any, Any],
    state: WebState,
    session: BrowserSession,
    chat: str,
    frame: dict[str, Any],
    stop: asyncio.Event,
) -> bool:
    STOP.set(stop)  # this task's context: the model stream ends when the person stops it
    try:
        return await _handle(socket, state, session, chat, frame)
    except PersonaBotError as exc:
        log.info("chat frame refused: %s", exc.code)
        return await _send(socket, {"type": "error", "code": exc.code, "message": exc.message})
    except Exception:
        log.exception("chat frame failed")
        return await _send(
            socket, {"type": "error", "code": "internal_error", "message": "Something broke on our side."}
        )
