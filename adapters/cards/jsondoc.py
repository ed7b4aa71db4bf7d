"""Parse untrusted JSON documents and validate parts of them against typed Structs.

``parse_json`` refuses oversize documents, documents with millions of values and deep nesting
*before* the parser runs (a nesting bomb would otherwise hit the C recursion limit, and a huge
array of empty arrays costs seconds of CPU to build). ``convert_at`` runs ``msgspec.convert`` on one
object and reports a wrong type with the document path of the field, e.g.
``entries["3"].key: Expected `array | str`, got `int```.
"""

from __future__ import annotations

import re
from array import array
from itertools import accumulate
from typing import Any, TypeVar

import msgspec

from adapters.cards.limits import DEFAULT_LIMITS, CardLimits, invalid

__all__ = ["check_json_depth", "child_path", "convert_at", "encode_json", "parse_json", "require_object"]

T = TypeVar("T")

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
# Opening brackets count +1, closing -1 (as signed bytes); everything else was deleted.
_DEPTH_STEP = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_DECODER = msgspec.json.Decoder()
_BOM = b"\xef\xbb\xbf"


def parse_json(data: bytes, *, what: str, limits: CardLimits) -> Any:
    """Decode a JSON document after checking its size and nesting depth.

    Args:
        data: The raw document (UTF-8, an optional BOM is skipped).
        what: What the document is, for messages (``"card JSON"``, ``"card.json in the CHARX"``).
        limits: Size and depth limits.

    Returns:
        The decoded JSON value (dicts, lists, str, int, float, bool, None).

    Raises:
        InvalidInput: ``file_too_large``, ``json_too_large`` (too many values),
            ``json_too_deep`` or ``invalid_json``.
    """
    if len(data) > limits.max_bytes:
        raise invalid(
            "file_too_large",
            f"The {what} is {len(data)} bytes; the limit is {limits.max_bytes} bytes.",
        )
    data = data.removeprefix(_BOM)
    structure = _STRING.sub(b"", data)
    values = structure.count(b",") + 1
    if values > limits.max_json_values:
        raise invalid(
            "json_too_large",
            f"The {what} holds about {values} values; the limit is {limits.max_json_values}.",
        )
    depth = _max_depth(structure)
    if depth > limits.max_depth:
        raise invalid(
            "json_too_deep",
            f"The {what} nests objects/arrays {depth} levels deep; the limit is {limits.max_depth}.",
        )
    try:
        return _DECODER.decode(data)
    except msgspec.DecodeError as exc:
        raise invalid("invalid_json", f"The {what} is not valid JSON: {exc}.") from None


def check_json_depth(data: bytes, *, what: str = "body", max_depth: int = DEFAULT_LIMITS.max_depth) -> None:
    """Refuse JSON nested deeper than ``max_depth`` before any parser runs (no ``RecursionError``).

    Args:
        data: The raw JSON bytes (not decoded yet; bad JSON is left to the parser).
        what: What the document is, for the message.
        max_depth: Deepest accepted nesting of objects and arrays.

    Raises:
        InvalidInput: ``json_too_deep``.
    """
    if b"[" not in data and b"{" not in data:
        return
    depth = _max_depth(_STRING.sub(b"", data))
    if depth > max_depth:
        raise invalid(
            "json_too_deep",
            f"The {what} nests objects/arrays {depth} levels deep; the limit is {max_depth}.",
        )


def _max_depth(structure: bytes) -> int:
    """Deepest bracket nesting of a document whose strings were removed (C-speed passes)."""
    brackets = structure.translate(None, delete=_NOT_BRACKET)
    if not brackets:
        return 0
    steps = array("b", brackets.translate(_DEPTH_STEP))
    return max(accumulate(steps))


def encode_json(value: Any) -> bytes:
    """Encode a JSON value as pretty UTF-8 JSON (4-space indent, SillyTavern's style).

    Args:
        value: Dicts, lists and scalars.

    Returns:
        The document bytes, ending with a newline.
    """
    return msgspec.json.format(msgspec.json.encode(value), indent=4) + b"\n"


def child_path(path: str, key: str | int) -> str:
    """Append an object key or array index to a document path.

    Args:
        path: Parent path (``""`` for the root).
        key: A field name (``"data"``), an index (``3``) or an object key in brackets
            (``'["3"]'``).

    Returns:
        The joined path, e.g. ``data.character_book.entries[3]``.
    """
    if isinstance(key, int):
        return f"{path}[{key}]"
    if key.startswith("["):
        return f"{path}{key}"
    return f"{path}.{key}" if path else key


def require_object(value: Any, path: str) -> dict[str, Any]:
    """Check that a value is a JSON object.

    Args:
        value: A decoded JSON value.
        path: Its document path, for the message.

    Returns:
        The value, typed as a dict.

    Raises:
        InvalidInput: ``invalid_field`` when it is not an object.
    """
    if not isinstance(value, dict):
        raise invalid(
            "invalid_field",
            f"Field `{path or '$'}` must be a JSON object, got {_json_type(value)}.",
        )
    return value


def convert_at(value: Any, type_: type[T], path: str) -> T:
    """Validate a decoded JSON value against a typed Struct, naming the field on error.

    Args:
        value: A decoded JSON value.
        type_: The msgspec type to convert to (unknown object fields are ignored).
        path: The value's document path, prefixed to the field path of an error.

    Returns:
        The typed value.

    Raises:
        InvalidInput: ``invalid_field`` with the full path of the offending field.
    """
    try:
        return msgspec.convert(value, type_)
    except msgspec.ValidationError as exc:
        problem, _, where = str(exc).partition(" - at `$")
        where = where.rstrip("`")
        field = f"{path}{where}" if path else where.lstrip(".")
        raise invalid("invalid_field", f"Field `{field or '$'}`: {problem}.") from None


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return "a number"
    return names.get(type(value), type(value).__name__)
