"""Personas in the browser (issue 16): list, import a card, create, edit, avatar, export, delete.

Who may do what (enforced server-side, in ``adapters.web.actions.personas``):

- **Shared personas** (no owner; the deployment's files and cards, or made by an admin): every
  visitor, guests too, may talk to them. Only the deployment's admins — the usernames in
  ``HEARTH_WEB_ADMINS`` — may create, change or delete them in the browser.
- **Private personas** (owned by one account): only their owner sees them, talks to them,
  changes, exports or deletes them. Any signed-in person may make their own.
- Guests may only pick among the shared personas.

Importing a card (PNG, CHARX or card JSON) makes a persona with the card's greeting, its PNG (or
a CHARX's main icon asset) as the avatar, and its embedded lorebook imported, owned by the
importer and attached at once.
Exporting gives a CCv3 card: a PNG (the avatar, or a plain generated picture) with the card in
its text chunks.
"""

from __future__ import annotations

import struct
import zlib
from typing import Any

import msgspec
from litestar import Request, Response, delete, get, post, put
from litestar.di import NamedDependency
from litestar.params import FromPath, FromQuery, JSONBody

from adapters.cards import decode_card, encode_card
from adapters.cards.charx import ZIP_MAGIC, read_icon
from adapters.cards.persona import persona_from_card, slug
from adapters.web.actions.personas import (
    add_document,
    books_allowed,
    card_of,
    checked,
    delete_persona,
    editable,
    new_persona,
    owner_for,
    persona_documents,
    persona_list,
    persona_view,
    shared_persona_books,
    unique_id,
    updated,
    visible_persona,
    visible_personas,
)
from adapters.web.lore_api import store_book
from adapters.web.schemas.personas import (
    DocumentBody,
    PersonaBody,
    PersonaDeleted,
    PersonaDocuments,
    PersonaOne,
    VisiblePersonas,
)
from adapters.web.session import BrowserSession, require_user
from adapters.web.state import WebState
from engine.documents import DocumentInfo
from engine.errors import InvalidInput, NotFound

__all__ = [
    "PERSONA_ROUTES",
    "PersonaBody",
    "placeholder_png",
    "shared_persona_books",
    "visible_persona",
    "visible_personas",
]

AVATAR_LIMIT = 2_000_000
_IMAGE_TYPES = {b"\x89PNG": "image/png", b"\xff\xd8\xff": "image/jpeg", b"GIF8": "image/gif"}


def _image_type(data: bytes) -> str | None:
    for magic, kind in _IMAGE_TYPES.items():
        if data.startswith(magic):
            return kind
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


@get("/personas")
async def list_personas(
    web: NamedDependency[WebState], visitor: NamedDependency[BrowserSession]
) -> VisiblePersonas:
    """The personas this visitor may talk to; ``admin`` says whether they may change shared ones."""
    return await persona_list(web, visitor)


@post("/personas", status_code=201)
async def create_persona(
    web: NamedDependency[WebState], visitor: NamedDependency[BrowserSession], data: JSONBody[PersonaBody]
) -> PersonaOne:
    """Make a persona: private to the visitor, or shared (admins only)."""
    require_user(visitor)
    persona, owner = await new_persona(web, visitor, data)
    return PersonaOne(persona=await persona_view(web, visitor, persona, owner))


@post("/personas/import", status_code=201)
async def import_persona(
    request: Request[Any, Any, Any],
    web: NamedDependency[WebState],
    visitor: NamedDependency[BrowserSession],
    shared: FromQuery[bool] = False,
) -> PersonaOne:
    """Import a character card (PNG, CHARX, JSON) as a persona with its greeting, avatar and book."""
    require_user(visitor)
    owner = owner_for(web, visitor, shared)
    raw = await request.body()
    card = decode_card(raw, request.headers.get("content-type"))
    book_id = None
    if card.book is not None:
        book = msgspec.structs.replace(card.book, id="")  # a new book, never someone else's by id
        stored = await store_book(web, book, f"{card.name}'s lorebook"[:120])
        book_id = stored.id
        if web.accounts is not None:
            await web.accounts.store.own_lorebook(visitor.slug, stored.id)
    persona = persona_from_card(card, persona_id=await unique_id(web, card.name), book_id=book_id)
    if web.persona_extras:
        await web.persona_extras.set_owner(persona.id, owner)
        picture = raw if _image_type(raw) == "image/png" else None
        if raw.startswith(ZIP_MAGIC):  # a CHARX: its main icon asset
            picture = read_icon(raw, AVATAR_LIMIT)
        if picture is not None and _image_type(picture) is not None and len(picture) <= AVATAR_LIMIT:
            await web.persona_extras.set_avatar(persona.id, picture)
    await web.service.personas.put(persona)
    return PersonaOne(persona=await persona_view(web, visitor, persona, owner))


