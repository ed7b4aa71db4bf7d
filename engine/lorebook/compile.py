"""Compile a :class:`LoreBook` once into a scan-ready :class:`CompiledBook` (LORE-2..5, LORE-10).

Compilation validates the book (so ``validate_book`` is simply "compile and discard"), resolves
decorators, normalizes every plain key and loads all of them into at most two Aho-Corasick
automata (case-folded keys and case-sensitive keys) plus one RE2 set for regex keys. A scan then
costs one pass over the text per automaton, whatever the number of entries and keys. The result
is immutable and depends only on the book, so the service caches it per book version.

Every distinct key variant gets a *matcher id* (``mid``); entries refer to their keys by mid and
the indexes ``by_primary`` / ``by_secondary`` map a matched mid back to the entries using it.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Final

import ahocorasick
import msgspec
import re2

from engine.errors import InvalidInput
from engine.lorebook.decorators import EntryOptions, resolve_options
from engine.lorebook.model import (
    DEFAULT_SCAN_DEPTH,
    DEFAULT_TOKEN_BUDGET,
    MAX_SCAN_DEPTH,
    MAX_TOKEN_BUDGET,
    MIN_TOKEN_BUDGET,
    LoreBook,
    LoreEntry,
    SelectiveLogic,
    split_decorators,
)
from engine.lorebook.regex_keys import (
    check_book_complexity,
    check_pattern,
    new_regex_set,
    parse_regex_key,
    to_re2,
)
from engine.lorebook.text import is_no_space_char, normalize_key

__all__ = [
    "CompiledBook",
    "CompiledEntry",
    "LiteralHit",
    "compile_book",
    "id_sort_key",
    "validate_book",
]

LiteralHit = tuple[int, bool, bool, int]
"""Automaton payload item: ``(mid, check_left_boundary, check_right_boundary, key_length)``."""

_NO_MATCHERS: Final[tuple[int, ...]] = ()


class CompiledEntry(msgspec.Struct, frozen=True, kw_only=True):
    """An enabled entry ready for scanning; ``primary``/``secondary`` are matcher ids."""

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
    exclude_recursion: bool
    prevent_recursion: bool
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


def id_sort_key(entry_id: str) -> tuple[int, int, str]:
    """Sort key for entry ids: numeric ids numerically, then other ids as text.

    Args:
        entry_id: An entry id.

    Returns:
        A key that totally orders ids.
    """
    if entry_id.isascii() and entry_id.isdigit():
        return (0, int(entry_id), "")
    return (1, 0, entry_id)


def validate_book(book: LoreBook) -> None:
    """Check a book the way import does: settings ranges, ids, decorators and regex keys.

    Args:
        book: The book to check.

    Raises:
        InvalidInput: With ``code`` ``invalid_scan_depth``, ``invalid_token_budget``,
            ``invalid_entry_id``, ``duplicate_entry_id``, ``invalid_probability``,
            ``invalid_decorator``, ``invalid_regex_key`` or ``lorebook_too_complex``; the message
            names the entry.
    """
    compile_book(book)


def compile_book(book: LoreBook) -> CompiledBook:
    """Validate and compile a book for scanning.

    Args:
        book: The book.

    Returns:
        The compiled book (immutable; cache it per book version).

    Raises:
        InvalidInput: See :func:`validate_book`.
    """
    _check_book(book)
    check_book_complexity(book)
    keys = _KeyTable()
    book_id = book.id or book.name
    default_depth = DEFAULT_SCAN_DEPTH if book.scan_depth is None else book.scan_depth
    entries: list[CompiledEntry] = []
    seen: set[str] = set()
    for entry in book.entries:
        where = f"entry {entry.id!r} ({entry.comment!r}) of book {book.name!r}"
        _check_entry(entry, seen, where)
        # Disabled entries are validated against a throwaway table: they never match.
        table = keys if entry.enabled else _KeyTable()
        compiled = _compile_entry(entry, book, book_id, default_depth, table, where)
        if entry.enabled:
            entries.append(compiled)
    return _assemble(book, book_id, tuple(entries), keys)


def _check_book(book: LoreBook) -> None:
    if book.scan_depth is not None and not 0 <= book.scan_depth <= MAX_SCAN_DEPTH:
        raise InvalidInput(
            f"book {book.name!r}: scan depth {book.scan_depth} is outside 0..{MAX_SCAN_DEPTH}",
            code="invalid_scan_depth",
        )
    budget = book.token_budget
    if budget is not None and not MIN_TOKEN_BUDGET <= budget <= MAX_TOKEN_BUDGET:
        raise InvalidInput(
            f"book {book.name!r}: token budget {budget} is outside {MIN_TOKEN_BUDGET}..{MAX_TOKEN_BUDGET}",
            code="invalid_token_budget",
        )


def _check_entry(entry: LoreEntry, seen: set[str], where: str) -> None:
    if not entry.id.strip():
        raise InvalidInput(f"{where}: the entry id is empty", code="invalid_entry_id")
    if entry.id in seen:
        raise InvalidInput(f"{where}: the id is used twice", code="duplicate_entry_id")
    seen.add(entry.id)
    if entry.scan_depth is not None and not 0 <= entry.scan_depth <= MAX_SCAN_DEPTH:
        raise InvalidInput(
            f"{where}: scan depth {entry.scan_depth} is outside 0..{MAX_SCAN_DEPTH}",
            code="invalid_scan_depth",
        )
    if not 0 <= entry.probability <= 100:
        raise InvalidInput(
            f"{where}: probability {entry.probability} is outside 0..100",
            code="invalid_probability",
        )


def _compile_entry(
    entry: LoreEntry,
    book: LoreBook,
    book_id: str,
    default_depth: int,
    keys: _KeyTable,
    where: str,
) -> CompiledEntry:
    # Decorator lines left at the top of ``content`` are honoured and stripped as well.
    inline, body = split_decorators(entry.content)
    options = resolve_options(
        msgspec.structs.replace(entry, decorators=entry.decorators + inline), where=where
    )
    case_sensitive = book.case_sensitive if entry.case_sensitive is None else entry.case_sensitive
    whole = book.match_whole_words if entry.match_whole_words is None else entry.match_whole_words
    mode = _KeyMode(case_sensitive=case_sensitive, whole_words=whole, use_regex=entry.use_regex)
    primary, primary_keys = keys.add_all(entry.keys, mode, where)
    secondary, secondary_keys = keys.add_all(entry.secondary_keys, mode, where)
    return CompiledEntry(
        book=book_id,
        id=entry.id,
        name=entry.comment,
        text=body.strip(),
        options=options,
        scan_depth=default_depth if options.scan_depth is None else options.scan_depth,
        constant=entry.constant or options.always,
        selective=entry.selective and bool(secondary),
        logic=entry.selective_logic,
        primary=primary,
        primary_keys=primary_keys,
        secondary=secondary,
        secondary_keys=secondary_keys,
        exclude_recursion=entry.exclude_recursion,
        prevent_recursion=entry.prevent_recursion,
        id_key=id_sort_key(entry.id),
    )


class _KeyMode(msgspec.Struct, frozen=True, kw_only=True):
    case_sensitive: bool
    whole_words: bool
    use_regex: bool


class _KeyTable:
    """Mutable builder used only inside :func:`compile_book`: interns keys into matcher ids."""

    def __init__(self) -> None:
        self.mids: dict[tuple[object, ...], int] = {}
        self.literals: dict[bool, dict[str, list[LiteralHit]]] = {True: {}, False: {}}
        self.patterns: list[str] = []
        self.pattern_mids: list[int] = []

    def add_all(
        self, raw_keys: tuple[str, ...], mode: _KeyMode, where: str
    ) -> tuple[tuple[int, ...], tuple[str, ...]]:
        mids: list[int] = []
        labels: list[str] = []
        for raw in raw_keys:
            mid = self.add(raw.strip(), mode, where)
            if mid is not None:
                mids.append(mid)
                labels.append(raw.strip())
        return tuple(mids), tuple(labels)

    def add(self, key: str, mode: _KeyMode, where: str) -> int | None:
        if not key:
            return None
        regex = parse_regex_key(key)
        if regex is None and mode.use_regex:
            regex = (key, "" if mode.case_sensitive else "i")
        if regex is not None:
            pattern = to_re2(*regex)
            check_pattern(pattern, where=where, key=key)
            return self._intern(("re", pattern), pattern=pattern)
        fold = not mode.case_sensitive
        norm = normalize_key(key, fold=fold)
        if not norm:
            return None
        left = mode.whole_words and not is_no_space_char(norm[0])
        right = mode.whole_words and not is_no_space_char(norm[-1])
        mid = self._intern(("lit", fold, norm, left, right))
        hits = self.literals[fold].setdefault(norm, [])
        if all(hit[0] != mid for hit in hits):
            hits.append((mid, left, right, len(norm)))
        return mid

    def _intern(self, identity: tuple[object, ...], *, pattern: str | None = None) -> int:
        mid = self.mids.get(identity)
        if mid is None:
            mid = self.mids[identity] = len(self.mids)
            if pattern is not None:
                self.patterns.append(pattern)
                self.pattern_mids.append(mid)
        return mid


def _automaton(words: dict[str, list[LiteralHit]]) -> ahocorasick.Automaton | None:
    if not words:
        return None
    automaton = ahocorasick.Automaton()
    for word, hits in words.items():
        automaton.add_word(word, tuple(hits))
    automaton.make_automaton()
    return automaton


def _index(entries: tuple[CompiledEntry, ...], primary: bool) -> dict[int, tuple[int, ...]]:
    index: defaultdict[int, list[int]] = defaultdict(list)
    for position, entry in enumerate(entries):
        for mid in dict.fromkeys(entry.primary if primary else entry.secondary):
            index[mid].append(position)
    return {mid: tuple(positions) for mid, positions in index.items()}


def _assemble(
    book: LoreBook, book_id: str, entries: tuple[CompiledEntry, ...], keys: _KeyTable
) -> CompiledBook:
    return CompiledBook(
        id=book_id,
        name=book.name,
        token_budget=DEFAULT_TOKEN_BUDGET if book.token_budget is None else book.token_budget,
        recursive=bool(book.recursive_scanning),
        depth=max((entry.scan_depth for entry in entries), default=0),
        entries=entries,
        always=tuple(i for i, entry in enumerate(entries) if entry.constant),
        index_of={entry.id: i for i, entry in enumerate(entries)},
        by_primary=_index(entries, primary=True),
        by_secondary=_index(entries, primary=False),
        folded=_automaton(keys.literals[True]),
        exact=_automaton(keys.literals[False]),
        regexes=new_regex_set(keys.patterns) if keys.patterns else None,
        regex_mids=tuple(keys.pattern_mids),
    )
