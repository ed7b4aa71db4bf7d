"""Character Card V2/V3 ``character_book`` <-> ``LoreBook``.

A card lorebook has ``entries`` as an array. The fields the engine models are decoded into
``LoreEntry`` fields; the tuning SillyTavern keeps in the entry's ``extensions`` (probability,
selective logic, role, scan depth, ...) is read from there, but ``extensions`` itself is kept
verbatim and only the keys whose value was *changed* are rewritten on export, so an unchanged
entry exports its ``extensions`` byte for byte. Every unknown entry field (``name``,
``position``, anything an application added) is kept in ``LoreEntry.extra``.

Normalizations on export (documented, tested): the V3 entry fields the engine models are
always written (``id``, ``comment``, ``constant``, ``selective``, ``secondary_keys``,
``priority`` -- equal to ``insertion_order`` when the file had none -- and ``use_regex``);
``case_sensitive`` is written when set, both as CCv3's top-level field and as
``extensions.case_sensitive`` (the one SillyTavern reads); a missing book ``extensions`` becomes
``{}``; missing ids are numbered; a decorator line is re-rendered ``@@name value``.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from adapters.cards.jsondoc import child_path, require_object
from adapters.cards.limits import CardLimits, invalid
from adapters.cards.mapping import (
    ROLES,
    SELECTIVE_LOGIC,
    ST_ONLY_FIELDS,
    ST_TO_CARD_EXT,
    CardTuning,
    Num,
    OwnFields,
    WireEntry,
    assign_ids,
    insertion_from_order,
    lore_entry,
    to_int,
    tuning_values,
)
from adapters.cards.worldinfo import book_extensions, book_fields, book_settings
from engine.lorebook.model import LoreBook, LoreEntry, join_decorators, json_pairs, pairs_to_dict

__all__ = ["decode_card_book", "encode_card_book"]

_CANONICAL_INT = re.compile(r"-?(0|[1-9][0-9]{0,17})")
_TUNING_ATTRS = tuple(f.name for f in msgspec.structs.fields(CardTuning))
_TUNING_EXT_NAME = {f.name: f.encode_name for f in msgspec.structs.fields(CardTuning)}
_ST_TUNING_NAMES = frozenset(
    {
        "probability",
        "useProbability",
        "selectiveLogic",
        "scanDepth",
        "matchWholeWords",
        "caseSensitive",
        "role",
        "excludeRecursion",
        "preventRecursion",
        "delayUntilRecursion",
        "sticky",
        "cooldown",
        "delay",
        "group",
        "groupOverride",
        "groupWeight",
        "useGroupScoring",
    }
)


class _CardEntry(WireEntry, kw_only=True):
    id: int | str | None = None
    priority: Num | None = None
    use_regex: bool | None = None
    case_sensitive: bool | None = None


_OWN_NAMES = frozenset({"id", "priority", "use_regex", "case_sensitive"})


def decode_card_book(raw: dict[str, Any], limits: CardLimits, path: str) -> LoreBook:
    """Build a ``LoreBook`` from a decoded card ``character_book`` object.

    Args:
        raw: The ``character_book`` object (or a standalone ``lorebook_v3`` ``data``).
        limits: ``max_entries`` caps the entry count.
        path: Its document path, e.g. ``data.character_book``.

    Returns:
        The book; ``id`` is left empty for the service to set.

    Raises:
        InvalidInput: ``invalid_field`` (with the field path) or ``too_many_entries``.
    """
    where = child_path(path, "entries")
    items = raw.get("entries", [])
    if not isinstance(items, list):
        raise invalid("invalid_field", f"Field `{where}` must be an array.")
    if len(items) > limits.max_entries:
        raise invalid(
            "too_many_entries",
            f"The lorebook has {len(items)} entries; the limit is {limits.max_entries}.",
        )
    values, unknown = book_settings(raw, path)
    decoded = [
        lore_entry(require_object(item, f"{where}[{i}]"), f"{where}[{i}]", _CardEntry, _own, world_info=False)
        for i, item in enumerate(items)
    ]
    ids = assign_ids(e.id or None for e in decoded)
    entries = tuple(msgspec.structs.replace(e, id=i) for e, i in zip(decoded, ids, strict=True))
    return LoreBook(entries=entries, extra=json_pairs(unknown), **values)


def _own(raw: dict[str, Any], wire: _CardEntry, path: str) -> OwnFields:
    """A card entry's own fields: ``priority`` and ``use_regex`` at the top, tuning in ``extensions``."""
    priority = None if wire.priority is None else to_int(wire.priority, child_path(path, "priority"))
    tuning = tuning_values(
        wire.extensions or {}, CardTuning, child_path(path, "extensions"), use_probability=True
    )
    if wire.case_sensitive is not None:
        tuning["case_sensitive"] = wire.case_sensitive
    return OwnFields(
        id=wire.id,
        priority=priority,
        use_regex=bool(wire.use_regex),
        extensions=wire.extensions or {},
        tuning=tuning,
        known=_OWN_NAMES,
    )


