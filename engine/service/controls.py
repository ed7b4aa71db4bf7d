"""Message controls: edit and delete one's own messages, swipes, branches (issue 16, seed 004).

- **Edit / delete**: only the author of a user message may change or remove it; the persona's
  replies may be changed or removed by whoever may open the chat (the adapter checks that). The
  next turn reads the log as it is then. Deleting a message also deletes the reply that directly
  follows it, so two persona messages never stand in a row.
- **Answer**: a chat whose last message is a person's message without a reply (its turn failed,
  or the process died while writing it) has it answered again on request.
- **Swipes**: regenerate keeps the old replies as alternatives of the answered message. One of
  them is chosen at a time: it is the reply in the log, so it is what the next turn sees. MEM-7
  per swipe: the memory writes of a reply belong to it; moving away from a reply (regenerate or
  choosing another one) rolls them back, and they are not redone when one comes back to it.
- **Branches**: a branch copies the conversation up to a message into a new chat. Memories are
  shared with the original (MEM-1: the branch's memory space is the original's, see
  ``engine.turn.memory_space``); summaries and lore state start fresh.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import msgspec

from engine.errors import Conflict, Forbidden, NotFound
from engine.images import image_tokens
from engine.model import ChatSettings, MessageStored, StoredMessage, Turn
from engine.ports import ChatLock, ControlStore
from engine.service.chat import ChatService, ReplyDone, ReplyEvent
from engine.validate import check_text

__all__ = ["BRANCH_MARK", "ControlStore", "MessageControls", "Swipes"]

BRANCH_MARK = "=b-"


class Swipes(msgspec.Struct, frozen=True, kw_only=True):
    """The alternatives of one reply: turn ids oldest first and the chosen one's index."""

    message: str
    turns: tuple[str, ...]
    index: int


def _without_memory(turn: Turn) -> Turn:
    return msgspec.structs.replace(
        turn, journal=tuple(w for w in turn.journal if isinstance(w, MessageStored))
    )


