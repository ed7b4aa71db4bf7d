"""Updates Hearth receives but does not act on, on purpose (PLT-6).

- Edited messages: the original is already stored (and maybe answered); answering again would
  double the conversation, and rewriting history would change past turns.
- Channel posts: the persona talks with people in chats, not in broadcast channels.
"""

from __future__ import annotations

import logging

from aiogram import Router
from aiogram.types import Message

__all__ = ["create_router", "on_channel_post", "on_edited"]

log = logging.getLogger("hearth.telegram")


async def on_edited(message: Message) -> None:
    """Keep the stored original."""
    log.debug("ignored an edit of message %s in chat %s", message.message_id, message.chat.id)


async def on_channel_post(message: Message) -> None:
    """Channels are not conversations."""
    log.debug("ignored a post in channel %s", message.chat.id)


def create_router() -> Router:
    """The router of deliberately ignored updates."""
    router = Router(name="ignored")
    router.edited_message.register(on_edited)
    router.channel_post.register(on_channel_post)
    router.edited_channel_post.register(on_channel_post)
    return router
