"""Import then export gives the file back, modulo the documented normalizations (LORE-13, LORE-6)."""

from __future__ import annotations

import base64
import copy
import json
from typing import Any

import msgspec
import pytest

from adapters.cards import (
    DEFAULT_LIMITS,
    decode_card,
    decode_lorebook,
    encode_card,
    encode_lorebook,
)
from adapters.cards.png import read_card_chunks
from tests.corpus import corpus_params, needs_corpus
from tests.unit.cards.support import WORLD_INFO_FILES, fixture, fixture_json

WORLD_INFO = WORLD_INFO_FILES
CARD_PNGS = ["own_wren_v2.png", *corpus_params("st_default_Seraphina.png")]
"""V2 card PNGs (a ``chara`` chunk with an embedded book): the project's own, then Seraphina."""

# Fields the engine models, with the value SillyTavern uses when a file leaves them out.
ST_MODEL_DEFAULTS: dict[str, Any] = {
    "selectiveLogic": 0,
    "probability": 100,
    "useProbability": False,  # LORE-20: SillyTavern never rolls an entry without the field
    "caseSensitive": None,
    "matchWholeWords": None,
    "scanDepth": None,
    "role": 0,
    "excludeRecursion": False,
    "preventRecursion": False,
    "delayUntilRecursion": False,
    "sticky": 0,
    "cooldown": 0,
    "delay": 0,
    "group": "",
    "groupOverride": False,
    "groupWeight": 100,
    "useGroupScoring": None,
}


def normalized_world_info(original: dict[str, Any]) -> dict[str, Any]:
    """The documented World Info export normalizations applied to an input file."""
    doc = copy.deepcopy(original)
    if doc.get("extensions") == {}:
        del doc["extensions"]
    for entry in doc["entries"].values():
        for name, default in ST_MODEL_DEFAULTS.items():
            if entry.get(name) is None:
                entry[name] = default
    return doc


def normalized_v3(original_v2: dict[str, Any]) -> dict[str, Any]:
    """The documented card export normalizations applied to a V2 card (ST writes V1 mirrors)."""
    data = copy.deepcopy(original_v2["data"])
    data["group_only_greetings"] = []
    book = data["character_book"]
    book.setdefault("extensions", {})
    for entry in book["entries"]:
        entry.setdefault("priority", entry["insertion_order"])
        entry.setdefault("use_regex", False)
    mirrors = {"name", "description", "personality", "scenario", "first_mes", "mes_example"}
    mirrors |= {"creatorcomment", "talkativeness", "fav", "tags", "spec", "spec_version", "data"}
    wrapper = {k: v for k, v in original_v2.items() if k not in mirrors}
    return {**wrapper, "spec": "chara_card_v3", "spec_version": "3.0", "data": data}


def chara_of(name: str) -> dict[str, Any]:
    chunks = read_card_chunks(fixture(name), DEFAULT_LIMITS)
    return json.loads(base64.b64decode(chunks["chara"]))


def seraphina_v2() -> dict[str, Any]:
    return chara_of("st_default_Seraphina.png")


@pytest.mark.parametrize("name", WORLD_INFO)
def test_lore_13_world_info_round_trip_keeps_every_field(name: str) -> None:
    exported = json.loads(encode_lorebook(decode_lorebook(fixture(name)), "sillytavern"))
    assert exported == normalized_world_info(fixture_json(name))


@pytest.mark.parametrize("name", WORLD_INFO)
@pytest.mark.parametrize("fmt", ["sillytavern", "ccv3"])
def test_lore_13_export_is_a_fixpoint(name: str, fmt: str) -> None:
    once = encode_lorebook(decode_lorebook(fixture(name)), fmt)  # type: ignore[arg-type]
    assert encode_lorebook(decode_lorebook(once), fmt) == once  # type: ignore[arg-type]


@pytest.mark.parametrize("name", CARD_PNGS)
def test_lore_13_v2_card_round_trip_keeps_every_field(name: str) -> None:
    original = chara_of(name)
    exported = json.loads(encode_card(decode_card(fixture(name))))
    assert exported == normalized_v3(original)


