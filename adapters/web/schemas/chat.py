"""Request and response types of the chat endpoints, ``/api`` and ``/app`` (API.md Chat, PLT-4).

The JSON they encode to is the contract's: field names and order, ``null`` where a value is
missing. ``UNSET`` fields are left out of the JSON (a history message's ``swipes`` appears only
on replies that have alternatives).
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import msgspec
from msgspec import UNSET, UnsetType

from engine.images import ImageRef
from engine.memory import RecallReason
from engine.model import StoredMessage
from engine.requestlog import (
    Context,
    MemoryLog,
    MemoryNote,
    RefusedWrite,
    RequestLog,
    SettingsLog,
    SlotLog,
    Usage,
    WindowLog,
)

__all__ = [
    "Branch",
    "ChatReply",
    "ChatSettingsBody",
    "ChatSettingsView",
    "ErrorBody",
    "ErrorDetail",
    "Health",
    "ImageIn",
    "ImportedChat",
    "InspectedLore",
    "InspectedMemory",
    "Inspection",
    "MessageList",
    "ModelInfo",
    "NewRoom",
    "PersonaCard",
    "PersonaSummary",
    "Room",
    "RoomDeleted",
    "RoomMade",
    "RoomRename",
    "SendMessage",
    "SessionMessage",
    "SessionView",
    "TurnView",
]


class ImageIn(msgspec.Struct, frozen=True, kw_only=True):
    """A picture sent with a message: its media type and its bytes in base64 (``engine.images``)."""

    media_type: str
    data: str


class SendMessage(msgspec.Struct, frozen=True, kw_only=True):
    """Body of ``POST /api/chats/{chat}/messages`` (unknown fields are ignored); ``text`` may be
    ``""`` when ``images`` carries pictures."""

    user: str
    text: str
    name: str | None = None
    persona: str | None = None
    sent_at: datetime | None = None
    reply: bool = True
    images: list[ImageIn] = msgspec.field(default_factory=list)
    greeting: int = 0
    """Which of the persona's greetings opens a new chat (0: its first message, n: alternate n)."""


class ChatSettingsBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``PUT /api/chats/{chat}/settings`` (and ``/app/...``): the chat's memory mode."""

    memory: Literal["on", "off"]


class ChatSettingsView(msgspec.Struct, frozen=True, kw_only=True):
    """A chat's settings: ``memory`` ``off`` is memory-off mode (MEM-8, DEEP-4)."""

    chat: str
    memory: Literal["on", "off"]


class CastReply(msgspec.Struct, frozen=True, kw_only=True):
    """One cast member's reply to a message (CAST-1)."""

    turn: str
    persona: str
    persona_name: str
    reply: str


class ChatReply(msgspec.Struct, frozen=True, kw_only=True):
    """A turn's result; ``message`` is the stored message's id when no reply was asked.

    In a chat with a cast: ``persona`` (and ``persona_name``) says who wrote ``reply`` (the first
    reply) and ``replies`` lists every member's reply in order; no one answering is ``turn`` and
    ``reply`` null with ``replies`` empty (CAST-4).
    """

    turn: str | None
    reply: str | None
    context: Context
    message: str | None = None
    notices: tuple[str, ...] = ()
    persona: str | UnsetType = UNSET
    persona_name: str | UnsetType = UNSET
    replies: list[CastReply] | UnsetType = UNSET


class CastBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``PUT /api/chats/{chat}/personas`` (and ``/app/...``): the chat's cast (CAST-1)."""

    personas: list[str]
    strategy: str = "natural"
    max_replies: int = 1
    muted: list[str] = msgspec.field(default_factory=list)


class CastView(msgspec.Struct, frozen=True, kw_only=True):
    """A chat's cast; ``personas`` empty: no cast, the chat has one persona (today's behaviour)."""

    chat: str
    personas: list[str]
    strategy: str
    max_replies: int
    muted: list[str]


class SpeakBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /api/chats/{chat}/answer``: with ``persona``, that cast member speaks next."""

    persona: str | None = None


class TurnView(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /api/chats/{chat}/turns/{turn}``: a turn's request log (PRM-3)."""

    turn: str
    status: str
    request: RequestLog


