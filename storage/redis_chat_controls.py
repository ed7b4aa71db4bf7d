"""Message controls on Redis: edit and delete a message, swipes, and copying a chat (branches).

Beside the keys of ``storage.redis_chat`` a chat may have:

- ``swipes``   HASH answered message id → msgpack list of turn ids, oldest first: the
  alternatives of one reply (regenerate keeps the old ones; one of them is chosen).
- ``branches`` HASH branch id → msgpack ``Branch`` (kept on the chat a branch was made from).

A copied chat (a branch, or a guest chat moved into an account) gets the source's messages up
to a position with the ``chat`` field rewritten, the turns and request logs of the copied
replies, and the sequence counter, so new messages continue after the copied ones. Every
write to the target is one MULTI/EXEC on the target's keys (one hash slot).
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec
import redis.asyncio as aioredis
from redis.exceptions import WatchError

from engine.model import StoredMessage, Turn
from engine.requestlog import RequestLog
from storage import codec
from storage.errors import map_redis_errors
from storage.keys import KeyBuilder
from storage.redis_chat import REQUEST_LOG_TTL
from storage.replies import blob, blob_hash, members, multi, texts, unwatch

__all__ = ["Branch", "RedisChatControls"]

_IDS = msgspec.msgpack.Decoder(list[str])


class Branch(msgspec.Struct, frozen=True, kw_only=True):
    """A chat branched from another one at a message."""

    id: str
    chat: str
    title: str
    source: str
    message: str
    created_at: float


_BRANCH = msgspec.msgpack.Decoder(Branch)


class RedisChatControls:
    """Edits of a chat's log that the plain chat store does not make."""

    def __init__(self, client: aioredis.Redis, keys: KeyBuilder) -> None:
        self._r = client
        self._k = keys

    async def replace_message(self, message: StoredMessage) -> None:
        """Store a changed message under its id (its place in the log stays)."""
        with map_redis_errors():
            await self._r.hset(self._k.chat(message.chat, "msgs"), message.id, codec.ENCODER.encode(message))

    async def remove_message(self, chat: str, message: str) -> bool:
        """Take a message out of the log and the pending queue, and delete its pictures; whether
        it was in the log."""
        k = self._k
        with map_redis_errors():
            raw = await self._r.hget(k.chat(chat, "msgs"), message)
            images = [r.id for r in codec.MESSAGE.decode(blob(raw)).images] if raw is not None else []
            async with self._r.pipeline(transaction=True) as tx:
                tx.zrem(k.chat(chat, "log"), message)
                tx.zrem(k.chat(chat, "pending"), message)
                tx.hdel(k.chat(chat, "msgs"), message)
                if images:
                    tx.delete(*(k.chat(chat, f"img:{i}") for i in images))
                    tx.zrem(k.chat(chat, "images"), *images)
                removed, *_ = await tx.execute()
        return bool(removed)

    async def requeue(self, message: StoredMessage) -> None:
        """See ``engine.ports.MessageEdits.requeue``."""
        with map_redis_errors():
            await self._r.zadd(self._k.chat(message.chat, "pending"), {message.id: message.position})

    async def swipes(self, chat: str, message: str) -> list[str]:
        """The turn ids of one answered message's alternatives, oldest first."""
        with map_redis_errors():
            raw = await self._r.hget(self._k.chat(chat, "swipes"), message)
        return _IDS.decode(blob(raw)) if raw is not None else []

    async def all_swipes(self, chat: str) -> dict[str, list[str]]:
        """Every answered message's alternatives."""
        with map_redis_errors():
            raw = await self._r.hgetall(self._k.chat(chat, "swipes"))
        return {k: _IDS.decode(v) for k, v in blob_hash(raw).items()}

    async def add_swipe(self, chat: str, message: str, previous: str, turn: str) -> list[str]:
        """Record ``turn`` as a new alternative of ``message`` (``previous`` starts the list)."""
        found = await self.swipes(chat, message)
        ids = found or [previous]
        if previous not in ids:
            ids.append(previous)
        if turn not in ids:
            ids.append(turn)
        with map_redis_errors():
            await self._r.hset(self._k.chat(chat, "swipes"), message, codec.ENCODER.encode(ids))
        return ids

    async def choose(self, current: Turn, chosen: Turn, message: StoredMessage | None) -> None:
        """Make ``chosen`` the reply the chat shows and the next turn sees, instead of ``current``."""
        k, chat = self._k, chosen.chat
        with map_redis_errors():
            async with self._r.pipeline(transaction=True) as tx:
                tx.hset(k.chat(chat, "turns"), current.id, codec.ENCODER.encode(current))
                tx.hset(k.chat(chat, "turns"), chosen.id, codec.ENCODER.encode(chosen))
                if current.reply_message:
                    tx.zrem(k.chat(chat, "log"), current.reply_message)
                if message is not None:
                    tx.hset(k.chat(chat, "msgs"), message.id, codec.ENCODER.encode(message))
                    tx.zadd(k.chat(chat, "log"), {message.id: message.position})
                tx.hset(k.chat(chat, "answers"), mapping=dict.fromkeys(chosen.answers, chosen.id))
                tx.set(k.chat(chat, "latest"), chosen.id)
                await tx.execute()

    async def copy(
        self,
        source: str,
        target: str,
        *,
        upto: float,
        rewrite: Callable[[StoredMessage], StoredMessage] | None = None,
    ) -> int:
        """Copy ``source``'s log up to ``upto`` (inclusive) into the empty chat ``target``.

        Returns:
            How many messages were copied.
        """
        k = self._k
        with map_redis_errors():
            top = "+inf" if upto == float("inf") else upto
            ids = texts(members(await self._r.zrangebyscore(k.chat(source, "log"), "-inf", top)))
            raw = await self._r.hmget(k.chat(source, "msgs"), ids) if ids else []
            messages = [codec.MESSAGE.decode(blob(b)) for b in raw if b is not None]
            seq = int(await self._r.get(k.chat(source, "seq")) or 0)
            turn_ids = [m.turn for m in messages if m.turn]
            raw_turns = await self._r.hmget(k.chat(source, "turns"), turn_ids) if turn_ids else []
            turns = [codec.TURN.decode(blob(b)) for b in raw_turns if b is not None]
            logs = [await self._r.get(k.request_log(source, t.id)) for t in turns]
            books = await self._r.get(k.chat(source, "lorebooks"))
            pictures = await self._pictures(source, messages)
            async with self._r.pipeline(transaction=True) as tx:
                for image, (position, data, ttl_ms) in pictures.items():  # the branch keeps them
                    tx.set(k.chat(target, f"img:{image}"), data, px=ttl_ms)
                    tx.zadd(k.chat(target, "images"), {image: position})
                if pictures:
                    tx.pexpire(k.chat(target, "images"), max(t for _, _, t in pictures.values()))
                tx.set(k.chat(target, "seq"), seq)
                latest: Turn | None = None
                for m in messages:
                    moved = msgspec.structs.replace(m, chat=target)
                    moved = rewrite(moved) if rewrite else moved
                    tx.hset(k.chat(target, "msgs"), m.id, codec.ENCODER.encode(moved))
                    tx.zadd(k.chat(target, "log"), {m.id: m.position})
                for turn, log in zip(turns, logs, strict=True):
                    moved_turn = msgspec.structs.replace(turn, chat=target, journal=())
                    tx.hset(k.chat(target, "turns"), turn.id, codec.ENCODER.encode(moved_turn))
                    tx.hset(k.chat(target, "answers"), mapping=dict.fromkeys(turn.answers, turn.id))
                    if log is not None:
                        tx.set(k.request_log(target, turn.id), log, ex=REQUEST_LOG_TTL)
                    if latest is None or turn.position > latest.position:
                        latest = turn
                if latest is not None:
                    tx.set(k.chat(target, "latest"), latest.id)
                if books is not None:
                    tx.set(k.chat(target, "lorebooks"), books)
                await tx.execute()
        return len(messages)

    async def turns(self, chat: str, ids: list[str]) -> dict[str, Turn]:
        """The stored turns among ``ids``, by id."""
        if not ids:
            return {}
        with map_redis_errors():
            raw = await self._r.hmget(self._k.chat(chat, "turns"), ids)
        return {i: codec.TURN.decode(blob(b)) for i, b in zip(ids, raw, strict=True) if b is not None}

    async def load(
        self,
        chat: str,
        messages: list[StoredMessage],
        turns: list[Turn],
        swipes: dict[str, list[str]],
        *,
        beside: list[StoredMessage],
        logs: list[RequestLog],
        seq: int,
    ) -> bool:
        """Write a whole chat into ``chat`` when it is empty, in one MULTI/EXEC.

        ``messages`` go in the log; ``beside`` (the alternatives not chosen) are kept out of it
        for their turns; ``logs`` are the turns' request logs (kept for the usual time).
        Returns whether the chat was empty (nothing is written otherwise).
        """
        k = self._k
        log = k.chat(chat, "log")
        with map_redis_errors():
            async with self._r.pipeline(transaction=True) as tx:
                await tx.watch(log)
                if int(await tx.zcard(log)) or int(await tx.exists(k.chat(chat, "seq"))):
                    await unwatch(tx)
                    return False
                multi(tx)
                tx.set(k.chat(chat, "seq"), seq)
                for m in (*messages, *beside):
                    tx.hset(k.chat(chat, "msgs"), m.id, codec.ENCODER.encode(m))
                if messages:
                    tx.zadd(log, {m.id: m.position for m in messages})
                latest: Turn | None = None
                for turn in turns:
                    tx.hset(k.chat(chat, "turns"), turn.id, codec.ENCODER.encode(turn))
                    if turn.status == "done":
                        tx.hset(k.chat(chat, "answers"), mapping=dict.fromkeys(turn.answers, turn.id))
                        if latest is None or turn.position > latest.position:
                            latest = turn
                if latest is not None:
                    tx.set(k.chat(chat, "latest"), latest.id)
                for entry in logs:
                    tx.set(k.request_log(chat, entry.turn), codec.ENCODER.encode(entry), ex=REQUEST_LOG_TTL)
                for message, ids in swipes.items():
                    tx.hset(k.chat(chat, "swipes"), message, codec.ENCODER.encode(ids))
                try:
                    await tx.execute()
                except WatchError:  # a message arrived meanwhile
                    return False
        return True

    async def _pictures(
        self, chat: str, messages: list[StoredMessage]
    ) -> dict[str, tuple[float, bytes, int]]:
        """The pictures of ``messages`` still kept: id → (position, bytes, milliseconds left)."""
        owned = {r.id: m.position for m in messages for r in m.images}
        if not owned:
            return {}
        ids = list(owned)
        async with self._r.pipeline(transaction=False) as p:
            for image in ids:
                p.get(self._k.chat(chat, f"img:{image}"))
                p.pttl(self._k.chat(chat, f"img:{image}"))
            found = await p.execute()
        kept = {}
        for n, image in enumerate(ids):
            data, ttl = found[2 * n], found[2 * n + 1]
            if data is not None and int(ttl) > 0:
                kept[image] = (owned[image], blob(data), int(ttl))
        return kept

    async def clear(self, chat: str) -> None:
        """Remove a chat's log, messages and turns (after they were moved elsewhere)."""
        parts = (
            "seq",
            "log",
            "msgs",
            "pending",
            "turns",
            "answers",
            "latest",
            "lorebooks",
            "swipes",
            "images",
        )
        with map_redis_errors():
            images = texts(members(await self._r.zrange(self._k.chat(chat, "images"), 0, -1)))
            pictures = [self._k.chat(chat, f"img:{i}") for i in images]
            await self._r.delete(*(self._k.chat(chat, p) for p in parts), *pictures)

    async def is_empty(self, chat: str) -> bool:
        """Whether a chat has no messages."""
        with map_redis_errors():
            return int(await self._r.zcard(self._k.chat(chat, "log"))) == 0

    async def add_branch(self, root: str, branch: Branch) -> None:
        """Remember a branch on the chat it belongs to."""
        with map_redis_errors():
            await self._r.hset(self._k.chat(root, "branches"), branch.id, codec.ENCODER.encode(branch))

    async def branches(self, root: str) -> list[Branch]:
        """The branches made from a chat, oldest first."""
        with map_redis_errors():
            raw = await self._r.hgetall(self._k.chat(root, "branches"))
        return sorted((_BRANCH.decode(blob(v)) for v in raw.values()), key=lambda b: b.created_at)
