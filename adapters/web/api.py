"""The operator REST API (API.md): chats and turns. Handlers translate; the service acts."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler
from litestar.params import FromPath, QueryParameter

from adapters.cards.jsondoc import check_json_depth
from adapters.web.errors import error_body
from adapters.web.state import WebState
from engine.errors import InvalidInput, Unauthorized
from engine.model import IncomingMessage
from engine.requestlog import Context, RequestLog, WindowLog
from engine.service import ReplyDone, ReplyEvent, ReplyFailed
from engine.validate import check_sent_at, qualify_id

__all__ = ["ChatController", "admin_guard", "decode_body", "incoming"]

EMPTY_CONTEXT = Context(
    lore=(), memories=(), window=WindowLog(messages=0, tokens=0, budget=0, dropped=0), tokens={}
)


def admin_guard(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
    """Bearer ``HEARTH_ADMIN_TOKEN``; with no token set, only loopback clients are served.

    A request forwarded by a proxy is not a loopback client unless a trusted proxy says the
    client was loopback (``adapters.web.proxies``), so a same-host proxy never exposes the API.
    """
    state: WebState = connection.app.state.web
    expected = state.settings.admin_token
    if expected is None:
        if not state.is_local(connection):
            raise Unauthorized("The REST API answers only on loopback while HEARTH_ADMIN_TOKEN is unset.")
        return
    header = connection.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token:
        raise Unauthorized("Send the admin token as 'Authorization: Bearer <HEARTH_ADMIN_TOKEN>'.")
    if not state.check_admin(token.strip()):
        raise Unauthorized("The admin token is wrong.")


class SendMessage(msgspec.Struct, frozen=True, kw_only=True):
    """Body of ``POST /api/chats/{chat}/messages``."""

    user: str
    text: str
    name: str | None = None
    persona: str | None = None
    sent_at: datetime | None = None
    reply: bool = True


class ChatReply(msgspec.Struct, frozen=True, kw_only=True):
    """A turn's result."""

    turn: str | None
    reply: str | None
    context: Context
    message: str | None = None
    notices: tuple[str, ...] = ()


class TurnView(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /api/chats/{chat}/turns/{turn}``."""

    turn: str
    status: str
    request: RequestLog


def incoming(
    chat: str, user: str, name: str, text: str, sent_at: datetime, *, guest: bool = False
) -> IncomingMessage:
    """Normalize a web or API message (PLT-5)."""
    platform = "telegram" if chat.startswith("tg:") else "web"
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


def decode_body(body: bytes, kind: type[msgspec.Struct]) -> Any:
    """Decode a JSON body: 400 ``invalid_json`` for bad syntax, 422 ``invalid_body`` for bad shape,
    422 ``json_too_deep`` for nesting deeper than 64 (refused before the parser could recurse)."""
    check_json_depth(body)
    try:
        msgspec.json.decode(body)
    except msgspec.DecodeError as exc:
        raise InvalidInput("The body is not valid JSON (UTF-8).", code="invalid_json") from exc
    try:
        return msgspec.json.decode(body, type=kind, strict=True)
    except msgspec.ValidationError as exc:
        raise InvalidInput(f"The body does not fit: {exc}.", code="invalid_body") from exc


async def reply_of(events: Any) -> Response[Any]:
    """Drain a turn's events into the REST reply (502 with the error when the model failed)."""
    final: ReplyEvent | None = None
    async for event in events:
        if isinstance(event, ReplyDone | ReplyFailed):
            final = event
    if isinstance(final, ReplyDone):
        return Response(
            ChatReply(turn=final.turn, reply=final.reply, context=final.context, notices=final.notices)
        )
    if isinstance(final, ReplyFailed):
        return Response(error_body(final.code, final.message, turn=final.turn), status_code=502)
    return Response(error_body("not_answered", "No reply was produced."), status_code=502)


class ChatController(Controller):
    """Chat endpoints."""

    path = "/api/chats"
    guards = [admin_guard]  # noqa: RUF012
    tags = ["chat"]  # noqa: RUF012

    @post("/{chat:str}/messages", status_code=200)
    async def send(self, request: Request[Any, Any, Any], chat: FromPath[str]) -> Response[Any]:
        """Store a message and (unless ``reply`` is false) answer it."""
        state: WebState = request.app.state.web
        body: SendMessage = decode_body(await request.body(), SendMessage)
        chat_id = qualify_id(chat, what="chat")
        user = qualify_id(body.user, what="user")
        now = state.clock.now()
        sent_at = now if body.sent_at is None else check_sent_at(body.sent_at, now)
        name = (body.name or user.split(":", 1)[1]).strip()[:64] or "someone"
        message = incoming(chat_id, user, name, body.text, sent_at)
        accepted = await state.service.accept(message, body.persona or "default", reply=body.reply)
        if not body.reply:
            async for _ in accepted.events:
                pass
            return Response(
                ChatReply(turn=None, reply=None, context=EMPTY_CONTEXT, message=accepted.message.id)
            )
        return await reply_of(accepted.events)

    @post("/{chat:str}/turns/{turn:str}/regenerate", status_code=200)
    async def regenerate(
        self, request: Request[Any, Any, Any], chat: FromPath[str], turn: FromPath[str]
    ) -> Response[Any]:
        """Answer the latest turn's message again (MEM-7 applies)."""
        state: WebState = request.app.state.web
        events = await state.service.regenerate(qualify_id(chat, what="chat"), turn)
        return await reply_of(events)

    @get("/{chat:str}/turns/{turn:str}")
    async def turn(
        self, request: Request[Any, Any, Any], chat: FromPath[str], turn: FromPath[str]
    ) -> TurnView:
        """A turn's request log (PRM-3)."""
        state: WebState = request.app.state.web
        found_turn, found_log = await state.service.turn(qualify_id(chat, what="chat"), turn)
        return TurnView(turn=found_turn.id, status=found_turn.status, request=found_log)

    @get("/{chat:str}/messages")
    async def messages(
        self,
        request: Request[Any, Any, Any],
        chat: FromPath[str],
        limit: Annotated[int, QueryParameter(ge=1, le=500)] = 100,
    ) -> dict[str, Any]:
        """The chat's newest messages, oldest first."""
        state: WebState = request.app.state.web
        found = await state.service.chats.history(qualify_id(chat, what="chat"), limit)
        return {"messages": [msgspec.to_builtins(m) for m in found]}
