"""Open an upload: sniff its container (PNG, CHARX zip or JSON) and return the JSON inside.

The container is chosen by magic bytes, never by file name; a declared ``Content-Type`` that
names PNG or zip must agree with the bytes. A PNG card chunk holds base64 JSON; which card
version it is comes from the JSON's ``spec`` field, never from the chunk's keyword.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from adapters.cards.charx import ZIP_MAGIC, read_card_json
from adapters.cards.jsondoc import parse_json
from adapters.cards.limits import CardLimits, invalid
from adapters.cards.png import CARD_KEYWORDS, PNG_SIGNATURE, read_card_chunks
from engine.errors import InvalidInput

__all__ = ["open_document", "sniff"]

_PNG_TYPES = ("image/png", "image/apng")
_ZIP_TYPES = ("application/zip", "application/x-zip-compressed", "application/charx")


def sniff(data: bytes, content_type: str | None) -> str:
    """Name the container of an upload.

    Args:
        data: The upload.
        content_type: The declared media type, if any (parameters are ignored).

    Returns:
        ``"png"``, ``"charx"`` or ``"json"``.

    Raises:
        InvalidInput: ``invalid_png`` / ``invalid_charx`` when the declared type says PNG or
            zip and the bytes do not.
    """
    declared = (content_type or "").split(";")[0].strip().lower()
    if data.startswith(PNG_SIGNATURE):
        return "png"
    if data.startswith(ZIP_MAGIC):
        return "charx"
    if declared in _PNG_TYPES:
        raise invalid("invalid_png", "The file is declared as a PNG but is not a PNG image.")
    if declared in _ZIP_TYPES:
        raise invalid("invalid_charx", "The file is declared as a zip but is not a zip archive.")
    return "json"


def open_document(data: bytes, content_type: str | None, limits: CardLimits) -> Any:
    """Return the decoded JSON document carried by an upload.

    Args:
        data: The upload (JSON, PNG with a card chunk, or CHARX).
        content_type: The declared media type, if any.
        limits: Size, depth and archive limits.

    Returns:
        The decoded JSON value (a card, a card lorebook or a World Info file).

    Raises:
        InvalidInput: ``file_too_large``, ``invalid_png``, ``png_without_card``,
            ``invalid_card``, ``invalid_charx``, ``json_too_large``, ``json_too_deep`` or
            ``invalid_json``.
    """
    if len(data) > limits.max_bytes:
        raise invalid(
            "file_too_large",
            f"The upload is {len(data)} bytes; the limit is {limits.max_bytes} bytes.",
        )
    kind = sniff(data, content_type)
    if kind == "png":
        return _png_document(data, limits)
    if kind == "charx":
        return parse_json(read_card_json(data, limits), what="CHARX card.json", limits=limits)
    return parse_json(data, what="JSON file", limits=limits)


def _png_document(data: bytes, limits: CardLimits) -> Any:
    chunks = read_card_chunks(data, limits)
    keyword = next((k for k in CARD_KEYWORDS if k in chunks), None)
    if keyword is None:
        raise invalid("png_without_card", "The PNG image carries no character card.")
    raw = _chunk_payload(chunks[keyword], keyword)
    doc = parse_json(raw, what=f"card in the PNG '{keyword}' chunk", limits=limits)
    if keyword == "ccv3" and "chara" in chunks:
        try:
            v2 = parse_json(_chunk_payload(chunks["chara"], "chara"), what="chara chunk", limits=limits)
        except InvalidInput:
            return doc  # the V3 card is complete on its own; a broken backfill adds nothing
        _fill_from_v2(doc, v2)
    return doc


def _fill_from_v2(doc: Any, v2: Any) -> None:
    """Keep what only the ``chara`` (V2) chunk carries: ``data`` fields and ``data.extensions``
    keys the ``ccv3`` chunk lacks (LORE-20). The V3 values win wherever both have one."""
    data, old = (d.get("data") if isinstance(d, dict) else None for d in (doc, v2))
    if not isinstance(data, dict) or not isinstance(old, dict):
        return
    for key, value in old.items():
        if key not in data:
            data[key] = value
    ext, old_ext = data.get("extensions"), old.get("extensions")
    if isinstance(ext, dict) and isinstance(old_ext, dict):
        for key, value in old_ext.items():
            ext.setdefault(key, value)


def _chunk_payload(text: bytes, keyword: str) -> bytes:
    """Base64-decode a card chunk; a few writers store raw JSON, which is accepted as is."""
    stripped = text.strip()
    if stripped.startswith(b"{"):
        return stripped
    try:
        return base64.b64decode(b"".join(stripped.split()), validate=True)
    except (binascii.Error, ValueError):
        raise invalid("invalid_card", f"The PNG '{keyword}' chunk is not valid base64.") from None
