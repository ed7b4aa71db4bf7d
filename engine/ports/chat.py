"""The chat ports: a chat's message log, its turns and pending queue, and the chat lock.

``storage.redis_chat.RedisChatStore`` implements ``MessageLog``, ``MessageIntake``,
``TurnReads`` and ``TurnRecords`` (together ``ChatStore``) on one chat's keys;
``RedisChatLock`` implements ``ChatLock``. Fakes: ``tests.fakes.stores.chat``.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import Protocol

import msgspec

from engine.images import ImageRef
from engine.lorebook import LoreState
from engine.model import ChatSettings, StoredMessage, Turn
from engine.ports.recall import DocumentVersion
from engine.requestlog import RequestLog
from engine.summary import SummaryState

__all__ = [
    "ChatLock",
    "ChatSettingsStore",
    "ChatStore",
    "ImageStore",
    "MessageIntake",
    "MessageLog",
    "NewMessage",
    "TurnInputs",
    "TurnReads",
    "TurnRecords",
    "TurnStore",
]


class NewMessage(msgspec.Struct, frozen=True, kw_only=True):
    """A message to append to a chat's log (the store assigns id and position)."""

    role: str
    user: str
    name: str
    text: str
    sent_at: datetime
    tokens: int
    persona: str
    reply_to: str | None = None
    guest: bool = False
    listened: bool = False  # stored without a reply: context, its author no participant (MEM-4)
    images: tuple[ImageRef, ...] = ()  # the pictures it carries (their bytes go to the store beside it)

    def placed(self, chat: str, message_id: str, position: float) -> StoredMessage:
        """The message as a store keeps it (a role other than ``assistant`` becomes ``user``)."""
        return StoredMessage(
            id=message_id,
            chat=chat,
            role="assistant" if self.role == "assistant" else "user",
            user=self.user,
            name=self.name,
            text=self.text,
            sent_at=self.sent_at,
            position=position,
            tokens=self.tokens,
            persona=self.persona,
            reply_to=self.reply_to,
            guest=self.guest,
            listened=self.listened,
            images=self.images,
        )


class TurnInputs(msgspec.Struct, frozen=True, kw_only=True):
    """Everything a turn reads before its LLM call, read in one round trip (``TurnReads.turn_inputs``).

    ``answered`` is the oldest pending message at or before the asked position (None: nothing
    pending), or with ``pending=False`` None and the window ends at the asked position.
    """

    answered: StoredMessage | None
    messages: tuple[StoredMessage, ...] = ()  # the newest ``limit`` up to the answered one, oldest first
    count: int = 0  # messages in the log up to the answered one
    attached: tuple[str, ...] = ()  # lorebooks attached to the chat
    lore_state: LoreState = msgspec.field(default_factory=LoreState)
    summary: SummaryState = msgspec.field(default_factory=SummaryState)
    persona_version: int | None = None  # of the persona asked for; None: it does not exist
    token_ratio: float | None = None  # learned for the model asked for
    book_versions: dict[str, int] = msgspec.field(default_factory=dict)  # of the books asked for
    documents: DocumentVersion | None = None  # the persona's, read with the turn
    chat_settings: ChatSettings = msgspec.field(default_factory=ChatSettings)  # memory mode (MEM-8)


class MessageLog(Protocol):
    """A chat's messages, ordered by position (a user message's position is its number, the
    greeting is 0, a reply sits at the answered message's position + 0.5)."""

    async def append(
        self, chat: str, message: NewMessage, *, pending: bool, greeting: NewMessage | None
    ) -> StoredMessage:
        """Append a user message; first put ``greeting`` at position 0 if the log is empty.

        Args:
            chat: chat id.
            message: the message.
            pending: whether the message awaits a reply.
            greeting: the persona's greeting, stored only when the chat is new.

        Returns:
            The stored message with its id (``m<n>``) and position ``n``.
        """
        ...

    async def upto(self, chat: str, position: float, limit: int) -> list[StoredMessage]:
        """The newest ``limit`` messages at or before ``position``, oldest first."""
        ...

    async def history(self, chat: str, limit: int) -> list[StoredMessage]:
        """The newest ``limit`` messages of the chat, oldest first."""
        ...

    async def message(self, chat: str, message: str) -> StoredMessage | None:
        """One message by id, or None."""
        ...

    async def count(self, chat: str, upto: float) -> int:
        """How many messages the chat's log holds at or before ``upto``."""
        ...