@pytest.mark.parametrize("name", CARD_PNGS)
def test_lore_13_png_round_trip_is_lossless_for_the_persona(name: str) -> None:
    png = fixture(name)
    persona = decode_card(png)
    again = decode_card(encode_card(persona, png=png))
    assert again == msgspec.structs.replace(persona, spec="chara_card_v3")


@pytest.mark.parametrize("name", CARD_PNGS)
def test_lore_13_card_lorebook_ccv3_export_keeps_entry_extensions(name: str) -> None:
    original = chara_of(name)["data"]["character_book"]
    exported = json.loads(encode_lorebook(decode_lorebook(fixture(name)), "ccv3"))
    assert exported["spec"] == "lorebook_v3"
    for before, after in zip(original["entries"], exported["data"]["entries"], strict=True):
        assert after["extensions"] == before["extensions"]
        assert after["position"] == before["position"]
        assert after["insertion_order"] == before["insertion_order"]
        assert after["comment"] == before["comment"]


UNKNOWN = {"nested": [1, {"deep": None, "s": "ü"}], "flag": True, "n": 1.5}


def test_lore_13_unknown_world_info_fields_survive() -> None:
    doc = {
        "x_book": UNKNOWN,
        "originalData": {"entries": []},
        "entries": {
            "7": {
                "uid": 7,
                "key": ["a"],
                "content": "c",
                "comment": "Shown in the editor",
                "x_entry": UNKNOWN,
                "characterFilter": {"names": ["Alice"], "isExclude": False},
                "extensions": {"x_ext": UNKNOWN},
                "outletName": "",
            }
        },
    }
    exported = json.loads(encode_lorebook(decode_lorebook(json.dumps(doc).encode())))
    assert exported["x_book"] == UNKNOWN
    assert exported["originalData"] == {"entries": []}
    entry = exported["entries"]["7"]
    assert entry["x_entry"] == UNKNOWN
    assert entry["characterFilter"] == {"names": ["Alice"], "isExclude": False}
    assert entry["extensions"] == {"x_ext": UNKNOWN}
    assert entry["outletName"] == ""
    assert entry["comment"] == "Shown in the editor"


def test_lore_13_unknown_card_fields_survive() -> None:
    card = {
        "spec": "chara_card_v3",
        "spec_version": "3.0",
        "x_wrapper": UNKNOWN,
        "data": {
            "name": "Nyx",
            "first_mes": "Hi",
            "assets": [{"type": "icon", "uri": "ccdefault:", "name": "main", "ext": "png"}],
            "creator_notes_multilingual": {"vi": "ghi chú"},
            "source": ["https://example.org/nyx"],
            "x_data": UNKNOWN,
            "extensions": {"x_app": UNKNOWN},
            "character_book": {
                "name": "Nyx lore",
                "x_book": UNKNOWN,
                "extensions": {"x_book_ext": 1},
                "entries": [
                    {
                        "id": 3,
                        "keys": ["moon"],
                        "content": "@@depth 4\nThe moon.",
                        "enabled": True,
                        "insertion_order": 5,
                        "use_regex": False,
                        "name": "Moon (display)",
                        "x_entry": UNKNOWN,
                        "extensions": {"x_ext": UNKNOWN, "depth": 4, "role": 1},
                    }
                ],
            },
        },
    }
    persona = decode_card(json.dumps(card).encode())
    exported = json.loads(encode_card(persona))
    assert exported["x_wrapper"] == UNKNOWN
    data = exported["data"]
    for name in ("assets", "creator_notes_multilingual", "source", "x_data", "extensions"):
        assert data[name] == card["data"][name]
    book = data["character_book"]
    assert book["x_book"] == UNKNOWN
    assert book["extensions"] == {"x_book_ext": 1}
    entry = book["entries"][0]
    original = card["data"]["character_book"]["entries"][0]  # type: ignore[index]
    for name in ("id", "keys", "content", "insertion_order", "name", "x_entry", "extensions"):
        assert entry[name] == original[name]
    assert persona.book is not None
    assert persona.book.entries[0].role == "user"
    assert persona.book.entries[0].decorators[0].name == "depth"


