"""Regular-expression keys (LORE-5), run by RE2 so that no pattern can hang a scan.

A key written ``/pattern/flags`` (SillyTavern's convention, flags from ``gimsuy``) is a regular
expression; any other key is plain text. With CCv3 ``use_regex`` a bare key is a pattern too.
Flags: ``i`` ignore case, ``m`` multi-line, ``s`` dot matches newline; ``g``, ``u`` and ``y``
are accepted and ignored (RE2 is Unicode-aware and reports any match). RE2 runs in time linear
in the text, so ``/(a+)+$/`` is harmless; patterns RE2 does not support (look-around,
back-references) are left out of their entry and named in the import report (LORE-21), and
``validate_book`` refuses them in the editor. Regex keys see SillyTavern's scan buffer (LORE-18):
the NFC messages of the entry's scan depth, newest first, each starting with ``\x01`` and joined
by ``\n`` (``"\x01newest\n\x01older"``), whitespace and case untouched; recursion content is
matched as ``"\x01" + content``. They ignore the whole-word and case settings.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final

import re2

from engine.errors import InvalidInput

if TYPE_CHECKING:
    from collections.abc import Sequence

    from engine.lorebook.model import LoreBook, LoreEntry

__all__ = [
    "MAX_BOOK_KEYS",
    "MAX_BOOK_PROGRAM",
    "MAX_DELAY_LEVELS",
    "MAX_KEY_LENGTH",
    "MAX_KEY_PROGRAM",
    "MAX_REGEX_KEYS",
    "MAX_WHOLE_NUMBER",
    "REGEX_MAX_MEM",
    "check_book_complexity",
    "compiled_pattern",
    "delay_level",
    "new_regex_set",
    "parse_regex_key",
    "pattern_problem",
    "program_size",
    "split_key_string",
    "to_re2",
]

REGEX_MAX_MEM: Final = 64 << 20
# Complexity limits of one book: beyond them RE2's set fails to compile or
# a compile costs seconds and hundreds of MB. ``lorebook_too_complex`` names the entry.
MAX_BOOK_KEYS: Final = 100_000
"""Most keys (primary, secondary, ``@@additional_keys`` and ``@@exclude_keys``; plain and regex)
in one book."""
MAX_KEY_LENGTH: Final = 1_000
"""Longest key, plain or regex (characters, trimmed). pyahocorasick crashes the process on a plain
key of about half a million characters; real keys are names, short phrases and short patterns."""
MAX_DELAY_LEVELS: Final = 100
"""Most distinct ``delay_until_recursion`` levels in one book. Each level costs at least one more
recursion pass per turn; books written for SillyTavern use a handful (its editor offers a number
per entry, and ordering entries needs only as many levels as there are stages of lore)."""
MAX_WHOLE_NUMBER: Final = 2**53 - 1
"""Largest magnitude of an entry's whole-number fields (``order``, ``priority``, levels, timers):
the integers JavaScript, and so SillyTavern, holds exactly; the store holds 64 bits."""
MAX_REGEX_KEYS: Final = 500
"""Most regular-expression keys in one book."""
MAX_KEY_PROGRAM: Final = 20_000
"""Largest compiled RE2 program of one regex key (instructions; ``/dragon/i`` is about 20)."""
MAX_BOOK_PROGRAM: Final = 250_000
"""Largest sum of the RE2 program sizes of one book's regex keys."""
_SHAPE: Final = re.compile(r"^/([\s\S]+?)/([gimsuy]*)$")


def parse_regex_key(key: str) -> tuple[str, str] | None:
    """Split a ``/pattern/flags`` key.

    Args:
        key: A key as written, already trimmed.

    Returns:
        ``(pattern, flags)``, or ``None`` when the key is plain text.
    """
    found = _SHAPE.match(key)
    return (found.group(1), found.group(2)) if found else None


def split_key_string(raw: str) -> tuple[str, ...]:
    """Split a legacy comma-separated key string; a ``/regex/flags`` key may contain commas (LORE-20).

    A key that starts with ``/`` runs to its closing unescaped ``/`` (plus flags) whatever commas
    it holds, so ``"/foo,bar/i, baz"`` is the two keys ``/foo,bar/i`` and ``baz``.

    Args:
        raw: Keys as one string, e.g. from an old World Info file or the editor's text box.

    Returns:
        The trimmed, non-empty keys in order.
    """
    keys: list[str] = []
    buf: list[str] = []
    in_regex = escaped = False
    for char in raw:
        if in_regex:
            buf.append(char)
            in_regex = escaped or char != "/"
            escaped = not escaped and char == "\\"
        elif char == ",":
            keys.append("".join(buf).strip())
            buf = []
        else:
            if char == "/" and not "".join(buf).strip():
                in_regex = True
            buf.append(char)
    keys.append("".join(buf).strip())
    return tuple(k for k in keys if k)


