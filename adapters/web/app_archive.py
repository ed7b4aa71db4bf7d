"""The archive view's endpoints: one of the visitor's chats' earlier sessions and working notes.

- ``GET    /app/chats/{chat}/archive``                  the chat's session pages (oldest first,
  with score and pin), the running session's working notes and the view's limits;
- ``PUT    /app/chats/{chat}/archive/pages/{page}/pin`` pin a page (EPI-1, EPI-13): never swept,
  first with ``pin_first`` and in every turn's briefing; ``DELETE`` unpins it;
- ``POST   /app/chats/{chat}/archive/notes``            ``{"text"}``: a working note for the
  running session (201); it is in the prompt until the session ends (EPI-1).

Only the visitor's own chats: another chat is ``403 not_your_chat``, a page of another chat is
``404 page_not_found``. A guest's chat is theirs too (its archive is the chat's, nothing
personal). The PUT, DELETE and POST pass the ``/app`` router's CSRF guard. What happens is the
archive desk, as for the operator API (``adapters/web/archive_api.py``).
"""

from __future__ import annotations

from litestar import Router, delete, get, post, put
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath, JSONBody

from adapters.web.archive_api import desk_of, page_view, provide_archive, set_pin
from adapters.web.layers import BODY_DTO, browser_guards, web_dependency
from adapters.web.schemas.archive import ChatArchive, NoteBody, OnePage
from adapters.web.session import BrowserSession, owned_chat
from engine.archive import MAX_NOTE_CHARS, MAX_PINNED_FIRST, MAX_SESSION_NOTES
from engine.service.archive import ArchiveDesk

__all__ = ["ARCHIVE_VIEW_ROUTES"]


@get("/chats/{chat:str}/archive")
async def chat_archive(
    archive: NamedDependency[ArchiveDesk | None],
    visitor: NamedDependency[BrowserSession],
    chat: FromPath[str],
) -> ChatArchive:
    """The chat's session pages (and pinned notes) with score and pin, and the running
    session's working notes."""
    chat_id = owned_chat(visitor, chat)
    desk = desk_of(archive)
    pages = [
        page_view(desk, p, low_entropy=low)
        for p, _, low in await desk.pages(chat_id)
        if p.layer != "working" or p.pinned
    ]
    notes = [page_view(desk, p) for p in await desk.notes(chat_id)]
    return ChatArchive(
        chat=chat_id,
        pages=pages,
        notes=notes,
        note_chars=MAX_NOTE_CHARS,
        session_notes=MAX_SESSION_NOTES,
        pinned_first=MAX_PINNED_FIRST,
    )


_PIN = "/chats/{chat:str}/archive/pages/{page_id:str}/pin"


@put(_PIN, status_code=200)
async def pin_chat_page(
    archive: NamedDependency[ArchiveDesk | None],
    visitor: NamedDependency[BrowserSession],
    chat: FromPath[str],
    page_id: FromPath[str],
) -> OnePage:
    """Pin one of the chat's pages (EPI-1, EPI-13)."""
    return await set_pin(archive, owned_chat(visitor, chat), page_id, True)


@delete(_PIN, status_code=200)
async def unpin_chat_page(
    archive: NamedDependency[ArchiveDesk | None],
    visitor: NamedDependency[BrowserSession],
    chat: FromPath[str],
    page_id: FromPath[str],
) -> OnePage:
    """Unpin one of the chat's pages: the sweep scores it again (EPI-2)."""
    return await set_pin(archive, owned_chat(visitor, chat), page_id, False)


@post("/chats/{chat:str}/archive/notes", status_code=201)
async def add_chat_note(
    archive: NamedDependency[ArchiveDesk | None],
    visitor: NamedDependency[BrowserSession],
    chat: FromPath[str],
    data: JSONBody[NoteBody],
) -> OnePage:
    """A working note for the chat's running session, by the visitor (EPI-1)."""
    chat_id = owned_chat(visitor, chat)
    desk = desk_of(archive)
    return OnePage(page=page_view(desk, await desk.add_note(chat_id, data.text, author=visitor.user)))


ARCHIVE_VIEW_ROUTES = [
    Router(
        path="/",
        route_handlers=[chat_archive, pin_chat_page, unpin_chat_page, add_chat_note],
        guards=browser_guards(),
        dependencies={**web_dependency(), "archive": Provide(provide_archive, sync_to_thread=False)},
        dto=BODY_DTO,
        return_dto=None,
        tags=["archive"],
    )
]
"""The archive view's routes, for the ``/app`` router."""
