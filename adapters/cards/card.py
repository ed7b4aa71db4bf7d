"""Character cards (V1, CCv2, CCv3) <-> ``CardPersona``.

The card version comes from the JSON ``spec`` field only: ``chara_card_v3``, ``chara_card_v2``,
or no ``spec`` at all with the V1 fields at the top level. Unknown fields survive: unknown
``data`` fields in ``CardPersona.extra``, ``data.extensions`` verbatim in ``extensions``,
unknown fields beside ``spec``/``data`` in ``wrapper_extra`` (except the V1 mirror copies
SillyTavern writes there, which are regenerated from ``data`` when a V2 chunk is written).
"""

from __future__ import annotations

from typing import Any

import msgspec

from adapters.cards.cardbook import decode_card_book, encode_card_book
from adapters.cards.jsondoc import convert_at, require_object
from adapters.cards.limits import CardLimits, invalid
from engine.lorebook.model import JsonPairs, LoreBook, json_pairs, pairs_to_dict

__all__ = [
    "CARD_SPECS",
    "CardPersona",
    "decode_card_document",
    "encode_card_v2",
    "encode_card_v3",
    "is_v1_card",
]

CARD_SPECS = ("chara_card_v2", "chara_card_v3")
_V1_MIRRORS = frozenset(
    {
        "name",
        "description",
        "personality",
        "scenario",
        "first_mes",
        "mes_example",
        "creatorcomment",
        "tags",
        "talkativeness",
        "fav",
    }
)
"""Top-level copies SillyTavern writes next to ``data`` for V1 readers (dropped on import)."""
_V1_FIELDS = ("name", "description", "personality", "scenario", "first_mes", "mes_example")


class CardPersona(msgspec.Struct, frozen=True, kw_only=True):
    """A character card as a persona the service can create (SPEC §0 persona, LORE-13).

    Attributes:
        spec: The card's version as read: ``chara_card_v1``, ``chara_card_v2`` or
            ``chara_card_v3``.
        name: Character name.
        description: Character description.
        personality: Personality summary.
        scenario: Scenario text.
        greeting: First message (card ``first_mes``).
        alternate_greetings: Other first messages.
        group_only_greetings: CCv3 greetings for group chats only.
        mes_example: Example dialogue.
        system_prompt: Card system prompt (may contain ``{{original}}``).
        post_history_instructions: Card "jailbreak"/post-history instructions.
        creator_notes: Notes for the user, never sent to the model.
        creator: Card author.
        character_version: Card version string.
        nickname: CCv3 nickname, used for ``{{char}}`` when set.
        tags: Card tags.
        creation_date: CCv3 creation time (unix seconds) when present.
        modification_date: CCv3 modification time (unix seconds) when present.
        book: The embedded lorebook (``character_book``), if any.
        extensions: ``data.extensions``, verbatim.
        extra: Unknown ``data`` fields (``assets``, ``source``, ...), verbatim.
        wrapper_extra: Unknown fields beside ``spec``/``spec_version``/``data``, verbatim.
    """

    spec: str
    name: str
    description: str = ""
    personality: str = ""
    scenario: str = ""
    greeting: str = ""
    alternate_greetings: tuple[str, ...] = ()
    group_only_greetings: tuple[str, ...] = ()
    mes_example: str = ""
    system_prompt: str = ""
    post_history_instructions: str = ""
    creator_notes: str = ""
    creator: str = ""
    character_version: str = ""
    nickname: str | None = None
    tags: tuple[str, ...] = ()
    creation_date: int | float | None = None
    modification_date: int | float | None = None
    book: LoreBook | None = None
    extensions: JsonPairs = ()
    extra: JsonPairs = ()
    wrapper_extra: JsonPairs = ()


class _CardData(msgspec.Struct, kw_only=True):
    name: str | None = None
    description: str | None = None
    personality: str | None = None
    scenario: str | None = None
    first_mes: str | None = None
    mes_example: str | None = None
    creator_notes: str | None = None
    system_prompt: str | None = None
    post_history_instructions: str | None = None
    alternate_greetings: list[str] | None = None
    group_only_greetings: list[str] | None = None
    tags: list[str] | None = None
    creator: str | None = None
    character_version: str | None = None
    nickname: str | None = None
    creation_date: int | float | None = None
    modification_date: int | float | None = None
    extensions: dict[str, Any] | None = None
    character_book: dict[str, Any] | None = None


_DATA_NAMES = frozenset(f.encode_name for f in msgspec.structs.fields(_CardData))
_STRING_FIELDS = (
    "description",
    "personality",
    "scenario",
    "mes_example",
    "creator_notes",
    "system_prompt",
    "post_history_instructions",
    "creator",
    "character_version",
)


def is_v1_card(doc: dict[str, Any]) -> bool:
    """Whether a spec-less object looks like a V1 card (top-level ``name`` and ``first_mes``).

    Args:
        doc: A decoded JSON object without ``spec``.

    Returns:
        True for a V1 card.
    """
    return isinstance(doc.get("name"), str) and "first_mes" in doc and "entries" not in doc