class MessageIntake(Protocol):
    """Storing a person's message, and the queue of messages awaiting a reply."""

    async def store_message(
        self,
        chat: str,
        message: NewMessage,
        *,
        pending: bool,
        greeting: NewMessage | None,
        images: Sequence[tuple[str, bytes]] = (),
    ) -> tuple[StoredMessage, int | None]:
        """``MessageLog.append`` in one round trip, with the current version of ``message.persona``
        (None: the persona does not exist). ``images`` (id, bytes): the pictures the message names
        in ``message.images``, stored with it (``ImageStore``)."""
        ...

    async def discard(self, chat: str, message: StoredMessage) -> None:
        """Remove a message just stored (its persona turned out to be gone); the greeting goes too
        when the message was the chat's first."""
        ...

    async def oldest_pending(self, chat: str, upto: float) -> StoredMessage | None:
        """The oldest message at or before ``upto`` that still awaits a reply."""
        ...

    async def drop_pending(self, chat: str, message: str) -> None:
        """Take a message off the pending queue unanswered (its turn broke; it must not block the chat)."""
        ...


class TurnReads(Protocol):
    """What a turn reads before its LLM call, and the learned token ratio it may write back."""

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
        """Read a turn's inputs in one round trip (see ``TurnInputs``)."""
        ...

    async def save_token_ratio(self, model: str, ratio: float) -> None:
        """Store a model's learned token ratio for every process's next turns."""
        ...


class TurnRecords(Protocol):
    """Finished turns and their request logs."""

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
        """Atomically record a finished (or failed) turn, its log and its reply.

        Removes the answered messages from the pending queue, stores the reply after the
        message it answers, marks ``superseded`` (a regenerated turn) as replaced, and keeps
        the chat's new lorebook decorator state. ``token_ratio`` (model, ratio): a learned
        token ratio stored in the same round trip, as ``save_token_ratio`` does (not part of
        the turn's atomic write: it is shared by every chat).

        Returns:
            The stored reply, if any.

        Raises:
            LockLost: the chat's lock was lost meanwhile; nothing was stored.
        """
        ...

    async def get(self, chat: str, turn: str) -> tuple[Turn, RequestLog] | None:
        """A turn and its request log, or None."""
        ...

    async def answer_of(self, chat: str, message: str) -> Turn | None:
        """The turn that answered a message, or None."""
        ...

    async def latest(self, chat: str) -> Turn | None:
        """The chat's most recent finished turn with a reply, or None."""
        ...


class ChatSettingsStore(Protocol):
    """A chat's own settings (its memory mode, MEM-8); turns read them with ``turn_inputs``."""

    async def chat_settings(self, chat: str) -> ChatSettings:
        """The chat's settings (all unset for a chat never configured, or one that does not exist yet)."""
        ...

    async def put_chat_settings(self, chat: str, settings: ChatSettings) -> None:
        """Store the chat's settings whole (a chat may be configured before its first message)."""
        ...


class TurnStore(MessageIntake, TurnReads, TurnRecords, Protocol):
    """Turns, their request logs and the queue of messages awaiting a reply (the three ports above)."""


class ImageStore(Protocol):
    """The pictures of a chat's messages, stored beside its log (``engine.images``): each under its
    own key with the operator's expiry, at most ``MAX_CHAT_IMAGES`` a chat (storing one more drops
    the oldest)."""

    async def images(self, chat: str, ids: Sequence[str]) -> dict[str, bytes]:
        """The bytes of the pictures still kept, by id (an expired or dropped one is left out)."""
        ...

    async def drop_images(self, chat: str, ids: Sequence[str]) -> None:
        """Delete pictures (their message was deleted)."""
        ...

    async def first_notice(self, chat: str, notice: str) -> bool:
        """Mark ``notice`` as shown in the chat; whether this was the first time."""
        ...


class ChatStore(MessageLog, TurnStore, ChatSettingsStore, ImageStore, Protocol):
    """A chat's messages, turns, settings and pictures together (one Redis adapter implements
    these ports)."""


class ChatLock(Protocol):
    """Serializes the turns of one chat across processes."""

    def hold(self, chat: str, *, lazy: bool = False) -> AbstractAsyncContextManager[None]:
        """Hold the chat's lock for the duration of the ``async with`` block.

        ``lazy``: the store may take the lock with the block's first ``TurnStore.turn_inputs`` (in
        the same round trip) and free it with a turn's ``finish``, taking it again on the next
        read; a lock without that support simply holds it for the whole block.

        Raises:
            Conflict: ``chat_busy`` when the lock could not be had in time.
        """
        ...
