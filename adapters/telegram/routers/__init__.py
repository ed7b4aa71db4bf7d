"""One Router per feature (STYLE P7); each module's ``create_router()`` builds a fresh one.

Order matters: errors first, then updates that are ignored on purpose, the commands, unknown
commands, and last the chat router that stores (and maybe answers) every other message.
"""

from __future__ import annotations

from aiogram import Router

from adapters.telegram.routers import (
    chat,
    clear,
    errors,
    ignored,
    link,
    lore,
    memories,
    memory_mode,
    notices,
    persona,
    privacy,
    receipts,
    regenerate,
    remember,
    start,
    summary,
    unknown,
)

__all__ = ["create_routers"]


def create_routers() -> list[Router]:
    """Fresh routers for one Dispatcher, in the order they must see updates."""
    return [
        errors.create_router(),
        ignored.create_router(),
        start.create_router(),
        memories.create_router(),
        receipts.create_router(),
        remember.create_router(),
        clear.create_router(),
        privacy.create_router(),
        notices.create_router(),
        memory_mode.create_router(),
        summary.create_router(),
        link.create_router(),
        regenerate.create_router(),
        lore.create_router(),
        persona.create_router(),
        unknown.create_router(),
        chat.create_router(),
    ]
