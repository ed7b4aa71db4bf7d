"""PNG container: find and embed the text chunks that carry a character card.

A card PNG is an ordinary image whose ``tEXt`` chunks (sometimes ``zTXt``/``iTXt``) hold the
card as base64 JSON under the keyword ``chara`` (V2, V1) and/or ``ccv3`` (V3). Every chunk is
checked (length, CRC, IHDR first, IEND present) so a truncated or corrupted upload is refused
instead of half-read. Compressed text is inflated with a size cap (no zlib bombs).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator, Mapping

from adapters.cards.limits import CardLimits, invalid

__all__ = ["CARD_KEYWORDS", "PNG_SIGNATURE", "embed_text_chunks", "read_card_chunks"]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
CARD_KEYWORDS = ("ccv3", "chara")
"""Keywords of card chunks, in order of preference (CCv3: prefer ``ccv3`` over ``chara``)."""

_TEXT_TYPES = (b"tEXt", b"zTXt", b"iTXt")
_MAX_CHUNK = 2**31 - 1


def read_card_chunks(data: bytes, limits: CardLimits) -> dict[str, bytes]:
    """Read the card text chunks of a PNG.

    Args:
        data: The whole PNG file.
        limits: ``max_bytes`` caps inflated text.

    Returns:
        ``{keyword: text bytes}`` for the ``chara``/``ccv3`` chunks present (keyword
        lower-cased, compressed text inflated; the first chunk of each keyword wins). Empty
        when the PNG carries no card.

    Raises:
        InvalidInput: ``invalid_png`` (bad signature, truncated, bad CRC, malformed text
            chunk) or ``file_too_large`` (inflated text over the limit).
    """
    found: dict[str, bytes] = {}
    for ctype, body in _iter_chunks(data):
        if ctype not in _TEXT_TYPES:
            continue
        name = _keyword(body)
        if name in CARD_KEYWORDS and name not in found:
            found[name] = _chunk_text(ctype, bytes(body[len(name) + 1 :]), name, limits)
    return found


def embed_text_chunks(png: bytes, texts: Mapping[str, str]) -> bytes:
    """Return the PNG with its card chunks replaced by new ``tEXt`` chunks.

    Existing ``chara``/``ccv3`` text chunks (of any text type) are removed; the new chunks go
    just before ``IEND``, as SillyTavern writes them.

    Args:
        png: A valid PNG file.
        texts: ``{keyword: ascii text}``, e.g. ``{"chara": base64, "ccv3": base64}``.

    Returns:
        The new PNG bytes.

    Raises:
        InvalidInput: ``invalid_png`` when ``png`` is not a valid PNG.
    """
    out = [PNG_SIGNATURE]
    for ctype, body in _iter_chunks(png):
        if ctype == b"IEND":
            out.extend(
                _chunk(b"tEXt", k.encode("latin-1") + b"\0" + v.encode("ascii")) for k, v in texts.items()
            )
        elif ctype in _TEXT_TYPES and _keyword(body) in CARD_KEYWORDS:
            continue
        out.append(_chunk(ctype, bytes(body)))
    return b"".join(out)


def _iter_chunks(data: bytes) -> Iterator[tuple[bytes, memoryview]]:
    """Yield ``(type, body)`` of every chunk up to IEND, validating the whole structure."""
    if not data.startswith(PNG_SIGNATURE):
        raise invalid("invalid_png", "The file is not a PNG image (bad signature).")
    view = memoryview(data)
    pos = len(PNG_SIGNATURE)
    first = True
    while True:
        if pos + 12 > len(data):
            raise invalid("invalid_png", "The PNG is truncated: it ends before its IEND chunk.")
        length, ctype = struct.unpack_from(">I4s", data, pos)
        _check_chunk_header(ctype, length, first, pos + 12 + length, len(data))
        body = view[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack_from(">I", data, pos + 8 + length)
        if zlib.crc32(body, zlib.crc32(ctype)) != crc:
            raise invalid("invalid_png", f"The PNG chunk {ctype.decode()} has a bad CRC.")
        yield ctype, body
        if ctype == b"IEND":
            return
        pos += 12 + length
        first = False


def _check_chunk_header(ctype: bytes, length: int, first: bool, end: int, size: int) -> None:
    if not ctype.isalpha() or not ctype.isascii():
        raise invalid("invalid_png", f"The PNG has a malformed chunk type {ctype!r}.")
    if first and ctype != b"IHDR":
        raise invalid("invalid_png", "The PNG does not start with an IHDR chunk.")
    if length > _MAX_CHUNK or end > size:
        raise invalid("invalid_png", f"The PNG is truncated inside its {ctype.decode()} chunk.")


def _keyword(body: memoryview) -> str:
    """Lower-cased keyword of a text chunk ('' when the chunk has no keyword separator)."""
    keyword, sep, _ = bytes(body[:80]).partition(b"\0")
    return keyword.decode("latin-1").lower() if sep else ""


def _chunk(ctype: bytes, body: bytes) -> bytes:
    crc = zlib.crc32(body, zlib.crc32(ctype))
    return struct.pack(">I4s", len(body), ctype) + body + struct.pack(">I", crc)


def _chunk_text(ctype: bytes, payload: bytes, name: str, limits: CardLimits) -> bytes:
    """Text bytes of a tEXt/zTXt/iTXt chunk (after its keyword), inflated when compressed."""
    where = f"the PNG {ctype.decode()} chunk '{name}'"
    if ctype == b"tEXt":
        return payload
    if ctype == b"zTXt":
        if payload[:1] != b"\0":
            raise invalid("invalid_png", f"{where} uses an unknown compression method.")
        return _inflate(payload[1:], where, limits)
    compressed, method = payload[:1], payload[1:2]
    parts = payload[2:].split(b"\0", 2)
    if len(parts) != 3 or compressed not in (b"\0", b"\1") or method != b"\0":
        raise invalid("invalid_png", f"{where} is malformed.")
    return _inflate(parts[2], where, limits) if compressed == b"\1" else parts[2]


def _inflate(data: bytes, where: str, limits: CardLimits) -> bytes:
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(data, limits.max_bytes + 1)
    except zlib.error:
        raise invalid("invalid_png", f"{where} is not valid zlib data.") from None
    if len(out) > limits.max_bytes or inflater.unconsumed_tail:
        raise invalid("file_too_large", f"{where} inflates past {limits.max_bytes} bytes.")
    if not inflater.eof:
        raise invalid("invalid_png", f"{where} holds a truncated zlib stream.")
    return out
