"""The message-control ports: edits, swipes and copies of a chat (``storage.redis_chat_controls``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import msgspec

from engine.model import StoredMessage, Turn
from engine.requestlog import RequestLog

__all__ = [
    "Branch",
    "BranchStore",
    "ChatControlStore",
    "ChatFiles",
    "ControlStore",
    "MessageEdits",
    "SwipeStore",
]


class Branch(msgspec.Struct, frozen=True, kw_only=True):
    """A chat branched from another one at a message."""

    id: str
    chat: str
    title: str
    source: str
    message: str
    created_at: float


class MessageEdits(Protocol):
    """Changes to a chat's log that the plain chat store does not make."""

    async def replace_message(self, message: StoredMessage) -> None:
        """Store a changed message under its id (its place in the log stays)."""
        ...

    async def remove_message(self, chat: str, message: str) -> bool:
        """Take a message out of the log and the pending queue; whether it was in the log."""
        ...

    async def requeue(self, message: StoredMessage) -> None:
        """Put a stored message back on its chat's pending queue (it awaits a reply again)."""
        ...

    async def copy(
        self,
        source: str,
        target: str,
        *,
        upto: float,
        rewrite: Callable[[StoredMessage], StoredMessage] | None = None,
    ) -> int:
        """Copy ``source``'s log up to ``upto`` (inclusive) into the empty chat ``target``.

        The copied replies' turns (without their journals) and request logs, the sequence counter
        and the attached lorebooks come along; ``rewrite`` may change each copied message.

        Returns:
            How many messages were copied.
        """
        ...


class SwipeStore(Protocol):
    """The alternatives of a reply (regenerate keeps the old ones; one is chosen at a time)."""

    async def swipes(self, chat: str, message: str) -> list[str]:
        """The turn ids of one answered message's alternatives, oldest first (``[]``: none)."""
        ...

    async def add_swipe(self, chat: str, message: str, previous: str, turn: str) -> list[str]:
        """Record ``turn`` as a new alternative of ``message`` (``previous`` starts the list).

        Returns:
            The alternatives now, oldest first, each once.
        """
        ...

    async def choose(self, current: Turn, chosen: Turn, message: StoredMessage | None) -> None:
        """Make ``chosen`` the reply the chat shows and the next turn sees, instead of ``current``
        (both turns are stored as given; ``message`` is the chosen reply put back in the log)."""
        ...


class ControlStore(MessageEdits, SwipeStore, Protocol):
    """Both control ports (``storage.redis_chat_controls.RedisChatControls``)."""


class BranchStore(Protocol):
    """The branches made from a chat, listed on the chat they came from."""

    async def add_branch(self, root: str, branch: Branch) -> None:
        """Remember a branch on the chat it belongs to (the same id replaces it: a rename)."""
        ...

    async def branches(self, root: str) -> list[Branch]:
        """The branches made from a chat, oldest first."""
        ...


class ChatFiles(Protocol):
    """A whole chat read or written at once (chat files, moving a guest's chats)."""

    async def turns(self, chat: str, ids: list[str]) -> dict[str, Turn]:
        """The stored turns among ``ids``, by id."""
        ...

    async def all_swipes(self, chat: str) -> dict[str, list[str]]:
        """Every answered message's alternatives (turn ids, oldest first)."""
        ...

    async def load(
        self,
        chat: str,
        messages: list[StoredMessage],
        turns: list[Turn],
        swipes: dict[str, list[str]],
        *,
        beside: list[StoredMessage],
        logs: list[RequestLog],
        seq: int,
    ) -> bool:
        """Write a whole chat into ``chat`` when it is empty, at once; ``beside`` are the
        alternatives kept out of the log, ``logs`` the turns' request logs. Returns whether the
        chat was empty (nothing is written otherwise)."""
        ...

    async def is_empty(self, chat: str) -> bool:
        """Whether a chat has no messages."""
        ...

    async def clear(self, chat: str) -> None:
        """Remove a chat's log, messages and turns (after they were copied elsewhere)."""
        ...


class ChatControlStore(ControlStore, BranchStore, ChatFiles, Protocol):
    """Every control port of a chat (``storage.redis_chat_controls.RedisChatControls``)."""
