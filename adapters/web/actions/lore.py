"""What the lorebook endpoints do, for the operator (``/api``) and the browser (``/app``) alike.

Import, store, read, export, attach, rename and delete books; the routes add the admin token or the session,
and which books a visitor may read or edit.
"""

from __future__ import annotations

import asyncio
from typing import Literal

import msgspec
from litestar import Response

from adapters.cards import decode_lorebook, encode_lorebook
from adapters.cards.report import import_report
from adapters.web.schemas.lore import BookDeleted, ChatBooks, Imported
from adapters.web.state import WebState
from engine.errors import NotFound
from engine.lorebook import LoreBook, compile_book, validate_book
from engine.validate import check_title

__all__ = [
    "BOOK_NAME_CHARS",
    "ExportFormat",
    "attach_books",
    "compile_off_loop",
    "delete_book",
    "export_book",
    "find_book",
    "import_book",
    "imported",
    "missing_books",
    "rename_book",
    "store_book",
]

ExportFormat = Literal["sillytavern", "ccv3"]

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


async def imported(book: LoreBook) -> Imported:
    """The answer to an import: id, name, entry count and the per-entry report (LORE-21).

    The report compiles the book (cached per version in the scan, not here), so it is made in a
    worker thread like the import itself.
    """
    async with _COMPILING:
        report = await asyncio.to_thread(import_report, book)
    return Imported(id=book.id, name=book.name, entries=len(book.entries), report=list(report))


async def import_book(
    web: WebState, raw: bytes, content_type: str | None, fallback_name: str, *, new_id: bool
) -> LoreBook:
    """Import SillyTavern World Info JSON, a CCv2/CCv3 card (JSON, PNG, CHARX) or its book.

    ``new_id``: never keep the file's id (a visitor must not overwrite someone else's book).
    A 20 MB file parses off the event loop.
    """
    book = await asyncio.to_thread(decode_lorebook, raw, content_type)
    if new_id:
        book = msgspec.structs.replace(book, id="")
    return await store_book(web, book, fallback_name)


async def find_book(web: WebState, book: str) -> LoreBook:
    """The book, or 404 ``lorebook_not_found``."""
    found = await web.lore.get(book)
    if found is None:
        raise NotFound(f"There is no lorebook {book!r}.", code="lorebook_not_found")
    return found


BOOK_NAME_CHARS = 100


async def rename_book(web: WebState, book: LoreBook, name: str) -> LoreBook:
    """``book`` under a new name (422 ``title_empty``, ``title_too_long``, ``title_invalid``);
    its id, and so every chat and persona that reads it, stay."""
    title = check_title(name, what="A lorebook name", limit=BOOK_NAME_CHARS)
    return await web.lore.put(msgspec.structs.replace(book, name=title))


async def delete_book(web: WebState, book: str) -> BookDeleted:
    """Delete a book (404 ``lorebook_not_found``): the personas that read it stop (their list
    loses it), the chats it is attached to skip it; memories are not touched."""
    await find_book(web, book)
    personas = [p for p in await web.service.personas.all() if book in p.lorebooks]
    for persona in personas:
        kept = tuple(b for b in persona.lorebooks if b != book)
        await web.service.personas.put(msgspec.structs.replace(persona, lorebooks=kept))
    await web.lore.delete(book)
    return BookDeleted(deleted=book, personas=[p.id for p in personas])


async def missing_books(web: WebState, books: list[str]) -> list[str]:
    """The books of ``books`` (deduplicated, in order) after 404 ``lorebook_not_found`` for any
    that does not exist."""
    wanted = list(dict.fromkeys(books))
    missing = await web.lore.exist(wanted)
    if missing:
        raise NotFound(f"There is no lorebook {missing[0]!r}.", code="lorebook_not_found")
    return wanted


async def attach_books(web: WebState, chat: str, books: list[str]) -> ChatBooks:
    """Attach books to a chat (replacing the previous set); all are scanned as one pool (LORE-1)."""
    wanted = await missing_books(web, books)
    await web.lore.attach(chat, wanted)
    return ChatBooks(chat=chat, books=wanted)


def export_book(book: LoreBook, format: ExportFormat, filename: str) -> Response[bytes]:
    """The book as a SillyTavern World Info file or a CCv3 lorebook, to download as ``filename``."""
    return Response(
        encode_lorebook(book, format),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )
