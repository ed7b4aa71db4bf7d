"""Lorebooks, cards and personas (LORE-13, API.md): import, read, export, attach to a chat."""

from __future__ import annotations

import asyncio
from typing import Any, Literal

import msgspec
from litestar import Controller, Request, Response, delete, get, post, put
from litestar.params import FromPath, FromQuery

from adapters.cards import decode_card, decode_lorebook, encode_lorebook
from adapters.cards.jsondoc import check_json_depth
from adapters.cards.persona import persona_from_card
from adapters.cards.report import import_report, report_view
from adapters.web.api import admin_guard, decode_body
from adapters.web.state import WebState
from engine.errors import Conflict, InvalidInput, NotFound
from engine.lorebook import LoreBook, compile_book, pairs_to_dict, validate_book
from engine.model import Persona
from engine.validate import qualify_id

__all__ = [
    "LorebookController",
    "PersonaController",
    "attach_lorebooks",
    "attach_persona_lorebooks",
    "create_persona_from_card",
    "delete_persona",
    "imported",
    "is_card",
]

_CARD_KEYS = {"spec", "data", "first_mes", "char_name"}


class AttachBooks(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``PUT /api/chats/{chat}/lorebooks``."""

    books: list[str]


def book_view(book: LoreBook) -> dict[str, Any]:
    """A book as the API shows it: unknown fields as JSON objects, entries in file order."""
    view = msgspec.to_builtins(book)
    view["extensions"], view["extra"] = pairs_to_dict(book.extensions), pairs_to_dict(book.extra)
    for raw, entry in zip(view["entries"], book.entries, strict=True):
        raw["extensions"], raw["extra"] = pairs_to_dict(entry.extensions), pairs_to_dict(entry.extra)
    return view


_COMPILING = asyncio.Semaphore(2)  # books compiled at once per process (each may take ~0.5 s, 100 MB)


async def compile_off_loop(book: LoreBook, *, edited: str | None = None) -> None:
    """Compile (an import) or validate (an editor save) in a worker thread, so a regex-heavy
    book never blocks other requests.

    RE2 and the Aho-Corasick builder run in C; the event loop keeps answering (``/healthz``,
    chat turns) meanwhile. Books past the limits of ``engine.lorebook.regex_keys`` are refused
    with 422 ``lorebook_too_complex`` before the expensive part.
    """
    async with _COMPILING:
        if edited is None:
            await asyncio.to_thread(compile_book, book)
        else:
            await asyncio.to_thread(validate_book, book, only=edited)


async def store_book(
    state: WebState, book: LoreBook, fallback_name: str, *, edited: str | None = None
) -> LoreBook:
    """Validate and store; nothing is stored on error.

    Ranges, ids and complexity are always checked. An import (``edited`` None) keeps entries
    with a regex key RE2 cannot run or an invalid decorator value, which the import report names
    (LORE-21); an editor save refuses them in the entry being ``edited``.
    """
    if not book.name.strip():
        book = msgspec.structs.replace(book, name=fallback_name)
    await compile_off_loop(book, edited=edited)
    return await state.lore.put(book)


async def imported(book: LoreBook) -> dict[str, Any]:
    """The answer to an import: id, name, entry count and the per-entry report (LORE-21).

    The report compiles the book (cached per version in the scan, not here), so it is made in a
    worker thread like the import itself.
    """
    async with _COMPILING:
        report = await asyncio.to_thread(import_report, book)
    return {"id": book.id, "name": book.name, "entries": len(book.entries), "report": report_view(report)}


class LorebookController(Controller):
    """``/api/lorebooks``."""

    path = "/api/lorebooks"
    guards = [admin_guard]  # noqa: RUF012
    tags = ["lorebooks"]  # noqa: RUF012

    @post("/", status_code=201)
    async def upload(
        self, request: Request[Any, Any, Any], name: FromQuery[str | None] = None
    ) -> dict[str, Any]:
        """Import SillyTavern World Info JSON, a CCv2/CCv3 card (JSON, PNG, CHARX) or its book."""
        state: WebState = request.app.state.web
        raw, content_type = await request.body(), request.headers.get("content-type")
        book = await asyncio.to_thread(decode_lorebook, raw, content_type)  # a 20 MB file parses off the loop
        stored = await store_book(state, book, name or "Imported lorebook")
        return await imported(stored)

    @get("/")
    async def list_books(self, request: Request[Any, Any, Any]) -> dict[str, Any]:
        """Every lorebook (id, name, number of entries)."""
        state: WebState = request.app.state.web
        return {"lorebooks": [msgspec.to_builtins(b) for b in await state.lore.all()]}

    @get("/{book:str}")
    async def read(self, request: Request[Any, Any, Any], book: FromPath[str]) -> dict[str, Any]:
        """One book with its entries."""
        state: WebState = request.app.state.web
        return book_view(await _book(state, book))

    @get("/{book:str}/export")
    async def export(
        self,
        request: Request[Any, Any, Any],
        book: FromPath[str],
        format: FromQuery[Literal["sillytavern", "ccv3"]] = "sillytavern",  # API.md's name
    ) -> Response[bytes]:
        """The book as a SillyTavern World Info file or a CCv3 lorebook."""
        state: WebState = request.app.state.web
        found = await _book(state, book)
        filename = f"{found.name or found.id}.{format}.json".replace('"', "")
        return Response(
            encode_lorebook(found, format),
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="{filename}"'},
        )


async def _book(state: WebState, book: str) -> LoreBook:
    found = await state.lore.get(book)
    if found is None:
        raise NotFound(f"There is no lorebook {book!r}.", code="lorebook_not_found")
    return found


@put("/api/chats/{chat:str}/lorebooks", guards=[admin_guard], tags=["lorebooks"])
async def attach_lorebooks(request: Request[Any, Any, Any], chat: FromPath[str]) -> dict[str, Any]:
    """Attach lorebooks to a chat (replacing the previous set); all are scanned as one pool."""
    state: WebState = request.app.state.web
    body: AttachBooks = decode_body(await request.body(), AttachBooks)
    chat_id = qualify_id(chat, what="chat")
    books = list(dict.fromkeys(body.books))
    missing = await state.lore.exist(books)
    if missing:
        raise NotFound(f"There is no lorebook {missing[0]!r}.", code="lorebook_not_found")
    await state.lore.attach(chat_id, books)
    return {"chat": chat_id, "books": books}


@put("/api/personas/{persona:str}/lorebooks", guards=[admin_guard], tags=["lorebooks"])
async def attach_persona_lorebooks(request: Request[Any, Any, Any], persona: FromPath[str]) -> dict[str, Any]:
    """Attach lorebooks to a persona (replacing its set); they join every chat's pool."""
    state: WebState = request.app.state.web
    body: AttachBooks = decode_body(await request.body(), AttachBooks)
    found = await state.service.persona(persona)
    books = list(dict.fromkeys(body.books))
    missing = await state.lore.exist(books)
    if missing:
        raise NotFound(f"There is no lorebook {missing[0]!r}.", code="lorebook_not_found")
    await state.service.personas.put(msgspec.structs.replace(found, lorebooks=tuple(books)))
    return {"persona": found.id, "books": books}


@delete("/api/personas/{persona:str}", guards=[admin_guard], tags=["personas"], status_code=200)
async def delete_persona(request: Request[Any, Any, Any], persona: FromPath[str]) -> dict[str, Any]:
    """Delete a persona; its personal memories become global ones instead of being lost (MEM-10)."""
    state: WebState = request.app.state.web
    if persona == "default":
        raise Conflict("The default persona cannot be deleted.", code="persona_required")
    found = await state.service.persona(persona)
    moved = await state.service.memory.delete_persona(found.id) if state.service.memory else 0
    await state.service.personas.delete(found.id)
    return {"deleted": found.id, "memories_made_global": moved}


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
    if card.book is not None:
        await compile_off_loop(card.book)
    book = await store_book(state, card.book, f"{card.name}'s lorebook") if card.book is not None else None
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
    guards = [admin_guard]  # noqa: RUF012
    tags = ["personas"]  # noqa: RUF012

    @get("/")
    async def list_personas(self, request: Request[Any, Any, Any]) -> dict[str, list[Persona]]:
        """Every persona."""
        state: WebState = request.app.state.web
        return {"personas": await state.service.personas.all()}

    @post("/", status_code=201)
    async def create(self, request: Request[Any, Any, Any], id: FromQuery[str | None] = None) -> Persona:
        """Create or replace a persona: the plain form, or a card (JSON, PNG, CHARX) with its book."""
        state: WebState = request.app.state.web
        raw = await request.body()
        content_type = request.headers.get("content-type", "application/json")
        if is_card(content_type, raw):
            return await create_persona_from_card(state, raw, content_type, id)
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
        await state.service.personas.put(persona)
        return persona
