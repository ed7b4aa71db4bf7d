"""Character cards and pictures of personas (issue 16): import a card, set or read a picture,
export a persona as a CCv3 card PNG.

Importing a card (PNG, CHARX or card JSON) makes a persona with the card's greeting, its PNG (or
a CHARX's main icon asset) as the picture, and its embedded lorebook imported as a new book of
the importer's. Exporting gives the persona's PNG picture (or a plain generated one) with the
card in its text chunks.
"""

from __future__ import annotations

import asyncio
import struct
import zlib

import msgspec

from adapters.cards import decode_card, encode_card
from adapters.cards.charx import ZIP_MAGIC, read_icon
from adapters.cards.persona import persona_from_card, slug
from adapters.web.actions.lore import store_book
from adapters.web.actions.personas import card_of, unique_id
from adapters.web.session import BrowserSession
from adapters.web.state import WebState
from engine.errors import InvalidInput, NotFound
from engine.images import sniff
from engine.model import Persona

__all__ = [
    "AVATAR_LIMIT",
    "avatar_of",
    "card_png",
    "image_type",
    "import_card",
    "placeholder_png",
    "set_avatar",
]

AVATAR_LIMIT = 2_000_000


def image_type(data: bytes) -> str | None:
    """The media type of a PNG, JPEG, GIF or WebP picture (None: not one of them)."""
    return sniff(data)


async def import_card(
    web: WebState, importer: BrowserSession, owner: str | None, raw: bytes, content_type: str | None
) -> Persona:
    """A persona from a card, owned by ``owner`` (None: shared), with its picture and book."""
    card = await asyncio.to_thread(decode_card, raw, content_type)  # a 20 MB card parses off the loop
    book_id = None
    if card.book is not None:
        book = msgspec.structs.replace(card.book, id="")  # a new book, never someone else's by id
        stored = await store_book(web, book, f"{card.name}'s lorebook"[:120])
        book_id = stored.id
        if web.accounts is not None:
            await web.accounts.store.own_lorebook(importer.slug, stored.id)
    persona = persona_from_card(card, persona_id=await unique_id(web, card.name), book_id=book_id)
    if web.persona_extras:
        await web.persona_extras.set_owner(persona.id, owner)
        picture = raw if image_type(raw) == "image/png" else None
        if raw.startswith(ZIP_MAGIC):  # a CHARX: its main icon asset
            picture = read_icon(raw, AVATAR_LIMIT)
        if picture is not None and image_type(picture) is not None and len(picture) <= AVATAR_LIMIT:
            await web.persona_extras.set_avatar(persona.id, picture)
    await web.service.personas.put(persona)
    return persona


async def set_avatar(web: WebState, persona: Persona, raw: bytes) -> None:
    """Replace the persona's picture (PNG, JPEG, WebP or GIF, at most 2 MB)."""
    if len(raw) > AVATAR_LIMIT:
        raise InvalidInput("The picture is larger than 2 MB.", code="avatar_too_large")
    if image_type(raw) is None:
        raise InvalidInput("The picture must be a PNG, JPEG, WebP or GIF image.", code="avatar_not_image")
    if web.persona_extras:
        await web.persona_extras.set_avatar(persona.id, raw)


async def avatar_of(web: WebState, persona: Persona) -> tuple[bytes, str]:
    """The persona's picture and its media type, or 404 ``avatar_not_found``."""
    image = await web.persona_extras.avatar(persona.id) if web.persona_extras else None
    if image is None:
        raise NotFound("This persona has no picture.", code="avatar_not_found")
    return image, image_type(image) or "application/octet-stream"


def placeholder_png(size: int = 64, rgb: tuple[int, int, int] = (200, 120, 60)) -> bytes:
    """A plain square PNG (for cards of personas without a picture)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    row = b"\x00" + bytes(rgb) * size
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(row * size))
        + chunk(b"IEND", b"")
    )


async def card_png(web: WebState, persona: Persona) -> tuple[bytes, str]:
    """The persona as a CCv3 card PNG (its first lorebook inside) and a file name for it."""
    image = await web.persona_extras.avatar(persona.id) if web.persona_extras else None
    png = image if image is not None and image_type(image) == "image/png" else placeholder_png()
    filename = (slug(persona.name) or persona.id)[:60]
    return encode_card(await card_of(web, persona), png=png), f"{filename}.png"
