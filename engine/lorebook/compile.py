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

from engine.errors import InvalidInput
from engine.lorebook.compiled import (
    EDGE_FREE,
    EDGE_INFLECTED,
    EDGE_WORD,
    CompiledBook,
    CompiledEntry,
    DynamicKey,
    LiteralHit,
)
from engine.lorebook.decorators import DecoratorProblem, EntryOptions, resolve_options
from engine.lorebook.match import content_hits
from engine.lorebook.model import (
    DEFAULT_SCAN_DEPTH,
    DEFAULT_TOKEN_BUDGET,
    MAX_SCAN_DEPTH,
    MAX_TOKEN_BUDGET,
    MIN_TOKEN_BUDGET,
    LoreBook,
    LoreEntry,
    LoreIssue,
    Matching,
    split_decorators,
)
from engine.lorebook.regex_keys import (
    MAX_WHOLE_NUMBER,
    check_book_complexity,
    delay_level,
    new_regex_set,
    parse_regex_key,
    pattern_problem,
    to_re2,
)
from engine.lorebook.text import is_no_space_char, normalize_key
from engine.macros import has_macros

__all__ = [
    "book_issues",
    "compile_book",
    "id_sort_key",
    "validate_book",
]

_NO_MATCHERS: Final[tuple[int, ...]] = ()


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


def validate_book(book: LoreBook, *, only: str | None = None) -> None:
    """Check a book strictly, the way the editor saves an entry: nothing may be ignored.

    Args:
        book: The book to check.
        only: Check the regex keys and decorators of this entry only (the one being edited);
            the structure (ranges, ids) is always checked for the whole book.

    Raises:
        InvalidInput: With ``code`` ``invalid_scan_depth``, ``invalid_token_budget``,
            ``invalid_entry_id``, ``duplicate_entry_id``, ``invalid_probability``,
            ``invalid_decorator``, ``invalid_regex_key`` or ``lorebook_too_complex``; the message
            names the entry.
    """
    compiled = compile_book(book)
    for issue in compiled.issues:
        if issue.code != "unsupported" and only in (None, issue.entry):
            where = f"entry {issue.entry!r} ({issue.name!r}) of book {book.name!r}"
            raise InvalidInput(f"{where}: {issue.field} {issue.reason}", code=issue.code)


def book_issues(book: LoreBook) -> tuple[LoreIssue, ...]:
    """The import report of a book (LORE-21): what is ignored or not applied, per entry.

    Args:
        book: The book.

    Returns:
        Issues in entry order.

    Raises:
        InvalidInput: For the structural errors of :func:`validate_book` (ranges, ids).
    """
    return compile_book(book).issues


def compile_book(book: LoreBook) -> CompiledBook:
    """Validate the structure and compile a book for scanning.

    An invalid regex key or decorator value does not fail the book: it is left out of the
    entry and reported in ``CompiledBook.issues`` (LORE-21).

    Args:
        book: The book.

    Returns:
        The compiled book (immutable; cache it per book version).

    Raises:
        InvalidInput: ``invalid_scan_depth``, ``invalid_token_budget``, ``invalid_entry_id``,
            ``duplicate_entry_id``, ``invalid_probability``, ``number_out_of_range``, or the
            limits of :func:`check_book_complexity` (``key_too_long``, ``lorebook_too_complex``).
    """
    _check_book(book)
    resolved = [_resolve(entry) for entry in book.entries]
    # Decorator keys count toward the key limits; @@exclude_keys is ignored with use_regex (CCv3).
    decorator_keys = [
        o.additional_keys + (() if e.use_regex else o.exclude_keys)
        for e, (o, _, _) in zip(book.entries, resolved, strict=True)
    ]
    check_book_complexity(book, decorator_keys)
    keys = _KeyTable()
    book_id = book.id or book.name
    default_depth = DEFAULT_SCAN_DEPTH if book.scan_depth is None else book.scan_depth
    entries: list[CompiledEntry] = []
    seen: set[str] = set()
    for entry, options in zip(book.entries, resolved, strict=True):
        where = f"entry {entry.id!r} ({entry.comment!r}) of book {book.name!r}"
        _check_entry(entry, seen, where)
        # Disabled entries are checked against a throwaway table: they never match.
        table = keys if entry.enabled else _KeyTable()
        compiled = _compile_entry(entry, options, book, book_id, default_depth, table)
        if entry.enabled:
            entries.append(compiled)
        else:
            keys.issues.extend(table.issues)
    assembled = _assemble(book, book_id, tuple(entries), keys)
    # Recursion needs the keys each entry's own content holds: found once here, not per scan.
    return msgspec.structs.replace(assembled, content=content_hits(assembled))


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
    for name in _WHOLE_NUMBERS:
        value = getattr(entry, name)
        if not -MAX_WHOLE_NUMBER <= value <= MAX_WHOLE_NUMBER:
            raise InvalidInput(
                f"{where}: {name} {value} is outside ±{MAX_WHOLE_NUMBER:,}",
                code="number_out_of_range",
            )


