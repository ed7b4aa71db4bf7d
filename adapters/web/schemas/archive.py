"""Request and response types of the episodic-archive endpoints (EPI-1..13)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import msgspec
from msgspec import UNSET, UnsetType

from engine.archive.answer import Reasoning
from engine.archive.dream import DreamReport
from engine.archive.model import Feedback, Layer, PageStatus, PageVersion, WorkingNote
from engine.archive.query import QueryItem
from engine.service.archive import ArchiveStatus

__all__ = [
    "ArchivePages",
    "ChatArchive",
    "DreamReports",
    "ExploreAnswer",
    "ExploreBody",
    "ExploredPage",
    "FeedbackBody",
    "FoundView",
    "FullPage",
    "NoteBody",
    "Notes",
    "OneFullPage",
    "OnePage",
    "PageView",
    "RestoreBody",
    "SearchAnswer",
    "SearchBody",
    "StatusView",
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


class NoteBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /api/chats/{chat}/archive/notes``: a working note for the running session."""

    text: str


class ExploreBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /api/archive/explore``."""

    chat: str
    query: str
    reasoning: Reasoning = "medium"


class PageView(msgspec.Struct, frozen=True, kw_only=True):
    """A page with its retention ``score`` now; ``low_entropy`` only in a chat's page list."""

    id: str
    chat: str
    layer: Layer
    status: PageStatus
    pinned: bool
    abstract: str
    summary: str
    keep: list[str]
    score: float
    cold: bool
    salience: float
    reads: int
    last_read_at: datetime | None
    created_at: datetime
    version: int
    versions: int
    superseded_by: str | None
    evicted_at: datetime | None
    feedback: list[Feedback]
    low_entropy: bool | UnsetType = UNSET
    author: str | None = None


class FullPage(PageView, frozen=True, kw_only=True):
    """A page with its body and version chain."""

    body: str
    merged_from: list[str]
    links: list[str]
    history: list[PageVersion]
    notes: list[WorkingNote]


class ArchivePages(msgspec.Struct, frozen=True, kw_only=True):
    """A chat's pages, oldest first."""

    chat: str
    pages: list[PageView]


class OnePage(msgspec.Struct, frozen=True, kw_only=True):
    """A page after feedback."""

    page: PageView


class OneFullPage(msgspec.Struct, frozen=True, kw_only=True):
    """A page opened or restored, with its body and versions."""

    page: FullPage


class FoundView(QueryItem, frozen=True, kw_only=True):
    """One search result: why it is there, its relevance and the page (``null``: not a page)."""

    relevance: float | None
    page: PageView | None


class SearchAnswer(msgspec.Struct, frozen=True, kw_only=True):
    """Search results best first; with ``answer`` asked, the answer fields too (EPI-13)."""

    status: ArchiveStatus
    reasoning: Reasoning | None
    results: list[FoundView]
    answer: str | UnsetType | None = UNSET
    citations: list[str] | UnsetType = UNSET
    stripped_citations: list[str] | UnsetType = UNSET
    answer_unavailable: str | UnsetType = UNSET


class StatusView(msgspec.Struct, frozen=True, kw_only=True):
    """Which persona and space a query on a chat resolves to (EPI-13)."""

    status: ArchiveStatus


class DreamReports(msgspec.Struct, frozen=True, kw_only=True):
    """The newest dream-pass reports, newest first (EPI-10)."""

    reports: list[DreamReport]


class Notes(msgspec.Struct, frozen=True, kw_only=True):
    """The working notes of a chat's running session, oldest first (EPI-1)."""

    chat: str
    notes: list[PageView]


class ChatArchive(msgspec.Struct, frozen=True, kw_only=True):
    """The browser's archive view: the chat's pages (no working notes), the running session's
    notes, and the limits the view enforces."""

    chat: str
    pages: list[PageView]
    notes: list[PageView]
    note_chars: int
    session_notes: int
    pinned_first: int


class ExploredPage(msgspec.Struct, frozen=True, kw_only=True):
    """One page explore read: hops from the search's pages, reached from ``via``, its cost."""

    id: str
    hops: int
    via: str | None
    tokens: int
    page: PageView


class ExploreAnswer(msgspec.Struct, frozen=True, kw_only=True):
    """What explore read, in order; ``stopped``: ``budget`` or ``exhausted`` (EPI-13)."""

    status: ArchiveStatus
    reasoning: Reasoning
    budget_tokens: int
    spent_tokens: int
    stopped: Literal["budget", "exhausted"]
    pages: list[ExploredPage]
