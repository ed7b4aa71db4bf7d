"""Conversation summary tiers over REST (SUM-4, API.md ``GET /api/chats/{chat}/summary``).

What happens is ``adapters.web.actions.summary``, shared with the browser's view (``app_summary``).
"""

from __future__ import annotations

from litestar import get, post, put
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from adapters.web.actions import summary as act
from adapters.web.layers import operator_route
from adapters.web.schemas.summary import ApiSummary, ApiTierEdited, DeepReports, Rebuilt, TierEdit
from adapters.web.state import WebState
from engine.validate import qualify_id

__all__ = ["deep_reports", "edit_summary", "read_summary", "rebuild_summary"]


@operator_route(get, "/api/chats/{chat:str}/summary", tags=["summaries"])
async def read_summary(web: NamedDependency[WebState], chat: FromPath[str]) -> ApiSummary:
    """The chat's recent, merged and long-term tiers (oldest first) and the unsummarized count."""
    state, waiting = await act.read_tiers(web, qualify_id(chat, what="chat"))
    return ApiSummary(
        recent=list(state.level("recent")),
        merged=list(state.level("merged")),
        long_term=list(state.level("long_term")),
        unsummarized=waiting,
    )


@operator_route(put, "/api/chats/{chat:str}/summary/{tier:str}", tags=["summaries"])
async def edit_summary(
    web: NamedDependency[WebState], chat: FromPath[str], tier: FromPath[str], data: JSONBody[TierEdit]
) -> ApiTierEdited:
    """A person rewrites one tier."""
    chat_id = qualify_id(chat, what="chat")
    return ApiTierEdited(tier=await act.edit_tier(web, chat_id, tier, data.text, within_limit=False))


@operator_route(post, "/api/chats/{chat:str}/summary/rebuild", tags=["summaries"], status_code=202)
async def rebuild_summary(web: NamedDependency[WebState], chat: FromPath[str]) -> Rebuilt:
    """Drop the tiers and summarize the chat again in the background."""
    return await act.rebuild(web, qualify_id(chat, what="chat"))


@operator_route(get, "/api/chats/{chat:str}/deep-reports", tags=["summaries"])
async def deep_reports(web: NamedDependency[WebState], chat: FromPath[str]) -> DeepReports:
    """What the deep memory passes of this chat did, newest first (DEEP-1..4)."""
    store = act.summary_desk(web).store
    reports = await store.reports(qualify_id(chat, what="chat"))
    return DeepReports(reports=list(reports))
