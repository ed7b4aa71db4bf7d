"""The ports of a messaging platform's adapter (``storage.redis_telegram.TelegramStore``): which
updates were handled and which platform messages show which stored ones, and the platform's
people and chats joined with Hearth's (a linked web user, a chat's persona)."""

from __future__ import annotations

from typing import Protocol

from engine.cast import Cast

__all__ = ["CastNotes", "DeliveryMarks", "GroupMembers", "PlatformLinks", "PlatformStore"]


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


class GroupMembers(Protocol):
    """A group served by several persona-bound bots: each message claimed once, the bots in it."""

    async def claim_message(self, chat_id: int, key: str) -> bool:
        """Claim a group message for processing; True only for the first bot that claims it."""
        ...

    async def cast_bots(self, chat_id: int) -> set[str]:
        """The personas whose bots are known to be in a group."""
        ...

    async def add_cast_bots(self, chat_id: int, personas: set[str]) -> None:
        """Note that these personas' bots are in a group."""
        ...

    async def drop_cast_bot(self, chat_id: int, persona: str) -> None:
        """Note that a persona's bot is no longer in a group."""
        ...

    async def cast_check_due(self, chat_id: int) -> bool:
        """True (once an hour per group) when the bots' membership should be asked again."""
        ...


class CastNotes(Protocol):
    """What the adapter remembers about a group's cast: the privacy notice, the cast it stored."""

    async def privacy_noticed(self, bot_id: int, chat_id: int) -> bool:
        """Whether the bot already said in the group that it only sees mentions."""
        ...

    async def notice_privacy_once(self, bot_id: int, chat_id: int) -> bool:
        """Mark the privacy notice as given; True only the first time."""
        ...

    async def auto_cast(self, chat: str) -> Cast | None:
        """The cast this adapter last stored for a group chat, if any."""
        ...

    async def set_auto_cast(self, chat: str, cast: Cast) -> None:
        """Remember the cast this adapter stored for a group chat."""
        ...


class PlatformStore(DeliveryMarks, PlatformLinks, GroupMembers, CastNotes, Protocol):
    """Every platform port (the Telegram adapter's)."""
