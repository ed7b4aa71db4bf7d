"""The browser chat's streaming WebSocket (PLT-4, API.md); the page's session is ``app_chat``.

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
from litestar.exceptions import WebSocketDisconnect
from litestar.params import FromPath

from adapters.cards.jsondoc import check_json_depth
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


Decorate = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


def _ids(state: WebState, chat: str, message: str | None) -> Decorate:
    """Adds to a ``done`` frame the ids the page needs for its message controls."""

    async def decorate(frame: dict[str, Any]) -> dict[str, Any]:
        found = await state.service.chats.get(chat, frame["turn"])
        extra: dict[str, Any] = {"reply_message": found[0].reply_message if found else None}
        if message is not None:
            extra["message"] = message
        if state.controls is not None and found is not None:
            extra["swipes"] = msgspec.to_builtins(await state.controls.swipes_of(chat, found[0]))
        return {**frame, **extra}

    return decorate


async def _relay(
    socket: WebSocket[Any, Any, Any], events: AsyncIterator[ReplyEvent], decorate: Decorate | None = None
) -> bool:
    alive = True
    async for event in events:
        if alive:
            frame = msgspec.to_builtins(event)
            if decorate is not None and frame.get("type") == "done":
                frame = await decorate(frame)
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
        return await _relay(socket, accepted.events, _ids(state, chat, accepted.message.id))
    if kind == "regenerate":
        turn = frame.get("turn")
        if not isinstance(turn, str):
            return await _send(
                socket, {"type": "error", "code": "invalid_frame", "message": "turn must be a string."}
            )
        if state.controls is None:
            return await _relay(socket, await state.service.regenerate(chat, turn))
        return await _relay(socket, await state.controls.regenerate(chat, turn), _ids(state, chat, None))
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
    stops: dict[asyncio.Task[bool], asyncio.Event] = {}  # the replies of this socket still running
    while True:
        try:
            raw = await socket.receive_data(mode="text")
        except WebSocketDisconnect:
            return  # a reply still running finishes and is stored
        try:
            check_json_depth(raw.encode(), what="frame")
            frame = _FRAME.decode(raw)
        except msgspec.DecodeError:
            await _send(
                socket, {"type": "error", "code": "invalid_json", "message": "The frame is not JSON."}
            )
            continue
        except PersonaBotError as exc:
            await _send(socket, {"type": "error", "code": exc.code, "message": exc.message})
            continue
        if frame.get("type") == "stop":
            for event in stops.values():
                event.set()
            continue
        stop = asyncio.Event()
        task = asyncio.create_task(_guarded(socket, state, session, chat, frame, stop))
        stops[task] = stop
        _RUNNING.add(task)
        task.add_done_callback(lambda done: stops.pop(done, None))
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
