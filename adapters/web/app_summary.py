"""The conversation-memory view's endpoints: one of the visitor's chats' summary tiers (SUM-4).

- ``GET  /app/chats/{chat}/summary``                the recent, merged and long-term tiers (each
  oldest first), how many messages left the window without being summarized yet, and the
  longest text a tier may hold;
- ``PUT  /app/chats/{chat}/summary/{tier}``         a person rewrites one tier (``{"text"}``);
- ``POST /app/chats/{chat}/summary/rebuild``        drop the tiers and summarize again (202).

Only the visitor's own chats (any room, any persona): another chat is ``403 not_your_chat``.
A guest's chat is theirs too — its summaries shape the replies they get — so guests may read and
correct them (nothing personal is kept in them beyond the chat itself). The PUT and POST pass
the ``/app`` router's CSRF guard. What happens is ``adapters.web.actions.summary``, shared with
the operator API (``adapters/web/summary_api.py``).
"""

from __future__ import annotations

from litestar import Router, get, post, put
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from adapters.web.actions import summary as act
from adapters.web.app_auth import owned_chat
from adapters.web.layers import BODY_DTO, browser_guards, web_dependency
from adapters.web.schemas.summary import ChatSummary, PanelTier, PanelTierEdited, Rebuilt, TierEdit
from adapters.web.session import BrowserSession
from adapters.web.state import WebState
from engine.summary import Tier

__all__ = ["LEVELS", "SUMMARY_ROUTES", "tier_view"]

LEVELS = act.LEVELS


def tier_view(tier: Tier) -> PanelTier:
    """One tier as the page shows it: id, level, text, how many messages it covers, marks."""
    return PanelTier(
        id=tier.id,
        level=tier.level,
        text=tier.text,
        messages=tier.messages,
        created_at=tier.created_at.isoformat(),
        edited=tier.edited,
        offline=tier.offline,
    )


@get("/chats/{chat:str}/summary")
async def read_chat_summary(
    web: NamedDependency[WebState], visitor: NamedDependency[BrowserSession], chat: FromPath[str]
) -> ChatSummary:
    """The chat's tiers by level (oldest first) and the count of messages not yet summarized."""
    chat_id = owned_chat(visitor, chat)
    state, waiting = await act.read_tiers(web, chat_id)
    return ChatSummary(
        chat=chat_id,
        recent=[tier_view(t) for t in state.level("recent")],
        merged=[tier_view(t) for t in state.level("merged")],
        long_term=[tier_view(t) for t in state.level("long_term")],
        unsummarized=waiting,
        max_chars=act.summary_desk(web).policy.max_chars,
        chunk=act.summary_desk(web).policy.chunk_messages,
    )


@put("/chats/{chat:str}/summary/{tier:str}")
async def edit_chat_summary(
    web: NamedDependency[WebState],
    visitor: NamedDependency[BrowserSession],
    chat: FromPath[str],
    tier: FromPath[str],
    data: JSONBody[TierEdit],
) -> PanelTierEdited:
    """A person rewrites one tier of their chat (it is marked edited)."""
    chat_id = owned_chat(visitor, chat)
    return PanelTierEdited(
        tier=tier_view(await act.edit_tier(web, chat_id, tier, data.text, within_limit=True))
    )


@post("/chats/{chat:str}/summary/rebuild", status_code=202)
async def rebuild_chat_summary(
    web: NamedDependency[WebState], visitor: NamedDependency[BrowserSession], chat: FromPath[str]
) -> Rebuilt:
    """Drop the chat's tiers and summarize it again in the background (the worker does it)."""
    return await act.rebuild(web, owned_chat(visitor, chat))


SUMMARY_ROUTES = [
    Router(
        path="/",
        route_handlers=[read_chat_summary, edit_chat_summary, rebuild_chat_summary],
        guards=browser_guards(),
        dependencies=web_dependency(),
        dto=BODY_DTO,
        return_dto=None,
        tags=["summaries"],
    )
]
"""The conversation-memory view's routes, for the ``/app`` router."""
