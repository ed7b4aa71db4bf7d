"""The lorebook editor's endpoints (LORE-6, LORE-11, LORE-13): list, import, read, edit, attach.

Who sees what: a signed-in person sees the books they imported (and may edit them) and the
books of the deployment's personas (read-only: they are shared by everyone). Guests see the
persona books only. Edits are checked with ``validate_book`` before ``RedisLoreStore.put``, so a
bad regex key or decorator is refused and nothing is stored. Token counts are the offline
estimate (``offline_count``), the same one the lore budget uses without an exact counter.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any, Literal

import msgspec
from litestar import Request, Response, Router, delete, get, post, put
from litestar.di import NamedDependency
from litestar.params import FromPath, FromQuery, JSONBody

from adapters.cards.report import import_report
from adapters.llm.tokens import offline_count
from adapters.web.actions import lore as act
from adapters.web.actions.lore import ExportFormat, find_book, imported, store_book
from adapters.web.actions.personas import visible_persona
from adapters.web.app_auth import owned_chat, require_user
from adapters.web.app_personas import shared_persona_books
from adapters.web.layers import BODY_DTO, browser_guards, web_dependency
from adapters.web.schemas.lore import (
    AttachBooks,
    BookEdit,
    ChatBooks,
    EditorBook,
    EditorBookList,
    EditorBookSummary,
    EditorEntry,
    EntryDeleted,
    EntryEdit,
    EntrySaved,
    Imported,
    Tri,
)
from adapters.web.session import BrowserSession
from adapters.web.state import WebState
from engine.errors import Forbidden, InvalidInput, NotFound
from engine.lorebook import (
    LoreBook,
    LoreEntry,
    join_decorators,
    split_decorators,
)
from engine.lorebook.regex_keys import split_key_string

__all__ = [
    "LORE_ROUTES",
    "BookEdit",
    "EntryEdit",
    "apply_entry_edit",
    "display_name",
    "parse_decorators",
    "remove_entry",
    "sorted_entries",
    "split_keys",
]

_NUMBER = re.compile(r"(\d+)")
_FILENAME = re.compile(r"[^A-Za-z0-9_.-]+")


def display_name(entry: LoreEntry) -> str:
    """The editor's name of an entry: its comment (LORE-6), else its first key, else its id."""
    return entry.comment.strip() or (entry.keys[0] if entry.keys else "") or f"entry {entry.id}"


def _natural(text: str) -> tuple[Any, ...]:
    return tuple(int(p) if p.isdigit() else p for p in _NUMBER.split(text.casefold()))


def sorted_entries(entries: tuple[LoreEntry, ...]) -> list[LoreEntry]:
    """Entries by display name (case-insensitive, numbers in numeric order), then id (LORE-6)."""
    return sorted(entries, key=lambda e: (_natural(display_name(e)), _natural(e.id)))


def split_keys(raw: str) -> tuple[str, ...]:
    """Comma-separated keys (LORE-3); a ``/regex/flags`` key may contain commas (LORE-20)."""
    return split_key_string(raw)


def parse_decorators(text: str) -> tuple[Any, ...]:
    """Decorator lines (``@@name value``, LORE-10) from the editor's text box.

    Raises:
        InvalidInput: ``invalid_decorator_line`` for a non-empty line without ``@@``.
    """
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in lines:
        if not line.startswith("@@"):
            raise InvalidInput(
                f"Decorator lines start with @@ (e.g. '@@probability 50'); got {line[:40]!r}.",
                code="invalid_decorator_line",
            )
    decorators, _ = split_decorators("\n".join(lines))
    return decorators


_TRI = {"book": None, "on": True, "off": False, "whole_words": True, "substring": False}
_KEPT = (
    "selective_logic", "probability", "use_probability", "sticky", "cooldown", "delay", "group",
    "group_override", "group_weight", "delay_until_recursion", "exclude_recursion", "prevent_recursion",
)  # fmt: skip


