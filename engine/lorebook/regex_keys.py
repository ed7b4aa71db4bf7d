"""Regular-expression keys (LORE-5), run by RE2 so that no pattern can hang a scan.

A key written ``/pattern/flags`` (SillyTavern's convention, flags from ``gimsuy``) is a regular
expression; any other key is plain text. With CCv3 ``use_regex`` a bare key is a pattern too.
Flags: ``i`` ignore case, ``m`` multi-line, ``s`` dot matches newline; ``g``, ``u`` and ``y``
are accepted and ignored (RE2 is Unicode-aware and reports any match). RE2 runs in time linear
in the text, so ``/(a+)+$/`` is harmless; patterns RE2 does not support (look-around,
back-references) are rejected when the book is validated. Regex keys see the NFC-normalized
message text (whitespace and case untouched) and ignore the whole-word and case settings.
"""

from __future__ import annotations

import re
from typing import Final

import re2

from engine.errors import InvalidInput

__all__ = ["REGEX_MAX_MEM", "check_pattern", "new_regex_set", "parse_regex_key", "to_re2"]

REGEX_MAX_MEM: Final = 64 << 20
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


def check_pattern(pattern: str, *, where: str, key: str) -> None:
    """Compile one RE2 pattern to prove it is valid.

    Args:
        pattern: The RE2 pattern (with inline flags).
        where: Human label of the entry (e.g. ``"entry 3 of book 'X'"``).
        key: The key as written, for the message.

    Raises:
        InvalidInput: ``invalid_regex_key`` when RE2 rejects the pattern.
    """
    try:
        re2.compile(pattern, _options())
    except re2.error as exc:
        detail = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else exc
        raise InvalidInput(
            f"{where}: regex key '{key}' is not supported: {detail}", code="invalid_regex_key"
        ) from None


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
    regex_set.Compile()
    return regex_set
