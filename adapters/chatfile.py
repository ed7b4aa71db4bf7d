"""Chat files: SillyTavern's ``.jsonl`` chats and Hearth's own JSON, read and written.

A chat file is decoded into a ``ChatFile`` (messages in order, each with its author's role,
name, text, send date and, for a persona message, its alternatives — SillyTavern's swipes) and
encoded from one. Decoding checks everything before anything is stored: a line that is not
JSON, a header or message of the wrong shape, a file or text over the limits, or a send date
that is not a date or lies in the future is refused as ``InvalidInput`` naming the line.

SillyTavern's chat file is one JSON object per line: a header (``user_name``,
``character_name``, ``create_date``, ``chat_metadata``), then one per message (``name``,
``is_user``, ``is_system``, ``send_date``, ``mes``, ``swipes``, ``swipe_id``, ``extra``).
Send dates are read as ISO 8601, as milliseconds since the epoch, as SillyTavern's
``"June 5, 2024 3:04pm"`` and as its ``"2024-06-05@15h04m12s"``; they are written as ISO 8601
in UTC (which SillyTavern reads, and which keeps the seconds). System messages (``is_system``)
are notes SillyTavern never sends to the model; they are skipped and counted.
"""

from __future__ import annotations

import json
import math
import re
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import msgspec

from engine.errors import InvalidInput

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_MESSAGES",
    "MAX_SWIPES",
    "ChatFile",
    "FileMessage",
    "decode_chat",
    "encode_hearth",
    "encode_st",
]

MAX_FILE_BYTES = 8 * 1024 * 1024
MAX_MESSAGES = 5_000
MAX_SWIPES = 50
MAX_TEXT = 64_000
_SLACK = timedelta(days=1)  # clocks disagree; a date further ahead than this is refused

Role = Literal["user", "assistant"]


class FileMessage(msgspec.Struct, frozen=True, kw_only=True):
    """One message of a chat file. ``swipes`` lists a persona message's alternatives (its own
    text among them, at ``swipe_id``); empty when it has none."""

    role: Role
    name: str
    text: str
    sent_at: datetime
    swipes: tuple[str, ...] = ()
    swipe_id: int = 0


class ChatFile(msgspec.Struct, frozen=True, kw_only=True):
    """A whole chat as a file holds it."""

    user_name: str
    character_name: str
    created_at: datetime
    messages: tuple[FileMessage, ...]
    skipped: int = 0  # system messages left out


