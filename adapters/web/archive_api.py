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
- ``PUT|DELETE /api/chats/{chat}/archive/pages/{id}/pin`` — pin or unpin a page of the chat:
  exempt from every sweep, first with ``pin_first`` and in every turn's briefing (EPI-1, 13).
- ``GET /api/chats/{chat}/archive/notes`` — the running session's working notes (EPI-1).
- ``POST /api/chats/{chat}/archive/notes`` ``{"text"}`` — add one (201); it ends with the session.
- ``POST /api/archive/explore`` ``{"chat", "query", "reasoning"?}`` — read outward from the
  query through links within the ``reasoning`` budget; every page read gets one read (EPI-2, 13).
- ``GET /api/archive/status?chat=`` — which persona and space a query resolves to (EPI-13).
- ``GET /api/archive/dream-reports`` — the newest dream-pass reports, newest first (EPI-10).
"""

from __future__ import annotations

import msgspec
from litestar import Router, delete, get, post, put
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath, FromQuery, JSONBody

from adapters.web.layers import BODY_DTO, operator_guards, web_dependency
from adapters.web.schemas.archive import (
    ArchivePages,
    DreamReports,
    ExploreAnswer,
    ExploreBody,
    ExploredPage,
    FeedbackBody,
    FoundView,
    FullPage,
    NoteBody,
    Notes,
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
from engine.archive.answer import Reasoning, reasoning_budget
from engine.errors import InvalidInput
from engine.service.archive import ArchiveDesk, Explored, FoundPage
from engine.service.archive_answer import ArchiveAnswerer
from engine.validate import qualify_id

__all__ = [
    "ARCHIVE_ROUTES",
    "add_note",
    "archive_explore",
    "archive_pages",
    "archive_search",
    "archive_status",
    "desk_of",
    "dream_reports",
    "explored_view",
    "page_feedback",
    "page_view",
    "pin_page",
    "provide_archive",
    "read_page",
    "restore_version",
    "session_notes",
    "set_pin",
    "unpin_page",
]


def provide_archive(state: State) -> ArchiveDesk | None:
    """The ``archive`` dependency: the archive desk, ``None`` where it is not configured."""
    desk: ArchiveDesk | None = getattr(state, "archive", None)
    return desk


def desk_of(archive: ArchiveDesk | None) -> ArchiveDesk:
    """The archive desk, or ``400 archive_unavailable`` where it is not configured."""
    if archive is None:
        raise InvalidInput("The archive is not configured in this deployment.", code="archive_unavailable")
    return archive


def page_view(desk: ArchiveDesk, page: Page, *, low_entropy: bool | None = None) -> PageView:
    """A page as the API shows it, with its retention score now."""
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
        author=page.author,
    )


def _full_view(desk: ArchiveDesk, page: Page) -> FullPage:
    return FullPage(
        **msgspec.structs.asdict(page_view(desk, page)),
        body=page.body,
        merged_from=list(page.merged_from),
        links=list(page.links),
        history=list(page.versions),
        notes=list(page.notes),
    )


def _found_view(desk: ArchiveDesk, found: FoundPage) -> FoundView:
    return FoundView(
        **msgspec.structs.asdict(found.item),
        relevance=found.relevance,
        page=page_view(desk, found.page) if found.page is not None else None,
    )


@get("/chats/{chat:str}/archive")
async def archive_pages(archive: NamedDependency[ArchiveDesk | None], chat: FromPath[str]) -> ArchivePages:
    """The chat's archive pages, oldest first, with score, status and version count."""
    desk = desk_of(archive)
    chat_id = qualify_id(chat, what="chat")
    pages = await desk.pages(chat_id)
    return ArchivePages(chat=chat_id, pages=[page_view(desk, p, low_entropy=low) for p, _, low in pages])


@get("/archive/pages/{page_id:str}")
async def read_page(archive: NamedDependency[ArchiveDesk | None], page_id: FromPath[str]) -> OneFullPage:
    """One page with its body and version chain; opening it counts as a read (EPI-2)."""
    desk = desk_of(archive)
    return OneFullPage(page=_full_view(desk, await desk.read(page_id)))


@post("/archive/pages/{page_id:str}/feedback", status_code=200)
async def page_feedback(
    archive: NamedDependency[ArchiveDesk | None], page_id: FromPath[str], data: JSONBody[FeedbackBody]
) -> OnePage:
    """``stale`` or ``wrong``: the page drops to the lowest salience (EPI-3)."""
    desk = desk_of(archive)
    return OnePage(page=page_view(desk, await desk.feedback(page_id, data.kind, data.by)))


