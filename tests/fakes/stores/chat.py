"""In-memory fakes of the chat ports (``storage.redis_chat``): log, turns, personas, the lock."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import msgspec

from engine.errors import Conflict
from engine.images import MAX_CHAT_IMAGES
from engine.lorebook import LoreState
from engine.model import ChatSettings, Persona, StoredMessage, Turn
from engine.ports import NewMessage, TurnInputs
from engine.requestlog import RequestLog
from tests.fakes.stores.data import ChatData, InMemoryData, ordered

__all__ = ["InMemoryChatLock", "InMemoryChatStore", "InMemoryPersonaStore"]


def _newest(data: ChatData, upto: float, limit: int) -> list[StoredMessage]:
    """The newest ``limit`` messages at or before ``upto``, oldest first."""
    ids = [i for i, p in ordered(data.log) if p <= upto]
    chosen = ids[-limit:] if limit > 0 else []
    return [data.msgs[i] for i in chosen if i in data.msgs]


class InMemoryChatStore:
    """``MessageLog``, ``MessageIntake``, ``TurnReads`` and ``TurnRecords`` in memory."""

    def __init__(self, data: InMemoryData, *, max_images: int = MAX_CHAT_IMAGES) -> None:
        self._d = data
        self.max_images = max_images

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
        """See ``engine.ports.MessageIntake.store_message``."""
        data = self._d.chat(chat)
        data.seq += 1
        seq = data.seq
        if seq == 1 and greeting is not None:
            data.msgs.setdefault("m0", greeting.placed(chat, "m0", 0.0))
            data.log.setdefault("m0", 0.0)
        stored = message.placed(chat, f"m{seq}", float(seq))
        data.msgs[stored.id] = stored
        data.log[stored.id] = stored.position
        if pending:
            data.pending[stored.id] = stored.position
        for image, raw in images:
            data.images[image] = (stored.position, raw)
        while len(data.images) > self.max_images:  # the oldest go first, as on Redis
            data.images.pop(min(data.images, key=lambda i: (data.images[i][0], i)))
        return stored, self._d.persona_versions.get(message.persona)

    async def images(self, chat: str, ids: Sequence[str]) -> dict[str, bytes]:
        """See ``engine.ports.ImageStore.images``."""
        kept = self._d.chat(chat).images
        return {i: kept[i][1] for i in ids if i in kept}

    async def drop_images(self, chat: str, ids: Sequence[str]) -> None:
        """See ``engine.ports.ImageStore.drop_images``."""
        for i in ids:
            self._d.chat(chat).images.pop(i, None)

    async def first_notice(self, chat: str, notice: str) -> bool:
        """See ``engine.ports.ImageStore.first_notice``."""
        shown = self._d.chat(chat).notices
        first = notice not in shown
        shown.add(notice)
        return first

    async def discard(self, chat: str, message: StoredMessage) -> None:
        """See ``engine.ports.MessageIntake.discard``."""
        data = self._d.chat(chat)
        for gone in [message.id, "m0"] if message.id == "m1" else [message.id]:
            data.msgs.pop(gone, None)
            data.log.pop(gone, None)
        data.pending.pop(message.id, None)

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
        """See ``engine.ports.TurnReads.turn_inputs``."""
        data = self._d.peek(chat)
        wanted = list(dict.fromkeys(books))
        persona_version = self._d.persona_versions.get(persona)
        token_ratio = self._d.token_ratios.get(model)
        book_versions = {b: self._d.book_versions[b] for b in wanted if b in self._d.book_versions}
        answered: StoredMessage | None = None
        if pending:
            first = next((item for item in ordered(data.pending) if item[1] <= upto), None)
            if first is None:
                return TurnInputs(
                    answered=None,
                    persona_version=persona_version,
                    token_ratio=token_ratio,
                    book_versions=book_versions,
                )
            answered, upto = data.msgs.get(first[0]), first[1]
        return TurnInputs(
            answered=answered,
            messages=tuple(_newest(data, upto, limit)),
            count=sum(1 for p in data.log.values() if p <= upto),
            attached=data.lorebooks or (),
            lore_state=data.lore_state or LoreState(),
            summary=msgspec.structs.replace(data.summary, version=data.summary_version),
            chat_settings=data.settings,
            persona_version=persona_version,
            token_ratio=token_ratio,
            book_versions=book_versions,
        )

    async def chat_settings(self, chat: str) -> ChatSettings:
        """See ``engine.ports.ChatSettingsStore.chat_settings``."""
        return self._d.peek(chat).settings

    async def put_chat_settings(self, chat: str, settings: ChatSettings) -> None:
        """See ``engine.ports.ChatSettingsStore.put_chat_settings``."""
        self._d.chat(chat).settings = settings

    async def save_token_ratio(self, model: str, ratio: float) -> None:
        """See ``engine.ports.TurnReads.save_token_ratio`` (kept to 5 decimals, as Redis keeps it)."""
        self._d.token_ratios[model] = float(f"{ratio:.5f}")

    async def upto(self, chat: str, position: float, limit: int) -> list[StoredMessage]:
        """See ``engine.ports.MessageLog.upto``."""
        return _newest(self._d.peek(chat), position, limit)

    async def history(self, chat: str, limit: int) -> list[StoredMessage]:
        """See ``engine.ports.MessageLog.history`` (``limit`` 0 means all, as ``ZRANGE -0 -1`` does)."""
        data = self._d.peek(chat)
        ids = [i for i, _ in ordered(data.log)][-limit:]
        return [data.msgs[i] for i in ids if i in data.msgs]

    async def message(self, chat: str, message: str) -> StoredMessage | None:
        """See ``engine.ports.MessageLog.message``."""
        return self._d.peek(chat).msgs.get(message)

    async def count(self, chat: str, upto: float) -> int:
        """See ``engine.ports.MessageLog.count``."""
        return sum(1 for p in self._d.peek(chat).log.values() if p <= upto)

    async def oldest_pending(self, chat: str, upto: float) -> StoredMessage | None:
        """See ``engine.ports.MessageIntake.oldest_pending``."""
        data = self._d.peek(chat)
        first = next((i for i, p in ordered(data.pending) if p <= upto), None)
        return data.msgs.get(first) if first is not None else None

    async def drop_pending(self, chat: str, message: str) -> None:
        """See ``engine.ports.MessageIntake.drop_pending``."""
        self._d.chat(chat).pending.pop(message, None)

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
        """See ``engine.ports.TurnRecords.finish`` (the fake lock is never lost, so no fence)."""
        if token_ratio is not None:
            await self.save_token_ratio(*token_ratio)
        data = self._d.chat(turn.chat)
        stored = None
        if reply is not None:
            stored = reply.placed(turn.chat, turn.reply_message or f"r-{turn.id}", turn.position + 0.5)
            stored = msgspec.structs.replace(stored, turn=turn.id)
        data.turns[turn.id] = turn
        data.request_logs[turn.id] = log
        for answered in turn.answers:
            data.pending.pop(answered, None)
        if stored is not None:
            data.msgs[stored.id] = stored
            data.log[stored.id] = stored.position
            data.answers.update(dict.fromkeys(turn.answers, turn.id))
            data.latest = turn.id
        if lore_state is not None:
            data.lore_state = lore_state
        if superseded is not None:
            data.turns[superseded.id] = superseded
            if superseded.reply_message:
                data.log.pop(superseded.reply_message, None)
        return stored

    async def get(self, chat: str, turn: str) -> tuple[Turn, RequestLog] | None:
        """See ``engine.ports.TurnRecords.get``."""
        data = self._d.peek(chat)
        found, log = data.turns.get(turn), data.request_logs.get(turn)
        return (found, log) if found is not None and log is not None else None

    async def answer_of(self, chat: str, message: str) -> Turn | None:
        """See ``engine.ports.TurnRecords.answer_of``."""
        data = self._d.peek(chat)
        turn = data.answers.get(message)
        return data.turns.get(turn) if turn is not None else None

    async def latest(self, chat: str) -> Turn | None:
        """See ``engine.ports.TurnRecords.latest``."""
        data = self._d.peek(chat)
        return data.turns.get(data.latest) if data.latest is not None else None


class InMemoryChatLock:
    """``ChatLock`` in one process: an ``asyncio.Lock`` per chat, ``chat_busy`` after ``wait`` seconds."""

    def __init__(self, *, wait: float = 330.0) -> None:
        self._wait = wait
        self._locks: dict[str, asyncio.Lock] = {}

    @asynccontextmanager
    async def hold(self, chat: str, *, lazy: bool = False) -> AsyncIterator[None]:
        """See ``engine.ports.ChatLock.hold``."""
        lock = self._locks.setdefault(chat, asyncio.Lock())
        try:
            await asyncio.wait_for(lock.acquire(), timeout=self._wait)
        except TimeoutError:
            raise Conflict("The chat is busy with another reply; try again.", code="chat_busy") from None
        try:
            yield
        finally:
            lock.release()


class InMemoryPersonaStore:
    """``PersonaStore`` in memory: personas by id, each with a version bumped by every change."""

    def __init__(self, data: InMemoryData) -> None:
        self._d = data

    async def get(self, persona: str) -> Persona | None:
        """See ``engine.ports.PersonaStore.get``."""
        return self._d.personas.get(persona)

    async def versioned(self, persona: str) -> tuple[int, Persona] | None:
        """See ``engine.ports.PersonaStore.versioned``."""
        found = self._d.personas.get(persona)
        if found is None:
            return None
        return self._d.persona_versions.setdefault(persona, 1), found

    async def put(self, persona: Persona) -> None:
        """See ``engine.ports.PersonaStore.put``."""
        self._d.personas[persona.id] = persona
        self._d.persona_versions[persona.id] = self._d.persona_versions.get(persona.id, 0) + 1

    async def all(self) -> list[Persona]:
        """See ``engine.ports.PersonaStore.all``."""
        return sorted(self._d.personas.values(), key=lambda p: p.id)

    async def delete(self, persona: str) -> bool:
        """See ``engine.ports.PersonaStore.delete``."""
        self._d.persona_versions.pop(persona, None)
        return self._d.personas.pop(persona, None) is not None
