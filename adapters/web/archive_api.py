"""The episodic archive over REST (EPI-1..13): pages, scores, versions, reads, feedback, search.

- ``GET /api/chats/{chat}/archive`` — the chat's pages with score, status and versions.
- ``GET /api/archive/pages/{id}`` — one page with its version chain; opening it is a read.
- ``POST /api/archive/pages/{id}/feedback`` ``{"kind": "stale"|"wrong"}`` (EPI-3).
- ``POST /api/archive/pages/{id}/restore`` ``{"version": n}`` (EPI-11).
- ``POST /api/archive/search`` ``{"chat", "query", "pin_first"?, "include_related"?,
  "include_superseded"?, "answer"?, "reasoning"?}`` — results best first; every page returned
  gets one read (EPI-13). ``reasoning`` (minimal..max) bounds results, hops and the answer's
  tokens (``engine.archive.answer``); ``answer`` adds a short answer citing returned pages, or
  ``answer_unavailable`` saying why there is none (no LLM).
- ``GET /api/archive/status?chat=`` — which persona and space a query resolves to (EPI-13).
- ``GET /api/archive/dream-reports`` — the newest dream-pass reports, newest first (EPI-10).
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec
from litestar import Request, get, post
from litestar.params import FromPath, FromQuery

from adapters.web.api import admin_guard, decode_body
from engine.archive import MAX_HOPS, Page, QueryOptions, retention_score
from engine.archive.answer import Reasoning, reasoning_budget
from engine.errors import InvalidInput
from engine.service.archive import ArchiveDesk, FoundPage
from engine.service.archive_answer import ArchiveAnswerer
from engine.validate import qualify_id

__all__ = [
    "ARCHIVE_ROUTES",
    "archive_pages",
    "archive_search",
    "archive_status",
    "dream_reports",
    "page_feedback",
    "read_page",
    "restore_version",
]


class FeedbackBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /api/archive/pages/{id}/feedback``."""

    kind: Literal["stale", "wrong"]
    by: str | None = None


class RestoreBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /api/archive/pages/{id}/restore``."""

    version: int


class SearchBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /api/archive/search``."""

    chat: str
    query: str
    pin_first: bool = False
    include_related: bool = False
    include_superseded: bool = False
    limit: int | None = None
    answer: bool = False
    reasoning: Reasoning | None = None


def _desk(request: Request[Any, Any, Any]) -> ArchiveDesk:
    desk: ArchiveDesk | None = getattr(request.app.state, "archive", None)
    if desk is None:
        raise InvalidInput("The archive is not configured in this deployment.", code="archive_unavailable")
    return desk


def _page_view(desk: ArchiveDesk, page: Page, *, low_entropy: bool | None = None) -> dict[str, Any]:
    score = retention_score(page, desk.now(), desk.policy)
    view = {
        "id": page.id,
        "chat": page.chat,
        "layer": page.layer,
        "status": page.status,
        "pinned": page.pinned,
        "abstract": page.abstract,
        "summary": page.summary,
        "keep": list(page.keep),
        "score": round(score, 4),
        "cold": score < desk.policy.cold_below,
        "salience": page.salience,
        "reads": page.read_count,
        "last_read_at": page.last_read_at,
        "created_at": page.created_at,
        "version": page.version,
        "versions": page.version,
        "superseded_by": page.superseded_by,
        "evicted_at": page.evicted_at,
        "feedback": [msgspec.to_builtins(f) for f in page.feedback],
    }
    if low_entropy is not None:
        view["low_entropy"] = low_entropy
    return msgspec.to_builtins(view)  # type: ignore[no-any-return]


def _full_view(desk: ArchiveDesk, page: Page) -> dict[str, Any]:
    return {
        **_page_view(desk, page),
        "body": page.body,
        "merged_from": list(page.merged_from),
        "links": list(page.links),
        "history": msgspec.to_builtins(page.versions),
    }


def _found_view(desk: ArchiveDesk, found: FoundPage) -> dict[str, Any]:
    item = msgspec.to_builtins(found.item)
    item["relevance"] = found.relevance
    item["page"] = _page_view(desk, found.page) if found.page is not None else None
    return item  # type: ignore[no-any-return]


@get("/api/chats/{chat:str}/archive", guards=[admin_guard], tags=["archive"])
async def archive_pages(request: Request[Any, Any, Any], chat: FromPath[str]) -> dict[str, Any]:
    """The chat's archive pages, oldest first, with score, status and version count."""
    desk = _desk(request)
    chat_id = qualify_id(chat, what="chat")
    pages = await desk.pages(chat_id)
    return {"chat": chat_id, "pages": [_page_view(desk, p, low_entropy=low) for p, _, low in pages]}


