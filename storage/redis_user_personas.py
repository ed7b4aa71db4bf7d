"""Each person's own persona (``engine.user_persona``): ``user_personas`` HASH platform id →
msgpack ``UserPersona``. A turn reads its answered person's field with its one read
(``storage.redis_chat``); the browser and Telegram write it here."""

from __future__ import annotations

import redis.asyncio as aioredis

from engine.user_persona import UserPersona
from storage import codec
from storage.errors import map_redis_errors
from storage.keys import KeyBuilder

__all__ = ["RedisUserPersonas"]


class RedisUserPersonas:
    """People's own personas on Redis."""

    def __init__(self, client: aioredis.Redis, keys: KeyBuilder) -> None:
        self._r = client
        self._key = keys.user_personas()

    async def get(self, user: str) -> UserPersona | None:
        """``user``'s persona, or None when they have not set one."""
        with map_redis_errors():
            raw = await self._r.hget(self._key, user)
        return codec.USER_PERSONA.decode(raw) if isinstance(raw, bytes) else None

    async def put(self, user: str, persona: UserPersona) -> None:
        """Store ``user``'s (checked) persona; their next turn uses it."""
        with map_redis_errors():
            await self._r.hset(self._key, user, codec.ENCODER.encode(persona))

    async def delete(self, user: str) -> bool:
        """Forget ``user``'s persona (their display name is ``{{user}}`` again)."""
        with map_redis_errors():
            return bool(await self._r.hdel(self._key, user))
