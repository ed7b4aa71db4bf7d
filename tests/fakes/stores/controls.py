"""An in-memory fake of ``storage.redis_chat_controls.RedisChatControls`` (edits, swipes, copies)."""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from engine.model import StoredMessage, Turn
from tests.fakes.stores.data import InMemoryData, ordered

__all__ = ["InMemoryChatControls"]


class InMemoryChatControls:
    """``MessageEdits`` and ``SwipeStore`` on the shared fake chat data."""

    def __init__(self, data: InMemoryData) -> None:
        self._d = data

    async def replace_message(self, message: StoredMessage) -> None:
        """See ``engine.ports.MessageEdits.replace_message``."""
        self._d.chat(message.chat).msgs[message.id] = message

    async def remove_message(self, chat: str, message: str) -> bool:
        """See ``engine.ports.MessageEdits.remove_message``."""
        data = self._d.chat(chat)
        data.pending.pop(message, None)
        gone = data.msgs.pop(message, None)
        for ref in gone.images if gone is not None else ():
            data.images.pop(ref.id, None)
        return data.log.pop(message, None) is not None

    async def requeue(self, message: StoredMessage) -> None:
        """See ``engine.ports.MessageEdits.requeue``."""
        self._d.chat(message.chat).pending[message.id] = message.position

    async def swipes(self, chat: str, message: str) -> list[str]:
        """See ``engine.ports.SwipeStore.swipes``."""
        return list(self._d.peek(chat).swipes.get(message, ()))

    async def add_swipe(self, chat: str, message: str, previous: str, turn: str) -> list[str]:
        """See ``engine.ports.SwipeStore.add_swipe``."""
        ids = await self.swipes(chat, message) or [previous]
        for new in (previous, turn):
            if new not in ids:
                ids.append(new)
        self._d.chat(chat).swipes[message] = list(ids)
        return ids

    async def choose(self, current: Turn, chosen: Turn, message: StoredMessage | None) -> None:
        """See ``engine.ports.SwipeStore.choose``."""
        data = self._d.chat(chosen.chat)
        data.turns[current.id] = current
        data.turns[chosen.id] = chosen
        if current.reply_message:
            data.log.pop(current.reply_message, None)
        if message is not None:
            data.msgs[message.id] = message
            data.log[message.id] = message.position
        data.answers.update(dict.fromkeys(chosen.answers, chosen.id))
        data.latest = chosen.id

    async def copy(
        self,
        source: str,
        target: str,
        *,
        upto: float,
        rewrite: Callable[[StoredMessage], StoredMessage] | None = None,
    ) -> int:
        """See ``engine.ports.MessageEdits.copy``."""
        src, dst = self._d.peek(source), self._d.chat(target)
        messages = [src.msgs[i] for i, p in ordered(src.log) if p <= upto and i in src.msgs]
        turns = [src.turns[m.turn] for m in messages if m.turn and m.turn in src.turns]
        dst.seq = src.seq
        for m in messages:
            moved = msgspec.structs.replace(m, chat=target)
            dst.msgs[m.id] = rewrite(moved) if rewrite else moved
            dst.log[m.id] = m.position
            dst.images.update({r.id: src.images[r.id] for r in m.images if r.id in src.images})
        latest: Turn | None = None
        for turn in turns:
            dst.turns[turn.id] = msgspec.structs.replace(turn, chat=target, journal=())
            dst.answers.update(dict.fromkeys(turn.answers, turn.id))
            if turn.id in src.request_logs:
                dst.request_logs[turn.id] = src.request_logs[turn.id]
            if latest is None or turn.position > latest.position:
                latest = turn
        if latest is not None:
            dst.latest = latest.id
        if src.lorebooks is not None:
            dst.lorebooks = src.lorebooks
        return len(messages)
