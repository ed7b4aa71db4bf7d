"""The operator REST API (API.md): chats and turns. Handlers translate; the service acts."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from typing import Annotated, Any

import msgspec
from litestar import Controller, Response, get, post, put
from litestar.connection import ASGIConnection
from litestar.di import Provide
from litestar.handlers.base import BaseRouteHandler
from litestar.openapi import ResponseSpec
from litestar.params import FromPath, FromQuery, JSONBody, QueryParameter, RawBody

from adapters.cards.jsondoc import check_json_depth
from adapters.web.actions.chat import (
    Author,
    answer_last,
    chat_settings,
    final_event,
    history,
    put_chat_settings,
    regenerate,
    say,
    stored_only,
    turn_view,
)
from adapters.web.actions.chatfiles import export_chat, import_chat, read_file
from adapters.web.deps import provide_web
from adapters.web.errors import Refused
from adapters.web.limits import ChatLimited, Ticket
from adapters.web.params import Web
from adapters.web.schemas.chat import (
    ChatReply,
    ChatSettingsBody,
    ChatSettingsView,
    ErrorBody,
    ImportedChat,
    MessageList,
    SendMessage,
    TurnView,
)
from adapters.web.state import WebState
from engine.errors import InvalidInput, Unauthorized
from engine.service import ReplyDone, ReplyEvent, ReplyFailed
from engine.validate import qualify_id

__all__ = ["ChatController", "admin_guard", "decode_body"]


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
    scheme, _sep, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token:
        raise Unauthorized("Send the admin token as 'Authorization: Bearer <HEARTH_ADMIN_TOKEN>'.")
    if not state.check_admin(token.strip()):
        raise Unauthorized("The admin token is wrong.")


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


async def _answered(events: AsyncIterator[ReplyEvent]) -> ChatReply:
    """A turn's REST reply, or 502 with the error (and the turn) when the model failed."""
    final = await final_event(events)
    if isinstance(final, ReplyDone):
        return ChatReply(turn=final.turn, reply=final.reply, context=final.context, notices=final.notices)
    if isinstance(final, ReplyFailed):
        raise Refused(502, final.code, final.message, turn=final.turn)
    raise Refused(502, "not_answered", "No reply was produced.")


async def _admitted(web: WebState, user: str) -> Ticket:
    """The reply's slots under the user's chat limits, or 429 with ``Retry-After``."""
    try:
        return await web.api_limits.admit((f"user:{user}",), shared_key=f"api:bucket:user:{user}")
    except ChatLimited as exc:
        wait = str(exc.retry_after)
        raise Refused(
            429, exc.code, exc.message, headers={"Retry-After": wait}, retry_after=exc.retry_after
        ) from None


_FAILED = {
    502: ResponseSpec(data_container=ErrorBody, description="The model failed; the error names the turn"),
    429: ResponseSpec(
        data_container=ErrorBody,
        description="The user has too many replies running or messages this minute (Retry-After)",
    ),
}


