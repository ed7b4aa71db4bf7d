"""The browser chat's streaming WebSocket (PLT-4, API.md); the page's session is ``app_chat``.

Frames are the tagged unions of ``adapters.web.schemas.frames``, decoded with msgspec.
Frames in: ``{"type": "message", "text", "persona"?}``, ``{"type": "regenerate", "turn"}``,
``{"type": "stop"}`` (stop generating: the reply so far is kept).
Frames out: ``{"type": "delta", "text"}``…, then ``{"type": "done", "turn", "reply", "context"}``
or ``{"type": "error", "code", "message"}``. The browser's ``done`` frames also carry
``reply_message`` (the reply's message id), ``message`` (the id the sent message was stored
under) and ``swipes`` ``{"message", "turns", "index"}``: the reply's alternatives (regenerate
keeps the old replies).
Each reply runs in its own task, so ``stop`` frames are read while it streams.
A browser may only open its own chats, and only from this app's own pages (``Origin``, when
sent, must be this host). If the browser goes away mid-reply the turn still runs to the end, so
the reply is stored.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import msgspec
from litestar import WebSocket, websocket
from litestar.di import Provide
from litestar.exceptions import WebSocketDisconnect
from litestar.params import FromPath

from adapters.cards.jsondoc import check_json_depth
from adapters.llm.stopping import STOP
from adapters.web.actions.chat import Author, browser_done, regenerate, say
from adapters.web.actions.personas import visible_persona
from adapters.web.app_auth import current_session, origin_ok
from adapters.web.params import Web
from adapters.web.schemas.frames import (
    ErrorFrame,
    InFrame,
    MessageFrame,
    OutFrame,
    RegenerateFrame,
    StopFrame,
    decode_frame,
)
from adapters.web.session import COOKIE, BrowserSession
from adapters.web.state import WebState
from engine.errors import PersonaBotError
from engine.service import ReplyDone, ReplyEvent

__all__ = ["chat_socket"]

log = logging.getLogger("hearth.web")
_ENCODE = msgspec.json.Encoder()
_RUNNING: set[asyncio.Task[bool]] = set()  # replies outlive a closed socket: keep them referenced

Decorate = Callable[[ReplyDone], Awaitable[OutFrame]]


async def _send(socket: WebSocket[Any, Any, Any], frame: OutFrame) -> bool:
    try:
        await socket.send_data(_ENCODE.encode(frame).decode(), mode="text")
    except Exception:
        return False
    return True


def _ids(web: WebState, chat: str, message: str | None) -> Decorate:
    """Adds to a ``done`` frame the ids the page needs for its message controls."""

    async def decorate(done: ReplyDone) -> OutFrame:
        return await browser_done(web, chat, done, message)

    return decorate


async def _relay(
    socket: WebSocket[Any, Any, Any], events: AsyncIterator[ReplyEvent], decorate: Decorate | None = None
) -> bool:
    alive = True
    async for event in events:
        if alive:
            frame: OutFrame = event
            if decorate is not None and isinstance(event, ReplyDone):
                frame = await decorate(event)
            alive = await _send(socket, frame)
    return alive


async def _handle(
    socket: WebSocket[Any, Any, Any],
    web: WebState,
    session: BrowserSession,
    chat: str,
    frame: MessageFrame | RegenerateFrame,
) -> bool:
    if isinstance(frame, MessageFrame):
        persona = frame.persona or "default"
        await visible_persona(web, session, persona)
        author = Author(user=session.user, name="You" if session.guest else session.slug, guest=session.guest)
        accepted = await say(web, chat, author, frame.text, persona)
        return await _relay(socket, accepted.events, _ids(web, chat, accepted.message.id))
    events = await regenerate(web, chat, frame.turn, keep_alternatives=True)
    return await _relay(socket, events, _ids(web, chat, None) if web.controls is not None else None)


def _read(raw: str) -> InFrame | ErrorFrame:
    """The frame, or the error that answers it (too deep, not JSON, not a frame)."""
    try:
        check_json_depth(raw.encode(), what="frame")
    except PersonaBotError as exc:
        return ErrorFrame(code=exc.code, message=exc.message)
    return decode_frame(raw)


def provide_socket_web(socket: WebSocket[Any, Any, Any]) -> WebState:
    """The ``web`` dependency of the socket (the app's provider reads an HTTP request)."""
    state: WebState = socket.app.state.web
    return state


@websocket("/ws/chats/{chat:str}", dependencies={"web": Provide(provide_socket_web, sync_to_thread=False)})
async def chat_socket(socket: WebSocket[Any, Any, Any], chat: FromPath[str], web: Web) -> None:
    """Stream replies to one browser chat."""
    session = await current_session(web, socket.cookies.get(COOKIE))
    same_site = origin_ok(socket.headers.get("origin"), socket.headers.get("host"))
    if session is None or not same_site or not session.owns(chat):
        await socket.close(code=4403, reason="not your chat")
        return
    await socket.accept()
    stops: dict[asyncio.Task[bool], asyncio.Event] = {}  # the replies of this socket still running
    while True:
        try:
            raw = await socket.receive_data(mode="text")
        except WebSocketDisconnect:
            return  # a reply still running finishes and is stored
        frame = _read(raw)
        if isinstance(frame, ErrorFrame):
            await _send(socket, frame)
            continue
        if isinstance(frame, StopFrame):
            for event in stops.values():
                event.set()
            continue
        stop = asyncio.Event()
        task = asyncio.create_task(_guarded(socket, web, session, chat, frame, stop))
        stops[task] = stop
        _RUNNING.add(task)
        task.add_done_callback(lambda done: stops.pop(done, None))
        task.add_done_callback(_RUNNING.discard)


async def _guarded(
    socket: WebSocket[Any, Any, Any],
    web: WebState,
    session: BrowserSession,
    chat: str,
    frame: MessageFrame | RegenerateFrame,
    stop: asyncio.Event,
) -> bool:
    STOP.set(stop)  # this task's context: the model stream ends when the person stops it
    try:
        return await _handle(socket, web, session, chat, frame)
    except PersonaBotError as exc:
        log.info("chat frame refused: %s", exc.code)
        return await _send(socket, ErrorFrame(code=exc.code, message=exc.message))
    except Exception:
        log.exception("chat frame failed")
        return await _send(socket, ErrorFrame(code="internal_error", message="Something broke on our side."))