@put("/personas/{persona:str}")
async def edit_persona(
    web: NamedDependency[WebState],
    visitor: NamedDependency[BrowserSession],
    persona: FromPath[str],
    data: JSONBody[PersonaBody],
) -> PersonaOne:
    """Change a persona the visitor may change (their own; shared ones for admins)."""
    found, owner = await editable(web, visitor, persona)
    books = await books_allowed(web, visitor, checked(data).lorebooks)
    changed = updated(found, data, books)
    await web.service.personas.put(changed)
    return PersonaOne(persona=await persona_view(web, visitor, changed, owner))


@put("/personas/{persona:str}/avatar")
async def set_avatar(
    request: Request[Any, Any, Any],
    web: NamedDependency[WebState],
    visitor: NamedDependency[BrowserSession],
    persona: FromPath[str],
) -> PersonaOne:
    """Replace a persona's picture (PNG, JPEG, WebP or GIF, at most 2 MB)."""
    found, owner = await editable(web, visitor, persona)
    raw = await request.body()
    if len(raw) > AVATAR_LIMIT:
        raise InvalidInput("The picture is larger than 2 MB.", code="avatar_too_large")
    if _image_type(raw) is None:
        raise InvalidInput("The picture must be a PNG, JPEG, WebP or GIF image.", code="avatar_not_image")
    if web.persona_extras:
        await web.persona_extras.set_avatar(found.id, raw)
    return PersonaOne(persona=await persona_view(web, visitor, found, owner))


@get("/personas/{persona:str}/avatar", media_type="image/png")
async def get_avatar(
    web: NamedDependency[WebState], visitor: NamedDependency[BrowserSession], persona: FromPath[str]
) -> Response[bytes]:
    """A persona's picture (PNG, JPEG, WebP or GIF, as uploaded)."""
    found = await visible_persona(web, visitor, persona)
    image = await web.persona_extras.avatar(found.id) if web.persona_extras else None
    if image is None:
        raise NotFound("This persona has no picture.", code="avatar_not_found")
    return Response(
        image,
        media_type=_image_type(image) or "application/octet-stream",
        headers={"Cache-Control": "private, max-age=60", "X-Content-Type-Options": "nosniff"},
    )


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


@get("/personas/{persona:str}/card", media_type="image/png")
async def export_persona(
    web: NamedDependency[WebState], visitor: NamedDependency[BrowserSession], persona: FromPath[str]
) -> Response[bytes]:
    """The persona as a CCv3 character card PNG (its picture, with its first lorebook inside)."""
    found, _ = await editable(web, visitor, persona)
    image = await web.persona_extras.avatar(found.id) if web.persona_extras else None
    png = image if image is not None and _image_type(image) == "image/png" else placeholder_png()
    filename = (slug(found.name) or found.id)[:60]
    return Response(
        encode_card(await card_of(web, found), png=png),
        media_type="image/png",
        headers={"Content-Disposition": f'attachment; filename="{filename}.png"'},
    )


@delete("/personas/{persona:str}", status_code=200)
async def remove_persona(
    web: NamedDependency[WebState], visitor: NamedDependency[BrowserSession], persona: FromPath[str]
) -> PersonaDeleted:
    """Delete a persona; its personal memories become global ones instead of being lost (MEM-10)."""

    async def authorize(persona_id: str) -> object:
        return await editable(web, visitor, persona_id)

    return await delete_persona(web, persona, authorize)


@get("/personas/{persona:str}/documents")
async def list_documents(
    web: NamedDependency[WebState], visitor: NamedDependency[BrowserSession], persona: FromPath[str]
) -> PersonaDocuments:
    """The documents of a persona the visitor may change (DOC-1)."""
    found, _ = await editable(web, visitor, persona)
    return await persona_documents(web, found)


@post("/personas/{persona:str}/documents", status_code=201)
async def add_persona_document(
    web: NamedDependency[WebState],
    visitor: NamedDependency[BrowserSession],
    persona: FromPath[str],
    data: JSONBody[DocumentBody],
) -> DocumentInfo:
    """Add a text document the persona may quote from (DOC-1)."""
    found, _ = await editable(web, visitor, persona)
    return await add_document(web, found, data.name, data.text)


PERSONA_ROUTES = [
    list_personas,
    create_persona,
    import_persona,
    edit_persona,
    set_avatar,
    get_avatar,
    export_persona,
    remove_persona,
    list_documents,
    add_persona_document,
]
