"""What the summary endpoints do, for the operator (``/api``) and the browser (``/app``) alike.

The routes pass an authorized chat id; each side shapes the tiers its own way
(``adapters.web.schemas.summary``). Writes go through the ``SummaryDesk`` (SUM-4).
"""

from __future__ import annotations

from adapters.web.schemas.summary import Rebuilt
from adapters.web.state import WebState
from engine.errors import InvalidInput
from engine.service.summaries import SummaryDesk
from engine.summary import SummaryState, Tier

__all__ = ["LEVELS", "edit_tier", "read_tiers", "rebuild", "summary_desk"]

LEVELS = ("recent", "merged", "long_term")


def summary_desk(web: WebState) -> SummaryDesk:
    """The summary desk, or 422 ``summaries_unavailable``."""
    if web.service.summaries is None:
        raise InvalidInput("Summaries are not configured in this deployment.", code="summaries_unavailable")
    return web.service.summaries


async def read_tiers(web: WebState, chat: str) -> tuple[SummaryState, int]:
    """The chat's tiers and how many messages left the window without being summarized yet."""
    return await summary_desk(web).view(chat)


async def edit_tier(web: WebState, chat: str, tier: str, text: str, *, within_limit: bool) -> Tier:
    """A person rewrites one tier (marked edited); ``within_limit``: refuse a text longer than a
    tier may hold (the browser's rule; the operator's edits are not bounded)."""
    text = text.strip()
    if not text:
        raise InvalidInput("A summary cannot be empty.", code="summary_empty")
    desk = summary_desk(web)
    if within_limit and len(text) > desk.policy.max_chars:
        raise InvalidInput(
            f"The summary is {len(text):,} characters; the limit is {desk.policy.max_chars:,}.",
            code="summary_too_long",
        )
    return await desk.edit(chat, tier, text)


async def rebuild(web: WebState, chat: str) -> Rebuilt:
    """Drop the tiers and summarize the chat again in the background (the worker does it)."""
    await summary_desk(web).rebuild(chat)
    return Rebuilt(chat=chat, queued=True)
