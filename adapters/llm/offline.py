"""The offline model as a ``ChatModel``: streams ``engine.offline.offline_reply`` word by word.

Used whenever ``ANTHROPIC_API_KEY`` is unset (RUN-2). A small delay between words makes the
reply visibly stream in the browser, like Claude's does; tests set it to 0.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator

from engine.model import ModelSettings
from engine.offline import offline_reply, offline_tool_calls
from engine.ports import ModelDone, ModelEvent, TextDelta
from engine.prompt import Prompt
from engine.requestlog import Usage
from engine.tools import ToolSpec

__all__ = ["OfflineChatModel"]

_PIECES = re.compile(r"\S+\s*")


class OfflineChatModel:
    """Implements ``ChatModel`` without any network."""

    provider = "offline"
    vision = False  # pictures reach it as placeholders; it says it cannot see them

    def __init__(self, *, delay_ms: int = 15) -> None:
        self._delay = delay_ms / 1000

    async def stream(
        self,
        prompt: Prompt,
        settings: ModelSettings,
        persona_name: str,
        tools: tuple[ToolSpec, ...] = (),
    ) -> AsyncIterator[ModelEvent]:
        """See ``engine.ports.ChatModel.stream``."""
        calls = offline_tool_calls(prompt, tools)
        if calls:
            for call in calls:
                yield call
            yield ModelDone(usage=Usage(), stop_reason="tool_use", attempts=1)
            return
        text = offline_reply(prompt, persona_name)
        for piece in _PIECES.findall(text):
            if self._delay:
                await asyncio.sleep(self._delay)
            yield TextDelta(text=piece)
        yield ModelDone(usage=Usage(), stop_reason="end_turn", attempts=1)