class MessageControls:
    """Edit, delete, swipe and branch on top of the chat service."""

    def __init__(self, service: ChatService, store: ControlStore, lock: ChatLock) -> None:
        self._service = service
        self._store = store
        self._lock = lock

    async def _changeable(self, chat: str, message_id: str, user: str) -> StoredMessage:
        """The message, when ``user`` may change it: a persona reply, or one's own message."""
        found = await self._service.chats.message(chat, message_id)
        if found is None:
            raise NotFound(f"There is no message {message_id!r} in this chat.", code="message_not_found")
        if found.role == "user" and found.user != user:
            raise Forbidden("Only your own messages can be changed.", code="not_your_message")
        return found

    async def edit(self, chat: str, message_id: str, user: str, text: str) -> StoredMessage:
        """Change the text of one's own message or of a persona reply; the next turn reads it.

        Raises:
            NotFound: ``message_not_found``. Forbidden: ``not_your_message``.
            InvalidInput: the new text is empty or too long.
        """
        checked = check_text(text, self._service.policy.text)
        found = await self._changeable(chat, message_id, user)
        (tokens,) = await self._service.counter.count([checked])
        tokens += sum(image_tokens(r.width, r.height) for r in found.images)  # its pictures stay
        changed = msgspec.structs.replace(found, text=checked, tokens=tokens)
        await self._store.replace_message(changed)
        return changed

    async def delete(self, chat: str, message_id: str, user: str) -> tuple[str, ...]:
        """Remove one's own message or a persona reply; a person's message takes the reply that
        answered it along (when that reply directly follows it).

        Returns:
            The ids removed, the message's first.

        Raises:
            NotFound: ``message_not_found``. Forbidden: ``not_your_message``.
        """
        found = await self._changeable(chat, message_id, user)
        removed = [message_id]
        if found.role == "user":
            turn = await self._service.chats.answer_of(chat, message_id)
            if turn is not None and turn.reply_message and turn.answers and turn.answers[-1] == message_id:
                removed.append(turn.reply_message)
        for each in removed:
            await self._store.remove_message(chat, each)
        return tuple(removed)

    async def answer_last(self, chat: str) -> AsyncIterator[ReplyEvent]:
        """Answer the chat's last message when it is a person's message with no reply after it.

        The message goes back on the pending queue (a failed turn took it off; a process that
        died mid-reply left it there) and is answered like a new one, under the chat's lock: when
        another process is answering it right now, this waits and reports that reply.

        Raises:
            Conflict: ``nothing_to_answer`` when the last message is a reply (or there is none).
        """
        last = await self._service.chats.history(chat, 1)
        if not last or last[-1].role != "user":
            raise Conflict("The chat's last message already has a reply.", code="nothing_to_answer")
        await self._store.requeue(last[-1])
        return self._service.answer(last[-1])

    async def swipes_of(self, chat: str, turn: Turn) -> Swipes:
        """The alternatives of the reply ``turn`` wrote."""
        message = turn.answers[-1] if turn.answers else ""
        ids = await self._store.swipes(chat, message) if message else []
        ids = ids or [turn.id]
        return Swipes(message=message, turns=tuple(ids), index=ids.index(turn.id) if turn.id in ids else 0)

    async def regenerate(self, chat: str, turn_id: str) -> AsyncIterator[ReplyEvent]:
        """Write the latest reply again, keeping the old one as an alternative (a swipe).

        Raises:
            NotFound, Conflict: as ``ChatService.regenerate``.
        """
        old, _ = await self._service.turn(chat, turn_id)
        events = await self._service.regenerate(chat, turn_id)
        return self._record(chat, old, events)

    async def _record(
        self, chat: str, old: Turn, events: AsyncIterator[ReplyEvent]
    ) -> AsyncIterator[ReplyEvent]:
        async for event in events:
            if isinstance(event, ReplyDone) and old.answers:
                await self._store.add_swipe(chat, old.answers[-1], old.id, event.turn)
            yield event

    async def choose(self, chat: str, turn_id: str) -> tuple[Turn, StoredMessage]:
        """Show the alternative ``turn_id`` of the latest reply instead of the current one.

        Raises:
            NotFound: ``turn_not_found``. Conflict: ``not_a_swipe`` when it is not an
            alternative of the chat's latest reply.
        """
        chosen, _ = await self._service.turn(chat, turn_id)
        async with self._lock.hold(chat):
            current = await self._service.chats.latest(chat)
            if current is None or not current.answers or current.answers != chosen.answers:
                raise Conflict("Only alternatives of the latest reply can be chosen.", code="not_a_swipe")
            if turn_id not in await self._store.swipes(chat, current.answers[-1]):
                raise Conflict("This reply is not an alternative of the latest one.", code="not_a_swipe")
            message = (
                await self._service.chats.message(chat, chosen.reply_message)
                if chosen.reply_message
                else None
            )
            if message is None or chosen.reply is None:
                raise NotFound("That alternative has no reply.", code="turn_not_found")
            if current.id == chosen.id:
                return chosen, message
            if self._service.memory is not None:  # MEM-7 per swipe: the reply left behind is undone
                await self._service.memory.rollback(
                    [w for w in current.journal if not isinstance(w, MessageStored)]
                )
            left = msgspec.structs.replace(_without_memory(current), status="superseded")
            picked = msgspec.structs.replace(_without_memory(chosen), status="done")
            await self._store.choose(left, picked, message)
        return picked, message

    async def branch(self, chat: str, message_id: str, target: str) -> int:
        """Copy ``chat`` up to and including ``message_id`` into the new chat ``target``; the
        branch keeps the chat's memory mode and its memory-off stretches (MEM-8, DEEP-4).

        Raises:
            NotFound: ``message_not_found``.
        """
        found = await self._service.chats.message(chat, message_id)
        if found is None:
            raise NotFound(f"There is no message {message_id!r} in this chat.", code="message_not_found")
        copied = await self._store.copy(chat, target, upto=found.position)
        settings = await self._service.chats.chat_settings(chat)
        if settings != ChatSettings():
            await self._service.chats.put_chat_settings(target, settings)
        return copied
