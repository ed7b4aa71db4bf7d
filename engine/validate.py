"""Checks of untrusted input that every adapter shares (PLT-6).

Ids arrive bare (``room1`` → ``web:room1``) or platform-qualified (``tg:-1001234``,
``tg:-1001234/topic/7``). They may not contain braces, because chat ids become Redis Cluster
hash tags (``{chat}``), nor whitespace or control characters.
"""

from __future__ import annotations

import re
import unicodedata

import msgspec

from engine.errors import InvalidInput

__all__ = ["TextLimits", "check_text", "qualify_id"]

_ID = re.compile(r"[A-Za-z0-9_.:@/+=-]{1,128}")
_PREFIXES = {"web": "web", "tg": "tg"}


class TextLimits(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Length limits of a chat message (API.md: 1 to 16,000 characters, configurable)."""

    min_chars: int = 1
    max_chars: int = 16_000


def check_text(text: str, limits: TextLimits) -> str:
    """Validate a message text and return it NFC-normalized.

    Args:
        text: the text as received.
        limits: the configured limits.

    Returns:
        The text, Unicode NFC.

    Raises:
        InvalidInput: ``text_empty`` (nothing but whitespace), ``text_too_long``, or
            ``text_invalid`` (NUL or unpaired surrogate characters).
    """
    if not text.strip():
        raise InvalidInput("The message is empty.", code="text_empty")
    if len(text) > limits.max_chars:
        raise InvalidInput(
            f"The message is {len(text):,} characters long; the limit is {limits.max_chars:,}.",
            code="text_too_long",
        )
    if "\x00" in text or any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        raise InvalidInput(
            "The message contains characters that are not valid text (NUL or a lone surrogate).",
            code="text_invalid",
        )
    normalized = unicodedata.normalize("NFC", text)
    if len(normalized) < limits.min_chars:
        raise InvalidInput("The message is too short.", code="text_empty")
    return normalized


def qualify_id(raw: str, *, what: str = "id") -> str:
    """Turn a bare web id into a platform-qualified one, and check it.

    Args:
        raw: ``room1``, ``web:room1``, ``tg:-1001234/topic/7``...
        what: the kind of id, used in the error (``chat``, ``user``...).

    Returns:
        The qualified id (``web:room1``).

    Raises:
        InvalidInput: ``invalid_<what>_id`` when the id has forbidden characters, is too long,
            or names an unknown platform.
    """
    code = f"invalid_{what}_id"
    if not _ID.fullmatch(raw):
        raise InvalidInput(
            f"The {what} id {raw[:40]!r} is not valid: use 1-128 letters, digits and _ . : @ / + = -.",
            code=code,
        )
    prefix, sep, rest = raw.partition(":")
    if not sep:
        return f"web:{raw}"
    if prefix not in _PREFIXES or not rest:
        raise InvalidInput(
            f"The {what} id {raw[:40]!r} names an unknown platform {prefix!r} (use web: or tg:).",
            code=code,
        )
    return raw