def to_re2(pattern: str, flags: str) -> str:
    """Turn a pattern and its JavaScript-style flags into one RE2 pattern with inline flags.

    Args:
        pattern: The pattern body.
        flags: Flags from ``gimsuy``.

    Returns:
        The RE2 pattern, e.g. ``(?is)dragon.*``.
    """
    inline = "".join(flag for flag in "ims" if flag in flags)
    return f"(?{inline}){pattern}" if inline else pattern


def _options() -> re2.Options:
    options = re2.Options()
    options.log_errors = False
    options.max_mem = REGEX_MAX_MEM
    return options


def program_size(pattern: str) -> int | None:
    """RE2's program size for a pattern, or ``None`` when RE2 cannot run it."""
    try:
        return int(re2.compile(pattern, _options()).programsize)
    except re2.error:
        return None


def pattern_problem(pattern: str) -> str | None:
    """Why RE2 cannot run a pattern, or ``None`` when it can.

    Args:
        pattern: The RE2 pattern (with inline flags).

    Returns:
        RE2's error message, or ``None``.
    """
    try:
        re2.compile(pattern, _options())
    except re2.error as exc:
        return exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
    return None


@lru_cache(maxsize=1024)
def compiled_pattern(pattern: str) -> Any | None:
    """A compiled RE2 pattern (cached), or ``None`` when RE2 cannot run it (macro keys, LORE-17)."""
    if pattern_problem(pattern) is not None:
        return None
    return re2.compile(pattern, _options())


def _too_complex(where: str, why: str) -> InvalidInput:
    return InvalidInput(f"{where}: the book is too complex to scan: {why}", code="lorebook_too_complex")


def delay_level(entry: LoreEntry) -> int:
    """The entry's ``delay_until_recursion`` level: 0 (off), ``True`` is 1, else the number."""
    level = entry.delay_until_recursion
    return (1 if level else 0) if isinstance(level, bool) else max(level, 0)


def check_book_complexity(book: LoreBook, decorator_keys: Sequence[tuple[str, ...]] = ()) -> None:
    """Refuse books whose keys would take too long or too much memory to compile (cheap checks first).

    Args:
        book: The book (disabled entries count too: they are compiled to be validated).
        decorator_keys: Per entry (in book order), the keys its ``@@additional_keys`` and
            ``@@exclude_keys`` decorators add; they count like the entry's own keys.

    Raises:
        InvalidInput: ``key_too_long`` or ``lorebook_too_complex`` naming the first entry past a
            limit. A pattern RE2 cannot run is not counted here: it is left out of its entry and
            reported (LORE-21).
    """
    keys = regexes = program = 0
    levels: set[int] = set()
    for position, entry in enumerate(book.entries):
        where = f"entry {entry.id!r} ({entry.comment!r}) of book {book.name!r}"
        level = delay_level(entry)
        if level not in levels:
            levels.add(level)
            if len(levels - {0}) > MAX_DELAY_LEVELS:
                raise _too_complex(where, f"more than {MAX_DELAY_LEVELS} delay_until_recursion levels")
        extra = decorator_keys[position] if position < len(decorator_keys) else ()
        for raw in (*entry.keys, *entry.secondary_keys, *extra):
            key = raw.strip()
            keys += 1
            if keys > MAX_BOOK_KEYS:
                raise _too_complex(where, f"more than {MAX_BOOK_KEYS:,} keys")
            if len(key) > MAX_KEY_LENGTH:
                raise InvalidInput(
                    f"{where}: a key of {len(key):,} characters is longer than {MAX_KEY_LENGTH:,} "
                    f"(it starts {key[:40]!r})",
                    code="key_too_long",
                )
            regex = parse_regex_key(key)
            if regex is None and entry.use_regex and key:
                regex = (key, "" if entry.case_sensitive else "i")
            if regex is None:
                continue
            regexes += 1
            if regexes > MAX_REGEX_KEYS:
                raise _too_complex(where, f"more than {MAX_REGEX_KEYS} regex keys")
            size = program_size(to_re2(*regex))
            if size is None:
                continue
            if size > MAX_KEY_PROGRAM:
                why = f"regex key '{key}' compiles to {size:,} RE2 instructions (limit {MAX_KEY_PROGRAM:,})"
                raise _too_complex(where, why)
            program += size
            if program > MAX_BOOK_PROGRAM:
                raise _too_complex(
                    where, f"its regex keys compile to more than {MAX_BOOK_PROGRAM:,} RE2 instructions"
                )


def new_regex_set(patterns: list[str]) -> re2.Set:
    """Compile patterns into one RE2 multi-pattern set (one pass per text for all of them).

    Args:
        patterns: RE2 patterns, each already checked with :func:`check_pattern`.

    Returns:
        A compiled unanchored set; ``Match(text)`` lists the indexes that match.
    """
    regex_set = re2.Set.SearchSet(_options())
    for pattern in patterns:
        regex_set.Add(pattern)
    try:
        regex_set.Compile()
    except re2.error:
        raise _too_complex("the book", "its regex keys do not fit in one RE2 set") from None
    return regex_set
