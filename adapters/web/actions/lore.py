"""What the lorebook endpoints do, for the operator (``/api``) and the browser (``/app``) alike.

Import, store, read, export and attach books; the routes add the admin token or the session,
and which books a visitor may read or edit.
"""

from __future__ import annotations

import asyncio
from typing import Literal

import msgspec
from litestar import Response

from adapters.cards import decode_lorebook, encode_lorebook
from adapters.cards.report import import_report
from adapters.web.schemas.lore import ChatBooks, Imported
from engine.lorebook import LoreBook
from engine.service.lore import LoreDesk

__all__ = [
    "ExportFormat",
    "attach_books",
    "export_book",
    "import_book",
    "imported",
]

ExportFormat = Literal["sillytavern", "ccv3"]


async def imported(desk: LoreDesk, book: LoreBook) -> Imported:
    """The answer to an import: id, name, entry count and the per-entry report (LORE-21).

    The report compiles the book (cached per version in the scan, not here), so it is made in a
    worker thread like the import itself.
    """
    report = await desk.in_worker(import_report, book)
    return Imported(id=book.id, name=book.name, entries=len(book.entries), report=list(report))


async def import_book(
    lore: LoreDesk, raw: bytes, content_type: str | None, fallback_name: str, *, new_id: bool
) -> LoreBook:
    """Import SillyTavern World Info JSON, a CCv2/CCv3 card (JSON, PNG, CHARX) or its book.

    ``new_id``: never keep the file's id (a visitor must not overwrite someone else's book).
    A 20 MB file parses off the event loop.
    """
    book = await asyncio.to_thread(decode_lorebook, raw, content_type)
    if new_id:
        book = msgspec.structs.replace(book, id="")
    return await lore.save(book, fallback_name)


async def attach_books(lore: LoreDesk, chat: str, books: list[str]) -> ChatBooks:
    """Attach books to a chat (replacing the previous set); all are scanned as one pool (LORE-1)."""
    return ChatBooks(chat=chat, books=await lore.attach(chat, books))


def export_book(book: LoreBook, format: ExportFormat, filename: str) -> Response[bytes]:
    """The book as a SillyTavern World Info file or a CCv3 lorebook, to download as ``filename``."""
    return Response(
        encode_lorebook(book, format),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )
