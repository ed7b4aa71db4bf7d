"""The ports of a messaging platform's adapter (``storage.redis_telegram.TelegramStore``): which
updates were handled and which platform messages show which stored ones, and the platform's
people and chats joined with Hearth's (a linked web user, a chat's persona)."""

from __future__ import annotations

from typing import Protocol

__all__ = ["DeliveryMarks", "PlatformLinks", "PlatformStore"]


class DeliveryMarks(Protocol):
    """Updates handled once, and the platform messages that show stored messages and replies."""

    async def first_delivery(self, bot_id: int, update_id: int) -> bool:
        """Mark an update as seen; True only for the first delivery."""
        ...

    async def remember_messages(self, chat: str, stored: dict[int, str]) -> None:
        """Remember which stored message each platform message id shows."""
        ...

    async def stored_id(self, chat: str, message_id: int) -> str | None:
        """The stored message a platform message shows, if known."""
        ...

    async def remember_parts(self, chat: str, turn: str, parts: tuple[int, ...]) -> None:
        """Remember the platform messages that show a turn's reply."""
        ...

    async def parts(self, chat: str, turn: str) -> tuple[int, ...]:
        """The platform messages that show a turn's reply (empty when unknown)."""
        ...


class PlatformLinks(Protocol):
    """A platform user joined with a web user (``/link``), a platform chat with its persona."""

    async def linked(self, user_id: int) -> str | None:
        """The web user a platform user was linked to, if any."""
        ...

    async def link(self, user_id: int, user: str) -> None:
        """Join a platform user with a web user."""
        ...

    async def chat_persona(self, chat_id: int) -> str | None:
        """The persona chosen for a platform chat, if any."""
        ...

    async def set_chat_persona(self, chat_id: int, persona: str) -> None:
        """Choose the persona that speaks in a platform chat."""
        ...


class PlatformStore(DeliveryMarks, PlatformLinks, Protocol):
    """Both platform ports (the Telegram adapter's)."""
