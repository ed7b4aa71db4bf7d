"""Editing a lorebook, pure part (LORE-6): what the editor may change and how a change applies.

``EntryEdit`` and ``BookEdit`` are the editor's changes; ``apply_entry_edit`` and
``remove_entry`` return the changed book (validated and stored by
``engine.service.lore.LoreDesk``); ``sorted_entries`` orders entries by display name.
"""

from __future__ import annotations

import re
from typing import Any, Literal

import msgspec

from engine.errors import InvalidInput, NotFound
from engine.lorebook.model import LoreBook, LoreEntry, Matching, Role, SelectiveLogic, split_decorators
from engine.lorebook.regex_keys import split_key_string

__all__ = [
    "BookEdit",
    "EntryEdit",
    "apply_entry_edit",
    "change_settings",
    "display_name",
    "parse_decorators",
    "remove_entry",
    "sorted_entries",
    "split_keys",
]

_NUMBER = re.compile(r"(\d+)")


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


def change_settings(book: LoreBook, edit: BookEdit) -> LoreBook:
    """The book with the settings ``edit`` sets (absent ones kept)."""
    changes = {k: v for k, v in msgspec.structs.asdict(edit).items() if v is not None}
    return msgspec.structs.replace(book, **changes)