class _HearthDoc(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    format: Literal["hearth.chat"]
    version: Literal[1]
    user_name: str
    character_name: str
    created_at: datetime
    messages: tuple[FileMessage, ...]


def _bad(message: str, code: str = "invalid_chat_file") -> InvalidInput:
    return InvalidInput(message, code=code)


_MONTHS = {
    m: n
    for n, m in enumerate(
        (
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        ),
        1,
    )
}
_HUMAN = re.compile(r"([A-Za-z]+)\s+(\d{1,2}),\s*(\d{4})\s+(\d{1,2}):(\d{2})\s*([ap]m)", re.IGNORECASE)
_STAMP = re.compile(r"(\d{4})-(\d{2})-(\d{2})@(\d{1,2})h(\d{1,2})m(\d{1,2})s")


def _date(value: object, where: str, now: datetime) -> datetime:
    """A send date as SillyTavern writes it (see the module's docstring), in UTC."""
    found: datetime | None = None
    try:
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
            found = datetime.fromtimestamp(value / 1000, tz=UTC)
        elif isinstance(value, str):
            text = value.strip()
            if m := _HUMAN.fullmatch(text):
                month = _MONTHS.get(m[1].lower())
                if month is not None:
                    hour = int(m[4]) % 12 + (12 if m[6].lower() == "pm" else 0)
                    found = datetime(int(m[3]), month, int(m[2]), hour, int(m[5]), tzinfo=UTC)
            elif m := _STAMP.fullmatch(text):
                year, month, day, hour, minute, second = (int(g) for g in m.groups())
                found = datetime(year, month, day, hour, minute, second, tzinfo=UTC)
            elif text:
                parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
                found = parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    except (ValueError, OverflowError, OSError):
        found = None
    if found is None:
        raise _bad(f"{where}: the send date {str(value)[:40]!r} is not a date.", "invalid_date")
    found = found.astimezone(UTC)
    if found > now + _SLACK:
        raise _bad(f"{where}: the send date {found.isoformat()} lies in the future.", "invalid_date")
    return found


def _text(value: object, where: str, what: str) -> str:
    if not isinstance(value, str):
        raise _bad(f"{where}: {what} must be a string.")
    if len(value) > MAX_TEXT:
        raise _bad(f"{where}: {what} is {len(value):,} characters long; the limit is {MAX_TEXT:,}.")
    return value


def _st_message(row: dict[str, Any], where: str, now: datetime) -> FileMessage:
    text = _text(row.get("mes", ""), where, "'mes'")
    role: Role = "user" if row.get("is_user") is True else "assistant"
    swipes: tuple[str, ...] = ()
    swipe_id = 0
    raw = row.get("swipes")
    if role == "assistant" and raw is not None:
        if not isinstance(raw, list) or not raw:
            raise _bad(f"{where}: 'swipes' must be a list of texts.")
        if len(raw) > MAX_SWIPES:
            raise _bad(f"{where}: {len(raw)} swipes; the limit is {MAX_SWIPES}.")
        swipes = tuple(_text(s, where, "a swipe") for s in raw)
        chosen = row.get("swipe_id", 0)
        if not isinstance(chosen, int) or isinstance(chosen, bool) or not 0 <= chosen < len(swipes):
            raise _bad(f"{where}: 'swipe_id' must name one of the {len(swipes)} swipes.")
        swipe_id = chosen
        if len(swipes) == 1:
            swipes = ()
    name = row.get("name", "")
    return FileMessage(
        role=role,
        name=_text(name, where, "'name'")[:64],
        text=text,
        sent_at=_date(row.get("send_date"), where, now),
        swipes=swipes,
        swipe_id=swipe_id,
    )


def _decode_st(lines: list[str], now: datetime) -> ChatFile:
    rows: list[tuple[int, dict[str, Any]]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except (ValueError, RecursionError):
            raise _bad(f"Line {number} is not valid JSON.", "invalid_json") from None
        if not isinstance(row, dict):
            raise _bad(f"Line {number} is not a JSON object.")
        rows.append((number, row))
    if not rows:
        raise _bad("The file holds no chat.")
    first, header = rows[0]
    if "mes" in header:  # a file without a header starts with its first message
        body = rows
        header = {}
    else:
        body = rows[1:]
    if len(body) > MAX_MESSAGES:
        raise _bad(f"The chat has {len(body):,} messages; the limit is {MAX_MESSAGES:,}.", "chat_too_long")
    messages: list[FileMessage] = []
    skipped = 0
    for number, row in body:
        where = f"Line {number}"
        if "mes" not in row:
            raise _bad(f"{where}: a message needs 'mes' (its text).")
        if row.get("is_system") is True:
            skipped += 1
            continue
        messages.append(_st_message(row, where, now))
    created = header.get("create_date")
    return ChatFile(
        user_name=_text(header.get("user_name", "User"), f"Line {first}", "'user_name'")[:64],
        character_name=_text(header.get("character_name", ""), f"Line {first}", "'character_name'")[:64],
        created_at=_date(created, f"Line {first}", now)
        if created
        else (messages[0].sent_at if messages else now),
        messages=tuple(messages),
        skipped=skipped,
    )


def _decode_hearth(data: bytes, now: datetime) -> ChatFile:
    try:
        doc = msgspec.json.decode(data, type=_HearthDoc, strict=True)
    except msgspec.ValidationError as exc:
        raise _bad(f"The Hearth chat file does not fit: {exc}.") from None
    except msgspec.DecodeError:
        raise _bad("The Hearth chat file is not valid JSON.", "invalid_json") from None
    if len(doc.messages) > MAX_MESSAGES:
        count = len(doc.messages)
        raise _bad(f"The chat has {count:,} messages; the limit is {MAX_MESSAGES:,}.", "chat_too_long")
    for n, m in enumerate(doc.messages, 1):
        where = f"Message {n}"
        _text(m.text, where, "'text'")
        for s in m.swipes:
            _text(s, where, "a swipe")
        if len(m.swipes) > MAX_SWIPES or (m.swipes and not 0 <= m.swipe_id < len(m.swipes)):
            raise _bad(f"{where}: 'swipe_id' must name one of at most {MAX_SWIPES} swipes.")
        if m.swipes and m.role != "assistant":
            raise _bad(f"{where}: only the persona's messages have swipes.")
        _date(m.sent_at.isoformat(), where, now)
    messages = tuple(
        msgspec.structs.replace(m, sent_at=m.sent_at.astimezone(UTC)) if m.sent_at.tzinfo else m
        for m in doc.messages
    )
    return ChatFile(
        user_name=doc.user_name,
        character_name=doc.character_name,
        created_at=doc.created_at,
        messages=messages,
    )


def decode_chat(data: bytes, fmt: str, *, now: datetime) -> ChatFile:
    """Read a chat file (``st``: SillyTavern ``.jsonl``; ``hearth``: Hearth's JSON).

    Raises:
        InvalidInput: ``file_too_large``, ``invalid_json``, ``invalid_chat_file``,
            ``invalid_date``, ``chat_too_long`` or ``invalid_format``, naming the line.
    """
    if len(data) > MAX_FILE_BYTES:
        raise _bad(f"The file is {len(data):,} bytes; the limit is {MAX_FILE_BYTES:,}.", "file_too_large")
    if fmt == "hearth":
        return _decode_hearth(data, now)
    if fmt != "st":
        raise _bad(f"Unknown chat format {fmt!r}; use 'st' or 'hearth'.", "invalid_format")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise _bad("The file is not UTF-8 text.", "invalid_json") from None
    return _decode_st(text.split("\n"), now)  # only "\n" ends a line (U+2028 may sit in a text)


def _iso(when: datetime) -> str:
    return when.astimezone(UTC).isoformat().replace("+00:00", "Z")


def encode_st(chat: ChatFile) -> bytes:
    """The chat as a SillyTavern ``.jsonl`` file (send dates ISO 8601 in UTC)."""
    stamp = chat.created_at.astimezone(UTC).strftime("%Y-%m-%d@%Hh%Mm%Ss")
    header = {
        "user_name": chat.user_name,
        "character_name": chat.character_name,
        "create_date": stamp,
        "chat_metadata": {},
    }
    lines = [json.dumps(header, ensure_ascii=False)]
    for m in chat.messages:
        row: dict[str, Any] = {
            "name": m.name,
            "is_user": m.role == "user",
            "is_system": False,
            "send_date": _iso(m.sent_at),
            "mes": m.text,
            "extra": {},
        }
        if m.role == "assistant":
            row["swipes"] = list(m.swipes) if m.swipes else [m.text]
            row["swipe_id"] = m.swipe_id if m.swipes else 0
            row["swipe_info"] = [{"send_date": _iso(m.sent_at), "extra": {}} for _ in row["swipes"]]
        lines.append(json.dumps(row, ensure_ascii=False))
    return ("\n".join(lines) + "\n").encode()


def encode_hearth(chat: ChatFile) -> bytes:
    """The chat as Hearth's JSON chat file."""
    doc = _HearthDoc(
        format="hearth.chat",
        version=1,
        user_name=chat.user_name,
        character_name=chat.character_name,
        created_at=chat.created_at,
        messages=chat.messages,
    )
    return msgspec.json.encode(doc)