def encode_card_book(book: LoreBook) -> dict[str, Any]:
    """Render a ``LoreBook`` as a CCv3 ``character_book`` object (also valid CCv2).

    Args:
        book: The book.

    Returns:
        The lorebook object: unknown top-level fields, ``name``/``description`` when set,
        scan settings when set, ``extensions`` and ``entries``.
    """
    doc = book_fields(book)
    doc["extensions"] = book_extensions(book)
    doc["entries"] = [_encode_entry(entry) for entry in book.entries]
    return doc


def _encode_entry(entry: LoreEntry) -> dict[str, Any]:
    top, ext = _card_places(entry)
    out: dict[str, Any] = {
        "id": int(entry.id) if _CANONICAL_INT.fullmatch(entry.id) else entry.id,
        "keys": list(entry.keys),
        "secondary_keys": list(entry.secondary_keys),
        "comment": entry.comment,
        "content": join_decorators(entry.decorators, entry.content),
        "constant": entry.constant,
        "selective": entry.selective,
        "insertion_order": insertion_from_order(entry.order),
        "enabled": entry.enabled,
        "priority": entry.priority,
        "use_regex": entry.use_regex,
    }
    if entry.case_sensitive is not None:
        out["case_sensitive"] = entry.case_sensitive
    _patch_tuning(ext, entry)
    out["extensions"] = ext
    return {**top, **out}


def _card_places(entry: LoreEntry) -> tuple[dict[str, Any], dict[str, Any]]:
    """Split unknown fields into card top-level fields and ``extensions`` keys.

    Fields a World Info file kept at the top level go where SillyTavern puts them in a card:
    mapped names into ``extensions`` (numeric ``position`` also as ``before_char``/
    ``after_char``); anything else stays a top-level field.
    """
    ext = pairs_to_dict(entry.extensions)
    top: dict[str, Any] = {}
    for name, value in pairs_to_dict(entry.extra).items():
        if name == "position" and isinstance(value, int) and not isinstance(value, bool):
            top["position"] = "before_char" if value == 0 else "after_char"
            ext["position"] = value
        elif name == "position":
            top[name] = value
        elif name in ST_TO_CARD_EXT and name not in _ST_TUNING_NAMES:
            ext[ST_TO_CARD_EXT[name]] = value
        elif name in ST_ONLY_FIELDS:
            ext[name] = value
        else:
            top[name] = value
    return top, ext


def _patch_tuning(ext: dict[str, Any], entry: LoreEntry) -> None:
    """Rewrite only the tuning keys whose value, as read back from ``extensions``, differs.

    ``case_sensitive`` is compared with ``extensions`` alone although the top-level field wins on
    import: SillyTavern reads only ``extensions.case_sensitive``, so a set value goes there too.
    """
    current = tuning_values(ext, CardTuning, "extensions", use_probability=True)
    for attr in _TUNING_ATTRS:
        wanted = getattr(entry, attr)
        if current[attr] == wanted:
            continue
        if attr == "selective_logic":
            wanted = SELECTIVE_LOGIC.index(wanted)
        elif attr == "role":
            wanted = ROLES.index(wanted)
        ext[_TUNING_EXT_NAME[attr]] = wanted