@needs_corpus
def test_lore_13_changed_tuning_rewrites_only_its_extension_key() -> None:
    book = decode_lorebook(fixture("st_default_Seraphina.png"))
    first = msgspec.structs.replace(book.entries[0], probability=30, use_probability=True)
    edited = msgspec.structs.replace(book, entries=(first, *book.entries[1:]))
    exported = json.loads(encode_lorebook(edited, "ccv3"))["data"]["entries"]
    assert exported[0]["extensions"] == {"position": 0, "probability": 30, "useProbability": True}
    assert exported[1]["extensions"] == {"position": 0, "probability": None, "useProbability": False}


@pytest.mark.parametrize("name", WORLD_INFO)
def test_lore_13_world_info_survives_a_trip_through_a_card(name: str) -> None:
    if True:
        direct = json.loads(encode_lorebook(decode_lorebook(fixture(name))))
        via_card = decode_lorebook(encode_lorebook(decode_lorebook(fixture(name)), "ccv3"))
        hopped = json.loads(encode_lorebook(via_card))
        for uid, entry in direct["entries"].items():
            back = dict(hopped["entries"][uid])
            back.pop("extensions", None)
            entry.pop("extensions", None)
            assert back == entry, (name, uid)


@pytest.mark.parametrize("name", CARD_PNGS)
def test_lore_13_card_book_survives_a_trip_through_world_info(name: str) -> None:
    book = decode_lorebook(fixture(name))
    direct = json.loads(encode_lorebook(book, "ccv3"))
    via_st = decode_lorebook(encode_lorebook(book, "sillytavern"))
    hopped = json.loads(encode_lorebook(via_st, "ccv3"))
    assert hopped["data"]["entries"] == direct["data"]["entries"]


def test_lore_13_array_shaped_world_info_and_card_aliases() -> None:
    doc = {
        "entries": [
            {
                "uid": 4,
                "keys": ["a", "b"],
                "secondary_keys": ["c"],
                "enabled": False,
                "insertion_order": 3,
                "content": "x",
            },
            {"key": "d, e", "content": "y"},
        ]
    }
    book = decode_lorebook(json.dumps(doc).encode())
    first, second = book.entries
    assert (first.id, first.keys, first.secondary_keys, first.enabled) == ("4", ("a", "b"), ("c",), False)
    assert first.order == -3
    assert (second.id, second.keys) == ("0", ("d", "e"))
    exported = json.loads(encode_lorebook(book))["entries"]
    assert exported["4"]["key"] == ["a", "b"]
    assert exported["4"]["disable"] is True
    assert exported["4"]["order"] == 3
    assert "keys" not in exported["4"]


def test_lore_10_decorators_are_parsed_and_rendered_back() -> None:
    doc = {"entries": {"0": {"uid": 0, "key": ["a"], "content": "@@depth   5\n@@@role user\nBody"}}}
    book = decode_lorebook(json.dumps(doc).encode())
    entry = book.entries[0]
    assert entry.content == "Body"
    assert [(d.name, d.value, d.fallback) for d in entry.decorators] == [
        ("depth", "5", False),
        ("role", "user", True),
    ]
    # Documented normalization: a decorator line is re-rendered as `@@name value`.
    exported = json.loads(encode_lorebook(book))["entries"]["0"]
    assert exported["content"] == "@@depth 5\n@@@role user\nBody"


@needs_corpus
def test_lore_8_edited_order_exports_as_insertion_order() -> None:
    book = decode_lorebook(fixture("st_default_Seraphina.png"))
    moved = msgspec.structs.replace(book.entries[2], order=-7)
    edited = msgspec.structs.replace(book, entries=(*book.entries[:2], moved, book.entries[3]))
    card_entries = json.loads(encode_lorebook(edited, "ccv3"))["data"]["entries"]
    assert [e["insertion_order"] for e in card_entries] == [100, 100, 7, 100]
    world_entries = json.loads(encode_lorebook(edited, "sillytavern"))["entries"]
    assert [world_entries[k]["order"] for k in ("0", "1", "2", "3")] == [100, 100, 7, 100]
