"""Field mappings shared by the World Info and character-card codecs.

Order (LORE-8, LORE-13). SillyTavern sorts activated entries with ``b.order - a.order`` and
``unshift``s each into its block, so the block reads in *ascending* ``order``: a lower World
Info ``order`` goes earlier, exactly like a card's ``insertion_order`` ("the lower the number,
the earlier", CCv3). The same pass fills the token budget from the highest ``order`` down, so
ST's ``order`` is also its budget priority. Here a *higher* ``order`` goes earlier, so:

    order = -insertion_order        insertion_order = -order

an involution on integers, hence exact in both directions. A card's ``priority`` (higher
survives the budget, CCv3/AgnAI) maps unchanged; without one, and for World Info, ``priority``
is the file's ``insertion_order``/``order`` (CCv3: "MAY remove the lowest insertion_order
first"; ST: the budget pass runs in ``order`` order).

Tuning fields (probability, selective logic, role, scan depth, whole words, case, recursion
flags) are top-level fields in World Info and live in the entry's ``extensions`` in a card,
under the names SillyTavern uses when it converts between the two (``ST_TO_CARD_EXT``).

Entries. Both codecs decode an entry with :func:`lore_entry`: the fields the two
formats share (``ALIASES`` pairs under either name, ``comment``, ``content``, ``constant``,
``selective``) are read here, and a codec reads only what it keeps its own way (``OwnFields``:
the id, priority, regex flag, tuning and ``extensions``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import msgspec

from adapters.cards.jsondoc import child_path, convert_at
from adapters.cards.limits import invalid
from engine.lorebook.model import LoreEntry, Role, SelectiveLogic, json_pairs, split_decorators
from engine.lorebook.regex_keys import split_key_string

__all__ = [
    "ALIASES",
    "DEFAULT_INSERTION_ORDER",
    "ROLES",
    "SELECTIVE_LOGIC",
    "ST_ONLY_FIELDS",
    "ST_TO_CARD_EXT",
    "CardTuning",
    "OwnFields",
    "StTuning",
    "Tuning",
    "WireEntry",
    "assign_ids",
    "insertion_from_order",
    "is_enabled",
    "lore_entry",
    "order_from_insertion",
    "split_keys",
    "to_int",
    "tuning_values",
]

SELECTIVE_LOGIC: tuple[SelectiveLogic, ...] = ("AND_ANY", "NOT_ALL", "NOT_ANY", "AND_ALL")
"""Index = SillyTavern ``world_info_logic`` number (verified in ST's world-info.js)."""

ROLES: tuple[Role, ...] = ("system", "user", "assistant")
"""Index = SillyTavern ``extension_prompt_roles`` number."""

DEFAULT_INSERTION_ORDER = 100
"""SillyTavern's default ``order`` for a new entry; used when a file has none."""

ST_TO_CARD_EXT: dict[str, str] = {
    "position": "position",
    "excludeRecursion": "exclude_recursion",
    "displayIndex": "display_index",
    "probability": "probability",
    "useProbability": "useProbability",
    "depth": "depth",
    "selectiveLogic": "selectiveLogic",
    "outletName": "outlet_name",
    "group": "group",
    "groupOverride": "group_override",
    "groupWeight": "group_weight",
    "preventRecursion": "prevent_recursion",
    "delayUntilRecursion": "delay_until_recursion",
    "scanDepth": "scan_depth",
    "matchWholeWords": "match_whole_words",
    "useGroupScoring": "use_group_scoring",
    "caseSensitive": "case_sensitive",
    "automationId": "automation_id",
    "role": "role",
    "vectorized": "vectorized",
    "sticky": "sticky",
    "cooldown": "cooldown",
    "delay": "delay",
    "matchPersonaDescription": "match_persona_description",
    "matchCharacterDescription": "match_character_description",
    "matchCharacterPersonality": "match_character_personality",
    "matchCharacterDepthPrompt": "match_character_depth_prompt",
    "matchScenario": "match_scenario",
    "matchCreatorNotes": "match_creator_notes",
    "triggers": "triggers",
    "ignoreBudget": "ignore_budget",
}
"""World Info entry field -> card entry ``extensions`` key, as SillyTavern converts them."""

ST_ONLY_FIELDS = ("addMemo", "characterFilter")
"""World Info fields with no card place; a card keeps them in ``extensions`` by their ST name."""

ALIASES: tuple[tuple[str, str], ...] = (
    ("key", "keys"),
    ("keysecondary", "secondary_keys"),
    ("disable", "enabled"),
    ("order", "insertion_order"),
)
"""(World Info name, card name) pairs of the same field."""

_SHARED_NAMES = frozenset({"comment", "content", "constant", "selective", "extensions"})

Num = int | float


def order_from_insertion(insertion_order: int) -> int:
    """Return our ``order`` (higher = earlier) for a file's ``insertion_order`` (lower = earlier).

    Args:
        insertion_order: Card ``insertion_order`` or World Info ``order``.

    Returns:
        ``-insertion_order``.
    """
    return -insertion_order


def insertion_from_order(order: int) -> int:
    """Return a file's ``insertion_order`` for our ``order`` (inverse of the above).

    Args:
        order: ``LoreEntry.order``.

    Returns:
        ``-order``.
    """
    return -order


class Tuning(msgspec.Struct, kw_only=True):
    """Typed view of the tuning fields; ``None`` = absent or null in the file."""

    probability: Num | None = None
    use_probability: bool | None = None
    selective_logic: int | None = None
    scan_depth: int | None = None
    match_whole_words: bool | None = None
    case_sensitive: bool | None = None
    role: int | None = None
    exclude_recursion: bool | None = None
    prevent_recursion: bool | None = None
    delay_until_recursion: bool | int | str | None = None
    sticky: Num | None = None
    cooldown: Num | None = None
    delay: Num | None = None
    group: str | None = None
    group_override: bool | None = None
    group_weight: Num | None = None
    use_group_scoring: bool | None = None


class StTuning(Tuning, kw_only=True):
    """The tuning fields as World Info names them (top level of an entry)."""

    use_probability: bool | None = msgspec.field(default=None, name="useProbability")
    selective_logic: int | None = msgspec.field(default=None, name="selectiveLogic")
    scan_depth: int | None = msgspec.field(default=None, name="scanDepth")
    match_whole_words: bool | None = msgspec.field(default=None, name="matchWholeWords")
    case_sensitive: bool | None = msgspec.field(default=None, name="caseSensitive")
    exclude_recursion: bool | None = msgspec.field(default=None, name="excludeRecursion")
    prevent_recursion: bool | None = msgspec.field(default=None, name="preventRecursion")
    delay_until_recursion: bool | int | str | None = msgspec.field(default=None, name="delayUntilRecursion")
    group_override: bool | None = msgspec.field(default=None, name="groupOverride")
    group_weight: Num | None = msgspec.field(default=None, name="groupWeight")
    use_group_scoring: bool | None = msgspec.field(default=None, name="useGroupScoring")


class CardTuning(Tuning, kw_only=True):
    """The tuning fields as a card's entry ``extensions`` name them (ST's conversion)."""

    use_probability: bool | None = msgspec.field(default=None, name="useProbability")
    selective_logic: int | None = msgspec.field(default=None, name="selectiveLogic")


def tuning_values(
    raw: dict[str, Any], type_: type[Tuning], path: str, *, use_probability: bool
) -> dict[str, Any]:
    """Validate the tuning fields of a file object and return ``LoreEntry`` keyword values.

    Args:
        raw: The entry (World Info) or the entry's ``extensions`` object (card).
        type_: ``StTuning`` or ``CardTuning``.
        path: Document path of ``raw``, for error messages.
        use_probability: The format's default for an absent ``useProbability`` (LORE-20):
            ``False`` for World Info (SillyTavern never rolls then), ``True`` for card books.

    Returns:
        The tuning fields of ``LoreEntry``, defaults filled in as SillyTavern does.

    Raises:
        InvalidInput: ``invalid_field`` naming the field.
    """
    tuning = convert_at(raw, type_, path)
    names = {f.name: child_path(path, f.encode_name) for f in msgspec.structs.fields(type_)}
    probability = _ranged(tuning.probability, 100, 0, 100, names["probability"])
    logic = _ranged(tuning.selective_logic, 0, 0, 3, names["selective_logic"])
    role = _ranged(tuning.role, 0, 0, 2, names["role"])
    scan_depth = tuning.scan_depth
    if scan_depth is not None and scan_depth < 0:
        raise invalid("invalid_field", f"Field `{names['scan_depth']}` must be >= 0.")
    timed = {
        name: _ranged(getattr(tuning, name), 0, 0, 10**9, names[name])
        for name in ("sticky", "cooldown", "delay")
    }
    return {
        "probability": probability,
        "use_probability": use_probability if tuning.use_probability is None else tuning.use_probability,
        "selective_logic": SELECTIVE_LOGIC[logic],
        "scan_depth": scan_depth,
        "match_whole_words": tuning.match_whole_words,
        "case_sensitive": tuning.case_sensitive,
        "role": ROLES[role],
        "exclude_recursion": bool(tuning.exclude_recursion),
        "prevent_recursion": bool(tuning.prevent_recursion),
        "delay_until_recursion": _recursion_level(
            tuning.delay_until_recursion, names["delay_until_recursion"]
        ),
        "group": tuning.group or "",
        "group_override": bool(tuning.group_override),
        "group_weight": _ranged(tuning.group_weight, 100, 0, 10**9, names["group_weight"]),
        "use_group_scoring": tuning.use_group_scoring,
        **timed,
    }


def _recursion_level(value: bool | int | str | None, path: str) -> bool | int:
    """``delayUntilRecursion``: ``true``/``false``, a level number, or a number as text (ST's UI)."""
    if value is None:
        return False
    if isinstance(value, str):
        if not value.strip().isdigit() or len(value.strip()) > 16:
            raise invalid("invalid_field", f"Field `{path}` must be true, false or a level number.")
        return int(value)
    if not isinstance(value, bool) and value < 0:
        raise invalid("invalid_field", f"Field `{path}` must be >= 0.")
    return value


def _ranged(value: Num | None, default: int, low: int, high: int, path: str) -> int:
    number = default if value is None else to_int(value, path)
    if not low <= number <= high:
        raise invalid("invalid_field", f"Field `{path}` must be {low}..{high}, got {number}.")
    return number


def to_int(value: Num, path: str) -> int:
    """Accept an integer, or a float with an integral value (some writers emit ``100.0``).

    Args:
        value: A JSON number.
        path: Its document path, for the message.

    Returns:
        The integer.

    Raises:
        InvalidInput: ``invalid_field`` for a fractional or non-finite number.
    """
    if isinstance(value, float):
        if not value.is_integer():
            raise invalid("invalid_field", f"Field `{path}` must be an integer, got {value}.")
        return int(value)
    return value


class WireEntry(msgspec.Struct, kw_only=True):
    """The entry fields both formats have, as a file holds them (each codec adds its own).

    The first eight are four fields (``ALIASES``), each under its World Info and its card name.
    """

    key: list[str] | str | None = None
    keys: list[str] | str | None = None
    keysecondary: list[str] | str | None = None
    secondary_keys: list[str] | str | None = None
    disable: bool | None = None
    enabled: bool | None = None
    order: Num | None = None
    insertion_order: Num | None = None
    comment: str | None = None
    content: str | None = None
    constant: bool | None = None
    selective: bool | None = None
    extensions: dict[str, Any] | None = None


class OwnFields(msgspec.Struct, frozen=True, kw_only=True):
    """What a codec reads its own way, for :func:`lore_entry`.

    Attributes:
        id: The entry's id in the file (``None``: none; ``assign_ids`` numbers it later).
        priority: Budget priority; ``None`` takes the insertion order (LORE-20).
        use_regex: Whether bare keys are patterns (LORE-5).
        extensions: The entry's ``extensions`` as kept.
        tuning: The tuning fields of ``LoreEntry`` (``tuning_values``).
        known: The fields of the file object it read (kept out of ``LoreEntry.extra``).
        extra: Fields to keep in ``LoreEntry.extra`` besides the unknown ones.
    """

    id: int | str | None
    priority: int | None
    use_regex: bool
    extensions: dict[str, Any]
    tuning: dict[str, Any]
    known: frozenset[str]
    extra: dict[str, Any] = msgspec.field(default_factory=dict)


W = TypeVar("W", bound=WireEntry)


def lore_entry(
    raw: dict[str, Any],
    path: str,
    wire_type: type[W],
    own: Callable[[dict[str, Any], W, str], OwnFields],
    *,
    world_info: bool,
) -> LoreEntry:
    """Decode one entry object of either format into a ``LoreEntry`` (the one mapping of both).

    Args:
        raw: The entry object.
        path: Its document path, for error messages.
        wire_type: The codec's typed view of an entry (``WireEntry`` plus its own fields).
        own: Reads the codec's own fields; called after the shared ones are validated.
        world_info: Whose names win when a field stands under both (``ALIASES``): World
            Info's (``True``) or the card's; the other name then stays in ``extra``.

    Returns:
        The entry; ``id`` is the file's (``""`` when it has none).

    Raises:
        InvalidInput: ``invalid_field`` naming the field.
    """
    wire = convert_at(raw, wire_type, path)
    # World Info name -> the name read: the format's own when present, else the other format's
    read = {
        st: (st if st in raw else card) if world_info else (card if card in raw else st)
        for st, card in ALIASES
    }
    number = getattr(wire, read["order"])
    where = child_path(path, read["order"])
    insertion = DEFAULT_INSERTION_ORDER if number is None else to_int(number, where)
    decorators, body = split_decorators(wire.content or "")
    fields = own(raw, wire, path)
    used = _SHARED_NAMES | fields.known | set(read.values())
    extra = {k: v for k, v in raw.items() if k not in used} | fields.extra
    return LoreEntry(
        id="" if fields.id is None else str(fields.id),
        keys=split_keys(getattr(wire, read["key"])),
        secondary_keys=split_keys(getattr(wire, read["keysecondary"])),
        content=body,
        decorators=decorators,
        comment=wire.comment or "",
        constant=bool(wire.constant),
        enabled=is_enabled(raw, wire.disable, wire.enabled, prefer_disable=world_info),
        selective=bool(wire.selective),
        priority=insertion if fields.priority is None else fields.priority,
        use_regex=fields.use_regex,
        order=order_from_insertion(insertion),
        extensions=json_pairs(fields.extensions),
        extra=json_pairs(extra),
        **fields.tuning,
    )


def is_enabled(
    raw: dict[str, Any], disable: bool | None, enabled: bool | None, *, prefer_disable: bool
) -> bool:
    """Read the enabled flag from ``disable`` (World Info) or ``enabled`` (card).

    Args:
        raw: The entry object, to see which of the two names it has.
        disable: Its typed ``disable`` value.
        enabled: Its typed ``enabled`` value.
        prefer_disable: Which name wins when both are present (the format's native one).

    Returns:
        True unless the entry is switched off; absent or ``null`` means enabled.
    """
    if (prefer_disable and "disable" in raw) or "enabled" not in raw:
        return not disable
    return True if enabled is None else enabled


def split_keys(value: list[str] | str | None) -> tuple[str, ...]:
    """Keys as a tuple; a legacy comma-separated string is split, ``/regex,with,commas/`` kept whole.

    Args:
        value: A JSON array of strings, a comma-separated string, or ``None``.

    Returns:
        The keys, empty strings dropped from a split string (LORE-20).
    """
    if value is None:
        return ()
    if isinstance(value, str):
        return split_key_string(value)
    return tuple(value)


def assign_ids(candidates: Iterable[str | None]) -> tuple[str, ...]:
    """Make entry ids unique: the first use of an id keeps it, the rest get fresh numbers.

    Fresh ids are the smallest unused non-negative integers, as SillyTavern assigns them.

    Args:
        candidates: The id each entry carries in the file, or ``None`` when it has none.

    Returns:
        One unique id per candidate, in order.
    """
    wanted = list(candidates)
    used: set[str] = set()
    keep: list[bool] = []
    for cand in wanted:
        keep.append(cand is not None and cand not in used)
        if cand is not None:
            used.add(cand)
    counter = 0
    result: list[str] = []
    for cand, kept in zip(wanted, keep, strict=True):
        if kept and cand is not None:
            result.append(cand)
            continue
        while str(counter) in used:
            counter += 1
        used.add(str(counter))
        result.append(str(counter))
    return tuple(result)
