"""Errors of any handler, told to the person briefly (PLT-6); nothing already stored is lost.

A refused message (``InvalidInput``: too long, not text) was not stored, and the person is
told why. A refused action (``Conflict``, ``NotFound``, ``Forbidden``) says why. Anything else
is logged, and the person learns that it failed on Hearth's side.
"""

from __future__ import annotations

import contextlib
import logging

from aiogram import Bot, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import ExceptionTypeFilter
from aiogram.types import ErrorEvent, Message

from adapters.telegram.conversation import target_of
from adapters.telegram.delivery import SORRY, send_text
from engine.errors import Conflict, Forbidden, InvalidInput, NotFound

__all__ = ["create_router", "on_error", "on_refused"]

log = logging.getLogger("hearth.telegram")


async def tell(event: ErrorEvent, bot: Bot, text: str) -> None:
    """Tell whoever caused the update, as a message or a callback answer."""
    update = event.update
    with contextlib.suppress(TelegramAPIError):
        if update.callback_query is not None:
            await update.callback_query.answer(text[:200], show_alert=True)
        elif isinstance(update.message, Message):
            await send_text(bot, target_of(update.message), text, markdown=False)


async def on_refused(event: ErrorEvent, bot: Bot) -> None:
    """Say why the message or action was refused."""
    exc = event.exception
    message = getattr(exc, "message", str(exc))
    if isinstance(exc, InvalidInput):
        hint = "please send it in shorter parts" if exc.code == "text_too_long" else "please rephrase it"
        message += f" Nothing was saved; {hint}."
    await tell(event, bot, f"⚠️ {message}")


async def on_error(event: ErrorEvent, bot: Bot) -> None:
    """Log the failure and apologize."""
    log.error("a Telegram update failed", exc_info=event.exception)
    await tell(event, bot, SORRY)


def create_router() -> Router:
    """The error router."""
    router = Router(name="errors")
    router.errors.register(on_refused, ExceptionTypeFilter(InvalidInput, Conflict, NotFound, Forbidden))
    router.errors.register(on_error)
    return router