@get("/api/archive/pages/{page_id:str}", guards=[admin_guard], tags=["archive"])
async def read_page(request: Request[Any, Any, Any], page_id: FromPath[str]) -> dict[str, Any]:
    """One page with its body and version chain; opening it counts as a read (EPI-2)."""
    desk = _desk(request)
    return {"page": _full_view(desk, await desk.read(page_id))}


@post("/api/archive/pages/{page_id:str}/feedback", guards=[admin_guard], tags=["archive"], status_code=200)
async def page_feedback(request: Request[Any, Any, Any], page_id: FromPath[str]) -> dict[str, Any]:
    """``stale`` or ``wrong``: the page drops to the lowest salience (EPI-3)."""
    body: FeedbackBody = decode_body(await request.body(), FeedbackBody)
    desk = _desk(request)
    return {"page": _page_view(desk, await desk.feedback(page_id, body.kind, body.by))}


@post("/api/archive/pages/{page_id:str}/restore", guards=[admin_guard], tags=["archive"], status_code=200)
async def restore_version(request: Request[Any, Any, Any], page_id: FromPath[str]) -> dict[str, Any]:
    """Bring back an earlier version's exact text as a new version (EPI-11)."""
    body: RestoreBody = decode_body(await request.body(), RestoreBody)
    desk = _desk(request)
    return {"page": _full_view(desk, await desk.restore(page_id, body.version))}


@post("/api/archive/search", guards=[admin_guard], tags=["archive"], status_code=200)
async def archive_search(request: Request[Any, Any, Any]) -> dict[str, Any]:
    """Search a chat's pages with the EPI-13 options; every page returned gets one read."""
    body: SearchBody = decode_body(await request.body(), SearchBody)
    if not body.query.strip():
        raise InvalidInput("A search needs a non-empty query.", code="empty_query")
    if body.limit is not None and not 1 <= body.limit <= 50:
        raise InvalidInput("limit must be between 1 and 50.", code="invalid_limit")
    desk = _desk(request)
    budget = reasoning_budget(body.reasoning) if body.reasoning else None
    options = QueryOptions(
        pin_first=body.pin_first,
        include_related=body.include_related,
        related_hops=budget.hops if budget else MAX_HOPS,
        include_superseded=body.include_superseded,
    )
    limit = body.limit or (budget.results if budget else None)
    found = await desk.search(qualify_id(body.chat, what="chat"), body.query, options, limit)
    view: dict[str, Any] = {
        "status": msgspec.to_builtins(found.status),
        "reasoning": body.reasoning,
        "results": [_found_view(desk, f) for f in found.items],
    }
    if body.answer:
        state = request.app.state.web
        answerer = ArchiveAnswerer(model=state.service.model, default_model=state.settings.model)
        outcome = await answerer.answer(body.query, found, body.reasoning or "medium")
        view["answer"] = outcome.answer.text if outcome.answer else None
        view["citations"] = list(outcome.answer.citations) if outcome.answer else []
        view["stripped_citations"] = list(outcome.answer.stripped) if outcome.answer else []
        if outcome.unavailable:
            view["answer_unavailable"] = outcome.unavailable
    return view


@get("/api/archive/status", guards=[admin_guard], tags=["archive"])
async def archive_status(request: Request[Any, Any, Any], chat: FromQuery[str]) -> dict[str, Any]:
    """Which persona and space a query on ``chat`` resolves to, and how (EPI-13)."""
    status = await _desk(request).status(qualify_id(chat, what="chat"))
    return {"status": msgspec.to_builtins(status)}


@get("/api/archive/dream-reports", guards=[admin_guard], tags=["archive"])
async def dream_reports(request: Request[Any, Any, Any]) -> dict[str, Any]:
    """The newest dream-pass reports (up to 50), newest first: merged, rejected, or why skipped."""
    reports = await _desk(request).store.dream_reports()  # type: ignore[attr-defined]
    return {"reports": msgspec.to_builtins(reports)}


ARCHIVE_ROUTES = [
    archive_pages,
    read_page,
    page_feedback,
    restore_version,
    archive_search,
    archive_status,
    dream_reports,
]
"""Every archive route, for ``create_app``'s ``route_handlers``."""
