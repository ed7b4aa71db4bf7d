"""Size and shape limits for uploaded cards and lorebooks, and the one error helper.

Every limit exists because the input is untrusted: a 50 MB upload, a zip or zTXt bomb, JSON
nested ten thousand levels deep or a book with a million entries must be refused before it
costs memory or CPU, with an :class:`~engine.errors.InvalidInput` whose ``code`` names the
problem.
"""

from __future__ import annotations

import msgspec

from engine.errors import InvalidInput

__all__ = ["DEFAULT_LIMITS", "DEFAULT_MAX_BYTES", "CardLimits", "invalid"]

DEFAULT_MAX_BYTES = 20 * 1024 * 1024


class CardLimits(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Limits applied while decoding one upload.

    Attributes:
        max_bytes: Largest accepted upload, and largest JSON document after base64 decoding,
            zlib inflation or unzipping (``file_too_large``).
        max_depth: Deepest accepted JSON nesting of objects and arrays (``json_too_deep``).
        max_json_values: Most values (array items plus object members, counted by their
            separators) in one JSON document (``json_too_large``).
        max_entries: Most lorebook entries in one book (``too_many_entries``).
        max_zip_members: Most files in a CHARX archive (``invalid_charx``).
    """

    max_bytes: int = DEFAULT_MAX_BYTES
    max_depth: int = 64
    max_json_values: int = 2_000_000
    max_entries: int = 20_000
    max_zip_members: int = 10_000


DEFAULT_LIMITS = CardLimits()


def invalid(code: str, message: str) -> InvalidInput:
    """Build the error every codec raises for bad input.

    Args:
        code: Snake-case problem code (``invalid_png``, ``invalid_field``...).
        message: Human sentence naming the problem (and the field path, when there is one).

    Returns:
        The error, ready to ``raise``.
    """
    return InvalidInput(message, code=code)