_WHOLE_NUMBERS: Final = (
    "order",
    "priority",
    "delay_until_recursion",
    "sticky",
    "cooldown",
    "delay",
    "group_weight",
)
"""Entry fields holding any whole number (the others are checked against their own ranges)."""


def _resolve(entry: LoreEntry) -> tuple[EntryOptions, tuple[DecoratorProblem, ...], str]:
    """The entry's options with its decorators applied, their problems, and the body."""
    # Decorator lines left at the top of ``content`` are honoured and stripped as well.
    inline, body = split_decorators(entry.content)
    options, problems = resolve_options(msgspec.structs.replace(entry, decorators=entry.decorators + inline))
    return options, problems, body


def _compile_entry(
    entry: LoreEntry,
    resolved: tuple[EntryOptions, tuple[DecoratorProblem, ...], str],
    book: LoreBook,
    book_id: str,
    default_depth: int,
    keys: _KeyTable,
) -> CompiledEntry:
    options, problems, body = resolved
    keys.entry = entry
    for problem in problems:
        keys.issue(problem.line, problem.reason, problem.code)
    case_sensitive = book.case_sensitive if entry.case_sensitive is None else entry.case_sensitive
    mode = _KeyMode(case_sensitive=case_sensitive, matching=_matching(entry, book), use_regex=entry.use_regex)
    primary, primary_keys = keys.add_all(entry.keys, mode)
    secondary, secondary_keys = keys.add_all(entry.secondary_keys, mode)
    required, required_keys = keys.add_all(options.additional_keys, mode)
    # CCv3: @@exclude_keys is ignored when every key is a regex (use_regex).
    exclude, exclude_keys = keys.add_all(() if entry.use_regex else options.exclude_keys, mode)
    scored = book.use_group_scoring if entry.use_group_scoring is None else entry.use_group_scoring
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
        exclude=exclude,
        exclude_keys=exclude_keys,
        required=required,
        required_keys=required_keys,
        exclude_recursion=entry.exclude_recursion,
        prevent_recursion=entry.prevent_recursion,
        delay_level=delay_level(entry),
        sticky=max(entry.sticky, 0),
        cooldown=max(entry.cooldown, 0),
        delay=max(entry.delay, 0),
        groups=tuple(dict.fromkeys(g.strip() for g in entry.group.split(",") if g.strip())),
        group_override=entry.group_override,
        group_weight=entry.group_weight,
        scored=scored,
        id_key=id_sort_key(entry.id),
    )


def _matching(entry: LoreEntry, book: LoreBook) -> Matching:
    if entry.match_whole_words is not None:
        return "whole_words" if entry.match_whole_words else "substring"
    if book.matching is not None:
        return book.matching
    return "whole_words" if book.match_whole_words else "substring"


class _KeyMode(msgspec.Struct, frozen=True, kw_only=True):
    case_sensitive: bool
    matching: Matching
    use_regex: bool

    def edge(self, char: str) -> int:
        if self.matching == "substring" or is_no_space_char(char):
            return EDGE_FREE
        return EDGE_INFLECTED if self.matching == "inflections" else EDGE_WORD