class MessageList(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /api/chats/{chat}/messages``: the newest messages, oldest first."""

    messages: list[StoredMessage]


class ImportedChat(msgspec.Struct, frozen=True, kw_only=True):
    """``POST /api/chats/{chat}/import``: what the chat file wrote."""

    chat: str
    messages: int  # in the chat's log
    swipes: int  # alternatives kept beside the replies chosen
    skipped: int  # system messages left out
    room: Room | None = None  # the room made for it (browser import)


class ErrorDetail(msgspec.Struct, frozen=True, kw_only=True):
    """The inside of the API's ``{"error": {...}}``."""

    code: str
    message: str


class ErrorBody(msgspec.Struct, frozen=True, kw_only=True):
    """The API's error answer, ``{"error": {"code", "message"}}`` (some add fields, e.g. ``turn``)."""

    error: ErrorDetail


class Health(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /healthz``; with Redis down also the error (503)."""

    status: Literal["ok", "unavailable"]
    redis: Literal["ok", "down"]
    model: str
    error: ErrorDetail | UnsetType = UNSET


class Room(msgspec.Struct, frozen=True, kw_only=True):
    """A room of the browser's account (``main`` for everybody)."""

    slug: str
    title: str


class NewRoom(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /app/rooms``."""

    name: str


class RoomMade(msgspec.Struct, frozen=True, kw_only=True):
    """``POST /app/rooms`` and ``PUT /app/rooms/{room}``."""

    room: Room


class RoomRename(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``PUT /app/rooms/{room}``: the room's new title (1-60 characters)."""

    title: str


class RoomDeleted(msgspec.Struct, frozen=True, kw_only=True):
    """``DELETE /app/rooms/{room}``: how many chats went (every persona's, with branches), how
    many memories about people were kept (moved to their Global personal lists) and how many of
    the room's own memories were deleted."""

    room: str
    chats: int
    memories_kept: int
    memories_deleted: int


class Branch(msgspec.Struct, frozen=True, kw_only=True):
    """A branch of a chat: its id, title and chat id."""

    id: str
    title: str
    chat: str


class PersonaCard(msgspec.Struct, frozen=True, kw_only=True):
    """The persona the session talks to, its greeting filled in for the reader."""

    id: str
    name: str
    greeting: str
    avatar: str | None
    greetings: list[str] = msgspec.field(default_factory=list)
    """The greeting and its alternates, filled in: swipes of a new chat's first message."""


class PersonaSummary(msgspec.Struct, frozen=True, kw_only=True):
    """A persona in the picker."""

    id: str
    name: str
    private: bool
    avatar: str | None


class ModelInfo(msgspec.Struct, frozen=True, kw_only=True):
    """Which model answers, labelled for people (RUN-2)."""

    name: str
    offline: bool
    label: str


class SessionMessage(msgspec.Struct, frozen=True, kw_only=True):
    """A history message as the page shows it; ``swipes`` only on replies with alternatives,
    ``images`` only on messages that carried pictures."""

    id: str
    role: Literal["user", "assistant"]
    name: str
    text: str
    sent_at: datetime
    turn: str | None
    mine: bool
    swipes: list[str] | UnsetType = UNSET
    images: list[ImageRef] | UnsetType = UNSET  # the pictures it carried (type and size; no bytes)
    persona: str | UnsetType = UNSET
    """A reply another persona than the page's wrote (a chat with a cast, CAST-1): its id."""


class SessionView(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /app/session``: who this browser is, its chat, the CSRF token and the history."""

    user: str
    guest: bool
    username: str | None
    chat: str
    room: str
    rooms: list[Room]
    branch: str | None
    branches: list[Branch]
    csrf: str
    memory: bool
    persona: PersonaCard
    personas: list[PersonaSummary]
    model: ModelInfo
    messages: list[SessionMessage]
    awaiting: bool = False
    """The last message is the person's and still awaits its reply (on the pending queue: the
    process answering it stopped); the page asks for it (``{"type": "answer"}``) on opening."""


class InspectedLore(msgspec.Struct, frozen=True, kw_only=True):
    """A lore decision with the entry's display name and its book's name."""

    book: str
    book_name: str
    entry: str
    name: str
    included: bool
    reason: str


class InspectedMemory(msgspec.Struct, frozen=True, kw_only=True):
    """A memory that entered the request; ``text`` when it is the reader's to see."""

    id: str
    scope: Literal["space", "personal", "global"]
    state: Literal["pinned", "active", "recalled"]
    similarity: float | None
    text: str | None
    matched: bool = False

    @classmethod
    def of(cls, log: MemoryLog, text: str | None) -> InspectedMemory:
        """The logged memory with its text (or None)."""
        return cls(
            id=log.id,
            scope=log.scope,
            state=log.state,
            similarity=log.similarity,
            text=text,
            matched=log.matched,
        )


class Inspection(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /app/chats/{chat}/turns/{turn}``: the request inspector (PRM-3, LORE-12)."""

    turn: str
    status: str
    created_at: datetime
    provider: str
    model: str
    duration_ms: int | None
    attempts: int
    error: str | None
    slots: tuple[SlotLog, ...]
    stable_count: int
    window: WindowLog
    lore: list[InspectedLore]
    memories: list[InspectedMemory]
    memory_writes: tuple[MemoryNote, ...]
    refused_writes: tuple[RefusedWrite, ...]
    summaries: int
    documents: int
    usage: Usage | None
    recall: tuple[RecallReason, ...] = ()
    """Why the memory search used each used and near-miss memory or not (ids, no texts)."""
    settings: SettingsLog | None = None
