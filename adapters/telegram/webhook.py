"""Webhook mode inside the ``web`` process: ``POST /telegram/webhook`` (PLT-1, RUN-1).

Imported only when ``TELEGRAM_WEBHOOK_URL`` is set (aiogram takes seconds to import). Every
request must carry ``X-Telegram-Bot-Api-Secret-Token`` equal to ``TELEGRAM_WEBHOOK_SECRET``
(compared in constant time); otherwise it gets a 401 in the API's error shape and nothing is
processed. A valid update is processed (its message stored) before the 200 goes out; its
reply streams on in the background. The same ``update_id`` delivered twice is processed once
(``UpdateOnce``). On start the app registers the webhook with the
secret and the command menu.

With several bots (``TELEGRAM_BOT_TOKENS``) each bot's webhook is ``TELEGRAM_WEBHOOK_URL`` plus
``/<bot id>`` (the number before the token's colon, which is public), served by
``POST /telegram/webhook/{bot_id}``, so each update is processed by the bot it was sent to; an
id that is not one of ours gets a 404 (``unknown_bot``).
"""

from __future__ import annotations

import hmac
import logging
import re
from typing import Any

import msgspec
from aiogram import Bot
from aiogram.exceptions import TelegramAPIError
from aiogram.types import Update
from litestar import Request, Response, post
from litestar.handlers import HTTPRouteHandler
from pydantic import ValidationError

from adapters.cards.jsondoc import check_json_depth
from adapters.hearth import Hearth
from adapters.telegram.bot import TelegramApp
from adapters.telegram.delivery import DeliveryPolicy
from adapters.web.errors import error_body
from engine.errors import ConfigError, InvalidInput
from engine.service import ChatService

__all__ = ["SECRET_HEADER", "WEBHOOK_PATH", "TelegramWebhook"]

log = logging.getLogger("hearth.telegram")

WEBHOOK_PATH = "/telegram/webhook"
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
_SECRET = re.compile(r"[A-Za-z0-9_-]{1,256}")


class TelegramWebhook:
    """The webhook route of one web process, with its start and stop hooks."""

    def __init__(self, app: TelegramApp, url: str, secret: str, service: ChatService) -> None:
        self.app = app
        self.service = service
        self.url = url
        self._secret = secret.encode()
        self.route = self._route()

    @classmethod
    def from_hearth(cls, hearth: Hearth) -> TelegramWebhook:
        """Build it from the web process's ``Hearth``.

        Raises:
            ConfigError: no bot token, no webhook secret, or a secret Telegram would refuse.
        """
        settings = hearth.settings.telegram
        secret = str(settings.webhook_secret or "")
        if not _SECRET.fullmatch(secret):
            raise ConfigError(
                "TELEGRAM_WEBHOOK_SECRET must be set with TELEGRAM_WEBHOOK_URL: 1-256 characters "
                "of A-Z, a-z, 0-9, _ and -."
            )
        app = TelegramApp.from_hearth(hearth, policy=DeliveryPolicy())
        return cls(app, str(settings.webhook_url), secret, hearth.service)

    def authentic(self, header: str | None) -> bool:
        """Whether the request carries the webhook secret (constant-time comparison)."""
        return header is not None and hmac.compare_digest(header.encode(), self._secret)

    @property
    def bound(self) -> bool:
        """Whether the bots are persona-bound (one webhook URL per bot)."""
        return self.app.context.bots is not None

    def url_of(self, bot: Bot) -> str:
        """The URL a bot's webhook is registered at."""
        return f"{self.url.rstrip('/')}/{bot.id}" if self.bound else self.url

    async def receive(self, request: Request[Any, Any, Any], bot: Bot | None) -> Response[Any]:
        """Check the secret, then process the update for ``bot`` (None: not one of ours)."""
        if not self.authentic(request.headers.get(SECRET_HEADER)):
            return Response(
                error_body("invalid_webhook_secret", f"The {SECRET_HEADER} header is missing or wrong."),
                status_code=401,
            )
        if bot is None:
            return Response(
                error_body("unknown_bot", "No bot of this deployment has that id."), status_code=404
            )
        try:
            raw = await request.body()
            check_json_depth(raw, what="update")
            update = Update.model_validate(msgspec.json.decode(raw), context={"bot": bot})
        except (msgspec.DecodeError, ValidationError, InvalidInput):
            body = error_body("invalid_update", "The body is not a Telegram update.")
            return Response(body, status_code=400)
        await self.app.feed(update, bot)
        return Response({"ok": True})

    def _route(self) -> HTTPRouteHandler:
        webhook = self
        if self.bound:

            @post(WEBHOOK_PATH + "/{bot_id:int}", include_in_schema=False, status_code=200)
            async def bound_webhook(request: Request[Any, Any, Any], bot_id: int) -> Response[Any]:
                """Receive one update for one of the persona-bound bots."""
                return await webhook.receive(request, webhook.app.bot_by_id(bot_id))

            return bound_webhook

        @post(WEBHOOK_PATH, include_in_schema=False, status_code=200)
        async def telegram_webhook(request: Request[Any, Any, Any]) -> Response[Any]:
            """Receive one update from Telegram."""
            return await webhook.receive(request, webhook.app.bot)

        return telegram_webhook

    async def startup(self) -> None:
        """Register each bot's webhook and command menu (a failure is logged, not fatal).

        Raises:
            ConfigError: a bound persona is not loaded.
        """
        await self.app.check_personas(self.service)
        try:
            await self.app.check_token()
            for bot in self.app.bots:
                await bot.set_webhook(
                    url=self.url_of(bot),
                    secret_token=self._secret.decode(),
                    allowed_updates=self.app.allowed_updates(),
                    drop_pending_updates=False,
                )
            await self.app.set_commands()
        except TelegramAPIError as exc:
            log.error("could not register the Telegram webhook: %s", exc)
            return
        for bot in self.app.bots:
            log.info("Telegram webhook registered for @%s at %s", (await bot.me()).username, self.url_of(bot))

    async def shutdown(self) -> None:
        """Let replies in flight finish, then close the bot's connections."""
        await self.app.close()
