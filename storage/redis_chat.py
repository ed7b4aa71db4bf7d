"""Chats on Redis: the message log, turns, request logs, the pending queue and the chat lock.

Per chat (all keys hash-tagged with the chat id, see ``storage.keys``):

- ``seq``      INCR counter; a user message's position is its number (the greeting is 0).
- ``log``      ZSET message id → position; a reply sits at the answered message's position + 0.5.
- ``msgs``     HASH message id → msgpack ``StoredMessage``.
- ``pending``  ZSET message id → position of messages that still await a reply.
- ``turns``    HASH turn id → msgpack ``Turn``; ``answers`` HASH message id → turn id.
- ``latest``   the id of the newest finished turn; ``req:<turn>`` the turn's request log (TTL).
- ``settings`` msgpack ``ChatSettings`` (the chat's memory mode, MEM-8), read with every turn.
- ``img:<id>``  a picture's bytes (TTL ``image_ttl``); ``images`` ZSET picture id → position, at
  most ``MAX_CHAT_IMAGES`` (storing one more deletes the oldest); ``notice:<name>`` a notice shown.

Every multi-key change is one MULTI/EXEC transaction or one script (STYLE P4), so a crash
leaves either the whole change or none of it.

Round trips (issue 12): storing a message is one script (``INCR`` and the writes together,
pipelined with the persona's version); everything a turn reads before its LLM call is one
pipeline (``turn_inputs``: a script over the chat's keys for the pending message, the window,
the count, the attached books, the lore and summary state, plus the persona's version, the
learned token ratio and the versions of the books the caller expects), and it takes the chat's
lock when the turn holds it lazily (``RedisChatLock.hold(lazy=True)``); finishing is one script
that checks the lock's lease, writes everything and frees the lock. A plain turn is thus three
round trips. A script the server lost (restart, SCRIPT FLUSH) costs one more round trip. The
scripts are ``storage/lua/chat_*.lua``.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import msgspec
import redis.asyncio as aioredis

from engine.errors import Conflict
from engine.images import MAX_CHAT_IMAGES
from engine.lorebook import LoreState
from engine.model import ChatSettings, Persona, StoredMessage, Turn
from engine.ports import NewMessage, TurnInputs
from engine.requestlog import RequestLog
from engine.summary import SummaryState
from storage import codec
from storage.errors import map_redis_errors
from storage.keys import KeyBuilder
from storage.lease import LEASE_TTL, Lease, LeaseLost, lease_of
from storage.replies import blob, blob_hash, maybe_blob, members
from storage.scripts import lua
from storage.shared import Call, Cooldown, LastKnown, run_split

__all__ = ["RedisChatLock", "RedisChatStore", "RedisPersonaStore"]

REQUEST_LOG_TTL = 30 * 24 * 3600
IMAGE_TTL = 30 * 24 * 3600  # HEARTH_IMAGE_TTL_DAYS's default
logger = logging.getLogger("hearth.storage")

_BOOK_IDS = msgspec.json.Decoder(list[str])
_BUSY = [b"busy"]  # the turn read's answer when another holder has the chat's lock


def _message_parts(message: StoredMessage) -> tuple[bytes, bytes]:
    """A message as the append script assembles it: the map header and every field but id/position."""
    fields = {k: v for k, v in msgspec.structs.asdict(message).items() if k not in ("id", "position")}
    body = codec.ENCODER.encode(fields)
    if len(fields) + 2 > 15 or body[0] != 0x80 | len(fields):
        raise AssertionError("StoredMessage outgrew a msgpack fixmap; adapt lua/chat_append.lua")
    return bytes([0x80 | (len(fields) + 2)]), body[1:]


class RedisChatStore:
    """Implements the ``MessageLog`` and ``TurnStore`` ports on one Redis client."""

    def __init__(
        self,
        client: aioredis.Redis,
        keys: KeyBuilder,
        *,
        image_ttl: int = IMAGE_TTL,
        max_images: int = MAX_CHAT_IMAGES,
    ) -> None:
        self._r = client
        self._k = keys
        self._image_ttl = image_ttl
        self._max_images = max_images
        self._append = client.register_script(lua("chat_append"))
        self._turn_read = client.register_script(lua("chat_turn_read"))
        self._finish = client.register_script(lua("chat_finish"))
        # the deployment-wide values a turn reads, as last read: a turn goes on with them while
        # the Cluster node that holds them is unreachable (issue 29)
        self._versions: LastKnown[str, int | None] = LastKnown("the persona's version")
        self._documents: LastKnown[str, tuple[int, str | None]] = LastKnown("the persona's documents")
        self._books: LastKnown[str, int | None] = LastKnown("a lorebook's version")
        self._cooldown = Cooldown.of(client)

    async def _messages(self, chat: str, ids: list[str]) -> list[StoredMessage]:
        if not ids:
            return []
        raw = await self._r.hmget(self._k.chat(chat, "msgs"), ids)
        return [codec.MESSAGE.decode(blob(b)) for b in raw if b is not None]

    async def append(
        self, chat: str, message: NewMessage, *, pending: bool, greeting: NewMessage | None
    ) -> StoredMessage:
        """See ``engine.ports.MessageLog.append``."""
        stored, _ = await self.store_message(chat, message, pending=pending, greeting=greeting)
        return stored

    async def store_message(
        self,
        chat: str,
        message: NewMessage,
        *,
        pending: bool,
        greeting: NewMessage | None,
        images: Sequence[tuple[str, bytes]] = (),
    ) -> tuple[StoredMessage, int | None]:
        """See ``engine.ports.TurnStore.store_message``: one script (the pictures too), pipelined
        with the version read."""
        k = self._k
        draft = message.placed(chat, "m", 0.0)
        header, body = _message_parts(draft)
        hello = codec.ENCODER.encode(greeting.placed(chat, "m0", 0.0)) if greeting is not None else b""
        keys = [
            k.chat(chat, "seq"),
            k.chat(chat, "msgs"),
            k.chat(chat, "log"),
            k.chat(chat, "pending"),
            k.chat(chat, "images"),
            *(self._image_key(chat, i) for i, _ in images),
        ]
        args = (header, body, "1" if pending else "0", hello, self._image_ttl, self._max_images)
        pictures = [part for i, data in images for part in (i, data)]
        (seq,), (version,) = await run_split(
            self._r,
            [(self._append, (len(keys), *keys, *args, self._image_key(chat, ""), *pictures))],
            [("HGET", (k.persona_versions(), message.persona))],
            self._cooldown,
            needed=[not self._versions.knows(message.persona)],
        )
        stored = msgspec.structs.replace(draft, id=f"m{seq}", position=float(seq))
        return stored, self._version(message.persona, version)

    def _image_key(self, chat: str, image: str) -> str:
        return self._k.chat(chat, f"img:{image}")

    async def images(self, chat: str, ids: Sequence[str]) -> dict[str, bytes]:
        """See ``engine.ports.ImageStore.images`` (one MGET: every key is in the chat's slot)."""
        if not ids:
            return {}
        with map_redis_errors():
            found = await self._r.mget([self._image_key(chat, i) for i in ids])
        return {i: blob(b) for i, b in zip(ids, found, strict=True) if b is not None}

    async def drop_images(self, chat: str, ids: Sequence[str]) -> None:
        """See ``engine.ports.ImageStore.drop_images``."""
        if not ids:
            return
        with map_redis_errors():
            async with self._r.pipeline(transaction=True) as tx:
                tx.delete(*(self._image_key(chat, i) for i in ids))
                tx.zrem(self._k.chat(chat, "images"), *ids)
                await tx.execute()

    async def first_notice(self, chat: str, notice: str) -> bool:
        """See ``engine.ports.ImageStore.first_notice`` (kept as long as the chat's pictures)."""
        with map_redis_errors():
            first = await self._r.set(self._k.chat(chat, f"notice:{notice}"), 1, nx=True, ex=self._image_ttl)
        return bool(first)

    def _version(self, persona: str, result: Any) -> int | None:
        """The persona's version read (or the last one read, when its node is unreachable)."""
        found: int | None = self._versions.result(
            persona, int(result) if isinstance(result, bytes | int) else result
        )
        return found

    async def discard(self, chat: str, message: StoredMessage) -> None:
        """See ``engine.ports.TurnStore.discard`` (the greeting goes too when the chat is new)."""
        k = self._k
        ids = [message.id, "m0"] if message.id == "m1" else [message.id]
        with map_redis_errors():
            async with self._r.pipeline(transaction=True) as tx:
                tx.hdel(k.chat(chat, "msgs"), *ids)
                tx.zrem(k.chat(chat, "log"), *ids)
                tx.zrem(k.chat(chat, "pending"), message.id)
                await tx.execute()

    async def turn_inputs(
        self,
        chat: str,
        upto: float,
        limit: int,
        *,
        pending: bool,
        persona: str,
        model: str,
        books: Sequence[str] = (),
    ) -> TurnInputs:
        """See ``engine.ports.TurnStore.turn_inputs``."""
        k = self._k
        parts = ("pending", "log", "msgs", "lorebooks", "lore_state", "summary", "summary_v")
        keys = [*(k.chat(chat, p) for p in parts), k.lock(chat), k.chat(chat, "settings")]
        wanted = list(dict.fromkeys(books))

        async def attempt(token: str, ttl_ms: int) -> list[Any] | None:
            args = (len(keys), *keys, repr(upto), str(limit), int(pending), token, ttl_ms)
            own: list[Call] = [(self._turn_read, args)]
            shared: list[Call] = [  # deployment-wide: the last values read stand in when unreachable
                ("HGET", (k.persona_versions(), persona)),
                ("HGET", (k.token_ratio(), model)),
                ("HMGET", (k.document(persona, "meta"), "version", "model")),
                *(("GET", (k.lorebook(b, "version"),)) for b in wanted),
            ]
            needed = [not self._versions.knows(persona), False, not self._documents.knows(persona)]
            (read,), others = await run_split(self._r, own, shared, self._cooldown, needed=needed)
            return None if read == _BUSY else [read, *others]

        lease = lease_of(k.lock(chat))  # a lazy chat lock: this read takes it (issue 12)
        if lease is None or lease.acquired:
            found = await attempt("", 0)
        else:
            found = await lease.acquire_with(attempt, took=lambda results: len(results[0]) > 1)
        if found is None:
            raise Conflict("The chat is busy with another reply; try again.", code="chat_busy")
        read, version, ratio, documents, *book_versions = found
        if not isinstance(documents, Exception):
            doc_version, doc_model = documents
            documents = (int(doc_version or 0), doc_model.decode() if doc_model else None)
        books_read = {b: self._book(b, v) for b, v in zip(wanted, book_versions, strict=True)}
        common: dict[str, Any] = {
            "persona_version": self._version(persona, version),
            # unreachable: None, the counter keeps the ratio it has
            "token_ratio": float(ratio) if isinstance(ratio, bytes | float | int) else None,
            "documents": self._documents.result(persona, documents),
            "book_versions": {b: v for b, v in books_read.items() if v is not None},
        }
        if len(read) == 1:
            return TurnInputs(answered=None, **common)
        answered, blobs, count, attached, lore_state, summary, summary_v, *settings = read
        state = codec.SUMMARY.decode(summary) if summary is not None else SummaryState()
        return TurnInputs(
            answered=codec.MESSAGE.decode(answered) if answered is not None else None,
            messages=tuple(codec.MESSAGE.decode(b) for b in reversed(blobs) if b is not None),
            count=int(count),
            attached=tuple(_BOOK_IDS.decode(attached)) if attached is not None else (),
            lore_state=codec.LORE_STATE.decode(lore_state) if lore_state is not None else LoreState(),
            summary=SummaryState(upto=state.upto, tiers=state.tiers, version=int(summary_v or 0)),
            chat_settings=_settings(settings[0] if settings else None),
            **common,
        )

    def _book(self, book: str, result: Any) -> int | None:
        """A book's version read, else the last one read, else None (its store reads it again)."""
        if isinstance(result, Exception) and self._books.get(book) is None:
            return None
        value = int(result) if isinstance(result, bytes | int) else result
        found: int | None = self._books.result(book, value)
        return found

    async def chat_settings(self, chat: str) -> ChatSettings:
        """See ``engine.ports.ChatSettingsStore.chat_settings``."""
        with map_redis_errors():
            raw = await self._r.get(self._k.chat(chat, "settings"))
        return _settings(raw)

    async def put_chat_settings(self, chat: str, settings: ChatSettings) -> None:
        """See ``engine.ports.ChatSettingsStore.put_chat_settings``."""
        with map_redis_errors():
            await self._r.set(self._k.chat(chat, "settings"), codec.ENCODER.encode(settings))

    async def save_token_ratio(self, model: str, ratio: float) -> None:
        """See ``engine.ports.TurnStore.save_token_ratio``."""
        with map_redis_errors():
            await self._r.hset(self._k.token_ratio(), model, f"{ratio:.5f}")

    async def upto(self, chat: str, position: float, limit: int) -> list[StoredMessage]:
        """See ``engine.ports.MessageLog.upto``."""
        with map_redis_errors():
            ids = await self._r.zrevrangebyscore(
                self._k.chat(chat, "log"), position, "-inf", start=0, num=limit
            )
            found = await self._messages(chat, [i.decode() for i in reversed(members(ids))])
        return found

    async def history(self, chat: str, limit: int) -> list[StoredMessage]:
        """See ``engine.ports.MessageLog.history``."""
        with map_redis_errors():
            ids = await self._r.zrange(self._k.chat(chat, "log"), -limit, -1)
            found = await self._messages(chat, [i.decode() for i in members(ids)])
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
            found = await self._messages(chat, [i.decode() for i in members(ids)])
        return found[0] if found else None

    async def drop_pending(self, chat: str, message: str) -> None:
        """See ``engine.ports.TurnStore.drop_pending``."""
        with map_redis_errors():
            await self._r.zrem(self._k.chat(chat, "pending"), message)

    async def finish(
        self,
        turn: Turn,
        log: RequestLog,
        reply: NewMessage | None,
        superseded: Turn | None,
        lore_state: LoreState | None = None,
        *,
        token_ratio: tuple[str, float] | None = None,
    ) -> StoredMessage | None:
        """See ``engine.ports.TurnStore.finish``."""
        k, chat = self._k, turn.chat
        stored = (
            reply.placed(chat, turn.reply_message or f"r-{turn.id}", turn.position + 0.5)
            if reply is not None
            else None
        )
        if stored is not None:
            stored = msgspec.structs.replace(stored, turn=turn.id)
        parts = ("turns", "pending", "msgs", "log", "answers", "latest", "lore_state")
        turns, pending, msgs, log_key, answers, latest, lore_key = (k.chat(chat, p) for p in parts)
        keys = [turns, k.request_log(chat, turn.id), pending, msgs, log_key, answers, latest, lore_key]
        lease = lease_of(k.lock(chat))
        token = lease.token if lease is not None and lease.acquired else ""
        args: list[Any] = [
            token,  # fenced: a turn whose chat lock was lost meanwhile stores nothing (LeaseLost)
            turn.id,
            codec.ENCODER.encode(turn),
            codec.ENCODER.encode(log),
            REQUEST_LOG_TTL,
            stored.id if stored is not None else "",
            codec.ENCODER.encode(stored) if stored is not None else "",
            repr(stored.position) if stored is not None else "",
            codec.ENCODER.encode(lore_state) if lore_state is not None else "",
            superseded.id if superseded is not None else "",
            codec.ENCODER.encode(superseded) if superseded is not None else "",
            (superseded.reply_message or "") if superseded is not None else "",
            *turn.answers,
        ]
        script_keys = [*keys, k.lock(chat)]
        shared: list[Call] = []
        if token_ratio is not None:  # the same round trip (another slot: not in the script)
            shared.append(("HSET", (k.token_ratio(), token_ratio[0], f"{token_ratio[1]:.5f}")))
        finish: Call = (self._finish, (len(script_keys), *script_keys, *args))
        (done,), saved = await run_split(self._r, [finish], shared, self._cooldown)
        for failed in saved:  # a deployment-wide write never fails the turn; a later turn learns again
            if isinstance(failed, Exception):
                logger.warning("the learned token ratio was not stored (%s)", failed)
        if not done:
            raise LeaseLost("The lock was lost before this could be stored; another holder carries on.")
        if lease is not None and token:
            await lease.ended()  # the script released the lock with the writes
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
        return codec.TURN.decode(blob(raw)) if raw is not None else None

    async def answer_of(self, chat: str, message: str) -> Turn | None:
        """See ``engine.ports.TurnStore.answer_of``."""
        with map_redis_errors():
            turn_id = await self._r.hget(self._k.chat(chat, "answers"), message)
            return await self._turn(chat, maybe_blob(turn_id))

    async def latest(self, chat: str) -> Turn | None:
        """See ``engine.ports.TurnStore.latest``."""
        with map_redis_errors():
            turn_id = await self._r.get(self._k.chat(chat, "latest"))
            return await self._turn(chat, maybe_blob(turn_id))


def _settings(raw: bytes | str | None) -> ChatSettings:
    return codec.CHAT_SETTINGS.decode(blob(raw)) if raw is not None else ChatSettings()


class RedisChatLock:
    """Implements ``ChatLock`` with a renewed lease (``storage.lease``), safe across processes.

    The lease lives ``ttl`` seconds (10 by default) and is renewed while the turn runs, so a
    turn may take as long as the provider needs, while a crashed holder, or one cut off from
    Redis, frees the chat within ``ttl``. The turn's final transaction is fenced on the lease.
    """

    def __init__(
        self,
        client: aioredis.Redis,
        keys: KeyBuilder,
        *,
        ttl: float = LEASE_TTL,
        wait: float = 330.0,
    ) -> None:
        self._r = client
        self._k = keys
        self._ttl = ttl
        self._wait = wait

    @asynccontextmanager
    async def hold(self, chat: str, *, lazy: bool = False) -> AsyncIterator[None]:
        """See ``engine.ports.ChatLock.hold``.

        ``lazy``: the lock is taken by the first ``RedisChatStore.turn_inputs`` of the block, in the
        same round trip as the read (``chat_busy`` is raised there), and a turn's ``finish`` frees
        it in the same script as its writes; the next read of the block takes it again.
        """
        lease = Lease(self._r, self._k.lock(chat), ttl=self._ttl, wait=self._wait, lazy=lazy)
        async with lease:
            if not lease.acquired and not lazy:
                raise Conflict("The chat is busy with another reply; try again.", code="chat_busy")
            yield


class RedisPersonaStore:
    """Implements ``PersonaStore``: one hash of personas by id."""

    def __init__(self, client: aioredis.Redis, keys: KeyBuilder) -> None:
        self._r = client
        self._k = keys

    async def get(self, persona: str) -> Persona | None:
        """See ``engine.ports.PersonaStore.get``."""
        with map_redis_errors():
            raw = await self._r.hget(self._k.personas(), persona)
        return codec.PERSONA.decode(blob(raw)) if raw is not None else None

    async def versioned(self, persona: str) -> tuple[int, Persona] | None:
        """See ``engine.ports.PersonaStore.versioned``; a persona stored before versions gets 1."""
        k = self._k
        with map_redis_errors():
            async with self._r.pipeline(transaction=False) as p:
                p.hget(k.personas(), persona)
                p.hget(k.persona_versions(), persona)
                raw, version = await p.execute()
            if raw is None:
                return None
            if version is None:  # stored before versions existed
                await self._r.hsetnx(k.persona_versions(), persona, 1)
                version = await self._r.hget(k.persona_versions(), persona)
        return int(version), codec.PERSONA.decode(raw)

    async def put(self, persona: Persona) -> None:
        """See ``engine.ports.PersonaStore.put``."""
        with map_redis_errors():
            async with self._r.pipeline(transaction=True) as tx:
                tx.hset(self._k.personas(), persona.id, codec.ENCODER.encode(persona))
                tx.hincrby(self._k.persona_versions(), persona.id, 1)
                await tx.execute()

    async def delete(self, persona: str) -> bool:
        """Delete a persona; whether it existed."""
        with map_redis_errors():
            async with self._r.pipeline(transaction=True) as tx:
                tx.hdel(self._k.personas(), persona)
                tx.hdel(self._k.persona_versions(), persona)
                existed, _ = await tx.execute()
        return bool(existed)

    async def all(self) -> list[Persona]:
        """See ``engine.ports.PersonaStore.all``."""
        with map_redis_errors():
            raw = await self._r.hgetall(self._k.personas())
        return sorted((codec.PERSONA.decode(v) for v in blob_hash(raw).values()), key=lambda p: p.id)