class _KeyTable:
    """Mutable builder used only inside :func:`compile_book`: interns keys into matcher ids."""

    def __init__(self) -> None:
        self.mids: dict[tuple[object, ...], int] = {}
        self.literals: dict[bool, dict[str, list[LiteralHit]]] = {True: {}, False: {}}
        self.patterns: list[str] = []
        self.pattern_mids: list[int] = []
        self.dynamic: list[DynamicKey] = []
        self.issues: list[LoreIssue] = []
        self.entry = LoreEntry(id="")

    def issue(self, field: str, reason: str, code: str) -> None:
        entry = self.entry
        found = LoreIssue(entry=entry.id, name=entry.comment, field=field, reason=reason, code=code)
        self.issues.append(found)

    def add_all(self, raw_keys: tuple[str, ...], mode: _KeyMode) -> tuple[tuple[int, ...], tuple[str, ...]]:
        mids: list[int] = []
        labels: list[str] = []
        for raw in raw_keys:
            mid = self.add(raw.strip(), mode)
            if mid is not None:
                mids.append(mid)
                labels.append(raw.strip())
        return tuple(mids), tuple(labels)

    def add(self, key: str, mode: _KeyMode) -> int | None:
        if not key:
            return None
        if has_macros(key):
            return self._dynamic(key, mode)
        regex = parse_regex_key(key)
        if regex is None and mode.use_regex:
            regex = (key, "" if mode.case_sensitive else "i")
        if regex is not None:
            pattern = to_re2(*regex)
            problem = pattern_problem(pattern)
            if problem is not None:
                self.issue(f"key '{key}'", f"is left out: RE2 cannot run it ({problem})", "invalid_regex_key")
                return None
            return self._intern(("re", pattern), pattern=pattern)
        fold = not mode.case_sensitive
        norm = normalize_key(key, fold=fold)
        if not norm:
            return None
        left, right = mode.edge(norm[0]), mode.edge(norm[-1])
        mid = self._intern(("lit", fold, norm, left, right))
        hits = self.literals[fold].setdefault(norm, [])
        if all(hit[0] != mid for hit in hits):
            hits.append((mid, left, right, len(norm)))
        return mid

    def _dynamic(self, key: str, mode: _KeyMode) -> int:
        # Edges of a macro key are decided on the expanded text; store the mode's two choices.
        edge = EDGE_FREE if mode.matching == "substring" else mode.edge("a")
        identity = ("dyn", key, mode.case_sensitive, edge, mode.use_regex)
        known = identity in self.mids
        mid = self._intern(identity)
        if not known:
            self.dynamic.append(
                DynamicKey(
                    mid=mid,
                    raw=key,
                    case_sensitive=mode.case_sensitive,
                    left=edge,
                    right=edge,
                    use_regex=mode.use_regex,
                )
            )
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


def _index(entries: tuple[CompiledEntry, ...], field: str) -> dict[int, tuple[int, ...]]:
    index: defaultdict[int, list[int]] = defaultdict(list)
    for position, entry in enumerate(entries):
        mids = entry.primary if field == "primary" else (*entry.secondary, *entry.exclude, *entry.required)
        for mid in dict.fromkeys(mids):
            index[mid].append(position)
    return {mid: tuple(positions) for mid, positions in index.items()}


def _mids(entry: CompiledEntry) -> set[int]:
    return {*entry.primary, *entry.secondary, *entry.exclude, *entry.required}


def _assemble(
    book: LoreBook, book_id: str, entries: tuple[CompiledEntry, ...], keys: _KeyTable
) -> CompiledBook:
    regex = set(keys.pattern_mids) | {d.mid for d in keys.dynamic}
    return CompiledBook(
        id=book_id,
        name=book.name,
        token_budget=DEFAULT_TOKEN_BUDGET if book.token_budget is None else book.token_budget,
        recursive=bool(book.recursive_scanning),
        depth=max((entry.scan_depth for entry in entries), default=0),
        entries=entries,
        always=tuple(i for i, entry in enumerate(entries) if entry.constant),
        index_of={entry.id: i for i, entry in enumerate(entries)},
        by_primary=_index(entries, "primary"),
        by_secondary=_index(entries, "secondary"),
        folded=_automaton(keys.literals[True]),
        exact=_automaton(keys.literals[False]),
        regexes=new_regex_set(keys.patterns) if keys.patterns else None,
        regex_mids=tuple(keys.pattern_mids),
        regex_depths=tuple(sorted({e.scan_depth for e in entries if e.scan_depth > 0 and regex & _mids(e)})),
        dynamic=tuple(keys.dynamic),
        issues=tuple(keys.issues),
        timed=tuple(i for i, e in enumerate(entries) if e.sticky or e.cooldown),
        delayed=tuple(i for i, e in enumerate(entries) if e.delay_level),
        delay_levels=tuple(sorted({e.delay_level for e in entries if e.delay_level})),
        cost=len(entries) + sum(len(_mids(e)) for e in entries),
    )