def _tuning(edit: EntryEdit) -> dict[str, Any]:
    """The LORE-14..18 fields the edit sets (absent ones are left out)."""
    changes = {name: getattr(edit, name) for name in _KEPT if getattr(edit, name) is not None}
    for name in ("use_group_scoring", "match_whole_words", "case_sensitive"):
        value = getattr(edit, name)
        if value is not None:
            changes[name] = _TRI[value]
    if edit.clear_scan_depth:
        changes["scan_depth"] = None
    elif edit.scan_depth is not None:
        changes["scan_depth"] = edit.scan_depth
    if changes.get("delay_until_recursion") is not None:
        level = changes["delay_until_recursion"]
        changes["delay_until_recursion"] = level if level > 1 else bool(level)
    for name in ("sticky", "cooldown", "delay", "group_weight", "probability"):
        if name in changes and changes[name] < 0:
            raise InvalidInput(f"{name} must be 0 or more.", code="invalid_entry")
    return changes


def _new_id(book: LoreBook) -> str:
    numbers = [int(e.id) for e in book.entries if e.id.isdigit()]
    return str(max(numbers, default=-1) + 1)


def apply_entry_edit(book: LoreBook, entry_id: str | None, edit: EntryEdit) -> tuple[LoreBook, LoreEntry]:
    """The book with one entry changed (or a new one appended when ``entry_id`` is None).

    Raises:
        NotFound: ``entry_not_found``.
        InvalidInput: ``invalid_decorator_line``.
    """
    secondary = split_keys(edit.secondary_keys)
    changes: dict[str, Any] = {
        "comment": edit.comment.strip(),
        "keys": split_keys(edit.keys),
        "secondary_keys": secondary,
        "content": edit.content,
        "decorators": parse_decorators(edit.decorators),
        "priority": edit.priority,
        "order": edit.order,
        "role": edit.role,
        "enabled": edit.enabled,
        "constant": edit.constant,
        "selective": bool(secondary) if edit.selective is None else edit.selective,
        **_tuning(edit),
    }
    if entry_id is None:
        entry = LoreEntry(id=_new_id(book), **changes)
        return msgspec.structs.replace(book, entries=(*book.entries, entry)), entry
    old = next((e for e in book.entries if e.id == entry_id), None)
    if old is None:
        raise NotFound(f"There is no entry {entry_id!r} in this lorebook.", code="entry_not_found")
    entry = msgspec.structs.replace(old, **changes)
    entries = tuple(entry if e.id == entry_id else e for e in book.entries)
    return msgspec.structs.replace(book, entries=entries), entry


def remove_entry(book: LoreBook, entry_id: str) -> LoreBook:
    """The book without one entry.

    Raises:
        NotFound: ``entry_not_found``.
    """
    if all(e.id != entry_id for e in book.entries):
        raise NotFound(f"There is no entry {entry_id!r} in this lorebook.", code="entry_not_found")
    return msgspec.structs.replace(book, entries=tuple(e for e in book.entries if e.id != entry_id))


def entry_view(entry: LoreEntry) -> EditorEntry:
    """An entry as the editor shows it, with its token count."""
    return EditorEntry(
        id=entry.id,
        name=display_name(entry),
        comment=entry.comment,
        keys=", ".join(entry.keys),
        secondary_keys=", ".join(entry.secondary_keys),
        content=entry.content,
        decorators=join_decorators(entry.decorators, "").strip("\n"),
        priority=entry.priority,
        order=entry.order,
        role=entry.role,
        enabled=entry.enabled,
        constant=entry.constant,
        selective=entry.selective,
        selective_logic=entry.selective_logic,
        probability=entry.probability,
        use_probability=entry.use_probability,
        sticky=entry.sticky,
        cooldown=entry.cooldown,
        delay=entry.delay,
        group=entry.group,
        group_override=entry.group_override,
        group_weight=entry.group_weight,
        use_group_scoring=_tri(entry.use_group_scoring),
        delay_until_recursion=int(entry.delay_until_recursion),
        exclude_recursion=entry.exclude_recursion,
        prevent_recursion=entry.prevent_recursion,
        match_whole_words=_WORDS[entry.match_whole_words],
        case_sensitive=_tri(entry.case_sensitive),
        scan_depth=entry.scan_depth,
        tokens=_tokens(entry),
    )


_TRI_NAMES: dict[bool | None, Tri] = {None: "book", True: "on", False: "off"}
_WORDS: dict[bool | None, Literal["book", "whole_words", "substring"]] = {
    None: "book",
    True: "whole_words",
    False: "substring",
}


