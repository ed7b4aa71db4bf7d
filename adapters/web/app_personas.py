"""Personas in the browser: list, import a card, create, edit, avatar, export, delete.

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

from typing import Any

from litestar import Request, Response, delete, get, post, put
from litestar.params import FromPath, FromQuery, JSONBody, RawBody

from adapters.web.actions.cards import avatar_of, card_png, import_card, set_avatar
from adapters.web.actions.personas import (
    add_document,
    change_persona,
    delete_persona,
    editable,
    new_persona,
    owner_for,
    persona_documents,
    persona_list,
    persona_view,
    shared_persona_books,
    visible_persona,
    visible_personas,
)
from adapters.web.params import Visitor, Web
from adapters.web.schemas.personas import (
    DocumentBody,
    PersonaBody,
    PersonaDeleted,
    PersonaDocuments,
    PersonaOne,
    VisiblePersonas,
)
from adapters.web.session import require_user
from engine.documents import DocumentInfo

__all__ = [
    "PERSONA_ROUTES",
    "PersonaBody",
    "shared_persona_books",
    "visible_persona",
    "visible_personas",
]


@get("/personas")
async def list_personas(web: Web, visitor: Visitor) -> VisiblePersonas:
    """The personas this visitor may talk to; ``admin`` says whether they may change shared ones."""
    return await persona_list(web, visitor)


@post("/personas", status_code=201)
async def create_persona(web: Web, visitor: Visitor, data: JSONBody[PersonaBody]) -> PersonaOne:
    """Make a persona: private to the visitor, or shared (admins only)."""
    require_user(visitor)
    persona, owner = await new_persona(web, visitor, data)
    return PersonaOne(persona=await persona_view(web, visitor, persona, owner))


@post("/personas/import", status_code=201)
async def import_persona(
    request: Request[Any, Any, Any],
    web: Web,
    visitor: Visitor,
    body: RawBody,
    shared: FromQuery[bool] = False,
) -> PersonaOne:
    """Import a character card (PNG, CHARX, JSON) as a persona with its greeting, avatar and book."""
    require_user(visitor)
    owner = owner_for(web, visitor, shared)
    persona = await import_card(web, visitor, owner, body, request.headers.get("content-type"))
    return PersonaOne(persona=await persona_view(web, visitor, persona, owner))


@put("/personas/{persona:str}")
async def edit_persona(
    web: Web, visitor: Visitor, persona: FromPath[str], data: JSONBody[PersonaBody]
) -> PersonaOne:
    """Change a persona the visitor may change (their own; shared ones for admins)."""
    found, owner = await editable(web, visitor, persona)
    changed = await change_persona(web, visitor, found, data)
    return PersonaOne(persona=await persona_view(web, visitor, changed, owner))


@put("/personas/{persona:str}/avatar")
async def put_avatar(web: Web, visitor: Visitor, persona: FromPath[str], body: RawBody) -> PersonaOne:
    """Replace a persona's picture (PNG, JPEG, WebP or GIF, at most 2 MB)."""
    found, owner = await editable(web, visitor, persona)
    await set_avatar(web, found, body)
    return PersonaOne(persona=await persona_view(web, visitor, found, owner))


@get("/personas/{persona:str}/avatar", media_type="image/png")
async def get_avatar(web: Web, visitor: Visitor, persona: FromPath[str]) -> Response[bytes]:
    """A persona's picture (PNG, JPEG, WebP or GIF, as uploaded)."""
    image, media_type = await avatar_of(web, await visible_persona(web, visitor, persona))
    headers = {"Cache-Control": "private, max-age=60", "X-Content-Type-Options": "nosniff"}
    return Response(image, media_type=media_type, headers=headers)


@get("/personas/{persona:str}/card", media_type="image/png")
async def export_persona(web: Web, visitor: Visitor, persona: FromPath[str]) -> Response[bytes]:
    """The persona as a CCv3 character card PNG (its picture, with its first lorebook inside)."""
    found, _ = await editable(web, visitor, persona)
    png, filename = await card_png(web, found)
    headers = {"Content-Disposition": f'attachment; filename="{filename}"'}
    return Response(png, media_type="image/png", headers=headers)


@delete("/personas/{persona:str}", status_code=200)
async def remove_persona(web: Web, visitor: Visitor, persona: FromPath[str]) -> PersonaDeleted:
    """Delete a persona; its personal memories become global ones instead of being lost (MEM-10)."""

    async def authorize(persona_id: str) -> object:
        return await editable(web, visitor, persona_id)

    return await delete_persona(web, persona, authorize)


@get("/personas/{persona:str}/documents")
async def list_documents(web: Web, visitor: Visitor, persona: FromPath[str]) -> PersonaDocuments:
    """The documents of a persona the visitor may change (DOC-1)."""
    found, _ = await editable(web, visitor, persona)
    return await persona_documents(web, found)


@post("/personas/{persona:str}/documents", status_code=201)
async def add_persona_document(
    web: Web, visitor: Visitor, persona: FromPath[str], data: JSONBody[DocumentBody]
) -> DocumentInfo:
    """Add a text document the persona may quote from (DOC-1)."""
    found, _ = await editable(web, visitor, persona)
    return await add_document(web, found, data.name, data.text)


PERSONA_ROUTES = [
    list_personas,
    create_persona,
    import_persona,
    edit_persona,
    put_avatar,
    get_avatar,
    export_persona,
    remove_persona,
    list_documents,
    add_persona_document,
]
