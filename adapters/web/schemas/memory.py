"""Request and response types of the memory endpoints, ``/api`` and ``/app`` (API.md Memories).

The JSON they encode to is the contract's: field names, order and ``null`` as API.md and the
browser pages expect. ``Memory.recent`` is the one field only ``/app`` shows (``UNSET`` leaves it
out of the operator's answers).
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import msgspec
from msgspec import UNSET, UnsetType

from engine.documents import DocumentInfo, DocumentJob
from engine.memory.model import Scope, Source

__all__ = [
    "ApiClear",
    "ApiCompose",
    "ApiDialogue",
    "ApiNewMemory",
    "Blocklist",
    "BlocklistBody",
    "Cleared",
    "Composed",
    "DeepMemory",
    "DocumentList",
    "Drafts",
    "Explained",
    "JobView",
    "LintBounds",
    "LintPairView",
    "LintReport",
    "ListName",
    "Memory",
    "MemoryAdded",
    "MemoryDeleted",
    "MemoryEdit",
    "MemoryList",
    "MemoryOne",
    "NamedListBody",
    "NoticeLevel",
    "NoticeLevelBody",
    "Panel",
    "PanelAdd",
    "PanelClear",
    "PanelCompose",
    "PanelDialogue",
    "PanelLimits",
    "PanelList",
    "Privacy",
    "PrivacyBody",
    "SpaceNotices",
    "SpaceNoticesBody",
]

Level = Literal["off", "brief", "full"]
ListName = Literal["space", "personal", "personal_global", "global"]
"""The memory panel's four lists in play for a person in their room (MEM-4)."""
Mode = Literal["compose", "keep"]


