"""Conversation summary tiers over REST (SUM-4, API.md ``GET /api/chats/{chat}/summary``)."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request, get, post, put
from litestar.params import FromPath

from adapters.web.api import admin_guard, decode_body
from adapters.web.state import WebState
from engine.errors import InvalidInput
from engine.service.summaries import SummaryDesk
from engine.summary import Tier
from engine.validate import qualify_id

__all__ = ["deep_reports", "edit_summary", "read_summary", "rebuild_summary"]


class EditTier(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``PUT /api/chats/{chat}/summary/{tier}``."""

    text: str


def _desk(request: Request[Any, Any, Any]) -> SummaryDesk:
    state: WebState = request.app.state.web
    if state.service.summaries is None:
        raise InvalidInput("Summaries are not configured in this deployment.", code="summaries_unavailable")
    return state.service.summaries


def _view(tier: Tier) -> dict[str, Any]:
    return msgspec.to_builtins(tier)  # type: ignore[no-any-return]


@get("/api/chats/{chat:str}/summary", guards=[admin_guard], tags=["summaries"])
async def read_summary(request: Request[Any, Any, Any], chat: FromPath[str]) -> dict[str, Any]:
    """The chat's recent, merged and long-term tiers (oldest first) and the unsummarized count."""
    state, waiting = await _desk(request).view(qualify_id(chat, what="chat"))
    return {
        "recent": [_view(t) for t in state.level("recent")],
        "merged": [_view(t) for t in state.level("merged")],
        "long_term": [_view(t) for t in state.level("long_term")],
        "unsummarized": waiting,
    }


@put("/api/chats/{chat:str}/summary/{tier:str}", guards=[admin_guard], tags=["summaries"])
async def edit_summary(
    request: Request[Any, Any, Any], chat: FromPath[str], tier: FromPath[str]
) -> dict[str, Any]:
    """A person rewrites one tier."""
    body: EditTier = decode_body(await request.body(), EditTier)
    if not body.text.strip():
        raise InvalidInput("A summary cannot be empty.", code="summary_empty")
    edited = await _desk(request).edit(qualify_id(chat, what="chat"), tier, body.text.strip())
    return {"tier": _view(edited)}


@post("/api/chats/{chat:str}/summary/rebuild", guards=[admin_guard], tags=["summaries"], status_code=202)
async def rebuild_summary(request: Request[Any, Any, Any], chat: FromPath[str]) -> dict[str, Any]:
    """Drop the tiers and summarize the chat again in the background."""
    chat_id = qualify_id(chat, what="chat")
    await _desk(request).rebuild(chat_id)
    return {"chat": chat_id, "queued": True}


@get("/api/chats/{chat:str}/deep-reports", guards=[admin_guard], tags=["summaries"])
async def deep_reports(request: Request[Any, Any, Any], chat: FromPath[str]) -> dict[str, Any]:
    """What the deep memory passes of this chat did, newest first (DEEP-1..4)."""
    reports = await _desk(request).store.reports(qualify_id(chat, what="chat"))  # type: ignore[attr-defined]
    return {"reports": [msgspec.to_builtins(r) for r in reports]}
