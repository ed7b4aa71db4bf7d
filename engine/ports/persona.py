"""The persona port: personas by id, versioned (``storage.redis_chat.RedisPersonaStore``)."""

from __future__ import annotations

from typing import Protocol

from engine.model import Persona

__all__ = ["PersonaStore"]


class PersonaStore(Protocol):
    """Personas by id (fake: ``tests.fakes.stores.InMemoryPersonaStore``)."""

    async def get(self, persona: str) -> Persona | None:
        """The persona, or None."""
        ...

    async def versioned(self, persona: str) -> tuple[int, Persona] | None:
        """The persona and its version (bumped by every change), or None."""
        ...

    async def put(self, persona: Persona) -> None:
        """Create or replace a persona (its version goes up by one)."""
        ...

    async def all(self) -> list[Persona]:
        """Every persona, sorted by id."""
        ...

    async def delete(self, persona: str) -> bool:
        """Delete a persona; whether it existed."""
        ...


class PersonaOwners(Protocol):
    """Who owns a persona (a persona without an owner is shared by everyone)."""

    async def owners(self) -> dict[str, str]:
        """Persona id → owner's username, for every owned persona."""
        ...

    async def owner(self, persona: str) -> str | None:
        """The persona's owner, or None when it is shared."""
        ...

    async def set_owner(self, persona: str, username: str | None) -> None:
        """Give the persona an owner (None: shared)."""
        ...

    async def forget(self, persona: str) -> None:
        """Drop the persona's owner and picture (it was deleted)."""
        ...


class PersonaAvatars(Protocol):
    """The personas' pictures."""

    async def avatar(self, persona: str) -> bytes | None:
        """The persona's picture, or None."""
        ...

    async def has_avatars(self) -> set[str]:
        """The personas that have a picture."""
        ...

    async def set_avatar(self, persona: str, image: bytes | None) -> None:
        """Set the persona's picture (None removes it)."""
        ...


class PersonaExtras(PersonaOwners, PersonaAvatars, Protocol):
    """A persona's owner and picture (``storage.redis_persona_extras.RedisPersonaExtras``)."""
