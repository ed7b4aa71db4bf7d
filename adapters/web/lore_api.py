"""Lorebooks, cards and personas (LORE-13, API.md): import, read, export, attach to a chat."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
from litestar import Controller, Request, Response, delete, get, post, put
from litestar.di import NamedDependency
from litestar.params import FromPath, FromQuery, JSONBody

from adapters.cards import decode_card
from adapters.cards.jsondoc import check_json_depth
from adapters.cards.persona import persona_from_card
from adapters.web.actions import lore as act
from adapters.web.actions import personas as personas_actions
from adapters.web.actions.lore import imported
from adapters.web.api import decode_body
from adapters.web.layers import operator_guards, operator_route, web_dependency
from adapters.web.schemas.lore import (
    AttachBooks,
    BookList,
    BookView,
    ChatBooks,
    EntryView,
    Imported,
    PersonaBooks,
    PersonaList,
)
from adapters.web.schemas.personas import PersonaDeleted
from adapters.web.state import WebState
from engine.errors import InvalidInput
from engine.lorebook import LoreBook, pairs_to_dict
from engine.model import Persona
from engine.service.lore import LoreDesk
from engine.validate import qualify_id

__all__ = [
    "LorebookController",
    "PersonaController",
    "attach_lorebooks",
    "attach_persona_lorebooks",
    "book_view",
    "create_persona_from_card",
    "delete_persona",
    "imported",
    "is_card",
]

_CARD_KEYS = {"spec", "data", "first_mes", "char_name"}


def book_view(book: LoreBook) -> BookView:
    """A book as the API shows it: unknown fields as JSON objects, entries in file order."""
    entries = tuple(
        EntryView(
            **{
                **msgspec.structs.asdict(e),
                "extensions": pairs_to_dict(e.extensions),
                "extra": pairs_to_dict(e.extra),
            }
        )
        for e in book.entries
    )
    fields = msgspec.structs.asdict(book)
    return BookView(
        **{
            **fields,
            "entries": entries,
            "extensions": pairs_to_dict(book.extensions),
            "extra": pairs_to_dict(book.extra),
        }
    )


class LorebookController(Controller):
    """``/api/lorebooks``."""

    path = "/api/lorebooks"
    guards = operator_guards()
    dependencies = web_dependency()
    tags = ["lorebooks"]  # noqa: RUF012

    @post("/", status_code=201)
    async def upload(
        self,
        lore: NamedDependency[LoreDesk],
        request: Request[Any, Any, Any],
        name: FromQuery[str | None] = None,
    ) -> Imported:
        """Import SillyTavern World Info JSON, a CCv2/CCv3 card (JSON, PNG, CHARX) or its book."""
        raw, content_type = await request.body(), request.headers.get("content-type")
        stored = await act.import_book(lore, raw, content_type, name or "Imported lorebook", new_id=False)
        return await imported(lore, stored)

    @get("/")
    async def list_books(self, lore: NamedDependency[LoreDesk]) -> BookList:
        """Every lorebook (id, name, number of entries)."""
        return BookList(lorebooks=await lore.all())

    @get("/{book:str}")
    async def read(self, lore: NamedDependency[LoreDesk], book: FromPath[str]) -> BookView:
        """One book with its entries."""
        return book_view(await lore.find(book))

    @get("/{book:str}/export")
    async def export(
        self,
        lore: NamedDependency[LoreDesk],
        book: FromPath[str],
        format: FromQuery[act.ExportFormat] = "sillytavern",  # API.md's name
    ) -> Response[bytes]:
        """The book as a SillyTavern World Info file or a CCv3 lorebook."""
        found = await lore.find(book)
        return act.export_book(found, format, f"{found.name or found.id}.{format}.json".replace('"', ""))


@operator_route(put, "/api/chats/{chat:str}/lorebooks", tags=["lorebooks"])
async def attach_lorebooks(
    lore: NamedDependency[LoreDesk], chat: FromPath[str], data: JSONBody[AttachBooks]
) -> ChatBooks:
    """Attach lorebooks to a chat (replacing the previous set); all are scanned as one pool."""
    return await act.attach_books(lore, qualify_id(chat, what="chat"), data.books)


@operator_route(put, "/api/personas/{persona:str}/lorebooks", tags=["lorebooks"])
async def attach_persona_lorebooks(
    web: NamedDependency[WebState], persona: FromPath[str], data: JSONBody[AttachBooks]
) -> PersonaBooks:
    """Attach lorebooks to a persona (replacing its set); they join every chat's pool."""
    found = await web.service.persona(persona)
    books = await web.lore.existing(data.books)
    await web.service.personas.put(msgspec.structs.replace(found, lorebooks=tuple(books)))
    return PersonaBooks(persona=found.id, books=books)


