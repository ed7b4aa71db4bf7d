"""The ports the service drives (STYLE P1): small Protocols, implemented in storage/ and adapters/.

Fakes for tests live in ``tests/fakes/``; the real adapters are built by
``adapters/bootstrap.py``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import Protocol

import msgspec

from engine.lorebook import CompiledBook, LoreState
from engine.model import ModelSettings, Persona, StoredMessage, Turn
from engine.prompt import Prompt
from engine.requestlog import RequestLog, Usage
from engine.summary import SummaryState
from engine.tools import ToolCall, ToolSpec

__all__ = [
    "ChatLock",
    "ChatModel",
    "ChatStore",
    "Clock",
    "LoreSource",
    "MessageLog",
    "ModelDone",
    "ModelEvent",
    "NewMessage",
    "PersonaStore",
    "TextDelta",
    "TokenCounter",
    "TurnInputs",
    "TurnStore",
]


class TextDelta(msgspec.Struct, frozen=True, kw_only=True, tag="delta"):
    """A piece of the reply as the model produced it."""

    text: str


class ModelDone(msgspec.Struct, frozen=True, kw_only=True, tag="done"):
    """The model finished; usage and how many attempts the request took.

    ``estimated_input`` is the offline estimate of everything the request sent (0: unknown); with
    the reported usage it teaches the ``TokenCounter`` its ratio (LORE-11).
    """

    usage: Usage
    stop_reason: str | None = None
    attempts: int = 1
    estimated_input: int = 0


ModelEvent = TextDelta | ToolCall | ModelDone


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


class TurnInputs(msgspec.Struct, frozen=True, kw_only=True):
    """Everything a turn reads before its LLM call, read in one round trip (``ChatStore.turn_inputs``).

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


class Clock(Protocol):
    """The only source of the current time (STYLE C2)."""

    def now(self) -> datetime:
        """Returns the current time, timezone-aware UTC."""
        ...


class ChatModel(Protocol):
    """An LLM that streams a reply to a provider-neutral prompt."""

    provider: str

    def stream(
        self,
        prompt: Prompt,
        settings: ModelSettings,
        persona_name: str,
        tools: tuple[ToolSpec, ...] = (),
    ) -> AsyncIterator[ModelEvent]:
        """Stream the reply.

        Args:
            prompt: the assembled prompt (with the tool exchanges of this reply so far).
            settings: model id (resolved) and max tokens.
            persona_name: the persona's name (for labelling).
            tools: tools the model may call; a model without tool support ignores them.

        Returns:
            An async iterator of ``TextDelta``s and ``ToolCall``s followed by one ``ModelDone``
            (``stop_reason == "tool_use"`` when the model waits for its tools' results).

        Raises:
            LLMUnavailable: the provider failed after retries (``LLMRateLimited`` for 429/529).
        """
        ...


class TokenCounter(Protocol):
    """Counts tokens as the active model sees them (LORE-11)."""

    name: str

    async def count(self, texts: Sequence[str]) -> list[int]:
        """Count the tokens of each text.

        Args:
            texts: texts to count.

        Returns:
            One count per text, never below the true count by more than the documented margin.
        """
        ...

    def estimate(self, text: str) -> int:
        """Count one text without IO: the offline estimate corrected by the learned ratio."""
        ...

    def use_ratio(self, ratio: float | None) -> None:
        """Adopt a ratio learned earlier (stored; any process may have learned it)."""
        ...

    def learn(self, estimated: int, reported: int) -> float | None:
        """Fold one reply's usage in; returns the ratio to store when it moved, else None."""
        ...


class MessageLog(Protocol):
    """A chat's messages, ordered by position."""

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
            The stored message with its id and position.
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


class TurnStore(Protocol):
    """Turns, their request logs and the queue of messages awaiting a reply."""

    async def store_message(
        self, chat: str, message: NewMessage, *, pending: bool, greeting: NewMessage | None
    ) -> tuple[StoredMessage, int | None]:
        """``MessageLog.append`` in one round trip, with the current version of ``message.persona``
        (None: the persona does not exist)."""
        ...

    async def discard(self, chat: str, message: StoredMessage) -> None:
        """Remove a message just stored (its persona turned out to be gone)."""
        ...

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

    async def oldest_pending(self, chat: str, upto: float) -> StoredMessage | None:
        """The oldest message at or before ``upto`` that still awaits a reply."""
        ...

    async def drop_pending(self, chat: str, message: str) -> None:
        """Take a message off the pending queue unanswered (its turn broke; it must not block the chat)."""
        ...

    async def finish(
        self,
        turn: Turn,
        log: RequestLog,
        reply: NewMessage | None,
        superseded: Turn | None,
        lore_state: LoreState | None = None,
    ) -> StoredMessage | None:
        """Atomically record a finished (or failed) turn, its log and its reply.

        Removes the answered messages from the pending queue, stores the reply after the
        message it answers, marks ``superseded`` (a regenerated turn) as replaced, and keeps
        the chat's new lorebook decorator state.

        Returns:
            The stored reply, if any.
        """
        ...

    async def get(self, chat: str, turn: str) -> tuple[Turn, RequestLog] | None:
        """A turn and its request log, or None."""
        ...

    async def answer_of(self, chat: str, message: str) -> Turn | None:
        """The turn that answered a message, or None."""
        ...

    async def latest(self, chat: str) -> Turn | None:
        """The chat's most recent finished turn, or None."""
        ...


class ChatStore(MessageLog, TurnStore, Protocol):
    """A chat's messages and turns together (one Redis adapter implements both)."""


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


class LoreSource(Protocol):
    """The lorebooks a turn scans."""

    async def attached(self, chat: str) -> list[str]:
        """The ids of the books attached to a chat."""
        ...

    async def compiled(self, books: list[str], versions: dict[str, int] | None = None) -> list[CompiledBook]:
        """Compiled books for ``books`` (unknown ids skipped), cached per book version.

        ``versions`` already read (``TurnInputs.book_versions``) are not read again.
        """
        ...

    async def state(self, chat: str) -> LoreState:
        """The chat's lorebook decorator state."""
        ...


class PersonaStore(Protocol):
    """Personas by id."""

    async def get(self, persona: str) -> Persona | None:
        """The persona, or None."""
        ...

    async def versioned(self, persona: str) -> tuple[int, Persona] | None:
        """The persona and its version (bumped by every change), or None."""
        ...

    async def put(self, persona: Persona) -> None:
        """Create or replace a persona."""
        ...

    async def all(self) -> list[Persona]:
        """Every persona, sorted by id."""
        ...

    async def delete(self, persona: str) -> bool:
        """Delete a persona; whether it existed."""
        ...
