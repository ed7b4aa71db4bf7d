"""The model ports: an LLM that streams replies, and the token counter of the active model."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Protocol

import msgspec

from engine.model import ModelSettings
from engine.prompt import Prompt
from engine.requestlog import Usage
from engine.tools import ToolCall, ToolSpec

__all__ = ["ChatModel", "ModelDone", "ModelEvent", "TextDelta", "TokenCounter"]


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


class ChatModel(Protocol):
    """An LLM that streams a reply to a provider-neutral prompt (``adapters.llm``; fake:
    ``tests.fakes.ports.ScriptedChatModel``).

    A model that reads pictures says so with a class attribute ``vision = True`` (read with
    ``getattr``, default False): without it every picture reaches it as a placeholder
    (``engine.images``) and the person is told once per chat.
    """

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
    """Counts tokens as the active model sees them (LORE-11; ``adapters.llm.tokens``)."""

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