def decode_card_document(doc: dict[str, Any], limits: CardLimits) -> CardPersona:
    """Build a ``CardPersona`` from a decoded card object of any supported version.

    Args:
        doc: The decoded JSON object.
        limits: Lorebook limits for the embedded book.

    Returns:
        The persona with its embedded lorebook, if any.

    Raises:
        InvalidInput: ``unsupported_spec``, ``invalid_card`` or ``invalid_field``.
    """
    spec = doc.get("spec")
    if spec is None and is_v1_card(doc):
        data = dict(doc)
        if "creator_notes" not in data and isinstance(data.get("creatorcomment"), str):
            data["creator_notes"] = data.pop("creatorcomment")
        return _persona(data, "", "chara_card_v1", {}, limits)
    if spec is None:
        raise invalid("invalid_card", "The JSON is not a character card (it has no `spec`).")
    if spec not in CARD_SPECS:
        raise invalid(
            "unsupported_spec",
            f"Unsupported card spec {spec!r}; expected 'chara_card_v2' or 'chara_card_v3'.",
        )
    inner = doc.get("data")
    if not isinstance(inner, dict):
        raise invalid("invalid_card", f"The {spec} card has no `data` object.")
    wrapper = {
        k: v for k, v in doc.items() if k not in {"spec", "spec_version", "data"} and k not in _V1_MIRRORS
    }
    return _persona(inner, "data", spec, wrapper, limits)


def _persona(
    data: dict[str, Any], path: str, spec: str, wrapper: dict[str, Any], limits: CardLimits
) -> CardPersona:
    wire = convert_at(data, _CardData, path)
    if not wire.name:
        field = f"{path}.name" if path else "name"
        raise invalid("invalid_field", f"Field `{field}` must be a non-empty string.")
    book = None
    if wire.character_book is not None:
        where = f"{path}.character_book" if path else "character_book"
        book = decode_card_book(require_object(wire.character_book, where), limits, where)
    strings = {name: getattr(wire, name) or "" for name in _STRING_FIELDS}
    return CardPersona(
        spec=spec,
        name=wire.name,
        greeting=wire.first_mes or "",
        alternate_greetings=tuple(wire.alternate_greetings or ()),
        group_only_greetings=tuple(wire.group_only_greetings or ()),
        nickname=wire.nickname,
        tags=tuple(wire.tags or ()),
        creation_date=wire.creation_date,
        modification_date=wire.modification_date,
        book=book,
        extensions=json_pairs(wire.extensions or {}),
        extra=json_pairs({k: v for k, v in data.items() if k not in _DATA_NAMES}),
        wrapper_extra=json_pairs(wrapper),
        **strings,
    )


def encode_card_v3(persona: CardPersona) -> dict[str, Any]:
    """Render a persona as a Character Card V3 object.

    Args:
        persona: The card persona.

    Returns:
        ``{"spec": "chara_card_v3", "spec_version": "3.0", "data": {...}}`` plus the
        persona's unknown wrapper fields.
    """
    data = _common_data(persona)
    data["group_only_greetings"] = list(persona.group_only_greetings)
    for name in ("nickname", "creation_date", "modification_date"):
        if getattr(persona, name) is not None:
            data[name] = getattr(persona, name)
    if persona.book is not None:
        data["character_book"] = encode_card_book(persona.book)
    wrapper = pairs_to_dict(persona.wrapper_extra)
    return {**wrapper, "spec": "chara_card_v3", "spec_version": "3.0", "data": data}


def encode_card_v2(persona: CardPersona) -> dict[str, Any]:
    """Render a persona as a Character Card V2 object (the ``chara`` PNG backfill).

    V3-only fields are left out; the V1 fields are mirrored at the top level for V1 readers,
    as SillyTavern writes them.

    Args:
        persona: The card persona.

    Returns:
        ``{"spec": "chara_card_v2", "spec_version": "2.0", "data": {...}}`` with V1 mirrors.
    """
    data = _common_data(persona)
    if persona.book is not None:
        data["character_book"] = encode_card_book(persona.book)
    mirrors = {name: data[name] for name in _V1_FIELDS}
    mirrors["creatorcomment"] = persona.creator_notes
    mirrors["tags"] = list(persona.tags)  # SillyTavern writes the top-level copy too (LORE-20)
    mirrors.update({k: v for k, v in data["extensions"].items() if k in ("talkativeness", "fav")})
    wrapper = pairs_to_dict(persona.wrapper_extra)
    return {**wrapper, **mirrors, "spec": "chara_card_v2", "spec_version": "2.0", "data": data}


def _common_data(persona: CardPersona) -> dict[str, Any]:
    data = pairs_to_dict(persona.extra)
    data.update(
        name=persona.name,
        description=persona.description,
        personality=persona.personality,
        scenario=persona.scenario,
        first_mes=persona.greeting,
        mes_example=persona.mes_example,
        creator_notes=persona.creator_notes,
        system_prompt=persona.system_prompt,
        post_history_instructions=persona.post_history_instructions,
        alternate_greetings=list(persona.alternate_greetings),
        tags=list(persona.tags),
        creator=persona.creator,
        character_version=persona.character_version,
        extensions=pairs_to_dict(persona.extensions),
    )
    return data
