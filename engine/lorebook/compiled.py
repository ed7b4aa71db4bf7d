"""The compiled form of a lorebook (LORE-5, LORE-16..18): what ``compile_book`` builds and
``match``/``scan`` read. Kept apart from ``compile`` so that ``match`` needs no import of it.
"""

from __future__ import annotations

from typing import Final

import ahocorasick
import msgspec
import re2

from engine.lorebook.decorators import EntryOptions
from engine.lorebook.model import LoreIssue, SelectiveLogic

__all__ = [
    "EDGE_FREE",
    "EDGE_INFLECTED",
    "EDGE_WORD",
    "CompiledBook",
    "CompiledEntry",
    "DynamicKey",
    "LiteralHit",
]

LiteralHit = tuple[int, int, int, int]
"""Automaton payload item: ``(mid, left_edge, right_edge, key_length)``; edges are ``EDGE_*``."""

EDGE_FREE: Final = 0
"""No boundary check on that side (substring matching, or a no-space script character)."""
EDGE_WORD: Final = 1
"""The key must not touch a word character on that side (whole words, LORE-5)."""
EDGE_INFLECTED: Final = 2
"""Whole word, or a short inflection: up to 4 more word characters after the key, or 1-3
Hebrew/Arabic proclitic letters before it (LORE-18)."""


class DynamicKey(msgspec.Struct, frozen=True, kw_only=True):
    """A key with macros (``{{char}}``...): expanded and matched at scan time (LORE-17)."""

    mid: int
    raw: str
    case_sensitive: bool
    left: int
    right: int
    use_regex: bool


class CompiledEntry(msgspec.Struct, frozen=True, kw_only=True):
    """An enabled entry ready for scanning; ``primary``/``secondary``/``exclude`` are matcher ids."""

    book: str
    id: str
    name: str
    text: str
    options: EntryOptions
    scan_depth: int
    constant: bool
    selective: bool
    logic: SelectiveLogic
    primary: tuple[int, ...]
    primary_keys: tuple[str, ...]
    secondary: tuple[int, ...]
    secondary_keys: tuple[str, ...]
    exclude: tuple[int, ...]
    exclude_keys: tuple[str, ...]
    required: tuple[int, ...]
    required_keys: tuple[str, ...]
    exclude_recursion: bool
    prevent_recursion: bool
    delay_level: int
    sticky: int
    cooldown: int
    delay: int
    groups: tuple[str, ...]
    group_override: bool
    group_weight: int
    scored: bool
    id_key: tuple[int, int, str]


class CompiledBook(msgspec.Struct, frozen=True, kw_only=True, eq=False):
    """A validated, indexed book. Build with :func:`compile_book`; treat as opaque."""

    id: str
    name: str
    token_budget: int
    recursive: bool
    depth: int
    entries: tuple[CompiledEntry, ...]
    always: tuple[int, ...]
    index_of: dict[str, int]
    by_primary: dict[int, tuple[int, ...]]
    by_secondary: dict[int, tuple[int, ...]]
    folded: ahocorasick.Automaton | None
    exact: ahocorasick.Automaton | None
    regexes: re2.Set | None
    regex_mids: tuple[int, ...]
    regex_depths: tuple[int, ...]
    dynamic: tuple[DynamicKey, ...]
    issues: tuple[LoreIssue, ...]
    timed: tuple[int, ...]
    delayed: tuple[int, ...]
    delay_levels: tuple[int, ...]
    cost: int = 0
    """Work a scan may do on this book at most, roughly: its enabled entries plus their keys. The
    service scans off the event loop when a pool's cost is high (a cheap book stays inline)."""
    content: tuple[tuple[int, ...] | None, ...] = ()
    """Per entry: the book's static keys its content holds (``None`` when the content has macros)."""
