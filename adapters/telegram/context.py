"""What the Telegram handlers share besides the service, injected by the Dispatcher (STYLE P7)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from typing import Any

from adapters.telegram.delivery import DeliveryPolicy
from adapters.telegram.ids import user_key
from engine.ports import Clock, PlatformStore

__all__ = ["BotContext", "ReplyTasks"]

log = logging.getLogger("hearth.telegram")


class ReplyTasks:
    """Replies streaming in the background.

    Handlers store a message and return at once; the reply streams in a task, so one slow
    reply never holds up the next update (the service keeps each chat's turns in order).
    """

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def spawn(self, job: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run ``job`` in the background, logging what it raises."""
        task = asyncio.create_task(job)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (exc := task.exception()) is not None:
            log.error("a Telegram reply task failed", exc_info=exc)

    async def wait(self) -> None:
        """Wait until every reply (including ones started meanwhile) has finished."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def close(self, timeout: float = 30.0) -> None:
        """Let running replies finish for up to ``timeout`` seconds, then cancel the rest."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.wait(), timeout)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


class BotContext:
    """The adapter's own state: which persona speaks, Redis marks, background replies, pacing, time."""

    def __init__(
        self,
        *,
        persona: str,
        store: PlatformStore,
        policy: DeliveryPolicy,
        clock: Clock,
        replies: ReplyTasks,
    ) -> None:
        self.persona = persona
        self.store = store
        self.policy = policy
        self.clock = clock
        self.replies = replies

    def speaking(self, persona: str) -> BotContext:
        """This context with another persona speaking (the chat's ``/persona`` choice)."""
        if persona == self.persona:
            return self
        return BotContext(
            persona=persona, store=self.store, policy=self.policy, clock=self.clock, replies=self.replies
        )

    async def person(self, user_id: int) -> str:
        """The Hearth user behind a Telegram user: ``tg:<id>``, or the web user it was linked to."""
        return await self.store.linked(user_id) or user_key(user_id)
