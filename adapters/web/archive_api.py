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

import msgspec
from litestar import Router, get, post
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath, FromQuery, JSONBody

from adapters.web.layers import BODY_DTO, operator_guards, web_dependency
from adapters.web.schemas.archive import (
    ArchivePages,
    DreamReports,
    FeedbackBody,
    FoundView,
    FullPage,
    OneFullPage,
    OnePage,
    PageView,
    RestoreBody,
    SearchAnswer,
    SearchBody,
    StatusView,
)
from adapters.web.state import WebState
from engine.archive import MAX_HOPS, Page, QueryOptions, retention_score
from engine.archive.answer import reasoning_budget
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
    "provide_archive",
    "read_page",
    "restore_version",
]


def provide_archive(state: State) -> ArchiveDesk | None:
    """The ``archive`` dependency: the archive desk, ``None`` where it is not configured."""
    desk: ArchiveDesk | None = getattr(state, "archive", None)
    return desk


def _desk(archive: ArchiveDesk | None) -> ArchiveDesk:
    if archive is None:
        raise InvalidInput("The archive is not configured in this deployment.", code="archive_unavailable")
    return archive


def _page_view(desk: ArchiveDesk, page: Page, *, low_entropy: bool | None = None) -> PageView:
    score = retention_score(page, desk.now(), desk.policy)
    return PageView(
        id=page.id,
        chat=page.chat,
        layer=page.layer,
        status=page.status,
        pinned=page.pinned,
        abstract=page.abstract,
        summary=page.summary,
        keep=list(page.keep),
        score=round(score, 4),
        cold=score < desk.policy.cold_below,
        salience=page.salience,
        reads=page.read_count,
        last_read_at=page.last_read_at,
        created_at=page.created_at,
        version=page.version,
        versions=page.version,
        superseded_by=page.superseded_by,
        evicted_at=page.evicted_at,
        feedback=list(page.feedback),
        low_entropy=msgspec.UNSET if low_entropy is None else low_entropy,
    )


def _full_view(desk: ArchiveDesk, page: Page) -> FullPage:
    return FullPage(
        **msgspec.structs.asdict(_page_view(desk, page)),
        body=page.body,
        merged_from=list(page.merged_from),
        links=list(page.links),
        history=list(page.versions),
    )


def _found_view(desk: ArchiveDesk, found: FoundPage) -> FoundView:
    return FoundView(
        **msgspec.structs.asdict(found.item),
        relevance=found.relevance,
        page=_page_view(desk, found.page) if found.page is not None else None,
    )


@get("/chats/{chat:str}/archive")
async def archive_pages(archive: NamedDependency[ArchiveDesk | None], chat: FromPath[str]) -> ArchivePages:
    """The chat's archive pages, oldest first, with score, status and version count."""
    desk = _desk(archive)
    chat_id = qualify_id(chat, what="chat")
    pages = await desk.pages(chat_id)
    return ArchivePages(chat=chat_id, pages=[_page_view(desk, p, low_entropy=low) for p, _, low in pages])


@get("/archive/pages/{page_id:str}")
async def read_page(archive: NamedDependency[ArchiveDesk | None], page_id: FromPath[str]) -> OneFullPage:
    """One page with its body and version chain; opening it counts as a read (EPI-2)."""
    desk = _desk(archive)
    return OneFullPage(page=_full_view(desk, await desk.read(page_id)))


@post("/archive/pages/{page_id:str}/feedback", status_code=200)
async def page_feedback(
    archive: NamedDependency[ArchiveDesk | None], page_id: FromPath[str], data: JSONBody[FeedbackBody]
) -> OnePage:
    """``stale`` or ``wrong``: the page drops to the lowest salience (EPI-3)."""
    desk = _desk(archive)
    return OnePage(page=_page_view(desk, await desk.feedback(page_id, data.kind, data.by)))


@post("/archive/pages/{page_id:str}/restore", status_code=200)
async def restore_version(
    archive: NamedDependency[ArchiveDesk | None], page_id: FromPath[str], data: JSONBody[RestoreBody]
) -> OneFullPage:
    """Bring back an earlier version's exact text as a new version (EPI-11)."""
    desk = _desk(archive)
    return OneFullPage(page=_full_view(desk, await desk.restore(page_id, data.version)))


@post("/archive/search", status_code=200)
async def archive_search(
    web: NamedDependency[WebState], archive: NamedDependency[ArchiveDesk | None], data: JSONBody[SearchBody]
) -> SearchAnswer:
    """Search a chat's pages with the EPI-13 options; every page returned gets one read."""
    if not data.query.strip():
        raise InvalidInput("A search needs a non-empty query.", code="empty_query")
    if data.limit is not None and not 1 <= data.limit <= 50:
        raise InvalidInput("limit must be between 1 and 50.", code="invalid_limit")
    desk = _desk(archive)
    budget = reasoning_budget(data.reasoning) if data.reasoning else None
    options = QueryOptions(
        pin_first=data.pin_first,
        include_related=data.include_related,
        related_hops=budget.hops if budget else MAX_HOPS,
        include_superseded=data.include_superseded,
    )
    limit = data.limit or (budget.results if budget else None)
    found = await desk.search(qualify_id(data.chat, what="chat"), data.query, options, limit)
    results = SearchAnswer(
        status=found.status, reasoning=data.reasoning, results=[_found_view(desk, f) for f in found.items]
    )
    if not data.answer:
        return results
    answerer = ArchiveAnswerer(model=web.service.model, default_model=web.settings.model)
    outcome = await answerer.answer(data.query, found, data.reasoning or "medium")
    answer = outcome.answer
    return msgspec.structs.replace(
        results,
        answer=answer.text if answer else None,
        citations=list(answer.citations) if answer else [],
        stripped_citations=list(answer.stripped) if answer else [],
        answer_unavailable=outcome.unavailable or msgspec.UNSET,
    )


@get("/archive/status")
async def archive_status(archive: NamedDependency[ArchiveDesk | None], chat: FromQuery[str]) -> StatusView:
    """Which persona and space a query on ``chat`` resolves to, and how (EPI-13)."""
    return StatusView(status=await _desk(archive).status(qualify_id(chat, what="chat")))


@get("/archive/dream-reports")
async def dream_reports(archive: NamedDependency[ArchiveDesk | None]) -> DreamReports:
    """The newest dream-pass reports (up to 50), newest first: merged, rejected, or why skipped."""
    reports = await _desk(archive).store.dream_reports()
    return DreamReports(reports=list(reports))


ARCHIVE_ROUTES = [
    Router(
        path="/api",
        route_handlers=[
            archive_pages,
            read_page,
            page_feedback,
            restore_version,
            archive_search,
            archive_status,
            dream_reports,
        ],
        guards=operator_guards(),
        dependencies={**web_dependency(), "archive": Provide(provide_archive, sync_to_thread=False)},
        dto=BODY_DTO,
        return_dto=None,
        tags=["archive"],
    )
]
"""Every archive route, for ``create_app``'s ``route_handlers``."""
