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
from engine.tools import ToolCall, ToolSpec

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

    Each script item is a reply text, an ``LLMUnavailable`` to raise, or a ``ToolCall`` (the
    model calls that tool and waits for its result). When the script runs out it answers
    ``"reply to: <last window text>"``; after a tool round, with the tool results.
    """

    provider = "scripted"

    def __init__(self, *script: str | LLMUnavailable | ToolCall, delay: float = 0.0) -> None:
        self.script = list(script)
        self.prompts: list[Prompt] = []
        self.delay = delay

    async def stream(
        self, prompt: Prompt, settings: ModelSettings, persona_name: str, tools: tuple[ToolSpec, ...] = ()
    ) -> AsyncIterator[ModelEvent]:
        """Stream the next scripted reply in two pieces."""
        self.prompts.append(prompt)
        default = f"reply to: {prompt.messages[-1].text}"
        if prompt.exchanges:
            default = " ".join(r.content for r in prompt.exchanges[-1].results)
        item = self.script.pop(0) if self.script else default
        if isinstance(item, LLMUnavailable):
            raise item
        if isinstance(item, ToolCall):
            yield item
            yield ModelDone(usage=Usage(input_tokens=10, output_tokens=5), stop_reason="tool_use")
            return
        half = len(item) // 2
        for piece in (item[:half], item[half:]):
            if self.delay:
                await asyncio.sleep(self.delay)
            yield TextDelta(text=piece)
        yield ModelDone(usage=Usage(input_tokens=10, output_tokens=5))
