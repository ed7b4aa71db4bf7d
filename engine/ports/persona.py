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
