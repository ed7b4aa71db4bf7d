"""The four public operations: decode/encode a lorebook, decode/encode a character card.

Decoding is all-or-nothing: it returns a complete ``LoreBook``/``CardPersona`` or raises
``InvalidInput`` with a ``code`` naming the problem; nothing partial is ever returned.
"""

from __future__ import annotations

import base64
from typing import Any, Literal

from adapters.cards.card import (
    CARD_SPECS,
    CardPersona,
    decode_card_document,
    encode_card_v2,
    encode_card_v3,
    is_v1_card,
)
from adapters.cards.cardbook import decode_card_book, encode_card_book
from adapters.cards.container import open_document
from adapters.cards.jsondoc import encode_json, require_object
from adapters.cards.limits import DEFAULT_LIMITS, CardLimits, invalid
from adapters.cards.png import embed_text_chunks
from adapters.cards.worldinfo import decode_world_info, encode_world_info
from engine.lorebook.model import LoreBook

__all__ = ["LorebookFormat", "decode_card", "decode_lorebook", "encode_card", "encode_lorebook"]

LorebookFormat = Literal["sillytavern", "ccv3"]
_CARD_ENTRY_NAMES = frozenset({"keys", "insertion_order", "enabled", "secondary_keys"})
_ST_ENTRY_NAMES = frozenset({"key", "uid", "disable", "order", "keysecondary"})


def decode_lorebook(
    data: bytes, content_type: str | None = None, *, limits: CardLimits = DEFAULT_LIMITS
) -> LoreBook:
    """Decode an uploaded lorebook: World Info JSON, a card lorebook, or a card's embedded book.

    Args:
        data: The upload: SillyTavern World Info JSON, ``lorebook_v3`` JSON, a bare card
            ``character_book``, or a CCv2/CCv3 card as JSON, PNG or CHARX.
        content_type: Declared media type, if any; the bytes decide the container.
        limits: Size, depth and count limits.

    Returns:
        The complete book (``id`` empty: the service assigns it).

    Raises:
        InvalidInput: ``file_too_large``, ``invalid_json``, ``json_too_large``, ``json_too_deep``,
            ``invalid_png``, ``png_without_card``, ``invalid_charx``, ``invalid_card``,
            ``unsupported_spec``, ``card_without_lorebook``, ``invalid_lorebook``,
            ``too_many_entries`` or ``invalid_field`` (the message names the field path).
    """
    doc = open_document(data, content_type, limits)
    if not isinstance(doc, dict):
        raise invalid("invalid_lorebook", "A lorebook file must be a JSON object.")
    spec = doc.get("spec")
    if spec in CARD_SPECS or (spec is None and is_v1_card(doc)):
        book = decode_card_document(doc, limits).book
        if book is None:
            raise invalid("card_without_lorebook", "This character card has no lorebook.")
        return book
    if spec == "lorebook_v3":
        return decode_card_book(require_object(doc.get("data"), "data"), limits, "data")
    if spec is not None:
        raise invalid("unsupported_spec", f"Unsupported lorebook spec {spec!r}.")
    if "entries" not in doc:
        raise invalid("invalid_lorebook", "The JSON is not a lorebook: it has no `entries`.")
    if _is_card_book(doc["entries"]):
        return decode_card_book(doc, limits, "")
    return decode_world_info(doc, limits)


def _is_card_book(entries: Any) -> bool:
    """Tell a card book: an ``entries`` array with card names and no World Info names."""
    if not isinstance(entries, list):
        return False
    names = {k for e in entries if isinstance(e, dict) for k in e}
    return bool(names & _CARD_ENTRY_NAMES) and not names & _ST_ENTRY_NAMES


def decode_card(
    data: bytes, content_type: str | None = None, *, limits: CardLimits = DEFAULT_LIMITS
) -> CardPersona:
    """Decode an uploaded character card (V1/V2/V3; JSON, PNG or CHARX) into a persona.

    Args:
        data: The upload.
        content_type: Declared media type, if any; the bytes decide the container.
        limits: Size, depth and count limits.

    Returns:
        The persona, with its embedded lorebook in ``book`` when the card has one.

    Raises:
        InvalidInput: ``file_too_large``, ``invalid_json``, ``json_too_large``, ``json_too_deep``,
            ``invalid_png``, ``png_without_card``, ``invalid_charx``, ``invalid_card``,
            ``unsupported_spec``, ``too_many_entries`` or ``invalid_field``.
    """
    doc = open_document(data, content_type, limits)
    if not isinstance(doc, dict):
        raise invalid("invalid_card", "A character card must be a JSON object.")
    if doc.get("spec") is None and "entries" in doc:
        raise invalid("invalid_card", "This is a lorebook, not a character card.")
    return decode_card_document(doc, limits)


def encode_lorebook(book: LoreBook, fmt: LorebookFormat = "sillytavern") -> bytes:
    """Export a lorebook as JSON bytes.

    Args:
        book: The book.
        fmt: ``"sillytavern"`` (World Info file) or ``"ccv3"``
            (``{"spec": "lorebook_v3", "data": character_book}``).

    Returns:
        UTF-8 JSON.

    Raises:
        InvalidInput: ``invalid_format`` for an unknown ``fmt``.
    """
    if fmt == "sillytavern":
        return encode_json(encode_world_info(book))
    if fmt == "ccv3":
        return encode_json({"spec": "lorebook_v3", "data": encode_card_book(book)})
    raise invalid("invalid_format", f"Unknown lorebook format {fmt!r}; use sillytavern or ccv3.")


def encode_card(persona: CardPersona, *, png: bytes | None = None) -> bytes:
    """Export a persona as a Character Card V3.

    Args:
        persona: The card persona (its ``book`` becomes ``character_book``).
        png: An image to embed the card into; without it the card is returned as JSON.

    Returns:
        CCv3 JSON bytes, or the PNG with a ``ccv3`` chunk (V3) and a ``chara`` chunk (V2
        backfill with V1 mirrors) replacing any card chunks it had.

    Raises:
        InvalidInput: ``invalid_png`` when ``png`` is not a valid PNG.
    """
    if png is None:
        return encode_json(encode_card_v3(persona))
    return embed_text_chunks(
        png,
        {
            "chara": _base64_json(encode_card_v2(persona)),
            "ccv3": _base64_json(encode_card_v3(persona)),
        },
    )


def _base64_json(value: dict[str, Any]) -> str:
    return base64.b64encode(encode_json(value)).decode("ascii")
