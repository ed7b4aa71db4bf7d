"""CHARX container: a zip with the CCv3 card at ``card.json`` plus optional assets.

``card.json`` is the card; of the assets only the main icon is ever read (``read_icon``, for a
persona's picture), in memory and capped; nothing is extracted to disk. The archive is still checked
as a whole so that a hostile upload is refused rather than half-trusted: member count, unsafe
member names (absolute paths, ``..``, backslashes, drive letters) and the inflated size of
``card.json`` (read with a cap, never trusting the size the zip header claims).
"""

from __future__ import annotations

import io
import json
import zipfile

from adapters.cards.limits import CardLimits, invalid
from engine.errors import InvalidInput

__all__ = ["ZIP_MAGIC", "read_card_json", "read_icon"]

ZIP_MAGIC = b"PK\x03\x04"
CARD_MEMBER = "card.json"


def read_card_json(data: bytes, limits: CardLimits) -> bytes:
    """Return the raw bytes of ``card.json`` from a CHARX archive.

    Args:
        data: The whole CHARX (zip) file.
        limits: ``max_bytes`` caps the inflated card; ``max_zip_members`` the file count.

    Returns:
        The undecoded ``card.json`` bytes.

    Raises:
        InvalidInput: ``invalid_charx`` (not a zip, encrypted, unsafe member name, no
            ``card.json``, corrupt data) or ``file_too_large``.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, EOFError):
        raise invalid("invalid_charx", "The CHARX file is not a valid zip archive.") from None
    with archive:
        members = archive.infolist()
        if len(members) > limits.max_zip_members:
            raise invalid(
                "invalid_charx",
                f"The CHARX holds {len(members)} files; the limit is {limits.max_zip_members}.",
            )
        for member in members:
            _check_name(member.filename)
        card = next((m for m in members if m.filename == CARD_MEMBER), None)
        if card is None:
            raise invalid("invalid_charx", "The CHARX has no card.json at its root.")
        return _read_capped(archive, card, limits)


def _check_name(name: str) -> None:
    parts = name.split("/")
    unsafe = (
        name.startswith("/")
        or "\\" in name
        or "\0" in name
        or ".." in parts
        or (len(name) > 1 and name[1] == ":")
    )
    if unsafe:
        raise invalid("invalid_charx", f"The CHARX contains an unsafe file path {name!r}.")


def _read_capped(archive: zipfile.ZipFile, card: zipfile.ZipInfo, limits: CardLimits) -> bytes:
    if card.flag_bits & 0x1:
        raise invalid("invalid_charx", "The CHARX card.json is encrypted.")
    if card.file_size > limits.max_bytes:
        raise invalid(
            "file_too_large",
            f"The CHARX card.json is {card.file_size} bytes; the limit is {limits.max_bytes}.",
        )
    try:
        with archive.open(card) as stream:
            raw = stream.read(limits.max_bytes + 1)
    except (zipfile.BadZipFile, NotImplementedError, OSError, EOFError, ValueError) as exc:
        raise invalid("invalid_charx", f"The CHARX card.json cannot be read: {exc}.") from None
    if len(raw) > limits.max_bytes:
        raise invalid("file_too_large", f"The CHARX card.json inflates past {limits.max_bytes} bytes.")
    return raw


_EMBEDDED = ("embeded://", "embedded://")  # CCv3 spells it "embeded"; accept the usual spelling too


def read_icon(data: bytes, max_bytes: int) -> bytes | None:
    """The card's main icon (CCv3 ``assets``: type ``icon``, name ``main`` first) from a CHARX.

    Args:
        data: The whole CHARX (zip) file, already accepted by ``read_card_json``.
        max_bytes: The largest picture to read; a larger one is left out.

    Returns:
        The picture's bytes, or None when the card names no embedded icon or it cannot be read.
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            card = json.loads(archive.read(CARD_MEMBER))
            assets = card.get("data", {}).get("assets") or []
            icons = [a for a in assets if isinstance(a, dict) and a.get("type") == "icon"]
            icons.sort(key=lambda a: a.get("name") != "main")
            for icon in icons:
                uri = str(icon.get("uri", ""))
                path = next((uri[len(p) :] for p in _EMBEDDED if uri.startswith(p)), None)
                if path is None:
                    continue
                _check_name(path)
                member = archive.getinfo(path)
                if member.file_size > max_bytes or member.flag_bits & 0x1:
                    return None
                with archive.open(member) as stream:
                    raw = stream.read(max_bytes + 1)
                return raw if len(raw) <= max_bytes else None
    except (zipfile.BadZipFile, KeyError, ValueError, OSError, EOFError, NotImplementedError, AttributeError):
        return None
    except InvalidInput:  # an unsafe asset path: no picture rather than a failed import
        return None
    return None
