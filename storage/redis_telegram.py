"""What the Telegram adapter keeps in Redis beside the chat log (``engine.ports.PlatformStore``).

- ``<ns>:tg:update:<bot>:<update_id>``   SET NX with a TTL: an update is processed once, even
  when Telegram delivers it again or two processes receive it (webhook retries, a restarted
  poller). Telegram keeps undelivered updates for 24 hours, so the marks live that long.
- ``<ns>:chat:{<chat>}:tg_ids``   HASH Telegram message id → stored message id, so that a reply
  to a message names the stored message it answers (``IncomingMessage.reply_to``).
- ``<ns>:chat:{<chat>}:tg_parts`` HASH turn id → JSON list of the Telegram message ids that
  show the turn's reply, so that regenerating replaces exactly those messages.
- ``<ns>:tg:links``   HASH Telegram user id → the web user (``web:<name>``) it was joined with by
  ``/link``: from then on that person speaks, and owns memories, as the web user.
- ``<ns>:tg:personas``   HASH Telegram chat id → the persona ``/persona`` chose for that chat
  (all its topics); without one the bot's configured persona speaks.
"""

from __future__ import annotations

import msgspec
import redis.asyncio as aioredis

from storage.errors import map_redis_errors
from storage.keys import KeyBuilder
from storage.replies import fields, maybe_text

__all__ = ["UPDATE_TTL_SECONDS", "TelegramStore"]

UPDATE_TTL_SECONDS = 24 * 3600
_IDS = msgspec.json.Decoder(list[int])


class TelegramStore:
    """Update marks, message id mapping and reply parts, on one Redis client."""

    def __init__(self, client: aioredis.Redis, keys: KeyBuilder) -> None:
        self._r = client
        self._k = keys

    async def first_delivery(self, bot_id: int, update_id: int) -> bool:
        """Mark an update as seen; True only for the first delivery."""
        key = f"{self._k.prefix}:tg:update:{bot_id}:{update_id}"
        with map_redis_errors():
            return bool(await self._r.set(key, "1", nx=True, ex=UPDATE_TTL_SECONDS))

    async def remember_messages(self, chat: str, stored: dict[int, str]) -> None:
        """Remember which stored message each Telegram message id shows."""
        if stored:
            with map_redis_errors():
                await self._r.hset(self._k.chat(chat, "tg_ids"), mapping=fields(stored))

    async def stored_id(self, chat: str, message_id: int) -> str | None:
        """The stored message a Telegram message shows, if known."""
        with map_redis_errors():
            raw = await self._r.hget(self._k.chat(chat, "tg_ids"), str(message_id))
        return maybe_text(raw)

    async def remember_parts(self, chat: str, turn: str, parts: tuple[int, ...]) -> None:
        """Remember the Telegram messages that show a turn's reply."""
        with map_redis_errors():
            await self._r.hset(self._k.chat(chat, "tg_parts"), turn, msgspec.json.encode(list(parts)))

    async def parts(self, chat: str, turn: str) -> tuple[int, ...]:
        """The Telegram messages that show a turn's reply (empty when unknown)."""
        with map_redis_errors():
            raw = await self._r.hget(self._k.chat(chat, "tg_parts"), turn)
        return tuple(_IDS.decode(raw)) if raw is not None else ()

    async def linked(self, user_id: int) -> str | None:
        """The web user a Telegram user was linked to, if any."""
        with map_redis_errors():
            raw = await self._r.hget(f"{self._k.prefix}:tg:links", str(user_id))
        return maybe_text(raw)

    async def link(self, user_id: int, user: str) -> None:
        """Join a Telegram user with a web user (``/link``)."""
        with map_redis_errors():
            await self._r.hset(f"{self._k.prefix}:tg:links", str(user_id), user)

    async def chat_persona(self, chat_id: int) -> str | None:
        """The persona chosen for a Telegram chat with ``/persona``, if any."""
        with map_redis_errors():
            raw = await self._r.hget(f"{self._k.prefix}:tg:personas", str(chat_id))
        return maybe_text(raw)

    async def set_chat_persona(self, chat_id: int, persona: str) -> None:
        """Choose the persona that speaks in a Telegram chat."""
        with map_redis_errors():
            await self._r.hset(f"{self._k.prefix}:tg:personas", str(chat_id), persona)
