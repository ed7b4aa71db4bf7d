"""SillyTavern World Info JSON <-> ``LoreBook``.

A World Info file is ``{"entries": {uid: entry, ...}}`` (some tools write an array). Entry
fields the engine models are decoded into ``LoreEntry`` fields; the entry's ``extensions``
object is kept verbatim in ``LoreEntry.extensions``; every other field (``position``,
``depth``, ``group``, ``sticky``, ``displayIndex``, ...) is kept verbatim in
``LoreEntry.extra``. Card-style names are accepted as aliases (``keys``, ``secondary_keys``,
``enabled``, ``insertion_order``); the native name wins when both are present and the alias
then stays in ``extra``.

Normalizations on export (documented, tested): entries become an object keyed by ``uid``;
aliases are written under their native names; fields the engine models are always written
(absent or ``null`` ones with SillyTavern's defaults, nullable overrides as ``null``); an entry
without a ``position`` gets ``1`` (after the character, as ST reads such a card entry); an empty
``extensions`` object is omitted; a decorator line is re-rendered ``@@name value``.

Matching (LORE-5, LORE-18): a book whose file does not set Hearth's ``extensions.hearth.matching``
matches whole words with short endings (``IMPORTED_MATCHING``); a book-level
``matchWholeWords: false`` asks for substring matching, an entry's own ``matchWholeWords`` wins.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from adapters.cards.jsondoc import child_path, convert_at, require_object
from adapters.cards.limits import CardLimits, invalid
from adapters.cards.mapping import (
    ROLES,
    SELECTIVE_LOGIC,
    ST_ONLY_FIELDS,
    ST_TO_CARD_EXT,
    OwnFields,
    StTuning,
    WireEntry,
    assign_ids,
    insertion_from_order,
    lore_entry,
    tuning_values,
)
from engine.lorebook.model import LoreBook, LoreEntry, Matching, join_decorators, json_pairs, pairs_to_dict

__all__ = [
    "HEARTH_KEY",
    "IMPORTED_MATCHING",
    "BookSettings",
    "book_extensions",
    "book_fields",
    "book_settings",
    "decode_world_info",
    "encode_world_info",
    "implied_matching",
]

_TUNING_NAMES = frozenset(f.encode_name for f in msgspec.structs.fields(StTuning))


class _StEntry(WireEntry, kw_only=True):
    uid: int | str | None = None


_CANONICAL_INT = re.compile(r"0|[1-9][0-9]{0,17}")
_OWN_NAMES = frozenset({"uid"}) | _TUNING_NAMES


class BookSettings(msgspec.Struct, kw_only=True):
    """Book-level fields shared by World Info files that carry them and card lorebooks."""

    name: str | None = None
    description: str | None = None
    scan_depth: int | None = None
    token_budget: int | None = None
    recursive_scanning: bool | None = None
    extensions: dict[str, Any] | None = None


_BOOK_NAMES = frozenset(f.encode_name for f in msgspec.structs.fields(BookSettings))

HEARTH_KEY = "hearth"
"""Key of Hearth's own settings inside a book's or an entry's ``extensions`` (LORE-18, LORE-20)."""


class _HearthBook(msgspec.Struct, kw_only=True):
    matching: Matching | None = None
    case_sensitive: bool = False
    use_group_scoring: bool = False


_BOOK_DEFAULTS = msgspec.structs.asdict(_HearthBook())

IMPORTED_MATCHING: Matching = "inflections"
"""Matching of an imported book that does not say (LORE-5, LORE-18): whole words with short
endings, so ``дракон`` finds ``драконы`` but ``кот`` never fires inside ``скотина``."""

_WHOLE_WORDS_FLAG = "matchWholeWords"
"""A book-level ``matchWholeWords`` (kept verbatim with the book's unknown fields) sets its default."""


def implied_matching(fields: dict[str, Any], path: str = "") -> Matching:
    """The matching a book gets from its file when ``extensions.hearth.matching`` is absent.

    ``matchWholeWords: false`` at the book's top level asks for substring matching (SillyTavern's
    global setting off), ``true`` for strict whole words; otherwise ``IMPORTED_MATCHING``.

    Raises:
        InvalidInput: ``invalid_field`` when the flag is not a boolean or null.
    """
    flag = fields.get(_WHOLE_WORDS_FLAG)
    if flag is None:
        return IMPORTED_MATCHING
    if not isinstance(flag, bool):
        raise invalid(
            "invalid_field", f"Field `{child_path(path, _WHOLE_WORDS_FLAG)}` must be true, false or null."
        )
    return "whole_words" if flag else "substring"


class _HearthEntry(msgspec.Struct, kw_only=True):
    priority: int | None = None
    use_regex: bool = False
    position: str | None = None