@post("/archive/pages/{page_id:str}/restore", status_code=200)
async def restore_version(
    archive: NamedDependency[ArchiveDesk | None], page_id: FromPath[str], data: JSONBody[RestoreBody]
) -> OneFullPage:
    """Bring back an earlier version's exact text as a new version (EPI-11)."""
    desk = desk_of(archive)
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
    desk = desk_of(archive)
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


async def set_pin(archive: ArchiveDesk | None, chat: str, page_id: str, pinned: bool) -> OnePage:
    """Pin or unpin a page of ``chat`` (a qualified id) and show it (EPI-1, EPI-13)."""
    desk = desk_of(archive)
    return OnePage(page=page_view(desk, await desk.pin(chat, page_id, pinned)))


@put("/chats/{chat:str}/archive/pages/{page_id:str}/pin", status_code=200)
async def pin_page(
    archive: NamedDependency[ArchiveDesk | None], chat: FromPath[str], page_id: FromPath[str]
) -> OnePage:
    """Pin a page of the chat: never swept, first with ``pin_first``, in every briefing (EPI-1)."""
    return await set_pin(archive, qualify_id(chat, what="chat"), page_id, True)


@delete("/chats/{chat:str}/archive/pages/{page_id:str}/pin", status_code=200)
async def unpin_page(
    archive: NamedDependency[ArchiveDesk | None], chat: FromPath[str], page_id: FromPath[str]
) -> OnePage:
    """Unpin a page of the chat: the sweep scores it again (EPI-2)."""
    return await set_pin(archive, qualify_id(chat, what="chat"), page_id, False)


@get("/chats/{chat:str}/archive/notes")
async def session_notes(archive: NamedDependency[ArchiveDesk | None], chat: FromPath[str]) -> Notes:
    """The working notes of the chat's running session, oldest first (EPI-1)."""
    desk = desk_of(archive)
    chat_id = qualify_id(chat, what="chat")
    return Notes(chat=chat_id, notes=[page_view(desk, p) for p in await desk.notes(chat_id)])


@post("/chats/{chat:str}/archive/notes", status_code=201)
async def add_note(
    archive: NamedDependency[ArchiveDesk | None], chat: FromPath[str], data: JSONBody[NoteBody]
) -> OnePage:
    """Add a working note to the running session: in the prompt until the session ends (EPI-1)."""
    desk = desk_of(archive)
    note = await desk.add_note(qualify_id(chat, what="chat"), data.text, author="operator")
    return OnePage(page=page_view(desk, note))


def explored_view(desk: ArchiveDesk, found: Explored, reasoning: Reasoning) -> ExploreAnswer:
    """What explore read, as the API shows it."""
    plan = found.exploration
    return ExploreAnswer(
        status=found.status,
        reasoning=reasoning,
        budget_tokens=plan.budget,
        spent_tokens=plan.spent,
        stopped=plan.stopped,
        pages=[
            ExploredPage(
                id=s.id, hops=s.hops, via=s.via, tokens=s.tokens, page=page_view(desk, found.pages[s.id])
            )
            for s in plan.steps
        ],
    )


@post("/archive/explore", status_code=200)
async def archive_explore(
    archive: NamedDependency[ArchiveDesk | None], data: JSONBody[ExploreBody]
) -> ExploreAnswer:
    """Explore a chat's pages from a query within the ``reasoning`` budget; reads count (EPI-2)."""
    if not data.query.strip():
        raise InvalidInput("Explore needs a non-empty query.", code="empty_query")
    desk = desk_of(archive)
    found = await desk.explore(qualify_id(data.chat, what="chat"), data.query, data.reasoning)
    return explored_view(desk, found, data.reasoning)


@get("/archive/status")
async def archive_status(archive: NamedDependency[ArchiveDesk | None], chat: FromQuery[str]) -> StatusView:
    """Which persona and space a query on ``chat`` resolves to, and how (EPI-13)."""
    return StatusView(status=await desk_of(archive).status(qualify_id(chat, what="chat")))


@get("/archive/dream-reports")
async def dream_reports(archive: NamedDependency[ArchiveDesk | None]) -> DreamReports:
    """The newest dream-pass reports (up to 50), newest first: merged, rejected, or why skipped."""
    reports = await desk_of(archive).store.dream_reports()
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
            pin_page,
            unpin_page,
            session_notes,
            add_note,
            archive_explore,
        ],
        guards=operator_guards(),
        dependencies={**web_dependency(), "archive": Provide(provide_archive, sync_to_thread=False)},
        dto=BODY_DTO,
        return_dto=None,
        tags=["archive"],
    )
]
"""Every archive route, for ``create_app``'s ``route_handlers``."""