def _tri(value: bool | None) -> Tri:
    return _TRI_NAMES[value]


def _tokens(entry: LoreEntry) -> int:
    return offline_count(entry.content) if entry.content else 0


# --- access ---------------------------------------------------------------------------------


async def _own_books(web: WebState, visitor: BrowserSession) -> set[str]:
    if visitor.guest or web.accounts is None:
        return set()
    return await web.accounts.store.lorebooks(visitor.slug)


async def _book(web: WebState, visitor: BrowserSession, book: str, *, edit: bool = False) -> LoreBook:
    """The book if the visitor may read it (``edit``: change it), else 403 ``not_your_lorebook``."""
    own = await _own_books(web, visitor)
    if edit:
        require_user(visitor)
        if book not in own:
            raise Forbidden("Only books you imported can be edited here.", code="not_your_lorebook")
    elif book not in own and book not in await shared_persona_books(
        web
    ):  # a private persona's stay its owner's
        raise Forbidden("This lorebook is not yours.", code="not_your_lorebook")
    return await find_book(web, book)


# --- handlers -------------------------------------------------------------------------------


@get("/lorebooks")
async def list_books(
    web: NamedDependency[WebState],
    visitor: NamedDependency[BrowserSession],
    chat: FromQuery[str | None] = None,
    persona: FromQuery[str | None] = None,
) -> EditorBookList:
    """The visitor's books and the personas' books; ``attached`` to ``chat`` when given;
    ``read_by_persona`` for the books of ``persona`` (404 ``persona_not_found`` when not visible)."""
    own, shared = await _own_books(web, visitor), await shared_persona_books(web)
    attached = set(await web.lore.attached(owned_chat(visitor, chat))) if chat else set()
    read = set((await visible_persona(web, visitor, persona)).lorebooks) if persona else set()
    books = [b for b in await web.lore.all() if b.id in own or b.id in shared]
    return EditorBookList(
        lorebooks=[
            EditorBookSummary(
                id=b.id,
                name=b.name,
                entries=b.entries,
                editable=b.id in own,
                persona_book=b.id in shared,
                attached=b.id in attached,
                read_by_persona=b.id in read,
            )
            for b in books
        ]
    )


@post("/lorebooks", status_code=201)
async def import_book(
    web: NamedDependency[WebState],
    visitor: NamedDependency[BrowserSession],
    request: Request[Any, Any, Any],
    name: FromQuery[str | None] = None,
) -> Imported:
    """Import World Info JSON, a CCv2/CCv3 card (JSON, PNG, CHARX) or its book (LORE-13).

    The book gets a new id (never overwriting someone else's) and becomes the visitor's.
    """
    require_user(visitor)
    raw, content_type = await request.body(), request.headers.get("content-type")
    stored = await act.import_book(web, raw, content_type, (name or "Imported lorebook")[:120], new_id=True)
    if web.accounts is not None:
        await web.accounts.store.own_lorebook(visitor.slug, stored.id)
    return await imported(stored)


async def _book_view(book: LoreBook, editable: bool) -> EditorBook:
    ordered = sorted_entries(book.entries)
    views = await asyncio.to_thread(lambda: [entry_view(e) for e in ordered])
    report = list(await asyncio.to_thread(import_report, book))
    entries = [msgspec.structs.replace(v, issues=[r for r in report if r.entry == v.id]) for v in views]
    return EditorBook(
        id=book.id,
        name=book.name,
        description=book.description,
        editable=editable,
        scan_depth=book.scan_depth,
        token_budget=book.token_budget,
        recursive_scanning=book.recursive_scanning,
        matching=book.matching or ("whole_words" if book.match_whole_words else "substring"),
        case_sensitive=book.case_sensitive,
        use_group_scoring=book.use_group_scoring,
        report=report,
        tokens=sum(v.tokens for v in views),
        entries=entries,
    )


@get("/lorebooks/{book:str}")
async def read_book(
    web: NamedDependency[WebState], visitor: NamedDependency[BrowserSession], book: FromPath[str]
) -> EditorBook:
    """One book with its entries sorted by display name and token counts."""
    found = await _book(web, visitor, book)
    return await _book_view(found, book in await _own_books(web, visitor))


