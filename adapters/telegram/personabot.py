"""A bot bound to one persona (``TELEGRAM_BOT_TOKENS``): an aiogram ``Bot`` that knows whom it speaks as.

Messages carry the bot that received them (``Message.bot``), so the chat id of a private chat
can tell the persona-bound bots apart (``adapters.telegram.ids.chat_key``).
"""

from __future__ import annotations

from typing import Any

from aiogram import Bot

__all__ = ["PersonaBot", "bound_persona"]


class PersonaBot(Bot):
    """A ``Bot`` that always speaks as ``persona``."""

    def __init__(self, token: str, *, persona: str, **kwargs: Any) -> None:
        super().__init__(token, **kwargs)
        self.persona = persona


def bound_persona(bot: Bot | None) -> str | None:
    """The persona a bot is bound to, or None for the single unbound bot."""
    return bot.persona if isinstance(bot, PersonaBot) else None