class _Body(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A request body: unknown fields are refused (422 ``invalid_body``)."""


# --- responses ------------------------------------------------------------------------------


class LastUse(msgspec.Struct, frozen=True, kw_only=True):
    """The last turn that sent a memory to the model, and the start of the message it answered."""

    turn: str
    chat: str
    at: datetime
    message: str


class Memory(msgspec.Struct, frozen=True, kw_only=True):
    """A memory as API.md shows it; ``recent`` (``/app`` only): unpinned and changed lately;
    ``last_used`` (list reads): the last turn that used it, ``null`` if none has."""

    id: str
    persona: str
    scope: Scope
    text: str
    space: str | None
    owner: str | None
    global_: bool = msgspec.field(name="global")
    pinned: bool
    protected: bool
    source: Source
    state: Literal["active", "dormant"]
    unused_days: int
    last_matched_at: datetime | None
    created_at: datetime
    updated_at: datetime
    recent: bool | UnsetType = UNSET
    last_used: LastUse | UnsetType | None = UNSET


class MemoryList(msgspec.Struct, frozen=True, kw_only=True):
    """Memories, pinned first then newest (a list read) or in the order saved (a save)."""

    memories: list[Memory]


class MemoryAdded(msgspec.Struct, frozen=True, kw_only=True):
    """A saved memory and the dormant one a full list forgot for it (DEC-11), if any."""

    memory: Memory
    forgotten: Memory | None


class MemoryOne(msgspec.Struct, frozen=True, kw_only=True):
    """One memory after an edit."""

    memory: Memory


class MemoryDeleted(msgspec.Struct, frozen=True, kw_only=True):
    """The memory that was forgotten."""

    deleted: Memory


class Cleared(msgspec.Struct, frozen=True, kw_only=True):
    """ "Clear all" (MEM-9): how many were forgotten, how many pinned ones are left."""

    deleted: int
    pinned_left: int


class Composed(msgspec.Struct, frozen=True, kw_only=True):
    """Memories the model made from a description (MEM-6c); ``offline``: no model answered."""

    memories: list[Memory]
    offline: bool


class Drafts(msgspec.Struct, frozen=True, kw_only=True):
    """Drafts from selected messages for the person to review (MEM-6d ``compose``)."""

    drafts: list[str]
    offline: bool


class Privacy(msgspec.Struct, frozen=True, kw_only=True):
    """A user's personal-memory setting (DEC-10)."""

    user: str
    personal_memory: bool


class SpaceNotices(msgspec.Struct, frozen=True, kw_only=True):
    """A space's memory-notice visibility (DEC-11)."""

    space: str
    memory_notices: Level


class Blocklist(msgspec.Struct, frozen=True, kw_only=True):
    """A space's hidden memories (DEC-10)."""

    space: str
    memories: list[str]


class NoticeLevel(msgspec.Struct, frozen=True, kw_only=True):
    """The memory-notice visibility of a browser chat's room (DEC-11)."""

    chat: str
    level: Level


class PanelList(msgspec.Struct, frozen=True, kw_only=True):
    """One of the memory panel's lists."""

    list_: ListName = msgspec.field(name="list")
    title: str
    memories: list[Memory]


class PanelLimits(msgspec.Struct, frozen=True, kw_only=True):
    """A persona's list limits (MEM-2)."""

    unpinned: int
    pinned: int
    chars: int


class DeepMemory(msgspec.Struct, frozen=True, kw_only=True):
    """Whether the deep memory pass applies to the chat (DEEP-1..4): ``active`` with one line on
    what it does; else ``note`` says why not."""

    active: bool
    note: str


class Panel(msgspec.Struct, frozen=True, kw_only=True):
    """The memory panel: the lists in play for the visitor in one chat with one persona.

    ``memory``: the chat's memory mode (``off``: its turns neither read nor write these lists,
    MEM-8); ``deep_memory``: the "Deep memory: Active" badge and its line.
    """

    persona: str
    lists: list[PanelList]
    limits: PanelLimits
    decay: bool
    dormant_after: int
    notices: str
    memory: Literal["on", "off"] = "on"
    deep_memory: DeepMemory = DeepMemory(active=False, note="")


class JobView(DocumentJob, frozen=True, kw_only=True):
    """A document upload's job and its ``progress`` (0..1)."""

    progress: float


class DocumentList(msgspec.Struct, frozen=True, kw_only=True):
    """A persona's searchable documents and the uploads not done yet."""

    documents: list[DocumentInfo]
    jobs: list[JobView]


class LintBounds(msgspec.Struct, frozen=True, kw_only=True):
    """The cosine bounds lint used (EPI-8)."""

    same_topic: float
    duplicate: float


class LintPairView(msgspec.Struct, frozen=True, kw_only=True):
    """Two memories on one topic that are not duplicates, the newer named."""

    older: Memory
    newer: Memory
    newer_id: str
    similarity: float


class LintReport(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /api/memories/lint``: advisory, nothing is edited (EPI-8)."""

    advisory: bool
    embedder: str
    bounds: LintBounds
    pairs: list[LintPairView]


class Explained(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /api/memories/{id}/explain``: confidence and what it rests on (EPI-9)."""

    memory: Memory
    confidence: float
    supporting_sessions: int
    supporting_pages: list[str]
    latest_support_at: datetime | None
    contradictions: int
    contradicted_by: list[str]
    belief_authority_weight: float
    ranking: str
    text: str


# --- operator request bodies ----------------------------------------------------------------


class NamedListBody(_Body, frozen=True, kw_only=True):
    """The operator's name of a list: ``scope`` with the ``space``/``owner``/``global`` it needs."""

    scope: Scope
    persona: str = "default"
    space: str | None = None
    owner: str | None = None
    global_: bool = msgspec.field(default=False, name="global")


class ApiNewMemory(NamedListBody, frozen=True, kw_only=True):
    """Body of ``POST /api/memories``."""

    text: str
    pinned: bool = False
    source: Literal["person", "import"] = "person"


class MemoryEdit(_Body, frozen=True, kw_only=True):
    """Body of ``PATCH /api/memories/{id}`` and ``PATCH /app/memories/{id}``."""

    text: str | None = None
    pinned: bool | None = None


class ApiClear(NamedListBody, frozen=True, kw_only=True):
    """Body of ``POST /api/memories/clear`` (MEM-9)."""

    pinned_confirmed: bool = False


class PrivacyBody(_Body, frozen=True, kw_only=True):
    """Body of ``PUT /api/users/{user}/privacy`` (DEC-10)."""

    personal_memory: bool


class ApiCompose(NamedListBody, frozen=True, kw_only=True):
    """Body of ``POST /api/memories/compose`` (MEM-6c)."""

    description: str


class ApiDialogue(NamedListBody, frozen=True, kw_only=True):
    """Body of ``POST /api/memories/from-dialogue`` (MEM-6d)."""

    chat: str
    messages: list[str]
    mode: Mode = "keep"
    texts: list[str] | None = None


class SpaceNoticesBody(_Body, frozen=True, kw_only=True):
    """Body of ``PUT /api/spaces/{space}/settings``."""

    memory_notices: Level


class BlocklistBody(_Body, frozen=True, kw_only=True):
    """Body of ``PUT /api/spaces/{space}/blocklist``."""

    memories: list[str]


# --- browser request bodies -----------------------------------------------------------------


class NoticeLevelBody(_Body, frozen=True, kw_only=True):
    """Body of ``PUT /app/chats/{chat}/memory-notices``."""

    level: Level


class _PanelNamed(_Body, frozen=True, kw_only=True):
    """The panel's name of a list in the visitor's chat, with the persona."""

    list_: ListName = msgspec.field(name="list")
    persona: str = "default"


class PanelAdd(_PanelNamed, frozen=True, kw_only=True):
    """Body of ``POST /app/chats/{chat}/memories``."""

    text: str
    pinned: bool = False


class PanelClear(_PanelNamed, frozen=True, kw_only=True):
    """Body of ``POST /app/chats/{chat}/memories/clear``."""

    pinned_confirmed: bool = False


class PanelCompose(_PanelNamed, frozen=True, kw_only=True):
    """Body of ``POST /app/chats/{chat}/memories/compose`` (MEM-6c)."""

    description: str


class PanelDialogue(_PanelNamed, frozen=True, kw_only=True):
    """Body of ``POST /app/chats/{chat}/memories/from-dialogue`` (MEM-6d)."""

    messages: list[str]
    mode: Mode = "keep"
    texts: list[str] | None = None