def book_settings(raw: dict[str, Any], path: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Validate book-level settings and split off the unknown top-level fields.

    Args:
        raw: The book object (World Info file or card ``character_book``).
        path: Its document path.

    Returns:
        ``(LoreBook keyword values, unknown fields)``; ``entries`` is in neither.

    Raises:
        InvalidInput: ``invalid_field`` for a wrongly typed or negative setting.
    """
    settings = convert_at(raw, BookSettings, path)
    for name in ("scan_depth", "token_budget"):
        value = getattr(settings, name)
        if value is not None and value < 0:
            raise invalid("invalid_field", f"Field `{child_path(path, name)}` must be >= 0.")
    extensions = dict(settings.extensions or {})
    hearth = convert_at(extensions.pop(HEARTH_KEY, {}), _HearthBook, child_path(path, "extensions.hearth"))
    values = {
        "name": settings.name or "",
        "description": settings.description or "",
        "scan_depth": settings.scan_depth,
        "token_budget": settings.token_budget,
        "recursive_scanning": settings.recursive_scanning,
        "matching": hearth.matching or implied_matching(raw, path),
        "case_sensitive": hearth.case_sensitive,
        "use_group_scoring": hearth.use_group_scoring,
        "extensions": json_pairs(extensions),
    }
    unknown = {k: v for k, v in raw.items() if k not in _BOOK_NAMES and k != "entries"}
    return values, unknown


def book_extensions(book: LoreBook) -> dict[str, Any]:
    """The book's ``extensions`` for export, with Hearth's book settings under ``hearth`` (LORE-18).

    Written only when they differ from what the file would give on import (the matching its
    fields imply, case folded, no group scoring), so a SillyTavern book exports its
    ``extensions`` unchanged.
    """
    ext = pairs_to_dict(book.extensions)
    settings = {
        "matching": book.matching or ("whole_words" if book.match_whole_words else "substring"),
        "case_sensitive": book.case_sensitive,
        "use_group_scoring": book.use_group_scoring,
    }
    defaults = _BOOK_DEFAULTS | {"matching": implied_matching(pairs_to_dict(book.extra))}
    hearth = {k: v for k, v in settings.items() if v != defaults[k]}
    if hearth:
        ext[HEARTH_KEY] = hearth
    return ext


def book_fields(book: LoreBook) -> dict[str, Any]:
    """The book-level fields both formats write first: the unknown ones, then ``name`` and
    ``description`` when set, then the scan settings when set."""
    doc: dict[str, Any] = pairs_to_dict(book.extra)
    for name in ("name", "description"):
        if getattr(book, name):
            doc[name] = getattr(book, name)
    for name in ("scan_depth", "token_budget", "recursive_scanning"):
        if getattr(book, name) is not None:
            doc[name] = getattr(book, name)
    return doc


def decode_world_info(raw: dict[str, Any], limits: CardLimits, path: str = "") -> LoreBook:
    """Build a ``LoreBook`` from a decoded World Info file.

    Args:
        raw: The decoded JSON object (must have ``entries``).
        limits: ``max_entries`` caps the entry count.
        path: Document path of ``raw`` (``""`` for a file).

    Returns:
        The book; ``id`` is left empty for the service to set.

    Raises:
        InvalidInput: ``invalid_field`` (with the field path) or ``too_many_entries``.
    """
    items = _entry_items(raw.get("entries"), child_path(path, "entries"), limits)
    values, unknown = book_settings(raw, path)
    decoded = [lore_entry(item, where, _StEntry, _own, world_info=True) for where, _, item in items]
    ids = assign_ids(_candidate_id(e, key) for (_, key, _), e in zip(items, decoded, strict=True))
    entries = tuple(msgspec.structs.replace(e, id=i) for e, i in zip(decoded, ids, strict=True))
    return LoreBook(entries=entries, extra=json_pairs(unknown), **values)


def _entry_items(entries: Any, path: str, limits: CardLimits) -> list[tuple[str, str | None, dict[str, Any]]]:
    """``(path, object key, entry)`` for each entry of an object- or array-shaped ``entries``."""
    if isinstance(entries, dict):
        pairs: list[tuple[str, str | None, Any]] = [(f'{path}["{k}"]', k, v) for k, v in entries.items()]
    elif isinstance(entries, list):
        pairs = [(f"{path}[{i}]", None, v) for i, v in enumerate(entries)]
    else:
        raise invalid("invalid_field", f"Field `{path}` must be an object or an array.")
    if len(pairs) > limits.max_entries:
        raise invalid(
            "too_many_entries",
            f"The lorebook has {len(pairs)} entries; the limit is {limits.max_entries}.",
        )
    return [(where, key, require_object(value, where)) for where, key, value in pairs]


def _candidate_id(entry: LoreEntry, key: str | None) -> str | None:
    return entry.id or key


def _own(raw: dict[str, Any], wire: _StEntry, path: str) -> OwnFields:
    """A World Info entry's own fields: tuning at the top, Hearth's card fields in ``extensions.hearth``."""
    extensions = dict(wire.extensions or {})
    hearth = convert_at(extensions.pop(HEARTH_KEY, {}), _HearthEntry, child_path(path, "extensions.hearth"))
    return OwnFields(
        id=wire.uid,
        priority=hearth.priority,
        use_regex=hearth.use_regex,
        extensions=extensions,
        tuning=tuning_values(raw, StTuning, path, use_probability=False),
        known=_OWN_NAMES,
        # a card position World Info has no number for
        extra={} if hearth.position is None else {"position": hearth.position},
    )


def encode_world_info(book: LoreBook) -> dict[str, Any]:
    """Render a ``LoreBook`` as a SillyTavern World Info JSON object.

    Args:
        book: The book.

    Returns:
        ``{"entries": {uid: entry}}`` plus the book's unknown top-level fields and, when set,
        ``name``, ``description``, scan settings and ``extensions``.
    """
    doc = book_fields(book)
    extensions = book_extensions(book)
    if extensions:
        doc["extensions"] = extensions
    uids = _export_uids(book.entries)
    doc["entries"] = {str(u): _encode_entry(e, u) for e, u in zip(book.entries, uids, strict=True)}
    return doc


def _export_uids(entries: tuple[LoreEntry, ...]) -> list[int]:
    """World Info uids are integers: keep numeric ids, number the others freshly."""
    numeric = (e.id if _CANONICAL_INT.fullmatch(e.id) else None for e in entries)
    return [int(i) for i in assign_ids(numeric)]


UNPLACED_POSITION = 1
"""``world_info_position.after`` (after the character): the position an exported entry without
one gets, as SillyTavern inserts a World Info entry without a position nowhere. It is what ST
itself gives a card entry without a position, so both exports of such an entry mean the same."""


def _encode_entry(entry: LoreEntry, uid: int) -> dict[str, Any]:
    out = _st_extras(entry)
    out.setdefault("position", UNPLACED_POSITION)  # with the other unknown fields: a fixpoint
    out.update(
        uid=uid,
        key=list(entry.keys),
        keysecondary=list(entry.secondary_keys),
        comment=entry.comment,
        content=join_decorators(entry.decorators, entry.content),
        constant=entry.constant,
        selective=entry.selective,
        selectiveLogic=SELECTIVE_LOGIC.index(entry.selective_logic),
        order=insertion_from_order(entry.order),
        disable=not entry.enabled,
        probability=entry.probability,
        useProbability=entry.use_probability,
        caseSensitive=entry.case_sensitive,
        matchWholeWords=entry.match_whole_words,
        scanDepth=entry.scan_depth,
        role=ROLES.index(entry.role),
        excludeRecursion=entry.exclude_recursion,
        preventRecursion=entry.prevent_recursion,
        delayUntilRecursion=entry.delay_until_recursion,
        sticky=entry.sticky,
        cooldown=entry.cooldown,
        delay=entry.delay,
        group=entry.group,
        groupOverride=entry.group_override,
        groupWeight=entry.group_weight,
        useGroupScoring=entry.use_group_scoring,
    )
    ext = pairs_to_dict(entry.extensions)
    hearth: dict[str, Any] = {}
    if entry.priority != insertion_from_order(entry.order):
        hearth["priority"] = entry.priority  # World Info budgets by `order` (LORE-20)
    if entry.use_regex:
        hearth["use_regex"] = True
    position = pairs_to_dict(entry.extra).get("position")
    if isinstance(position, str) and position not in ("before_char", "after_char"):
        hearth["position"] = position
    if hearth:
        ext[HEARTH_KEY] = hearth
    if ext:
        out["extensions"] = ext
    return out


def _st_extras(entry: LoreEntry) -> dict[str, Any]:
    """Unknown fields for World Info, translating what a card kept in its own places.

    A card writes ``position`` as ``"before_char"``/``"after_char"`` and keeps ST's fields in
    ``extensions`` under ST's card names; World Info wants them at the top level.
    """
    extra = pairs_to_dict(entry.extra)
    ext = pairs_to_dict(entry.extensions)
    out: dict[str, Any] = {}
    for name, value in extra.items():
        out[name] = value
        if name == "position" and isinstance(value, str):
            fallback = 0 if value == "before_char" else 1
            native = ext.get("position")
            out[name] = native if isinstance(native, int) else fallback
    for st_name, card_name in ST_TO_CARD_EXT.items():
        if st_name not in out and st_name not in _TUNING_NAMES and card_name in ext:
            out[st_name] = ext[card_name]
    for st_name in ST_ONLY_FIELDS:
        if st_name not in out and st_name in ext:
            out[st_name] = ext[st_name]
    return out
