"""Pictures in chat messages: what is accepted, how big they are, which ones a prompt carries.

A message may carry up to ``MAX_IMAGES`` pictures (PNG, JPEG, GIF or WebP, each at most
``MAX_IMAGE_BYTES`` decoded). The type is read from the data's first bytes, never taken on the
sender's word; the size in pixels is read from the header by ``dimensions`` (a small parser
that never raises, no image library). A stored message keeps an ``ImageRef`` per picture (its
id, type and size); the bytes live beside the log under their own keys.

A prompt carries the pictures of the newest ``RECENT_IMAGE_MESSAGES`` user messages that have
pictures; older ones, pictures whose bytes expired or were dropped (a chat keeps at most
``MAX_CHAT_IMAGES``), and every picture sent to a model that cannot see, appear as a short
placeholder (``[image: photo, 800×600]``), so the cost of a prompt stays bounded (when a
fourth message with pictures arrives, the oldest one's pictures become placeholders: the cached
prompt from that message on is written once more, then read again). A picture
costs about width × height / 750 tokens after the provider scales it to at most
``MAX_SIDE`` pixels on its long side (Anthropic's rule).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import msgspec

from engine.errors import InvalidInput

__all__ = [
    "MAX_CHAT_IMAGES",
    "MAX_IMAGES",
    "MAX_IMAGE_BYTES",
    "MAX_SIDE",
    "MEDIA_TYPES",
    "RECENT_IMAGE_MESSAGES",
    "Image",
    "ImageRef",
    "check_images",
    "dimensions",
    "image_tokens",
    "placeholder",
    "sniff",
]

MAX_IMAGES = 4
"""Pictures one message may carry."""
MAX_IMAGE_BYTES = 5 * 1024 * 1024
"""The largest picture accepted, decoded (5 MB: Anthropic's own limit per image)."""
MAX_CHAT_IMAGES = 30
"""Pictures a chat keeps; storing one more drops the oldest (it stays a placeholder)."""
RECENT_IMAGE_MESSAGES = 3
"""The newest user messages with pictures whose pictures a prompt carries; older ones are placeholders."""
MAX_SIDE = 1568
"""The provider scales a picture down to this long side before counting it."""
_MAX_PIXELS = 1_150_000  # and to about 1.15 megapixels (≈1,600 tokens)
_UNKNOWN_TOKENS = 1600  # a picture whose size could not be read counts as the largest

MEDIA_TYPES: tuple[str, ...] = ("image/png", "image/jpeg", "image/gif", "image/webp")
_NAMES = {"image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF", "image/webp": "WebP"}


class Image(msgspec.Struct, frozen=True, kw_only=True):
    """A picture as a prompt sends it: its type, its bytes and (when known) its size in pixels."""

    media_type: str
    data: bytes
    width: int = 0
    height: int = 0


class ImageRef(msgspec.Struct, frozen=True, kw_only=True):
    """A picture as a stored message names it; the bytes are kept under ``id`` beside the log."""

    id: str
    media_type: str
    width: int = 0
    height: int = 0
    size: int = 0


def sniff(data: bytes) -> str | None:
    """The media type the data's first bytes say (PNG, JPEG, GIF, WebP), or None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _u16(data: bytes, at: int, *, big: bool) -> int:
    return int.from_bytes(data[at : at + 2], "big" if big else "little")


def _u24(data: bytes, at: int) -> int:
    return int.from_bytes(data[at : at + 3], "little")


def _png(data: bytes) -> tuple[int, int] | None:
    if len(data) < 24 or data[12:16] != b"IHDR":
        return None
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def _gif(data: bytes) -> tuple[int, int] | None:
    if len(data) < 10:
        return None
    return _u16(data, 6, big=False), _u16(data, 8, big=False)


# JPEG markers that start a frame and carry its size (SOF0..SOF15 but DHT, JPG and DAC)
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def _jpeg(data: bytes) -> tuple[int, int] | None:
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # no length
            at += 2
            continue
        length = _u16(data, at + 2, big=True)
        if length < 2:
            return None
        if marker in _SOF:
            if at + 9 > len(data):
                return None
            return _u16(data, at + 7, big=True), _u16(data, at + 5, big=True)
        at += 2 + length
    return None


def _webp(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8 " and len(data) >= 30:
        return _u16(data, 26, big=False) & 0x3FFF, _u16(data, 28, big=False) & 0x3FFF
    if chunk == b"VP8L" and len(data) >= 25:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X" and len(data) >= 30:
        return _u24(data, 24) + 1, _u24(data, 27) + 1
    return None


_PARSERS = {"image/png": _png, "image/gif": _gif, "image/jpeg": _jpeg, "image/webp": _webp}


def dimensions(data: bytes) -> tuple[int, int] | None:
    """(width, height) read from a PNG, JPEG, GIF or WebP header; None when it cannot be read.

    Never raises, whatever the bytes.
    """
    kind = sniff(data)
    if kind is None:
        return None
    found = _PARSERS[kind](data)
    if found is None or found[0] <= 0 or found[1] <= 0:
        return None
    return found


def image_tokens(width: int, height: int) -> int:
    """The tokens a picture costs: width × height / 750 after the provider's scaling
    (long side at most ``MAX_SIDE``, about 1.15 megapixels); an unknown size counts as the largest."""
    if width <= 0 or height <= 0:
        return _UNKNOWN_TOKENS
    scale = min(1.0, MAX_SIDE / max(width, height))
    w, h = width * scale, height * scale
    if w * h > _MAX_PIXELS:
        shrink = math.sqrt(_MAX_PIXELS / (w * h))
        w, h = w * shrink, h * shrink
    return max(1, math.ceil(w * h / 750))


def placeholder(ref: ImageRef | Image) -> str:
    """The text a picture leaves in a prompt that does not carry it."""
    kind = "animation" if ref.media_type == "image/gif" else "photo"
    if ref.width and ref.height:
        return f"[image: {kind}, {ref.width}×{ref.height}]"
    return f"[image: {kind}]"


def check_images(
    images: Sequence[tuple[str | None, bytes]], *, limit: int = MAX_IMAGES, max_bytes: int = MAX_IMAGE_BYTES
) -> tuple[Image, ...]:
    """Check a message's pictures: (declared media type or None, decoded bytes) each.

    Returns:
        The pictures with the type their bytes say and their size in pixels.

    Raises:
        InvalidInput: ``too_many_images`` (more than ``limit``), ``image_too_large`` (more than
            ``max_bytes``), ``image_type`` (not a PNG, JPEG, GIF or WebP, or not what was declared).
    """
    if len(images) > limit:
        raise InvalidInput(
            f"A message may carry at most {limit} images; this one has {len(images)}.",
            code="too_many_images",
        )
    checked: list[Image] = []
    for number, (declared, data) in enumerate(images, start=1):
        if len(data) > max_bytes:
            raise InvalidInput(
                f"Image {number} is {len(data) / 1_048_576:.1f} MB; the limit is "
                f"{max_bytes / 1_048_576:g} MB per image.",
                code="image_too_large",
            )
        kind = sniff(data)
        if kind is None:
            raise InvalidInput(f"Image {number} is not a PNG, JPEG, GIF or WebP picture.", code="image_type")
        if declared is not None and declared.lower() != kind:
            raise InvalidInput(
                f"Image {number} is declared {declared[:40]!r} but its data is a {_NAMES[kind]} picture.",
                code="image_type",
            )
        width, height = dimensions(data) or (0, 0)
        checked.append(Image(media_type=kind, data=data, width=width, height=height))
    return tuple(checked)
