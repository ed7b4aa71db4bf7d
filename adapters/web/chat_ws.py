"""The browser chat's streaming WebSocket (PLT-4, API.md); the page's session is ``app_chat``.

Frames are the tagged unions of ``adapters.web.schemas.frames``, decoded with msgspec.
Frames in: ``{"type": "message", "text", "persona"?, "images"?, "greeting"?}`` (pictures as in the REST API),
``{"type": "regenerate", "turn"}``,
``{"type": "answer"}`` (answer the chat's last message when it is the person's and has no reply:
a failed turn, or a process that died mid-reply; else ``error`` ``nothing_to_answer``),
``{"type": "stop"}`` (stop generating: the reply so far is kept).
Frames out: ``{"type": "delta", "text"}``…, then ``{"type": "done", "turn", "reply", "context"}``
or ``{"type": "error", "code", "message"}``. The browser's ``done`` frames also carry
``reply_message`` (the reply's message id), ``message`` (the id the sent message was stored
under) and ``swipes`` ``{"message", "turns", "index"}``: the reply's alternatives (regenerate
keeps the old replies).
Each reply runs in its own task, so ``stop`` frames are read while it streams.
Limits (``adapters.web.limits``): a ``message`` or ``regenerate`` frame beyond the session's or
user's replies in flight or messages a minute is answered ``{"type": "error", "code":
"too_many_replies" | "too_many_messages", "message", "retry_after"}`` and not stored.
A signed-in socket is bound to its session: when it is signed out (here, everywhere, or on
another web process) the socket gets ``{"type": "error", "code": "signed_out"}`` and is closed
with code 4401; its session is also checked before each reply starts.
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
from adapters.web.actions.chat import Author, answer_last, browser_done, regenerate, say
from adapters.web.actions.personas import visible_persona
from adapters.web.app_auth import current_session, origin_ok
from adapters.web.limits import ChatLimited, Ticket
from adapters.web.params import Web
from adapters.web.schemas.frames import (
    AnswerFrame,
    ErrorFrame,
    InFrame,
    MessageFrame,
    OutFrame,
    RegenerateFrame,
    StopFrame,
    decode_frame,
)
from adapters.web.session import COOKIE, BrowserSession
from adapters.web.sockets import SIGNED_OUT
from adapters.web.state import WebState
from engine.errors import HearthError
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
    frame: MessageFrame | RegenerateFrame | AnswerFrame,
) -> bool:
    if isinstance(frame, AnswerFrame):
        return await _relay(socket, await answer_last(web, chat), _ids(web, chat, None))
    if isinstance(frame, MessageFrame):
        persona = frame.persona or "default"
        await visible_persona(web, session, persona)
        author = Author(user=session.user, name="You" if session.guest else session.slug, guest=session.guest)
        accepted = await say(
            web, chat, author, frame.text, persona, images=frame.images, greeting=frame.greeting
        )
        return await _relay(socket, accepted.events, _ids(web, chat, accepted.message.id))
    events = await regenerate(web, chat, frame.turn, keep_alternatives=True)
    return await _relay(socket, events, _ids(web, chat, None) if web.controls is not None else None)


def _read(raw: str) -> InFrame | ErrorFrame:
    """The frame, or the error that answers it (too deep, not JSON, not a frame)."""
    try:
        check_json_depth(raw.encode(), what="frame")
    except HearthError as exc:
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

    async def signed_out() -> None:
        await _send(socket, ErrorFrame(code="signed_out", message="You signed out; this chat is closed."))
        await socket.close(code=SIGNED_OUT, reason="signed out")

    with web.sockets.bound(session, signed_out):
        await _serve(socket, web, session, chat, signed_out)


async def _serve(
    socket: WebSocket[Any, Any, Any],
    web: WebState,
    session: BrowserSession,
    chat: str,
    signed_out: Callable[[], Awaitable[None]],
) -> None:
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
        try:
            ticket = await _admit(web, session)
        except ChatLimited as exc:
            await _send(socket, ErrorFrame(code=exc.code, message=exc.message, retry_after=exc.retry_after))
            continue
        except HearthError as exc:
            await _send(socket, ErrorFrame(code=exc.code, message=exc.message))
            continue
        if ticket is None:
            await signed_out()
            return
        stop = asyncio.Event()
        task = asyncio.create_task(_guarded(socket, web, session, chat, frame, stop, ticket))
        stops[task] = stop
        _RUNNING.add(task)
        task.add_done_callback(lambda done: stops.pop(done, None))
        task.add_done_callback(_RUNNING.discard)


async def _admit(web: WebState, session: BrowserSession) -> Ticket | None:
    """The reply's slots under the chat limits, or None when the session was signed out meanwhile.

    Raises:
        ChatLimited: the session or its user has too many replies running or messages this minute.
    """
    keys = (f"session:{session.slug}:{session.sid}", f"user:{session.user}")
    ticket = await web.chat_limits.admit(keys, shared_key=f"chat:bucket:user:{session.user}")
    if session.guest or web.accounts is None:
        return ticket
    try:
        current = await web.accounts.is_current(session)
    except BaseException:
        ticket.release()
        raise
    if not current:
        ticket.release()
        return None
    return ticket


async def _guarded(
    socket: WebSocket[Any, Any, Any],
    web: WebState,
    session: BrowserSession,
    chat: str,
    frame: MessageFrame | RegenerateFrame | AnswerFrame,
    stop: asyncio.Event,
    ticket: Ticket,
) -> bool:
    STOP.set(stop)  # this task's context: the model stream ends when the person stops it
    with ticket:
        try:
            return await _handle(socket, web, session, chat, frame)
        except HearthError as exc:
            log.info("chat frame refused: %s", exc.code)
            return await _send(socket, ErrorFrame(code=exc.code, message=exc.message))
        except Exception:
            log.exception("chat frame failed")
            broke = ErrorFrame(code="internal_error", message="Something broke on our side.")
            return await _send(socket, broke)
