"""Personas in the browser (issue 16): list, import a card, create, edit, avatar, export, delete.

Who may do what (enforced here, server-side):

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

import secrets
import struct
import zlib
from typing import Any

import msgspec
from litestar import Request, Response, delete, get, post, put
from litestar.di import NamedDependency
from litestar.params import FromPath, FromQuery

from adapters.cards import decode_card, encode_card
from adapters.cards.card import CardPersona
from adapters.cards.charx import ZIP_MAGIC, read_icon
from adapters.cards.persona import persona_from_card, slug
from adapters.web.api import decode_body
from adapters.web.app_auth import require_user
from adapters.web.lore_api import store_book
from adapters.web.session import BrowserSession
from adapters.web.state import WebState
from engine.errors import Conflict, Forbidden, InvalidInput, NotFound
from engine.model import ModelSettings, Persona

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


def _is_admin(state: WebState, visitor: BrowserSession) -> bool:
    return not visitor.guest and visitor.slug in state.settings.web_admins


async def _owners(state: WebState) -> dict[str, str]:
    return await state.persona_extras.owners() if state.persona_extras else {}


async def visible_personas(state: WebState, visitor: BrowserSession) -> list[tuple[Persona, str | None]]:
    """The personas this visitor may talk to, with their owner (None: shared)."""
    owners = await _owners(state)
    return [
        (p, owners.get(p.id))
        for p in await state.service.personas.all()
        if p.id not in owners or (not visitor.guest and owners[p.id] == visitor.slug)
    ]


async def visible_persona(state: WebState, visitor: BrowserSession, persona_id: str) -> Persona:
    """The persona if this visitor may talk to it, else 404 ``persona_not_found``."""
    owner = await state.persona_extras.owner(persona_id) if state.persona_extras else None
    if owner is not None and (visitor.guest or owner != visitor.slug):
        raise NotFound(f"There is no persona {persona_id!r}.", code="persona_not_found")
    return await state.service.persona(persona_id)


async def shared_persona_books(state: WebState) -> set[str]:
    """The books of the shared personas (every visitor may read them)."""
    owners = await _owners(state)
    return {b for p in await state.service.personas.all() if p.id not in owners for b in p.lorebooks}


async def _editable(state: WebState, visitor: BrowserSession, persona_id: str) -> tuple[Persona, str | None]:
    require_user(visitor)
    persona = await visible_persona(state, visitor, persona_id)
    owner = await state.persona_extras.owner(persona_id) if state.persona_extras else None
    if owner is None and not _is_admin(state, visitor):
        raise Forbidden(
            "Shared personas can be changed only by this deployment's admins; make your own instead.",
            code="not_your_persona",
        )
    return persona, owner


async def _view(
    state: WebState, visitor: BrowserSession, persona: Persona, owner: str | None
) -> dict[str, Any]:
    has_avatar = (
        state.persona_extras is not None and await state.persona_extras.avatar(persona.id) is not None
    )
    editable = not visitor.guest and (owner == visitor.slug or (owner is None and _is_admin(state, visitor)))
    return {
        "id": persona.id,
        "name": persona.name,
        "greeting": persona.greeting,
        "description": persona.description,
        "system_prompt": persona.system_prompt if editable else None,
        "avatar": f"/app/personas/{persona.id}/avatar" if has_avatar else None,
        "private": owner is not None,
        "editable": editable,
        "learn_from_chat": persona.learn_from_chat,
        "lorebooks": list(persona.lorebooks),
        "model": msgspec.to_builtins(persona.model),
    }


async def persona_summaries(state: WebState, visitor: BrowserSession) -> list[dict[str, Any]]:
    """Id, name, avatar URL and private flag of the visitor's personas (for the picker)."""
    avatars = await state.persona_extras.has_avatars() if state.persona_extras else set()
    return [
        {
            "id": p.id,
            "name": p.name,
            "private": owner is not None,
            "avatar": f"/app/personas/{p.id}/avatar" if p.id in avatars else None,
        }
        for p, owner in await visible_personas(state, visitor)
    ]


