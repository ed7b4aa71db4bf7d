"""The bot and its dispatcher, built from the process's ``Hearth`` (STYLE P6, P7); polling and webhook use it.

``TELEGRAM_API_BASE`` points the client at a self-hosted Bot API server (or a test fake);
every call waits out flood control (``flood.RetryAfter``). The dispatcher gets the service,
the lorebook store, the memory directory (privacy, notice levels), the account store (``/link``
codes) and the adapter's ``BotContext`` injected, and sees each update once: an outer
middleware marks ``update_id`` in Redis (SET NX) before anything else runs.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware, Bot, Dispatcher
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import PRODUCTION, TelegramAPIServer
from aiogram.exceptions import TelegramUnauthorizedError
from aiogram.types import BotCommand, TelegramObject, Update, User
from aiogram.utils.token import TokenValidationError

from adapters.hearth import Hearth
from adapters.telegram.context import BotContext, ReplyTasks
from adapters.telegram.delivery import DeliveryPolicy
from adapters.telegram.flood import RetryAfter
from adapters.telegram.routers import create_routers
from adapters.telegram.texts import LANGUAGES, menu
from config.settings import TelegramSettings
from engine.errors import ConfigError
from engine.ports import PlatformStore

__all__ = ["DEFAULT_PERSONA", "IGNORED_UPDATES", "TelegramApp", "UpdateOnce", "create_bot"]

log = logging.getLogger("hearth.telegram")

DEFAULT_PERSONA = "default"
IGNORED_UPDATES = ("edited_message", "channel_post", "edited_channel_post")


def create_bot(settings: TelegramSettings) -> Bot:
    """The Bot for ``TELEGRAM_BOT_TOKEN``, talking to ``TELEGRAM_API_BASE`` when set.

    Raises:
        ConfigError: no token, or one that is not shaped like a bot token.
    """
    token = settings.bot_token
    if token is None:
        raise ConfigError("TELEGRAM_BOT_TOKEN is not set.")
    base = settings.api_base
    session = AiohttpSession(api=TelegramAPIServer.from_base(base) if base else PRODUCTION)
    session.middleware(RetryAfter())
    try:
        return Bot(token=str(token), session=session)
    except TokenValidationError:
        raise ConfigError(
            "TELEGRAM_BOT_TOKEN is not a bot token (it looks like 123456789:AAH..., from @BotFather)."
        ) from None


class UpdateOnce(BaseMiddleware):
    """Process each ``update_id`` once, across retries and processes (PLT-1)."""

    def __init__(self, store: PlatformStore) -> None:
        self.store = store

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        bot: Bot = data["bot"]
        if isinstance(event, Update) and not await self.store.first_delivery(bot.id, event.update_id):
            log.info("update %s was delivered again; already processed", event.update_id)
            return None
        return await handler(event, data)


def _chat_id(update: Update) -> int | None:
    for message in (update.message, update.edited_message, update.channel_post):
        if message is not None:
            return message.chat.id
    query = update.callback_query
    if query is not None and query.message is not None:
        return query.message.chat.id
    return None


class ChatPersona(BaseMiddleware):
    """Give each update the context of its chat's persona (``/persona``)."""

    def __init__(self, store: PlatformStore) -> None:
        self.store = store

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        chat_id = _chat_id(event) if isinstance(event, Update) else None
        ctx = data.get("ctx")
        if chat_id is not None and isinstance(ctx, BotContext):
            chosen = await self.store.chat_persona(chat_id)
            if chosen is not None:
                data["ctx"] = ctx.speaking(chosen)
        return await handler(event, data)


class TelegramApp:
    """The bot, its dispatcher and the adapter context of one process."""

    def __init__(self, bot: Bot, dispatcher: Dispatcher, context: BotContext) -> None:
        self.bot = bot
        self.dispatcher = dispatcher
        self.context = context

    @classmethod
    def from_hearth(
        cls, hearth: Hearth, *, policy: DeliveryPolicy, persona: str = DEFAULT_PERSONA
    ) -> TelegramApp:
        """Build the bot and dispatcher around the parts ``bootstrap.build`` made (no stores of its own)."""
        store = hearth.telegram
        context = BotContext(
            persona=persona, store=store, policy=policy, clock=hearth.clock, replies=ReplyTasks()
        )
        dispatcher = Dispatcher(
            service=hearth.service,
            lore=hearth.lore,
            ctx=context,
            directory=hearth.directory,
            accounts=hearth.accounts,
            persona_owners=hearth.persona_extras,
            controls=hearth.controls,
        )
        dispatcher.update.outer_middleware(UpdateOnce(store))
        dispatcher.update.outer_middleware(ChatPersona(store))
        dispatcher.include_routers(*create_routers())
        return cls(create_bot(hearth.settings.telegram), dispatcher, context)

    async def check_token(self) -> User:
        """Ask Telegram who the bot is.

        Raises:
            ConfigError: Telegram refused the token.
        """
        try:
            me = await self.bot.me()
        except TelegramUnauthorizedError:
            raise ConfigError("Telegram refused TELEGRAM_BOT_TOKEN (Unauthorized).") from None
        if me.can_read_all_group_messages is False:
            log.warning(
                "@%s has group privacy mode on: in groups it sees only commands, mentions and "
                "replies to it, so other messages cannot count as context. Turn it off in "
                "@BotFather (Bot Settings → Group Privacy) or make the bot a group admin.",
                me.username,
            )
        return me

    async def set_commands(self) -> None:
        """Register the command menu, in every language it is offered in (PLT-3)."""
        for language in ("", *LANGUAGES):
            commands = [BotCommand(command=c, description=d) for c, d in menu(language)]
            await self.bot.set_my_commands(commands, language_code=language or None)

    def allowed_updates(self) -> list[str]:
        """The update types to ask Telegram for: those the routers act on.

        Edits and channel posts have handlers only so that one arriving anyway is ignored on
        purpose; asking for them would only cost traffic.
        """
        return self.dispatcher.resolve_used_update_types(skip_events=set(IGNORED_UPDATES))

    async def feed(self, update: Update) -> None:
        """Process one update (its reply, if any, streams on in the background)."""
        await self.dispatcher.feed_update(self.bot, update)

    async def close(self, timeout: float = 30.0) -> None:
        """Let replies in flight finish (up to ``timeout`` seconds), then close the HTTP session."""
        await self.context.replies.close(timeout)
        await self.bot.session.close()
