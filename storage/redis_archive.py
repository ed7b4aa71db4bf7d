"""Episodic archive pages on Redis (EPI-1..13), hash-tagged per chat.

Per chat (``<prefix>:chat:{<chat>}:<part>``, one Cluster slot with the chat's log):

- ``archive:pages``  HASH page id → msgpack ``Page`` (its version chain inside).
- ``archive:vecs``   HASH page id → little-endian float32 bytes of the embedder in ``meta``.
- ``archive:meta``   HASH ``upto`` (position of the last message already archived into a page),
  ``model`` (the embedder of ``vecs``), ``version`` (bumped whenever ``vecs`` change, so
  in-process vector indexes know when to reload).
- ``archive:cvecs``  HASH page id → an 8-byte fingerprint of the page text, then the float32
  rows of its chunks (RECALL-1, ``adapters.recall.archive``); field ``~model`` names the
  embedder. Written in the background when pages are written (``PageRecall.index``); a
  missing row or a stale fingerprint means "embed again" (searches then read the page lexically).
- ``archive:lex``    HASH page id → an 8-byte fingerprint of the lexicon's shape, the page text
  and the lexical analysis, then msgpack of what the BM25 indexes read of the page: the whole
  text's and each chunk's ``lexical.Parsed`` (``archive.PageLexicon``), written with the chunk
  vectors so a process's first search loads it instead of parsing the pages' texts and chunks;
  a missing or stale row means "parse the text" (and queue the chat).
- ``archive:low``    SET of page ids the entropy filter keeps out of any LLM pass (EPI-7).
- ``archive:brief``  SET of the ids of the chat's pinned pages and open working notes: what a
  turn's briefing reads (``briefing_pages``) without loading every page. Kept in the same MULTI
  as every page change (``engine.archive.working``, EPI-1, EPI-13).

Deployment-wide: ``<prefix>:archive:chats`` (SET of chats with pages) and ``<prefix>:archive:where``
(HASH page id → chat, so a page can be named by its id alone), and ``<prefix>:archive:last_sweep``
(server time of the last archive pass, in ms), ``<prefix>:archive:activity`` (epoch ms of the
latest client activity the web process saw, for the dream pass's idle trigger, EPI-10),
``<prefix>:archive:dreams`` (LIST of the newest dream reports, JSON, newest first),
``<prefix>:archive:dream_rejected`` (ZSET of the fingerprints of dream clusters whose output was
rejected, scored by when; the newest ``DREAM_REJECTIONS_KEPT`` stay) and
``<prefix>:archive:unembedded`` (SET of chats a search found pages without chunk vectors in; the
worker embeds them next, ``ArchiveDesk.embed_queued``). The first three live in other slots than
the chat's keys, so they are written just before (adding) or just after (purging) the chat's
MULTI; at worst they name a page or chat that no longer exists, which readers ignore.

Atomicity: new session pages, their vectors and the ``upto`` cursor move in one MULTI under a
WATCH on ``meta`` (compare-and-set on the cursor), so two workers archiving one chat never write
a session twice. Every other page change reads the pages under a WATCH and writes in one MULTI,
retried when someone changed them meanwhile, so reads recorded by the web process and a sweep
in a worker never lose each other's updates.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import TypeVar

import msgspec
import redis.asyncio as aioredis
from redis.exceptions import WatchError

from engine.archive import Page, in_briefing
from engine.archive.dream import DreamReport
from engine.errors import Conflict
from engine.memory.journal import Saved
from engine.model import StoredMessage
from storage import codec
from storage.errors import map_redis_errors
from storage.keys import KeyBuilder
from storage.replies import (
    blob,
    blob_hash,
    fields,
    maybe_blob,
    maybe_text,
    members,
    multi,
    text,
    texts,
    unwatch,
)
from storage.scripts import lua

__all__ = ["DREAM_REPORTS_KEPT", "Change", "PageVectors", "RedisArchiveStore"]

ACTIVITY_GRANULARITY = timedelta(seconds=1)  # the dream idle trigger needs no finer clock

_PAGE = msgspec.msgpack.Decoder(Page)
_REPORT = msgspec.json.Decoder(DreamReport)
DREAM_REPORTS_KEPT = 50
DREAM_REJECTIONS_KEPT = 10_000  # fingerprints of rejected dream clusters, newest kept
_RETRIES = 20
T = TypeVar("T")


Change = tuple[Sequence[Page], Sequence[str], T]
"""What ``decide`` returns: the pages to store, the ids to delete for good, and a result."""


CHUNK_MODEL_FIELD = "~model"
"""The field of ``archive:cvecs`` naming the embedder of its rows (never a page id)."""


class PageVectors(msgspec.Struct, frozen=True, kw_only=True):
    """A chat's stored page vectors: the version, their embedder, and id → float32 bytes."""

    version: int
    model: str | None
    vectors: dict[str, bytes]


