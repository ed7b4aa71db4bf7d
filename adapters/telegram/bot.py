"""The bots and their dispatcher, built from the process's ``Hearth`` (STYLE P6, P7), for polling and webhook.

One bot (``TELEGRAM_BOT_TOKEN``) speaks as the chat's chosen persona; several
(``TELEGRAM_BOT_TOKENS``) each speak as the persona they are bound to and share one Dispatcher,
which then also lets one of them take a group message that several received
(``adapters.telegram.cast``).

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
from adapters.telegram.cast import GroupOnce
from adapters.telegram.context import BotContext, PersonaBots, ReplyTasks
from adapters.telegram.delivery import DeliveryPolicy
from adapters.telegram.flood import RetryAfter
from adapters.telegram.personabot import PersonaBot
from adapters.telegram.routers import create_routers
from adapters.telegram.texts import LANGUAGES, menu
from config.settings import TelegramSettings
from engine.errors import ConfigError, NotFound
from engine.ports import PlatformStore
from engine.service import ChatService

__all__ = ["DEFAULT_PERSONA", "IGNORED_UPDATES", "TelegramApp", "UpdateOnce", "create_bot"]

log = logging.getLogger("hearth.telegram")

DEFAULT_PERSONA = "default"
IGNORED_UPDATES = ("edited_message", "channel_post", "edited_channel_post")


def create_bot(
    settings: TelegramSettings,
    token: str | None = None,
    *,
    name: str = "TELEGRAM_BOT_TOKEN",
    persona: str | None = None,
) -> Bot:
    """The Bot for ``token`` (``TELEGRAM_BOT_TOKEN`` by default), talking to ``TELEGRAM_API_BASE`` when set.

    ``name`` says in errors which setting the token came from (never the token itself); with
    ``persona`` the bot is a ``PersonaBot`` bound to it.

    Raises:
        ConfigError: no token, or one that is not shaped like a bot token.
    """
    token = token if token is not None else settings.bot_token
    if token is None:
        raise ConfigError("TELEGRAM_BOT_TOKEN is not set.")
    base = settings.api_base
    session = AiohttpSession(api=TelegramAPIServer.from_base(base) if base else PRODUCTION)
    session.middleware(RetryAfter())
    try:
        if persona is not None:
            return PersonaBot(str(token), session=session, persona=persona)
        return Bot(token=str(token), session=session)
    except TokenValidationError:
        raise ConfigError(
            f"{name} is not a bot token (it looks like 123456789:AAH..., from @BotFather)."
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
    """Give each update the context of its persona: a bound bot's own, else the chat's (``/persona``)."""

    def __init__(self, store: PlatformStore) -> None:
        self.store = store

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        chat_id = _chat_id(event) if isinstance(event, Update) else None
        ctx, bot = data.get("ctx"), data.get("bot")
        bound = ctx.bots.persona_of(bot.id) if isinstance(ctx, BotContext) and ctx.bots and bot else None
        if isinstance(ctx, BotContext) and bound is not None:
            data["ctx"] = ctx.speaking(bound)
        elif chat_id is not None and isinstance(ctx, BotContext):
            chosen = await self.store.chat_persona(chat_id)
            if chosen is not None:
                data["ctx"] = ctx.speaking(chosen)
        return await handler(event, data)


class TelegramApp:
    """The bots, their dispatcher and the adapter context of one process (``bot``: the first)."""

    def __init__(self, bots: tuple[Bot, ...], dispatcher: Dispatcher, context: BotContext) -> None:
        self.bots = bots
        self.bot = bots[0]
        self.dispatcher = dispatcher
        self.context = context

    @classmethod
    def from_hearth(
        cls, hearth: Hearth, *, policy: DeliveryPolicy, persona: str = DEFAULT_PERSONA
    ) -> TelegramApp:
        """Build the bot and dispatcher around the parts ``bootstrap.build`` made (no stores of its own)."""
        store = hearth.telegram
        settings = hearth.settings.telegram
        bound = {
            b.persona: create_bot(
                settings, str(b.token), name=f"TELEGRAM_BOT_TOKENS ({b.persona})", persona=b.persona
            )
            for b in settings.bot_tokens
        }
        bots = PersonaBots(bound) if bound else None
        context = BotContext(
            persona=persona, store=store, policy=policy, clock=hearth.clock, replies=ReplyTasks(), bots=bots
        )
        dispatcher = Dispatcher(
            service=hearth.service,
            lore=hearth.lore,
            ctx=context,
            directory=hearth.directory,
            accounts=hearth.accounts,
            persona_owners=hearth.persona_extras,
            controls=hearth.controls,
            user_personas=hearth.user_personas,
        )
        dispatcher.update.outer_middleware(UpdateOnce(store))
        dispatcher.update.outer_middleware(ChatPersona(store))
        if bots is not None:
            dispatcher.message.outer_middleware(GroupOnce())
        dispatcher.include_routers(*create_routers())
        return cls(bots.bots if bots else (create_bot(settings),), dispatcher, context)

    def _setting(self, bot: Bot) -> str:
        """Which setting a bot's token came from, for messages (never the token)."""
        bots = self.context.bots
        persona = bots.persona_of(bot.id) if bots is not None else None
        return f"TELEGRAM_BOT_TOKENS ({persona})" if persona is not None else "TELEGRAM_BOT_TOKEN"

    async def check_token(self) -> User:
        """Ask Telegram who each bot is; returns the first bot's user.

        Raises:
            ConfigError: Telegram refused a token (the message names its setting).
        """
        found = [await self._check(bot) for bot in self.bots]
        return found[0]

    async def _check(self, bot: Bot) -> User:
        try:
            me = await bot.me()
        except TelegramUnauthorizedError:
            raise ConfigError(f"Telegram refused {self._setting(bot)} (Unauthorized).") from None
        if me.can_read_all_group_messages is False:
            log.warning(
                "@%s has group privacy mode on: in groups it sees only commands, mentions and "
                "replies to it, so other messages cannot count as context. Turn it off in "
                "@BotFather (Bot Settings → Group Privacy) or make the bot a group admin.",
                me.username,
            )
        return me

    async def check_personas(self, service: ChatService) -> None:
        """Check that every bound persona is loaded.

        Raises:
            ConfigError: ``TELEGRAM_BOT_TOKENS`` names a persona that does not exist.
        """
        bots = self.context.bots
        for persona in bots.personas if bots is not None else ():
            try:
                await service.persona(persona)
            except NotFound:
                raise ConfigError(
                    f"TELEGRAM_BOT_TOKENS binds a bot to the persona {persona!r}, which is not loaded "
                    "(see HEARTH_PERSONAS)."
                ) from None

    async def set_commands(self) -> None:
        """Register every bot's command menu, in every language it is offered in (PLT-3)."""
        bound = self.context.bots is not None
        for bot in self.bots:
            for language in ("", *LANGUAGES):
                commands = [BotCommand(command=c, description=d) for c, d in menu(language, bound=bound)]
                await bot.set_my_commands(commands, language_code=language or None)

    def allowed_updates(self) -> list[str]:
        """The update types to ask Telegram for: those the routers act on.

        Edits and channel posts have handlers only so that one arriving anyway is ignored on
        purpose; asking for them would only cost traffic.
        """
        return self.dispatcher.resolve_used_update_types(skip_events=set(IGNORED_UPDATES))

    def bot_by_id(self, bot_id: int) -> Bot | None:
        """The bot with this id (the number before the token's colon), if it is one of ours."""
        return next((bot for bot in self.bots if bot.id == bot_id), None)

    async def feed(self, update: Update, bot: Bot | None = None) -> None:
        """Process one update that ``bot`` (the first by default) received; its reply streams on."""
        await self.dispatcher.feed_update(bot or self.bot, update)

    async def close(self, timeout: float = 30.0) -> None:
        """Let replies in flight finish (up to ``timeout`` seconds), then close the HTTP sessions."""
        await self.context.replies.close(timeout)
        for bot in self.bots:
            await bot.session.close()
