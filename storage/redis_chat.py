"""Chats on Redis: the message log, turns, request logs, the pending queue and the chat lock.

Per chat (all keys hash-tagged with the chat id, see ``storage.keys``):

- ``seq``      INCR counter; a user message's position is its number (the greeting is 0).
- ``log``      ZSET message id → position; a reply sits at the answered message's position + 0.5.
- ``msgs``     HASH message id → msgpack ``StoredMessage``.
- ``pending``  ZSET message id → position of messages that still await a reply.
- ``turns``    HASH turn id → msgpack ``Turn``; ``answers`` HASH message id → turn id.
- ``latest``   the id of the newest finished turn; ``req:<turn>`` the turn's request log (TTL).

Every multi-key change is one MULTI/EXEC transaction (STYLE P4), so a crash leaves either the
whole change or none of it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import msgspec
import redis.asyncio as aioredis

from engine.errors import Conflict
from engine.lorebook import LoreState
from engine.model import Persona, StoredMessage, Turn
from engine.ports import NewMessage
from engine.requestlog import RequestLog
from storage import codec
from storage.errors import map_redis_errors
from storage.keys import KeyBuilder
from storage.lease import LEASE_TTL, Lease, fenced_pipeline

__all__ = ["RedisChatLock", "RedisChatStore", "RedisPersonaStore"]

REQUEST_LOG_TTL = 30 * 24 * 3600


def _stored(chat: str, msg_id: str, position: float, message: NewMessage) -> StoredMessage:
    return StoredMessage(
        id=msg_id,
        chat=chat,
        role="assistant" if message.role == "assistant" else "user",
        user=message.user,
        name=message.name,
        text=message.text,
        sent_at=message.sent_at,
        position=position,
        tokens=message.tokens,
        persona=message.persona,
        reply_to=message.reply_to,
        guest=message.guest,
    )


class RedisChatStore:
    """Implements the ``MessageLog`` and ``TurnStore`` ports on one Redis client."""

    def __init__(self, client: aioredis.Redis, keys: KeyBuilder | None = None) -> None:
        self._r = client
        self._k = keys or KeyBuilder()

    async def _messages(self, chat: str, ids: list[str]) -> list[StoredMessage]:
        if not ids:
            return []
        raw = await self._r.hmget(self._k.chat(chat, "msgs"), ids)
        return [codec.MESSAGE.decode(b) for b in raw if b is not None]

    async def append(
        self, chat: str, message: NewMessage, *, pending: bool, greeting: NewMessage | None
    ) -> StoredMessage:
        """See ``engine.ports.MessageLog.append``."""
        k = self._k
        with map_redis_errors():
            seq = int(await self._r.incr(k.chat(chat, "seq")))
            stored = _stored(chat, f"m{seq}", float(seq), message)
            async with self._r.pipeline(transaction=True) as tx:
                if greeting is not None and seq == 1:
                    hello = _stored(chat, "m0", 0.0, greeting)
                    tx.hsetnx(k.chat(chat, "msgs"), "m0", codec.ENCODER.encode(hello))
                    tx.zadd(k.chat(chat, "log"), {"m0": 0.0}, nx=True)
                tx.hset(k.chat(chat, "msgs"), stored.id, codec.ENCODER.encode(stored))
                tx.zadd(k.chat(chat, "log"), {stored.id: stored.position})
                if pending:
                    tx.zadd(k.chat(chat, "pending"), {stored.id: stored.position})
                await tx.execute()
        return stored

    async def upto(self, chat: str, position: float, limit: int) -> list[StoredMessage]:
        """See ``engine.ports.MessageLog.upto``."""
        with map_redis_errors():
            ids = await self._r.zrevrangebyscore(
                self._k.chat(chat, "log"), position, "-inf", start=0, num=limit
            )
            found = await self._messages(chat, [i.decode() for i in reversed(ids)])
        return found

    async def history(self, chat: str, limit: int) -> list[StoredMessage]:
        """See ``engine.ports.MessageLog.history``."""
        with map_redis_errors():
            ids = await self._r.zrange(self._k.chat(chat, "log"), -limit, -1)
            found = await self._messages(chat, [i.decode() for i in ids])
        return found

    async def message(self, chat: str, message: str) -> StoredMessage | None:
        """One message by id, or None."""
        with map_redis_errors():
            found = await self._messages(chat, [message])
        return found[0] if found else None

    async def count(self, chat: str, upto: float) -> int:
        """See ``engine.ports.MessageLog.count``."""
        with map_redis_errors():
            return int(await self._r.zcount(self._k.chat(chat, "log"), "-inf", upto))

    async def oldest_pending(self, chat: str, upto: float) -> StoredMessage | None:
        """See ``engine.ports.TurnStore.oldest_pending``."""
        with map_redis_errors():
            ids = await self._r.zrangebyscore(self._k.chat(chat, "pending"), "-inf", upto, start=0, num=1)
            found = await self._messages(chat, [i.decode() for i in ids])
        return found[0] if found else None

    async def finish(
        self,
        turn: Turn,
        log: RequestLog,
        reply: NewMessage | None,
        superseded: Turn | None,
        lore_state: LoreState | None = None,
    ) -> StoredMessage | None:
        """See ``engine.ports.TurnStore.finish``."""
        k, chat = self._k, turn.chat
        stored = (
            _stored(chat, turn.reply_message or f"r-{turn.id}", turn.position + 0.5, reply)
            if reply is not None
            else None
        )
        if stored is not None:
            stored = msgspec.structs.replace(stored, turn=turn.id)
        with map_redis_errors():
            # fenced: a turn whose chat lock was lost meanwhile stores nothing (LeaseLost)
            async with fenced_pipeline(self._r, k.lock(chat)) as tx:
                tx.hset(k.chat(chat, "turns"), turn.id, codec.ENCODER.encode(turn))
                tx.set(k.request_log(chat, turn.id), codec.ENCODER.encode(log), ex=REQUEST_LOG_TTL)
                if turn.answers:
                    tx.zrem(k.chat(chat, "pending"), *turn.answers)
                if stored is not None:
                    tx.hset(k.chat(chat, "msgs"), stored.id, codec.ENCODER.encode(stored))
                    tx.zadd(k.chat(chat, "log"), {stored.id: stored.position})
                    tx.hset(k.chat(chat, "answers"), mapping=dict.fromkeys(turn.answers, turn.id))
                    tx.set(k.chat(chat, "latest"), turn.id)
                if lore_state is not None:
                    tx.set(k.chat(chat, "lore_state"), codec.ENCODER.encode(lore_state))
                if superseded is not None:
                    tx.hset(k.chat(chat, "turns"), superseded.id, codec.ENCODER.encode(superseded))
                    if superseded.reply_message:
                        tx.zrem(k.chat(chat, "log"), superseded.reply_message)
                await tx.execute()
        return stored

    async def get(self, chat: str, turn: str) -> tuple[Turn, RequestLog] | None:
        """See ``engine.ports.TurnStore.get``."""
        with map_redis_errors():
            async with self._r.pipeline(transaction=False) as p:
                p.hget(self._k.chat(chat, "turns"), turn)
                p.get(self._k.request_log(chat, turn))
                raw_turn, raw_log = await p.execute()
        if raw_turn is None or raw_log is None:
            return None
        return codec.TURN.decode(raw_turn), codec.REQUEST_LOG.decode(raw_log)

    async def _turn(self, chat: str, turn: bytes | None) -> Turn | None:
        if turn is None:
            return None
        raw = await self._r.hget(self._k.chat(chat, "turns"), turn)
        return codec.TURN.decode(raw) if raw is not None else None

    async def answer_of(self, chat: str, message: str) -> Turn | None:
        """See ``engine.ports.TurnStore.answer_of``."""
        with map_redis_errors():
            turn_id = await self._r.hget(self._k.chat(chat, "answers"), message)
            return await self._turn(chat, turn_id)

    async def latest(self, chat: str) -> Turn | None:
        """See ``engine.ports.TurnStore.latest``."""
        with map_redis_errors():
            turn_id = await self._r.get(self._k.chat(chat, "latest"))
            return await self._turn(chat, turn_id)


class RedisChatLock:
    """Implements ``ChatLock`` with a renewed lease (``storage.lease``), safe across processes.

    The lease lives ``ttl`` seconds (10 by default) and is renewed while the turn runs, so a
    turn may take as long as the provider needs, while a crashed holder, or one cut off from
    Redis, frees the chat within ``ttl``. The turn's final transaction is fenced on the lease.
    """

    def __init__(
        self,
        client: aioredis.Redis,
        keys: KeyBuilder | None = None,
        *,
        ttl: float = LEASE_TTL,
        wait: float = 330.0,
    ) -> None:
        self._r = client
        self._k = keys or KeyBuilder()
        self._ttl = ttl
        self._wait = wait

    @asynccontextmanager
    async def hold(self, chat: str) -> AsyncIterator[None]:
        """See ``engine.ports.ChatLock.hold``."""
        async with Lease(self._r, self._k.lock(chat), ttl=self._ttl, wait=self._wait) as lease:
            if not lease.acquired:
                raise Conflict("The chat is busy with another reply; try again.", code="chat_busy")
            yield


class RedisPersonaStore:
    """Implements ``PersonaStore``: one hash of personas by id."""

    def __init__(self, client: aioredis.Redis, keys: KeyBuilder | None = None) -> None:
        self._r = client
        self._k = keys or KeyBuilder()

    async def get(self, persona: str) -> Persona | None:
        """See ``engine.ports.PersonaStore.get``."""
        with map_redis_errors():
            raw = await self._r.hget(self._k.personas(), persona)
        return codec.PERSONA.decode(raw) if raw is not None else None

    async def put(self, persona: Persona) -> None:
        """See ``engine.ports.PersonaStore.put``."""
        with map_redis_errors():
            await self._r.hset(self._k.personas(), persona.id, codec.ENCODER.encode(persona))

    async def delete(self, persona: str) -> bool:
        """Delete a persona; whether it existed."""
        with map_redis_errors():
            return bool(await self._r.hdel(self._k.personas(), persona))

    async def all(self) -> list[Persona]:
        """See ``engine.ports.PersonaStore.all``."""
        with map_redis_errors():
            raw = await self._r.hgetall(self._k.personas())
        return sorted((codec.PERSONA.decode(v) for v in raw.values()), key=lambda p: p.id)