async def _unique_id(state: WebState, name: str) -> str:
    base = slug(name)[:40]
    for _ in range(20):
        candidate = f"{base}-{secrets.token_hex(3)}"
        if await state.service.personas.get(candidate) is None:
            return candidate
    raise Conflict("Could not find a free persona id; try again.", code="persona_id_taken")


async def _books_allowed(state: WebState, visitor: BrowserSession, books: list[str]) -> tuple[str, ...]:
    own = await state.accounts.store.lorebooks(visitor.slug) if state.accounts else set()
    shared = await shared_persona_books(state)
    for book in books:
        if book not in own and book not in shared:
            raise Forbidden(f"The lorebook {book!r} is not yours.", code="not_your_lorebook")
    missing = await state.lore.exist(books)
    if missing:
        raise NotFound(f"There is no lorebook {missing[0]!r}.", code="lorebook_not_found")
    return tuple(dict.fromkeys(books))


class ModelBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A persona's model settings in the editor."""

    name: str = ""
    max_tokens: int = 1024


class PersonaBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /app/personas`` and ``PUT /app/personas/{id}``."""

    name: str
    system_prompt: str
    greeting: str = ""
    description: str = ""
    model: ModelBody = msgspec.field(default_factory=ModelBody)
    lorebooks: list[str] = msgspec.field(default_factory=list)
    learn_from_chat: bool = True
    shared: bool = False


def _checked(body: PersonaBody) -> PersonaBody:
    if not body.name.strip() or len(body.name) > 80:
        raise InvalidInput("A persona needs a name of 1-80 characters.", code="invalid_persona_name")
    if not body.system_prompt.strip():
        raise InvalidInput(
            "A persona needs a prompt: who it is and how it talks.", code="invalid_persona_prompt"
        )
    if len(body.system_prompt) > 20_000 or len(body.greeting) > 20_000 or len(body.description) > 20_000:
        raise InvalidInput("Persona texts are limited to 20,000 characters.", code="persona_text_too_long")
    if not 16 <= body.model.max_tokens <= 64_000:
        raise InvalidInput("The reply length must be 16-64,000 tokens.", code="invalid_max_tokens")
    return body


def _apply(persona: Persona, body: PersonaBody, books: tuple[str, ...]) -> Persona:
    return msgspec.structs.replace(
        persona,
        name=body.name.strip(),
        system_prompt=body.system_prompt,
        greeting=body.greeting,
        description=body.description,
        model=ModelSettings(
            name=body.model.name.strip(),
            max_tokens=body.model.max_tokens,
            context_window=persona.model.context_window,
        ),
        lorebooks=books,
        learn_from_chat=body.learn_from_chat,
    )


def _owner_for(state: WebState, visitor: BrowserSession, shared: bool) -> str | None:
    if shared and not _is_admin(state, visitor):
        raise Forbidden("Only this deployment's admins can make shared personas.", code="not_an_admin")
    return None if shared else visitor.slug


@get("/personas")
async def list_personas(
    request: Request[Any, Any, Any], visitor: NamedDependency[BrowserSession]
) -> dict[str, Any]:
    """The personas this visitor may talk to; ``admin`` says whether they may change shared ones."""
    state: WebState = request.app.state.web
    rows = [await _view(state, visitor, p, o) for p, o in await visible_personas(state, visitor)]
    return {"personas": rows, "admin": _is_admin(state, visitor), "can_create": not visitor.guest}


@post("/personas", status_code=201)
async def create_persona(
    request: Request[Any, Any, Any], visitor: NamedDependency[BrowserSession]
) -> dict[str, Any]:
    """Make a persona: private to the visitor, or shared (admins only)."""
    require_user(visitor)
    state: WebState = request.app.state.web
    body = _checked(decode_body(await request.body(), PersonaBody))
    owner = _owner_for(state, visitor, body.shared)
    books = await _books_allowed(state, visitor, body.lorebooks)
    blank = Persona(id=await _unique_id(state, body.name), name=body.name, system_prompt=body.system_prompt)
    persona = _apply(blank, body, books)
    if state.persona_extras:
        await state.persona_extras.set_owner(persona.id, owner)
    await state.service.personas.put(persona)
    return {"persona": await _view(state, visitor, persona, owner)}


@post("/personas/import", status_code=201)
async def import_persona(
    request: Request[Any, Any, Any], visitor: NamedDependency[BrowserSession], shared: FromQuery[bool] = False
) -> dict[str, Any]:
    """Import a character card (PNG, CHARX, JSON) as a persona with its greeting, avatar and book."""
    require_user(visitor)
    state: WebState = request.app.state.web
    owner = _owner_for(state, visitor, shared)
    raw = await request.body()
    card = decode_card(raw, request.headers.get("content-type"))
    book_id = None
    if card.book is not None:
        book = msgspec.structs.replace(card.book, id="")  # a new book, never someone else's by id
        stored = await store_book(state, book, f"{card.name}'s lorebook"[:120])
        book_id = stored.id
        if state.accounts is not None:
            await state.accounts.store.own_lorebook(visitor.slug, stored.id)
    persona = persona_from_card(card, persona_id=await _unique_id(state, card.name), book_id=book_id)
    if state.persona_extras:
        await state.persona_extras.set_owner(persona.id, owner)
        picture = raw if _image_type(raw) == "image/png" else None
        if raw.startswith(ZIP_MAGIC):  # a CHARX: its main icon asset
            picture = read_icon(raw, AVATAR_LIMIT)
        if picture is not None and _image_type(picture) is not None and len(picture) <= AVATAR_LIMIT:
            await state.persona_extras.set_avatar(persona.id, picture)
    await state.service.personas.put(persona)
    return {"persona": await _view(state, visitor, persona, owner)}


@put("/personas/{persona:str}")
async def edit_persona(
    request: Request[Any, Any, Any], visitor: NamedDependency[BrowserSession], persona: FromPath[str]
) -> dict[str, Any]:
    """Change a persona the visitor may change (their own; shared ones for admins)."""
    state: WebState = request.app.state.web
    found, owner = await _editable(state, visitor, persona)
    body = _checked(decode_body(await request.body(), PersonaBody))
    books = await _books_allowed(state, visitor, body.lorebooks)
    changed = _apply(found, body, books)
    await state.service.personas.put(changed)
    return {"persona": await _view(state, visitor, changed, owner)}


@put("/personas/{persona:str}/avatar")
async def set_avatar(
    request: Request[Any, Any, Any], visitor: NamedDependency[BrowserSession], persona: FromPath[str]
) -> dict[str, Any]:
    """Replace a persona's picture (PNG, JPEG, WebP or GIF, at most 2 MB)."""
    state: WebState = request.app.state.web
    found, owner = await _editable(state, visitor, persona)
    raw = await request.body()
    if len(raw) > AVATAR_LIMIT:
        raise InvalidInput("The picture is larger than 2 MB.", code="avatar_too_large")
    if _image_type(raw) is None:
        raise InvalidInput("The picture must be a PNG, JPEG, WebP or GIF image.", code="avatar_not_image")
    if state.persona_extras:
        await state.persona_extras.set_avatar(found.id, raw)
    return {"persona": await _view(state, visitor, found, owner)}


