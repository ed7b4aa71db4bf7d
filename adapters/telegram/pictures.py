"""Pictures of a Telegram message, fetched for the model (``engine.images``).

A photo comes in several sizes: the largest whose file is within ``MAX_IMAGE_BYTES`` is taken.
A document whose type says PNG, JPEG, GIF or WebP is taken too (within the same limit). Each is
fetched with ``getFile`` and the file download, then checked by its bytes like any picture. A
picture that cannot be had (too big, not a picture after all, the download failed) stays the
text label it was before (``[photo]``, ``[file: name]``) and the message goes on without it.
"""

from __future__ import annotations

import logging

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError
from aiogram.types import Message

from engine.errors import InvalidInput
from engine.images import MAX_IMAGE_BYTES, MAX_IMAGES, MEDIA_TYPES, Image, check_images

__all__ = ["pictures_of"]

log = logging.getLogger("hearth.telegram")


def _file_ids(message: Message) -> list[str]:
    """The files to fetch: the photo's largest size within the limit, an image document."""
    found: list[str] = []
    if message.photo:
        fitting = [p for p in message.photo if (p.file_size or 0) <= MAX_IMAGE_BYTES]
        if fitting:
            found.append(max(fitting, key=lambda p: (p.width * p.height, p.file_size or 0)).file_id)
    document = message.document
    if (
        document is not None
        and message.animation is None
        and (document.mime_type or "").lower() in MEDIA_TYPES
        and (document.file_size or 0) <= MAX_IMAGE_BYTES
    ):
        found.append(document.file_id)
    return found[:MAX_IMAGES]


async def pictures_of(message: Message, bot: Bot) -> tuple[Image, ...]:
    """The message's pictures, fetched and checked; those that cannot be had are left out."""
    pictures: list[Image] = []
    for file_id in _file_ids(message):
        try:
            file = await bot.get_file(file_id)
            if file.file_path is None:
                continue
            downloaded = await bot.download_file(file.file_path)
            data = downloaded.read() if downloaded is not None else b""
            pictures.extend(check_images([(None, data)]))
        except (TelegramAPIError, OSError, InvalidInput) as exc:
            log.warning("a picture of a message was not fetched (%s); it stays a label", type(exc).__name__)
    return tuple(pictures)
