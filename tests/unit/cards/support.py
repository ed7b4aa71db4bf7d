"""Builders shared by the card codec tests: fixture paths, PNG chunks, CHARX archives."""

from __future__ import annotations

import base64
import io
import json
import struct
import zipfile
import zlib
from typing import Any

from tests.corpus import corpus_file, corpus_params
from tests.fixtures.cards import OWN_FILES, own_file

__all__ = [
    "WORLD_INFO_FILES",
    "b64json",
    "card_png",
    "charx",
    "chunk",
    "fixture",
    "fixture_json",
    "minimal_png",
    "png_with_chunks",
    "text_chunk",
]

SIGNATURE = b"\x89PNG\r\n\x1a\n"

WORLD_INFO_FILES = [
    *(n for n in OWN_FILES if n.endswith("_world.json")),
    *corpus_params("*.json"),
]
"""World Info files to test on: the project's own, then the third-party corpus (when present)."""


def fixture(name: str) -> bytes:
    """One of the project's own files (``own_*``), or a corpus file (skips the test without it)."""
    return own_file(name) if name in OWN_FILES else corpus_file(name)


def fixture_json(name: str) -> Any:
    return json.loads(fixture(name))


def chunk(ctype: bytes, body: bytes) -> bytes:
    crc = zlib.crc32(ctype + body)
    return struct.pack(">I", len(body)) + ctype + body + struct.pack(">I", crc)


def text_chunk(keyword: str, payload: bytes, kind: bytes = b"tEXt") -> bytes:
    key = keyword.encode("latin-1") + b"\0"
    if kind == b"tEXt":
        return chunk(kind, key + payload)
    if kind == b"zTXt":
        return chunk(kind, key + b"\0" + zlib.compress(payload))
    return chunk(kind, key + b"\1\0" + b"en\0" + b"\0" + zlib.compress(payload))


def png_with_chunks(*extra: bytes) -> bytes:
    ihdr = chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
    idat = chunk(b"IDAT", zlib.compress(b"\0\0"))
    return SIGNATURE + ihdr + idat + b"".join(extra) + chunk(b"IEND", b"")


def minimal_png() -> bytes:
    return png_with_chunks()


def b64json(value: Any) -> bytes:
    return base64.b64encode(json.dumps(value).encode("utf-8"))


def card_png(**chunks: Any) -> bytes:
    """A PNG whose text chunks hold the given cards as base64 JSON, keyed by chunk keyword."""
    return png_with_chunks(*(text_chunk(k, b64json(v)) for k, v in chunks.items()))


def charx(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()
