"""The message-control ports: edits, swipes and copies of a chat (``storage.redis_chat_controls``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from engine.model import StoredMessage, Turn

__all__ = ["ControlStore", "MessageEdits", "SwipeStore"]


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
