"""Long polling for the ``worker`` process (PLT-1, RUN-1), used when no webhook is configured.

Updates are handled one at a time in arrival order, so a group's messages are stored in the
order people sent them; each handler returns as soon as the message is stored, and replies
stream in background tasks. A restarted poller may fetch its last batch again; the Redis
update marks (``UpdateOnce``) make that harmless. With ``TELEGRAM_BOT_TOKENS`` one Dispatcher
polls every bot (one long poll each, in the same task group).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from aiogram.exceptions import TelegramNetworkError

from adapters.hearth import Hearth
from adapters.telegram.bot import TelegramApp
from adapters.telegram.delivery import DeliveryPolicy

__all__ = ["Polling"]

log = logging.getLogger("hearth.telegram")


class Polling:
    """A running poller: ``await Polling.start(hearth)``, later ``await polling.stop()``."""

    def __init__(self, app: TelegramApp) -> None:
        self.app = app
        self.task: asyncio.Task[None] | None = None

    @classmethod
    async def start(cls, hearth: Hearth, *, on_exit: Callable[[], None] | None = None) -> Polling:
        """Greet Telegram and start polling in a task, on the worker's already built ``Hearth``.

        Args:
            hearth: the process's graph, its personas installed (a bot token set).
            on_exit: called if polling ever ends on its own (e.g. it crashed).

        Raises:
            ConfigError: a token is missing, malformed or refused by Telegram, or a bound persona
                is not loaded.
        """
        polling = cls(TelegramApp.from_hearth(hearth, policy=DeliveryPolicy()))
        await polling.app.check_personas(hearth.service)
        await polling._prepare()
        polling.task = asyncio.create_task(polling._run())
        if on_exit is not None:
            polling.task.add_done_callback(lambda _: on_exit())
        return polling

    async def _prepare(self) -> None:
        try:
            await self.app.check_token()
            for bot in self.app.bots:
                await bot.delete_webhook(drop_pending_updates=False)
            await self.app.set_commands()
        except TelegramNetworkError as exc:
            log.warning("Telegram is unreachable (%s); polling will keep trying", exc)
            return
        names = [f"@{(await bot.me()).username}" for bot in self.app.bots]
        log.info("Telegram polling as %s", ", ".join(names))

    async def _run(self) -> None:
        try:
            await self.app.dispatcher.start_polling(
                *self.app.bots,
                handle_as_tasks=False,
                handle_signals=False,
                close_bot_session=False,
                allowed_updates=self.app.allowed_updates(),
            )
        except Exception:
            log.exception("Telegram polling stopped with an error")
            raise

    async def stop(self) -> None:
        """Stop polling, let replies in flight finish, close the bot's session (Redis is the worker's)."""
        if self.task is not None and not self.task.done():
            with contextlib.suppress(RuntimeError):  # polling had not started yet
                await self.app.dispatcher.stop_polling()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(self.task, 10)
        await self.app.close()