class RedisArchiveStore:
    """Pages, page vectors and the archiving cursor of every chat."""

    def __init__(self, client: aioredis.Redis, keys: KeyBuilder) -> None:
        self._r = client
        self._k = keys
        self._chats = f"{self._k.prefix}:archive:chats"
        self._where = f"{self._k.prefix}:archive:where"
        self._lease = f"{self._k.prefix}:archive:last_sweep"
        self._lease_script = client.register_script(lua("archive_lease"))
        self._activity = f"{self._k.prefix}:archive:activity"
        self._dreams = f"{self._k.prefix}:archive:dreams"
        self._unembedded = f"{self._k.prefix}:archive:unembedded"
        self._rejected = f"{self._k.prefix}:archive:dream_rejected"
        self._touch_script = client.register_script(lua("archive_touch"))
        self._brief_script = client.register_script(lua("archive_brief"))
        self._touched: datetime | None = None  # the last activity this process recorded

    def _key(self, chat: str, part: str) -> str:
        return self._k.chat(chat, f"archive:{part}")

    # --- messages (read-only view of the chat log) -------------------------------------------

    async def cursor(self, chat: str) -> float | None:
        """Position of the last message already archived, or ``None`` when nothing is."""
        with map_redis_errors():
            raw = await self._r.hget(self._key(chat, "meta"), "upto")
        return None if raw is None else float(raw)

    async def messages_after(self, chat: str, position: float | None, limit: int) -> list[StoredMessage]:
        """Up to ``limit`` messages of the chat's log after ``position`` (all when ``None``), oldest first."""
        low = "-inf" if position is None else f"({position}"
        with map_redis_errors():
            ids = await self._r.zrangebyscore(self._k.chat(chat, "log"), low, "+inf", start=0, num=limit)
            if not ids:
                return []
            raw = await self._r.hmget(self._k.chat(chat, "msgs"), members(ids))
        return [codec.MESSAGE.decode(blob(b)) for b in raw if b is not None]

    async def saved_memories(self, chat: str, turns: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """The memory ids each of ``turns`` saved (from the turns' journals), for page links (EPI-13)."""
        if not turns:
            return {}
        with map_redis_errors():
            raw = await self._r.hmget(self._k.chat(chat, "turns"), list(turns))
        found: dict[str, tuple[str, ...]] = {}
        for turn_id, stored in zip(turns, raw, strict=True):
            if stored is not None:
                turn = codec.TURN.decode(blob(stored))
                found[turn_id] = tuple(w.after.id for w in turn.journal if isinstance(w, Saved))
        return found

    async def newest_message(self, chat: str) -> StoredMessage | None:
        """The chat's newest message, if any."""
        with map_redis_errors():
            ids = await self._r.zrange(self._k.chat(chat, "log"), -1, -1)
            raw = await self._r.hget(self._k.chat(chat, "msgs"), members(ids)[0]) if ids else None
        return None if raw is None else codec.MESSAGE.decode(blob(raw))

    async def chats(self) -> list[str]:
        """Chats that have pages or messages (a SCAN of chat logs; for background passes only)."""
        found: set[str] = set()
        pattern = self._k.chat("*", "log")
        with map_redis_errors():
            found.update(texts(await self._r.smembers(self._chats)))
            async for key in self._r.scan_iter(match=pattern, count=1000):
                name = text(key)
                start, end = name.find("{"), name.rfind("}")
                if 0 <= start < end:
                    found.add(name[start + 1 : end])
        return sorted(found)

    # --- pages --------------------------------------------------------------------------------

    async def add_session_pages(
        self,
        chat: str,
        *,
        expected: float | None,
        upto: float,
        pages: Sequence[Page],
        low_entropy: Iterable[str] = (),
        model: str | None = None,
        vectors: Mapping[str, bytes] | None = None,
    ) -> bool:
        """Store new session pages and move the cursor to ``upto``, if it is still ``expected``.

        Returns:
            Whether they were stored (``False``: another worker archived these sessions first).
        """
        meta = self._key(chat, "meta")
        low = list(low_entropy)
        with map_redis_errors():
            if pages:
                await self._r.sadd(self._chats, chat)
                await self._r.hset(self._where, mapping={p.id: chat for p in pages})
            async with self._r.pipeline(transaction=True) as pipe:
                try:
                    await pipe.watch(meta)
                    current, stored_model = await pipe.hmget(meta, ["upto", "model"])
                    if (None if current is None else float(current)) != expected:
                        return False
                    multi(pipe)
                    if pages:
                        pipe.hset(
                            self._key(chat, "pages"), mapping={p.id: codec.ENCODER.encode(p) for p in pages}
                        )
                    if low:
                        pipe.sadd(self._key(chat, "low"), *low)
                    if vectors and model is not None:
                        self._queue_vectors(pipe, chat, model, vectors, maybe_blob(stored_model))
                    pipe.hset(meta, "upto", repr(upto))
                    await pipe.execute()
                except WatchError:
                    return False
        return True

    async def pages(self, chat: str) -> list[Page]:
        """Every page of the chat, oldest first."""
        with map_redis_errors():
            raw = await self._r.hgetall(self._key(chat, "pages"))
        return _ordered(blob_hash(raw).values())

    async def chat_of(self, page_id: str) -> str | None:
        """The chat a page belongs to, if the page exists."""
        with map_redis_errors():
            chat = maybe_text(await self._r.hget(self._where, page_id))
            if chat is None or not await self._r.hexists(self._key(chat, "pages"), page_id):
                return None
        return chat

    async def briefing_pages(self, chat: str) -> list[Page]:
        """The chat's pinned pages and open working notes, oldest first (one round trip: a
        script reads the briefing set and its pages, both in the chat's slot)."""
        with map_redis_errors():
            raw = await self._brief_script(keys=[self._key(chat, "brief"), self._key(chat, "pages")])
        return _ordered(blob(b) for b in raw)

    async def low_entropy(self, chat: str) -> set[str]:
        """Ids of the chat's pages the entropy filter keeps out of LLM passes (EPI-7)."""
        with map_redis_errors():
            return set(texts(await self._r.smembers(self._key(chat, "low"))))

    async def change(self, chat: str, decide: Callable[[list[Page]], Change[T]]) -> T:
        """Read the chat's pages, let ``decide`` plan a change, and store it atomically.

        ``decide`` may run several times (when someone else changed the pages meanwhile), so it
        must be a pure function of the pages it gets.

        Returns:
            What ``decide`` returned alongside the change that was stored.

        Raises:
            Conflict: ``archive_busy`` when the pages kept changing.
        """
        key = self._key(chat, "pages")
        with map_redis_errors():
            async with self._r.pipeline(transaction=True) as pipe:
                for _ in range(_RETRIES):
                    try:
                        await pipe.watch(key)
                        updates, purge, result = decide(_ordered(blob_hash(await pipe.hgetall(key)).values()))
                        if not (updates or purge):
                            await unwatch(pipe)
                            return result
                        multi(pipe)
                        self._queue_change(pipe, chat, updates, purge)
                        await pipe.execute()
                    except WatchError:
                        continue
                    if updates:  # pages written directly (not by archiving) become findable too
                        await self._r.sadd(self._chats, chat)
                        await self._r.hset(self._where, mapping={p.id: chat for p in updates})
                    if purge:
                        await self._r.hdel(self._where, *purge)
                    return result
        raise Conflict(f"The archive of {chat} kept changing; try again.", code="archive_busy")

    def _queue_change(
        self, pipe: aioredis.client.Pipeline, chat: str, updates: Sequence[Page], purge: Sequence[str]
    ) -> None:
        if updates:
            pipe.hset(self._key(chat, "pages"), mapping={p.id: codec.ENCODER.encode(p) for p in updates})
            shown = [p.id for p in updates if in_briefing(p)]
            hidden = [p.id for p in updates if not in_briefing(p)]
            if shown:
                pipe.sadd(self._key(chat, "brief"), *shown)
            if hidden:
                pipe.srem(self._key(chat, "brief"), *hidden)
        if purge:
            pipe.srem(self._key(chat, "brief"), *purge)
            pipe.hdel(self._key(chat, "pages"), *purge)
            pipe.hdel(self._key(chat, "vecs"), *purge)
            pipe.hdel(self._key(chat, "cvecs"), *purge)
            pipe.hdel(self._key(chat, "lex"), *purge)
            pipe.srem(self._key(chat, "low"), *purge)
            pipe.hincrby(self._key(chat, "meta"), "version", 1)

    # --- vectors ------------------------------------------------------------------------------

    async def vectors(self, chat: str) -> PageVectors:
        """The chat's page vectors with their version and embedder."""
        with map_redis_errors():
            async with self._r.pipeline(transaction=True) as tx:
                tx.hmget(self._key(chat, "meta"), ["version", "model"])
                tx.hgetall(self._key(chat, "vecs"))
                (version, model), raw = await tx.execute()
        return PageVectors(
            version=int(version or 0),
            model=text(model) if model else None,
            vectors=blob_hash(raw),
        )

    async def put_vectors(self, chat: str, model: str, vectors: Mapping[str, bytes]) -> None:
        """Store page vectors of ``model`` (vectors of another embedder are dropped first)."""
        if not vectors:
            return
        with map_redis_errors():
            stored = await self._r.hget(self._key(chat, "meta"), "model")
            async with self._r.pipeline(transaction=True) as tx:
                self._queue_vectors(tx, chat, model, vectors, maybe_blob(stored))
                await tx.execute()

    async def chunk_vectors(self, chat: str) -> tuple[str | None, dict[str, bytes]]:
        """The chat's stored chunk vectors: their embedder and page id → fingerprint + rows."""
        with map_redis_errors():
            raw = await self._r.hgetall(self._key(chat, "cvecs"))
        found = blob_hash(raw)
        model = found.pop(CHUNK_MODEL_FIELD, None)
        return (model.decode() if model else None), found

    async def put_chunk_vectors(self, chat: str, model: str, rows: Mapping[str, bytes]) -> None:
        """Store chunk vectors of ``model`` (another embedder's are dropped first)."""
        if not rows:
            return
        with map_redis_errors():
            key = self._key(chat, "cvecs")
            stored = await self._r.hget(key, CHUNK_MODEL_FIELD)
            async with self._r.pipeline(transaction=True) as tx:
                if stored is not None and text(stored) != model:
                    tx.delete(key)
                tx.hset(key, mapping=fields({**rows, CHUNK_MODEL_FIELD: model}))
                await tx.execute()

    async def lexicons(self, chat: str) -> dict[str, bytes]:
        """The chat's stored page lexicons: page id → fingerprint + msgpack (``archive:lex``)."""
        with map_redis_errors():
            raw = await self._r.hgetall(self._key(chat, "lex"))
        return blob_hash(raw)

    async def put_lexicons(self, chat: str, rows: Mapping[str, bytes]) -> None:
        """Store page lexicons (page id → fingerprint + msgpack)."""
        if not rows:
            return
        with map_redis_errors():
            await self._r.hset(self._key(chat, "lex"), mapping=fields(rows))

    async def queue_embedding(self, chat: str) -> None:
        """Ask the worker to embed the chat's pages that have no chunk vectors."""
        with map_redis_errors():
            await self._r.sadd(self._unembedded, chat)

    async def take_embedding_queue(self) -> list[str]:
        """The chats waiting for chunk vectors, taken off the queue (``queue_embedding`` again
        what fails; the archive pass's full round finds what a crash left out)."""
        with map_redis_errors():
            async with self._r.pipeline(transaction=True) as tx:
                tx.smembers(self._unembedded)
                tx.delete(self._unembedded)
                found, _ = await tx.execute()
        return sorted(texts(found))

    def _queue_vectors(
        self,
        pipe: aioredis.client.Pipeline,
        chat: str,
        model: str,
        vectors: Mapping[str, bytes],
        stored_model: bytes | None,
    ) -> None:
        if stored_model is not None and stored_model.decode() != model:
            pipe.delete(self._key(chat, "vecs"))  # another embedder's vectors: re-embedded on search
        pipe.hset(self._key(chat, "vecs"), mapping=fields(vectors))
        pipe.hset(self._key(chat, "meta"), "model", model)
        pipe.hincrby(self._key(chat, "meta"), "version", 1)

    # --- the sweep lease ----------------------------------------------------------------------

    async def sweep_lease(self, seconds: float) -> bool:
        """Whether this worker runs the archive pass now: ``seconds`` have passed since the last one.

        Checked and stamped atomically with the server's clock, so of several workers one runs
        each pass; a worker with a shorter interval does not wait for another's longer one.
        """
        with map_redis_errors():
            return bool(await self._lease_script(keys=[self._lease], args=[max(1, int(seconds * 1000))]))

    # --- client activity and dream reports (EPI-10) -------------------------------------------

    async def touch_activity(self, at: datetime) -> None:
        """Record client activity at ``at`` (the latest time wins across processes)."""
        if self._touched is not None and timedelta(0) <= at - self._touched < ACTIVITY_GRANULARITY:
            return  # recorded a moment ago: spare every message a round trip
        with map_redis_errors():
            await self._touch_script(keys=[self._activity], args=[int(at.timestamp() * 1000)])
        self._touched = at

    async def last_activity(self) -> datetime | None:
        """The latest client activity recorded, or ``None`` when there was none."""
        with map_redis_errors():
            raw = await self._r.get(self._activity)
        return None if raw is None else datetime.fromtimestamp(int(raw) / 1000, tz=UTC)

    async def add_dream_report(self, report: DreamReport) -> None:
        """Keep ``report`` as the newest dream report (the newest ``DREAM_REPORTS_KEPT`` stay)."""
        with map_redis_errors():
            async with self._r.pipeline(transaction=True) as tx:
                tx.lpush(self._dreams, msgspec.json.encode(report))
                tx.ltrim(self._dreams, 0, DREAM_REPORTS_KEPT - 1)
                await tx.execute()

    async def dream_reports(self, limit: int = DREAM_REPORTS_KEPT) -> list[DreamReport]:
        """The newest dream reports, newest first."""
        with map_redis_errors():
            raw = await self._r.lrange(self._dreams, 0, max(0, limit - 1))
        return [_REPORT.decode(r) for r in raw]

    async def rejected_clusters(self) -> set[str]:
        """See ``engine.ports.DreamRejections.rejected_clusters``."""
        with map_redis_errors():
            raw = await self._r.zrange(self._rejected, 0, -1)
        return {r.decode() if isinstance(r, bytes) else str(r) for r in raw}

    async def reject_cluster(self, fingerprint: str, at: datetime) -> None:
        """See ``engine.ports.DreamRejections.reject_cluster`` (the newest ``DREAM_REJECTIONS_KEPT``)."""
        with map_redis_errors():
            async with self._r.pipeline(transaction=True) as tx:
                tx.zadd(self._rejected, {fingerprint: at.timestamp()})
                tx.zremrangebyrank(self._rejected, 0, -DREAM_REJECTIONS_KEPT - 1)
                await tx.execute()


def _ordered(raw: Iterable[bytes]) -> list[Page]:
    return sorted((_PAGE.decode(b) for b in raw), key=lambda p: (p.created_at, p.id))
