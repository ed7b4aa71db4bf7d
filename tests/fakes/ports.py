"""Fakes of the engine's ports (STYLE P2): a fixed clock and a scripted chat model."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

from engine.errors import LLMUnavailable
from engine.model import ModelSettings
from engine.ports import ModelDone, ModelEvent, TextDelta
from engine.prompt import Prompt
from engine.requestlog import Usage

__all__ = ["FixedClock", "ScriptedChatModel"]


class FixedClock:
    """A clock that only moves when told to."""

    def __init__(self, start: datetime | None = None) -> None:
        self.current = start or datetime(2026, 11, 30, 12, 0, tzinfo=UTC)

    def now(self) -> datetime:
        """The fixed time."""
        return self.current

    def advance(self, **delta: float) -> None:
        """Move forward by a timedelta's keyword arguments."""
        self.current += timedelta(**delta)


class ScriptedChatModel:
    """Replies from a script; records every prompt it was given.

    Each script item is a reply text, or an ``LLMUnavailable`` to raise. When the script runs
    out it answers ``"reply to: <last window text>"``.
    """

    provider = "scripted"

    def __init__(self, *script: str | LLMUnavailable, delay: float = 0.0) -> None:
        self.script = list(script)
        self.prompts: list[Prompt] = []
        self.delay = delay

    async def stream(
        self, prompt: Prompt, settings: ModelSettings, persona_name: str
    ) -> AsyncIterator[ModelEvent]:
        """Stream the next scripted reply in two pieces."""
        self.prompts.append(prompt)
        item = self.script.pop(0) if self.script else f"reply to: {prompt.messages[-1].text}"
        if isinstance(item, LLMUnavailable):
            raise item
        half = len(item) // 2
        for piece in (item[:half], item[half:]):
            if self.delay:
                await asyncio.sleep(self.delay)
            yield TextDelta(text=piece)
        yield ModelDone(usage=Usage(input_tokens=10, output_tokens=5))
