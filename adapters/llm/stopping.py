"""Stop generating: a ``ChatModel`` wrapper that ends a reply early when asked.

The web socket runs each reply in its own task and sets ``STOP`` there to an ``asyncio.Event``;
the model stream, iterated inside that task, sees it. When the event is set the provider
stream is closed and the reply ends as if the model had finished: the text so far is stored as
the reply (an empty one fails the turn as usual), so the conversation stays consistent.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextvars import ContextVar

from engine.model import ModelSettings
from engine.ports import ChatModel, ModelDone, ModelEvent
from engine.prompt import Prompt
from engine.requestlog import Usage
from engine.tools import ToolSpec

__all__ = ["STOP", "StoppableModel"]

STOP: ContextVar[asyncio.Event | None] = ContextVar("hearth_stop", default=None)


class StoppableModel:
    """Wraps a model so a reply can be stopped mid-stream through ``STOP``."""

    def __init__(self, inner: ChatModel) -> None:
        self.inner = inner
        self.provider = inner.provider

    def __getattr__(self, name: str) -> object:  # the client, settings... of the wrapped model
        return getattr(self.inner, name)

    async def stream(
        self,
        prompt: Prompt,
        settings: ModelSettings,
        persona_name: str,
        tools: tuple[ToolSpec, ...] = (),
    ) -> AsyncIterator[ModelEvent]:
        """See ``engine.ports.ChatModel.stream``; ends with ``stop_reason="stopped"`` when stopped."""
        stop = STOP.get()
        events = self.inner.stream(prompt, settings, persona_name, tools)
        if stop is None:
            async for event in events:
                yield event
            return
        # one task reads the provider stream from start to end (no cross-task generator steps)
        queue: asyncio.Queue[ModelEvent | None] = asyncio.Queue()

        async def pump() -> None:
            try:
                async for event in events:
                    await queue.put(event)
            finally:
                await queue.put(None)

        reader = asyncio.ensure_future(pump())
        stopped = asyncio.ensure_future(stop.wait())
        try:
            while True:
                following = asyncio.ensure_future(queue.get())
                await asyncio.wait({following, stopped}, return_when=asyncio.FIRST_COMPLETED)
                if stopped.done():
                    following.cancel()
                    yield ModelDone(usage=Usage(), stop_reason="stopped")
                    return
                item = following.result()
                if item is None:
                    reader.result()  # re-raise what the provider raised (LLMUnavailable...)
                    return
                yield item
        finally:
            stopped.cancel()
            if not reader.done():
                reader.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await reader