@operator_route(delete, "/api/personas/{persona:str}", tags=["personas"], status_code=200)
async def delete_persona(web: NamedDependency[WebState], persona: FromPath[str]) -> PersonaDeleted:
    """Delete a persona; its personal memories become global ones instead of being lost (MEM-10)."""
    return await personas_actions.delete_persona(web, persona)


def is_card(content_type: str, body: bytes) -> bool:
    """Whether a persona upload is a card (PNG/CHARX bytes or card JSON) rather than the plain form."""
    if not content_type.startswith("application/json") or body[:4] in (b"\x89PNG", b"PK\x03\x04"):
        return True
    check_json_depth(body, what="persona JSON")
    try:
        keys = msgspec.json.decode(body, type=dict[str, msgspec.Raw])
    except (msgspec.DecodeError, msgspec.ValidationError):
        return False
    return bool(_CARD_KEYS & keys.keys())


async def create_persona_from_card(
    state: WebState, body: bytes, content_type: str, persona_id: str | None
) -> Persona:
    """Import a card as a persona; its embedded lorebook is imported and attached (LORE-13)."""
    card = await asyncio.to_thread(decode_card, body, content_type)
    if persona_id is not None:
        qualify_id(persona_id, what="persona")
        if ":" in persona_id or "/" in persona_id:
            raise InvalidInput("A persona id is plain: letters, digits, _ - .", code="invalid_persona_id")
    book = await state.lore.save(card.book, f"{card.name}'s lorebook") if card.book is not None else None
    persona = persona_from_card(card, persona_id=persona_id, book_id=book.id if book else None)
    await state.service.personas.put(persona)
    return persona


class NewPersona(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /api/personas`` in the plain form (a card is the other form)."""

    id: str
    name: str
    system_prompt: str
    greeting: str = ""
    description: str = ""


class PersonaController(Controller):
    """Persona endpoints."""

    path = "/api/personas"
    guards = operator_guards()
    dependencies = web_dependency()
    tags = ["personas"]  # noqa: RUF012

    @get("/")
    async def list_personas(self, web: NamedDependency[WebState]) -> PersonaList:
        """Every persona."""
        return PersonaList(personas=await web.service.personas.all())

    @post("/", status_code=201)
    async def create(
        self,
        web: NamedDependency[WebState],
        request: Request[Any, Any, Any],
        id: FromQuery[str | None] = None,
    ) -> Persona:
        """Create or replace a persona: the plain form, or a card (JSON, PNG, CHARX) with its book.

        The body is read as it comes (a card is PNG, CHARX or card JSON), so it is not a ``data``
        Struct; the plain form is decoded as :class:`NewPersona` with the API's errors.
        """
        raw = await request.body()
        content_type = request.headers.get("content-type", "application/json")
        if is_card(content_type, raw):
            return await create_persona_from_card(web, raw, content_type, id)
        body: NewPersona = decode_body(raw, NewPersona)
        qualify_id(body.id, what="persona")
        if ":" in body.id or "/" in body.id or not body.name.strip() or not body.system_prompt.strip():
            raise InvalidInput(
                "A persona needs a plain id (letters, digits, _ - .), a name and a system prompt.",
                code="invalid_persona",
            )
        persona = Persona(
            id=body.id,
            name=body.name.strip(),
            system_prompt=body.system_prompt,
            greeting=body.greeting,
            description=body.description,
        )
        await web.service.personas.put(persona)
        return persona
