"""Request and response types of the conversation-summary endpoints (SUM-4, DEEP-1..4).

The operator sees a tier as stored (``engine.summary.Tier``); the browser's view shows the
fields the page uses, its time as Python's ``isoformat`` (``+00:00``), as it always has.
"""

from __future__ import annotations

import msgspec

from engine.memory.deep import DeepReport
from engine.summary import Level, Tier

__all__ = [
    "ApiSummary",
    "ApiTierEdited",
    "ChatSummary",
    "DeepReports",
    "PanelTier",
    "PanelTierEdited",
    "Rebuilt",
    "TierEdit",
]


class TierEdit(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``PUT /api/chats/{chat}/summary/{tier}`` and ``PUT /app/chats/{chat}/summary/{tier}``."""

    text: str


class ApiSummary(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /api/chats/{chat}/summary``: the tiers by level (oldest first), the unsummarized count."""

    recent: list[Tier]
    merged: list[Tier]
    long_term: list[Tier]
    unsummarized: int


class ApiTierEdited(msgspec.Struct, frozen=True, kw_only=True):
    """The tier a person rewrote."""

    tier: Tier


class PanelTier(msgspec.Struct, frozen=True, kw_only=True):
    """One tier as the page shows it: id, level, text, how many messages it covers, marks."""

    id: str
    level: Level
    text: str
    messages: int
    created_at: str
    edited: bool
    offline: bool


class ChatSummary(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /app/chats/{chat}/summary``, with the longest text a tier may hold."""

    chat: str
    recent: list[PanelTier]
    merged: list[PanelTier]
    long_term: list[PanelTier]
    unsummarized: int
    max_chars: int
    chunk: int = 20
    """How many messages one summary covers: fewer than this out of the window wait for more."""


class PanelTierEdited(msgspec.Struct, frozen=True, kw_only=True):
    """The tier a person rewrote, as the page shows it."""

    tier: PanelTier


class Rebuilt(msgspec.Struct, frozen=True, kw_only=True):
    """A rebuild was queued: the worker summarizes the chat again."""

    chat: str
    queued: bool


class DeepReports(msgspec.Struct, frozen=True, kw_only=True):
    """What the deep memory passes of a chat did, newest first."""

    reports: list[DeepReport]
