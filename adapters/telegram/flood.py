"""Flood control (PLT-3): every Bot API call waits out a 429's ``retry_after`` and tries again."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from aiogram.client.session.middlewares.base import BaseRequestMiddleware, NextRequestMiddlewareType
from aiogram.exceptions import TelegramRetryAfter
from aiogram.methods.base import TelegramType

if TYPE_CHECKING:
    from aiogram import Bot
    from aiogram.methods import Response, TelegramMethod

__all__ = ["RetryAfter"]

log = logging.getLogger("hearth.telegram")


class RetryAfter(BaseRequestMiddleware):
    """A session middleware: on ``TelegramRetryAfter`` sleep ``retry_after`` seconds and retry.

    Gives up (re-raises) after ``attempts`` tries or when Telegram asks for a longer wait than
    ``max_wait`` seconds, so a handler never hangs for minutes.
    """

    def __init__(self, *, attempts: int = 3, max_wait: float = 60.0) -> None:
        self.attempts = attempts
        self.max_wait = max_wait

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        attempt = 1
        while True:
            try:
                return await make_request(bot, method)
            except TelegramRetryAfter as exc:
                if attempt >= self.attempts or exc.retry_after > self.max_wait:
                    raise
                log.warning("flood control on %s: waiting %ss", method.__api_method__, exc.retry_after)
                await asyncio.sleep(exc.retry_after)
                attempt += 1
