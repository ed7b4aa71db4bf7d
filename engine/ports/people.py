"""The people's own personas port (``storage.redis_user_personas.RedisUserPersonas``): the name
``{{user}}`` says and the description the prompt's ``user_persona`` slot carries."""

from __future__ import annotations

from typing import Protocol

from engine.user_persona import UserPersona

__all__ = ["UserPersonaStore"]


class UserPersonaStore(Protocol):
    """Each person's own persona, by person id."""

    async def get(self, user: str) -> UserPersona | None:
        """``user``'s persona, or None when they have not set one."""
        ...

    async def put(self, user: str, persona: UserPersona) -> None:
        """Store ``user``'s (checked) persona; their next turn uses it."""
        ...

    async def delete(self, user: str) -> bool:
        """Forget ``user``'s persona; False when there was none."""
        ...