class ChatController(Controller):
    """Chat endpoints: the operator names the chat and the user (API.md Chat)."""

    path = "/api/chats"
    guards = [admin_guard]  # noqa: RUF012
    dependencies = {"web": Provide(provide_web, sync_to_thread=False)}  # noqa: RUF012 - layers.py imports this module
    tags = ["chat"]  # noqa: RUF012

    @post("/{chat:str}/messages", status_code=200, responses=_FAILED)
    async def send(self, web: Web, chat: FromPath[str], data: JSONBody[SendMessage]) -> ChatReply:
        """Store a message with its pictures (``images``, at most 4 of 5 MB) and (unless ``reply``
        is false) answer it.

        A message that asks for a reply counts against the named user's chat limits
        (``adapters.web.limits``): beyond them 429 ``too_many_replies`` / ``too_many_messages``
        with ``Retry-After``, and nothing is stored.
        """
        chat_id = qualify_id(chat, what="chat")
        user = qualify_id(data.user, what="user")
        name = (data.name or user.split(":", 1)[1]).strip()[:64] or "someone"
        author = Author(user=user, name=name)
        persona = data.persona or "default"
        send = functools.partial(
            say,
            web,
            chat_id,
            author,
            data.text,
            persona,
            sent_at=data.sent_at,
            images=data.images,
            greeting=data.greeting,
        )
        if not data.reply:
            return await stored_only(await send(reply=False))
        with await _admitted(web, user):
            accepted = await send()
            return await _answered(accepted.events)

    @post("/{chat:str}/turns/{turn:str}/regenerate", status_code=200, responses=_FAILED)
    async def regenerate(self, web: Web, chat: FromPath[str], turn: FromPath[str]) -> ChatReply:
        """Answer the latest turn's message again (MEM-7 applies)."""
        return await _answered(await regenerate(web, qualify_id(chat, what="chat"), turn))

    @post("/{chat:str}/answer", status_code=200, responses=_FAILED)
    async def answer(self, web: Web, chat: FromPath[str]) -> ChatReply:
        """Answer the chat's last message when it is a person's message with no reply (its turn
        failed, or the process died mid-reply); 409 ``nothing_to_answer`` otherwise."""
        return await _answered(await answer_last(web, qualify_id(chat, what="chat")))

    @get("/{chat:str}/turns/{turn:str}")
    async def turn(self, web: Web, chat: FromPath[str], turn: FromPath[str]) -> TurnView:
        """A turn's request log (PRM-3)."""
        return await turn_view(web, qualify_id(chat, what="chat"), turn)

    @get("/{chat:str}/messages")
    async def messages(
        self, web: Web, chat: FromPath[str], limit: Annotated[int, QueryParameter(ge=1, le=500)] = 100
    ) -> MessageList:
        """The chat's newest messages, oldest first."""
        return await history(web, qualify_id(chat, what="chat"), limit)

    @get("/{chat:str}/settings")
    async def settings(self, web: Web, chat: FromPath[str]) -> ChatSettingsView:
        """The chat's settings: ``memory`` ``on`` or ``off`` (MEM-8)."""
        return await chat_settings(web, qualify_id(chat, what="chat"))

    @put("/{chat:str}/settings")
    async def put_settings(
        self, web: Web, chat: FromPath[str], data: JSONBody[ChatSettingsBody]
    ) -> ChatSettingsView:
        """Switch the chat's memory mode (MEM-8, DEEP-4); a chat not started yet starts in it.

        ``off``: its turns neither read nor write any memory list, the deep pass and the archive
        leave it alone and its request logs say ``memory: "off"``; ``on`` brings everything back.
        """
        return await put_chat_settings(web, qualify_id(chat, what="chat"), data)

    @get("/{chat:str}/export")
    async def export(
        self,
        web: Web,
        chat: FromPath[str],
        fmt: Annotated[str, QueryParameter(name="format")] = "st",
    ) -> Response[bytes]:
        """The chat as a file: ``format=st`` SillyTavern ``.jsonl`` (swipes, send dates) or
        ``format=hearth`` Hearth's JSON; 422 ``invalid_format`` otherwise."""
        return await export_chat(web, qualify_id(chat, what="chat"), fmt)

    @post("/{chat:str}/import", status_code=201)
    async def import_file(
        self,
        web: Web,
        chat: FromPath[str],
        body: RawBody,
        user: FromQuery[str],
        fmt: Annotated[str, QueryParameter(name="format")] = "st",
        persona: FromQuery[str] = "default",
    ) -> ImportedChat:
        """Write a chat file (the body) into a chat with no messages yet, as ``user`` talking
        with ``persona``: swipes and send dates are kept. A file that cannot be read is refused
        whole (422 naming the line); a chat that has messages is 409 ``chat_not_empty``."""
        chat_id, user_id = qualify_id(chat, what="chat"), qualify_id(user, what="user")
        file = read_file(web, body, fmt)
        done = await import_chat(web, chat_id, file, user=user_id, persona=persona)
        return ImportedChat(chat=done.chat, messages=done.messages, swipes=done.swipes, skipped=done.skipped)