@get("/lorebooks/{book:str}/export")
async def export_book(
    web: NamedDependency[WebState],
    visitor: NamedDependency[BrowserSession],
    book: FromPath[str],
    format: FromQuery[ExportFormat] = "sillytavern",
) -> Response[bytes]:
    """Download the book as SillyTavern World Info or a CCv3 lorebook."""
    found = await _book(web, visitor, book)
    filename = (_FILENAME.sub("-", found.name).strip("-.") or found.id)[:80]
    return act.export_book(found, format, f"{filename}.{format}.json")


async def _save_entry(
    web: WebState, visitor: BrowserSession, book: str, entry: str | None, edit: EntryEdit
) -> EntrySaved:
    found = await _book(web, visitor, book, edit=True)
    changed, saved = await asyncio.to_thread(
        apply_entry_edit, found, entry, edit
    )  # keys of MBs split off the loop
    stored = await store_book(web, changed, found.name, edited=saved.id)
    total = await asyncio.to_thread(lambda: sum(_tokens(e) for e in stored.entries))
    return EntrySaved(entry=entry_view(saved), book_tokens=total)


@put("/lorebooks/{book:str}/settings")
async def edit_settings(
    web: NamedDependency[WebState],
    visitor: NamedDependency[BrowserSession],
    book: FromPath[str],
    data: JSONBody[BookEdit],
) -> EditorBook:
    """Change a book's default matching and case (LORE-18) and group scoring (LORE-15)."""
    found = await _book(web, visitor, book, edit=True)
    changes = {k: v for k, v in msgspec.structs.asdict(data).items() if v is not None}
    stored = await store_book(web, msgspec.structs.replace(found, **changes), found.name)
    return await _book_view(stored, True)


@put("/lorebooks/{book:str}/entries/{entry:str}")
async def edit_entry(
    web: NamedDependency[WebState],
    visitor: NamedDependency[BrowserSession],
    book: FromPath[str],
    entry: FromPath[str],
    data: JSONBody[EntryEdit],
) -> EntrySaved:
    """Change an entry of one of the visitor's books (validated before it is stored)."""
    return await _save_entry(web, visitor, book, entry, data)


@post("/lorebooks/{book:str}/entries", status_code=201)
async def add_entry(
    web: NamedDependency[WebState],
    visitor: NamedDependency[BrowserSession],
    book: FromPath[str],
    data: JSONBody[EntryEdit],
) -> EntrySaved:
    """Append a new entry to one of the visitor's books."""
    return await _save_entry(web, visitor, book, None, data)


@delete("/lorebooks/{book:str}/entries/{entry:str}", status_code=200)
async def delete_entry(
    web: NamedDependency[WebState],
    visitor: NamedDependency[BrowserSession],
    book: FromPath[str],
    entry: FromPath[str],
) -> EntryDeleted:
    """Remove an entry from one of the visitor's books."""
    found = await _book(web, visitor, book, edit=True)
    await store_book(web, remove_entry(found, entry), found.name)
    return EntryDeleted(deleted=entry)


@put("/chats/{chat:str}/lorebooks")
async def attach_books(
    web: NamedDependency[WebState],
    visitor: NamedDependency[BrowserSession],
    chat: FromPath[str],
    data: JSONBody[AttachBooks],
) -> ChatBooks:
    """Attach books to one of the visitor's chats (replacing the set); scanned as one pool (LORE-1)."""
    chat_id = owned_chat(visitor, chat)
    require_user(visitor)
    for book in dict.fromkeys(data.books):
        await _book(web, visitor, book)
    return await act.attach_books(web, chat_id, data.books)


LORE_ROUTES = [
    Router(
        path="/",
        route_handlers=[
            edit_settings,
            list_books,
            import_book,
            read_book,
            export_book,
            edit_entry,
            add_entry,
            delete_entry,
            attach_books,
        ],
        guards=browser_guards(),
        dependencies=web_dependency(),
        dto=BODY_DTO,
        return_dto=None,
        tags=["lorebooks"],
    )
]
"""The lorebook editor's routes, for the ``/app`` router."""
