"""The shared in-memory "database" under the fake stores: one object per deployment.

Several Redis stores read each other's keys (the turn's one read brings the summary state and
the attached lorebooks; the archive reads the chat log), so the fakes share one ``InMemoryData``
the way the Redis stores share one server. Values are the frozen Structs themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.lorebook import LoreBook, LoreState
from engine.model import ChatSettings, Persona, StoredMessage, Turn
from engine.requestlog import RequestLog
from engine.summary import SummaryState

__all__ = ["ChatData", "InMemoryData", "ordered"]


@dataclass
class ChatData:
    """The keys of one chat (``storage.redis_chat`` and its neighbours)."""

    seq: int = 0
    log: dict[str, float] = field(default_factory=dict)  # message id → position
    msgs: dict[str, StoredMessage] = field(default_factory=dict)
    pending: dict[str, float] = field(default_factory=dict)
    turns: dict[str, Turn] = field(default_factory=dict)
    answers: dict[str, str] = field(default_factory=dict)  # message id → turn id
    latest: str | None = None
    request_logs: dict[str, RequestLog] = field(default_factory=dict)
    lorebooks: tuple[str, ...] | None = None
    lore_state: LoreState | None = None
    summary: SummaryState = field(default_factory=SummaryState)
    summary_version: int = 0
    summary_queued: bool = False
    swipes: dict[str, list[str]] = field(default_factory=dict)
    settings: ChatSettings = field(default_factory=ChatSettings)
    images: dict[str, tuple[float, bytes]] = field(default_factory=dict)  # picture id → (position, bytes)
    notices: set[str] = field(default_factory=set)


@dataclass
class InMemoryData:
    """Everything the fake stores keep, shared between them."""

    chats: dict[str, ChatData] = field(default_factory=dict)
    personas: dict[str, Persona] = field(default_factory=dict)
    persona_versions: dict[str, int] = field(default_factory=dict)
    token_ratios: dict[str, float] = field(default_factory=dict)
    books: dict[str, LoreBook] = field(default_factory=dict)
    book_versions: dict[str, int] = field(default_factory=dict)
    jobs: list[tuple[str, str]] = field(default_factory=list)  # the summary job stream: (id, chat)

    def chat(self, chat: str) -> ChatData:
        """The chat's keys (created empty on first use, as Redis keys spring into being)."""
        return self.chats.setdefault(chat, ChatData())

    def peek(self, chat: str) -> ChatData:
        """The chat's keys without creating them (an empty view when the chat is unknown)."""
        return self.chats.get(chat) or ChatData()


def ordered(scores: dict[str, float]) -> list[tuple[str, float]]:
    """A sorted set's members in Redis order: by score, then by member."""
    return sorted(scores.items(), key=lambda item: (item[1], item[0]))
