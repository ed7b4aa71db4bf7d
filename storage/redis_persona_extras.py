"""Who owns a persona and its avatar picture (personas in the browser).

- ``personas:owners``  HASH persona id → username; a persona without an owner is shared (the
  deployment's: every visitor may talk to it; only the deployment's admins change it).
- ``personas:avatars`` HASH persona id → image bytes (PNG, JPEG, WebP or GIF).
"""

from __future__ import annotations

import redis.asyncio as aioredis

from storage.errors import map_redis_errors
from storage.keys import KeyBuilder
from storage.replies import maybe_blob, maybe_text, text, texts

__all__ = ["RedisPersonaExtras"]


class RedisPersonaExtras:
    """Persona owners and avatars on Redis."""

    def __init__(self, client: aioredis.Redis, keys: KeyBuilder) -> None:
        self._r = client
        self._k = keys
        self._owners = f"{self._k.personas()}:owners"
        self._avatars = f"{self._k.personas()}:avatars"

    async def owners(self) -> dict[str, str]:
        """Persona id → owning username, for private personas."""
        with map_redis_errors():
            raw = await self._r.hgetall(self._owners)
        return {text(k): text(v) for k, v in raw.items()}

    async def owner(self, persona: str) -> str | None:
        """The username owning a private persona, or None for a shared one."""
        with map_redis_errors():
            raw = await self._r.hget(self._owners, persona)
        return maybe_text(raw)

    async def set_owner(self, persona: str, username: str | None) -> None:
        """Make a persona private to ``username`` (None: shared)."""
        with map_redis_errors():
            if username is None:
                await self._r.hdel(self._owners, persona)
            else:
                await self._r.hset(self._owners, persona, username)

    async def avatar(self, persona: str) -> bytes | None:
        """The persona's picture, if it has one."""
        with map_redis_errors():
            return maybe_blob(await self._r.hget(self._avatars, persona))

    async def has_avatars(self) -> set[str]:
        """The ids of personas with a picture."""
        with map_redis_errors():
            return set(texts(await self._r.hkeys(self._avatars)))

    async def set_avatar(self, persona: str, image: bytes | None) -> None:
        """Store (or with None remove) a persona's picture."""
        with map_redis_errors():
            if image is None:
                await self._r.hdel(self._avatars, persona)
            else:
                await self._r.hset(self._avatars, persona, image)

    async def forget(self, persona: str) -> None:
        """Drop the owner and the picture of a deleted persona."""
        with map_redis_errors():
            await self._r.hdel(self._owners, persona)
            await self._r.hdel(self._avatars, persona)
