"""Domain types shared by the engine, the service, storage and the adapters (STYLE D1).

Every type is a frozen, keyword-only msgspec Struct; collections are tuples. Persisted Structs
evolve only by adding fields with defaults (STYLE D4).
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import msgspec

from engine.images import Image, ImageRef
from engine.memory.journal import Deleted, Forgotten, Saved, Updated

__all__ = [
    "PLATFORMS",
    "ROLES",
    "ChatSettings",
    "IncomingMessage",
    "JournalEntry",
    "MemoryLimits",
    "MemoryMode",
    "MessageStored",
    "ModelSettings",
    "Persona",
    "Platform",
    "Role",
    "StoredMessage",
    "Turn",
    "TurnStatus",
]

Platform = Literal["web", "telegram"]
Role = Literal["system", "user", "assistant"]
TurnStatus = Literal["done", "failed", "superseded"]
MemoryMode = Literal["on", "off"]

PLATFORMS: tuple[str, ...] = ("web", "telegram")
ROLES: tuple[str, ...] = ("system", "user", "assistant")


class IncomingMessage(msgspec.Struct, frozen=True, kw_only=True):
    """One message from any platform, normalized by its adapter (PLT-5).

    Ids are platform-qualified (``web:room1``, ``tg:-1001234/topic/7``, ``tg:42``).
    ``images``: the pictures it carries, already checked (``engine.images.check_images``); the
    text may then be empty.
    """

    platform: Platform
    space: str
    chat: str
    user: str
    display_name: str
    text: str
    sent_at: datetime
    reply_to: str | None = None
    is_mention: bool = False
    attachments: tuple[str, ...] = ()
    guest: bool = False
    images: tuple[Image, ...] = ()
    greeting: int = 0
    """Which greeting opens a new chat: 0 the persona's first message, n its n-th alternate one."""


class ModelSettings(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Which model a persona talks through and how.

    ``provider`` empty means "the deployment's provider" (``HEARTH_LLM``); else ``anthropic``,
    ``openai`` or ``offline`` (LLM-1). ``name`` empty means "the deployment's HEARTH_MODEL"
    (only with the deployment's provider: a persona naming another provider names its model).
    ``temperature`` and ``top_p`` unset leave sampling to the provider's defaults; set, every
    request of the persona's turns carries them.
    """

    name: str = ""
    max_tokens: int = 1024
    context_window: int = 200_000
    provider: str = ""
    temperature: float | None = None
    top_p: float | None = None


class MemoryLimits(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A persona's own memory limits (MEM-2); unset fields keep the deployment's defaults."""

    max_unpinned: int | None = None
    max_pinned: int | None = None
    max_chars: int | None = None


class Persona(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A bot character (SPEC §0). Loaded from TOML or a card, stored in Redis."""

    id: str
    name: str
    system_prompt: str
    greeting: str = ""
    description: str = ""
    personality: str = ""
    scenario: str = ""
    alternate_greetings: tuple[str, ...] = ()
    mes_example: str = ""
    """Example dialogue in SillyTavern's form: blocks that each start with ``<START>``."""
    post_history_instructions: str = ""
    model: ModelSettings = msgspec.field(default_factory=ModelSettings)
    template: tuple[str, ...] = ()
    learn_from_chat: bool = True
    lorebooks: tuple[str, ...] = ()
    memory: MemoryLimits | None = None
    deep_memory: bool = True
    window_tokens: int | None = None
    """The live window's token cap for this persona's chats (unset: the deployment's, WIN-1)."""
    summaries: bool = True
    """Off: the persona's turns neither read nor queue summaries (SUM-1); the window alone."""


class ChatSettings(msgspec.Struct, frozen=True, kw_only=True):
    """A chat's own settings, kept with the chat.

    ``memory``: ``off`` puts the chat in memory-off mode (MEM-8, DEEP-4): its turns neither read
    nor write any memory list, the deep pass and the archive leave it alone (a challenge chat:
    every attempt starts from the same clean slate). A chat may be switched before its first
    message, so it starts in that mode.
    """

    memory: MemoryMode = "on"
    off_since: float | None = None
    """While memory is off: the log position from which the chat's messages were written so."""
    off_spans: tuple[tuple[float, float], ...] = ()
    """Earlier memory-off stretches as (first, last) log positions, oldest first: the deep pass
    never reads the messages in them, even after memory is back on (DEEP-4)."""


class StoredMessage(msgspec.Struct, frozen=True, kw_only=True):
    """A message as kept in a chat's log.

    ``position`` orders the log: a user message sits at its arrival number; a reply sits just
    after the message it answers (``answers`` + 0.5), so the log reads as a conversation even
    when messages arrive faster than replies.

    ``listened`` marks a user message stored without a reply (group chatter the persona only
    listens to): it is context for later turns, never a message a turn replies to, so its author
    is not a participant of those turns (MEM-4).

    ``images`` names the pictures the message carries; their bytes are stored beside the log
    (``engine.images``), and ``tokens`` counts them too.
    """

    id: str
    chat: str
    role: Literal["user", "assistant"]
    user: str
    name: str
    text: str
    sent_at: datetime
    position: float
    tokens: int
    persona: str = "default"
    turn: str | None = None
    reply_to: str | None = None
    guest: bool = False
    listened: bool = False
    images: tuple[ImageRef, ...] = ()


class Turn(msgspec.Struct, frozen=True, kw_only=True):
    """One reply of the persona and everything it changed (SPEC §0 'turn').

    ``journal`` lists the state changes the turn made, oldest first, so that regenerate can
    roll them back (MEM-7); it is empty until memory writes land.
    """

    id: str
    chat: str
    persona: str
    answers: tuple[str, ...]
    position: float
    status: TurnStatus
    created_at: datetime
    reply: str | None = None
    reply_message: str | None = None
    error_code: str | None = None
    journal: tuple[JournalEntry, ...] = ()
    replaces: str | None = None


class MessageStored(msgspec.Struct, frozen=True, kw_only=True, tag="message_stored"):
    """The turn added a message (its reply) to the chat's log."""

    message: str


JournalEntry = MessageStored | Saved | Updated | Deleted | Forgotten