@get("/personas/{persona:str}/avatar")
async def get_avatar(
    request: Request[Any, Any, Any], visitor: NamedDependency[BrowserSession], persona: FromPath[str]
) -> Response[bytes]:
    """A persona's picture."""
    state: WebState = request.app.state.web
    found = await visible_persona(state, visitor, persona)
    image = await state.persona_extras.avatar(found.id) if state.persona_extras else None
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


@get("/personas/{persona:str}/card")
async def export_persona(
    request: Request[Any, Any, Any], visitor: NamedDependency[BrowserSession], persona: FromPath[str]
) -> Response[bytes]:
    """The persona as a CCv3 character card PNG (its picture, with its first lorebook inside)."""
    state: WebState = request.app.state.web
    found, _ = await _editable(state, visitor, persona)
    book = await state.lore.get(found.lorebooks[0]) if found.lorebooks else None
    card = CardPersona(
        spec="chara_card_v3",
        name=found.name,
        description=found.description,
        personality=found.personality,
        scenario=found.scenario,
        greeting=found.greeting,
        alternate_greetings=list(found.alternate_greetings),
        system_prompt=found.system_prompt,
        post_history_instructions=found.post_history_instructions,
        book=book,
    )
    image = await state.persona_extras.avatar(found.id) if state.persona_extras else None
    png = image if image is not None and _image_type(image) == "image/png" else placeholder_png()
    filename = (slug(found.name) or found.id)[:60]
    return Response(
        encode_card(card, png=png),
        media_type="image/png",
        headers={"Content-Disposition": f'attachment; filename="{filename}.png"'},
    )


