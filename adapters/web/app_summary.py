"""The conversation-memory view's endpoints: one of the visitor's chats' summary tiers (SUM-4).

- ``GET  /app/chats/{chat}/summary``                the recent, merged and long-term tiers (each
  oldest first), how many messages left the window without being summarized yet, and the
  longest text a tier may hold;
- ``PUT  /app/chats/{chat}/summary/{tier}``         a person rewrites one tier (``{"text"}``);
- ``POST /app/chats/{chat}/summary/rebuild``        drop the tiers and summarize again (202).

Only the visitor's own chats (any room, any persona): another chat is ``403 not_your_chat``.
A guest's chat is theirs too — its summaries shape the replies they get — so guests may read and
correct them (nothing personal is kept in them beyond the chat itself). The PUT and POST pass
the ``/app`` router's CSRF guard. Writes go through the ``SummaryDesk`` exactly as the operator
API's do (``adapters/web/summary_api.py``).
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request, get, post, put
from litestar.di import NamedDependency
from litestar.params import FromPath

from adapters.web.api import decode_body
from adapters.web.app_auth import owned_chat
from adapters.web.session import BrowserSession
from adapters.web.state import WebState
from engine.errors import InvalidInput
from engine.service.summaries import SummaryDesk
from engine.summary import Tier

__all__ = ["LEVELS", "SUMMARY_ROUTES", "tier_view"]

LEVELS = ("recent", "merged", "long_term")


class EditTierBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``PUT /app/chats/{chat}/summary/{tier}``."""

    text: str


def _desk(request: Request[Any, Any, Any]) -> SummaryDesk:
    state: WebState = request.app.state.web
    if state.service.summaries is None:
        raise InvalidInput("Summaries are not configured in this deployment.", code="summaries_unavailable")
    return state.service.summaries


def tier_view(tier: Tier) -> dict[str, Any]:
    """One tier as the page shows it: id, level, text, how many messages it covers, marks."""
    return {
        "id": tier.id,
        "level": tier.level,
        "text": tier.text,
        "messages": tier.messages,
        "created_at": tier.created_at.isoformat(),
        "edited": tier.edited,
        "offline": tier.offline,
    }


@get("/chats/{chat:str}/summary")
async def read_chat_summary(
    request: Request[Any, Any, Any], visitor: NamedDependency[BrowserSession], chat: FromPath[str]
) -> dict[str, Any]:
    """The chat's tiers by level (oldest first) and the count of messages not yet summarized."""
    chat_id = owned_chat(visitor, chat)
    desk = _desk(request)
    state, waiting = await desk.view(chat_id)
    return {
        "chat": chat_id,
        **{level: [tier_view(t) for t in state.level(level)] for level in LEVELS},
        "unsummarized": waiting,
        "max_chars": desk.policy.max_chars,
    }


@put("/chats/{chat:str}/summary/{tier:str}")
async def edit_chat_summary(
    request: Request[Any, Any, Any],
    visitor: NamedDependency[BrowserSession],
    chat: FromPath[str],
    tier: FromPath[str],
) -> dict[str, Any]:
    """A person rewrites one tier of their chat (it is marked edited)."""
    chat_id = owned_chat(visitor, chat)
    desk = _desk(request)
    body: EditTierBody = decode_body(await request.body(), EditTierBody)
    text = body.text.strip()
    if not text:
        raise InvalidInput("A summary cannot be empty.", code="summary_empty")
    if len(text) > desk.policy.max_chars:
        raise InvalidInput(
            f"The summary is {len(text):,} characters; the limit is {desk.policy.max_chars:,}.",
            code="summary_too_long",
        )
    return {"tier": tier_view(await desk.edit(chat_id, tier, text))}


@post("/chats/{chat:str}/summary/rebuild", status_code=202)
async def rebuild_chat_summary(
    request: Request[Any, Any, Any], visitor: NamedDependency[BrowserSession], chat: FromPath[str]
) -> dict[str, Any]:
    """Drop the chat's tiers and summarize it again in the background (the worker does it)."""
    chat_id = owned_chat(visitor, chat)
    await _desk(request).rebuild(chat_id)
    return {"chat": chat_id, "queued": True}


SUMMARY_ROUTES = [read_chat_summary, edit_chat_summary, rebuild_chat_summary]
