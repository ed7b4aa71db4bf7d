"""Request and response types of the lorebook and persona endpoints (LORE-6..22, API.md).

The operator sees a book as stored, its unknown fields (``extensions``, ``extra``) as JSON
objects; the browser's editor sees entries with keys and decorators as text, token counts and
the import report's issues per entry.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec
from msgspec import UNSET, UnsetType

from engine.lorebook import LoreBook, LoreEntry, Matching, Role, SelectiveLogic
from engine.lorebook.model import LoreIssue
from engine.model import Persona
from storage.redis_lore import BookSummary

__all__ = [
    "AttachBooks",
    "BookEdit",
    "BookList",
    "BookView",
    "ChatBooks",
    "EditorBook",
    "EditorBookList",
    "EditorBookSummary",
    "EditorEntry",
    "EntryDeleted",
    "EntryEdit",
    "EntrySaved",
    "EntryView",
    "Imported",
    "PersonaBooks",
    "PersonaList",
]

Tri = Literal["book", "on", "off"]
"""A per-entry setting that may defer to the book's."""


class AttachBooks(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``PUT /api/chats/{chat}/lorebooks``, ``PUT /api/personas/{persona}/lorebooks`` and
    ``PUT /app/chats/{chat}/lorebooks``: the set of books (replacing the previous one)."""

    books: list[str]


class EntryEdit(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What the editor may change in an entry (fields it does not show are kept as they were)."""

    comment: str = ""
    keys: str = ""
    secondary_keys: str = ""
    content: str = ""
    decorators: str = ""
    priority: int = 0
    order: int = 0
    role: Role = "system"
    enabled: bool = True
    constant: bool = False
    selective: bool | None = None
    # LORE-14..18, LORE-22: absent (None) keeps the entry's value (a new entry: the default).
    selective_logic: SelectiveLogic | None = None
    probability: int | None = None
    use_probability: bool | None = None
    sticky: int | None = None
    cooldown: int | None = None
    delay: int | None = None
    group: str | None = None
    group_override: bool | None = None
    group_weight: int | None = None
    use_group_scoring: Literal["book", "on", "off"] | None = None
    delay_until_recursion: int | None = None
    exclude_recursion: bool | None = None
    prevent_recursion: bool | None = None
    match_whole_words: Literal["book", "whole_words", "substring"] | None = None
    case_sensitive: Literal["book", "on", "off"] | None = None
    scan_depth: int | None = None
    clear_scan_depth: bool = False


class BookEdit(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Book settings the editor changes (LORE-18, LORE-15)."""

    matching: Matching | None = None
    case_sensitive: bool | None = None
    use_group_scoring: bool | None = None


class Imported(msgspec.Struct, frozen=True, kw_only=True):
    """An imported book: id, name, entry count and the per-entry report (LORE-21)."""

    id: str
    name: str
    entries: int
    report: list[LoreIssue]


class BookList(msgspec.Struct, frozen=True, kw_only=True):
    """Every lorebook (id, name, number of entries)."""

    lorebooks: list[BookSummary]


# The views below re-type a stored struct's ``(key, json)`` pairs as the JSON objects the wire
# shows (same field, same place); mypy sees the narrowing of a base field, hence the ignores.


class EntryView(LoreEntry, frozen=True, kw_only=True):
    """An entry as stored, its unknown fields as JSON objects."""

    extensions: dict[str, Any] = msgspec.field(default_factory=dict)  # type: ignore[assignment]  # pairs shown as an object
    extra: dict[str, Any] = msgspec.field(default_factory=dict)  # type: ignore[assignment]  # pairs shown as an object


class BookView(LoreBook, frozen=True, kw_only=True):
    """A book as stored, entries in file order, unknown fields as JSON objects."""

    entries: tuple[EntryView, ...] = ()
    extensions: dict[str, Any] = msgspec.field(default_factory=dict)  # type: ignore[assignment]  # pairs shown as an object
    extra: dict[str, Any] = msgspec.field(default_factory=dict)  # type: ignore[assignment]  # pairs shown as an object


class ChatBooks(msgspec.Struct, frozen=True, kw_only=True):
    """The books attached to a chat."""

    chat: str
    books: list[str]


class PersonaBooks(msgspec.Struct, frozen=True, kw_only=True):
    """The books attached to a persona (they join every chat's pool)."""

    persona: str
    books: list[str]


class PersonaList(msgspec.Struct, frozen=True, kw_only=True):
    """Every persona."""

    personas: list[Persona]


class EditorBookSummary(msgspec.Struct, frozen=True, kw_only=True):
    """A book in the editor's list: whether the visitor may edit it, whose it is, if attached."""

    id: str
    name: str
    entries: int
    editable: bool
    persona_book: bool
    attached: bool
    read_by_persona: bool = False
    """A book of the persona named in the request (``persona=``): read in its chats, attached or not."""


class EditorBookList(msgspec.Struct, frozen=True, kw_only=True):
    """The visitor's books and the personas' books."""

    lorebooks: list[EditorBookSummary]


class EditorEntry(msgspec.Struct, frozen=True, kw_only=True):
    """An entry as the editor shows it, with its token count; ``issues`` in a book's view."""

    id: str
    name: str
    comment: str
    keys: str
    secondary_keys: str
    content: str
    decorators: str
    priority: int
    order: int
    role: Role
    enabled: bool
    constant: bool
    selective: bool
    selective_logic: SelectiveLogic
    probability: int
    use_probability: bool
    sticky: int
    cooldown: int
    delay: int
    group: str
    group_override: bool
    group_weight: int
    use_group_scoring: Tri
    delay_until_recursion: int
    exclude_recursion: bool
    prevent_recursion: bool
    match_whole_words: Literal["book", "whole_words", "substring"]
    case_sensitive: Tri
    scan_depth: int | None
    tokens: int
    issues: list[LoreIssue] | UnsetType = UNSET


class EditorBook(msgspec.Struct, frozen=True, kw_only=True):
    """A book in the editor: settings, the import report, token total, entries by name (LORE-6)."""

    id: str
    name: str
    description: str
    editable: bool
    scan_depth: int | None
    token_budget: int | None
    recursive_scanning: bool | None
    matching: Matching
    case_sensitive: bool
    use_group_scoring: bool
    report: list[LoreIssue]
    tokens: int
    entries: list[EditorEntry]


class EntrySaved(msgspec.Struct, frozen=True, kw_only=True):
    """A saved entry and the book's token total."""

    entry: EditorEntry
    book_tokens: int


class EntryDeleted(msgspec.Struct, frozen=True, kw_only=True):
    """The id of the removed entry."""

    deleted: str