@delete("/personas/{persona:str}", status_code=200)
async def delete_persona(
    request: Request[Any, Any, Any], visitor: NamedDependency[BrowserSession], persona: FromPath[str]
) -> dict[str, Any]:
    """Delete a persona; its personal memories become global ones instead of being lost (MEM-10)."""
    state: WebState = request.app.state.web
    if persona == "default":
        raise Conflict("The default persona cannot be deleted.", code="persona_required")
    found, _ = await _editable(state, visitor, persona)
    moved = await state.service.memory.delete_persona(found.id) if state.service.memory else 0
    await state.service.personas.delete(found.id)
    if state.persona_extras:
        await state.persona_extras.forget(found.id)
    return {"deleted": found.id, "memories_made_global": moved}


class DocumentBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /app/personas/{id}/documents``."""

    name: str
    text: str


@get("/personas/{persona:str}/documents")
async def persona_documents(
    request: Request[Any, Any, Any], visitor: NamedDependency[BrowserSession], persona: FromPath[str]
) -> dict[str, Any]:
    """The documents of a persona the visitor may change (DOC-1)."""
    state: WebState = request.app.state.web
    found, _ = await _editable(state, visitor, persona)
    desk = state.service.memory
    docs = await desk.documents.all(found.id) if desk is not None and desk.documents else []
    return {"documents": [msgspec.to_builtins(d) for d in docs]}


@post("/personas/{persona:str}/documents", status_code=201)
async def add_persona_document(
    request: Request[Any, Any, Any], visitor: NamedDependency[BrowserSession], persona: FromPath[str]
) -> dict[str, Any]:
    """Add a text document the persona may quote from (DOC-1)."""
    state: WebState = request.app.state.web
    found, _ = await _editable(state, visitor, persona)
    body: DocumentBody = decode_body(await request.body(), DocumentBody)
    if not body.text.strip():
        raise InvalidInput("The document is empty.", code="document_empty")
    if len(body.text) > 2_000_000:
        raise InvalidInput("The document is longer than 2,000,000 characters.", code="file_too_large")
    if state.service.memory is None:
        raise Conflict("Memory is off in this deployment, so documents are too.", code="memory_off")
    documents = state.service.memory.documents
    if documents is None:
        raise Conflict("Documents need an embedder (HEARTH_EMBEDDER is none).", code="documents_unavailable")
    info = await documents.add(found.id, (body.name.strip() or "document")[:200], body.text)
    return msgspec.to_builtins(info)  # type: ignore[no-any-return]


PERSONA_ROUTES = [
    list_personas,
    create_persona,
    import_persona,
    edit_persona,
    set_avatar,
    get_avatar,
    export_persona,
    delete_persona,
    persona_documents,
    add_persona_document,
]
