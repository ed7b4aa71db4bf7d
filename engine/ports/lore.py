"""The lorebook port a turn scans (``storage.redis_lore.RedisLoreStore``)."""

from __future__ import annotations

from typing import Protocol

from engine.lorebook import CompiledBook, LoreState

__all__ = ["LoreSource"]


class LoreSource(Protocol):
    """The lorebooks a turn scans (fake: ``tests.fakes.stores.InMemoryLoreStore``)."""

    async def attached(self, chat: str) -> list[str]:
        """The ids of the books attached to a chat (``[]`` when none)."""
        ...

    async def compiled(self, books: list[str], versions: dict[str, int] | None = None) -> list[CompiledBook]:
        """Compiled books for ``books`` (unknown ids skipped), cached per book version.

        ``versions`` already read (``TurnInputs.book_versions``) are not read again.
        """
        ...

    async def state(self, chat: str) -> LoreState:
        """The chat's lorebook decorator state (written with the turn, ``TurnRecords.finish``)."""
        ...
