"""PNG, CHARX and JSON containers; the card version comes from ``spec``, not the chunk name."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from adapters.cards import DEFAULT_LIMITS, CardPersona, decode_card, decode_lorebook, encode_card
from adapters.cards.persona import persona_from_card
from adapters.cards.png import read_card_chunks
from tests.unit.cards.support import (
    card_png,
    charx,
    fixture,
    minimal_png,
    png_with_chunks,
    text_chunk,
)

V2 = {"spec": "chara_card_v2", "spec_version": "2.0", "data": {"name": "Two", "first_mes": "hi"}}
V3 = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {"name": "Three", "first_mes": "yo"}}
BOOK = {"entries": [{"keys": ["moon"], "content": "The moon.", "insertion_order": 2}]}


def with_book(card: dict[str, Any]) -> dict[str, Any]:
    return {**card, "data": {**card["data"], "character_book": BOOK}}


def test_lore_13_chunk_name_is_not_trusted_for_the_version() -> None:
    swapped = card_png(chara=V3, ccv3=V2)
    persona = decode_card(swapped)
    assert (persona.spec, persona.name) == ("chara_card_v2", "Two")
    only_chara = decode_card(card_png(chara=V3))
    assert (only_chara.spec, only_chara.name) == ("chara_card_v3", "Three")


def test_lore_13_ccv3_is_preferred_whatever_the_chunk_order() -> None:
    assert decode_card(card_png(ccv3=V3, chara=V2)).name == "Three"
    assert decode_card(card_png(chara=V2, ccv3=V3)).name == "Three"


@pytest.mark.parametrize("kind", [b"tEXt", b"zTXt", b"iTXt"])
def test_lore_13_card_in_any_text_chunk_type(kind: bytes) -> None:
    payload = base64.b64encode(json.dumps(V3).encode())
    png = png_with_chunks(text_chunk("Comment", b"unrelated"), text_chunk("ccv3", payload, kind))
    assert decode_card(png).name == "Three"


def test_lore_13_raw_json_in_a_card_chunk_is_accepted() -> None:
    png = png_with_chunks(text_chunk("chara", json.dumps(V2).encode()))
    assert decode_card(png).name == "Two"


def test_lore_13_card_png_import_carries_its_book() -> None:
    book = decode_lorebook(card_png(chara=with_book(V2)), "image/png")
    assert [e.keys for e in book.entries] == [("moon",)]
    assert book.entries[0].order == -2


def test_lore_13_charx_built_in_memory_imports_and_ignores_assets() -> None:
    archive = charx(
        {
            "card.json": json.dumps(with_book(V3)).encode(),
            "assets/icon/images/main.png": minimal_png(),
            "assets/other/audio/theme.mp3": b"\x00" * 64,
            "x_risu.json": b"not even json",
        }
    )
    persona = decode_card(archive, "application/zip")
    assert (persona.spec, persona.name, persona.greeting) == ("chara_card_v3", "Three", "yo")
    assert persona.book is not None
    assert persona.book.entries[0].content == "The moon."
    assert decode_lorebook(archive).entries[0].keys == ("moon",)


def test_lore_13_container_is_sniffed_not_taken_from_content_type() -> None:
    png = card_png(chara=V2)
    assert decode_card(png, "application/json").name == "Two"
    assert decode_card(json.dumps(V3).encode(), "text/plain").name == "Three"
    assert decode_card(b"\xef\xbb\xbf" + json.dumps(V3).encode()).name == "Three"


def test_lore_13_v1_card_is_a_persona() -> None:
    v1 = {
        "name": "Old",
        "description": "d",
        "first_mes": "hello",
        "creatorcomment": "notes",
        "avatar": "none",
    }
    persona = decode_card(json.dumps(v1).encode())
    assert (persona.spec, persona.name, persona.greeting) == ("chara_card_v1", "Old", "hello")
    assert persona.creator_notes == "notes"
    assert dict(persona.extra) == {"avatar": '"none"'}


def test_lore_13_standalone_lorebook_v3_and_bare_character_book() -> None:
    standalone = json.dumps({"spec": "lorebook_v3", "data": BOOK}).encode()
    bare = json.dumps(BOOK).encode()
    assert decode_lorebook(standalone) == decode_lorebook(bare)
    assert decode_lorebook(bare).entries[0].keys == ("moon",)


def test_lore_13_card_persona_fields() -> None:
    card = {
        "spec": "chara_card_v3",
        "spec_version": "3.0",
        "data": {
            "name": "Nyx",
            "nickname": "N",
            "description": "desc",
            "personality": "calm",
            "scenario": "night",
            "first_mes": "Hello",
            "alternate_greetings": ["Hey", "Yo"],
            "group_only_greetings": ["All"],
            "mes_example": "<START>",
            "system_prompt": "Be Nyx. {{original}}",
            "post_history_instructions": "Stay terse.",
            "creator_notes": "for users",
            "creator": "me",
            "character_version": "2",
            "tags": ["night", "cat"],
            "creation_date": 1700000000,
            "extensions": {"depth_prompt": {"prompt": "x", "depth": 4}},
        },
    }
    persona = decode_card(json.dumps(card).encode())
    assert persona.greeting == "Hello"
    assert persona.alternate_greetings == ("Hey", "Yo")
    assert persona.group_only_greetings == ("All",)
    assert persona.system_prompt == "Be Nyx. {{original}}"
    assert persona.post_history_instructions == "Stay terse."
    assert persona.tags == ("night", "cat")
    assert persona.nickname == "N"
    assert persona.creation_date == 1700000000
    assert persona.book is None
    assert json.loads(encode_card(persona)) == card


def test_lore_13_png_export_embeds_ccv3_and_chara_and_replaces_old_chunks() -> None:
    png = card_png(chara=V2)
    persona = decode_card(json.dumps(with_book(V3)).encode())
    out = encode_card(persona, png=png)
    chunks = read_card_chunks(out, DEFAULT_LIMITS)
    assert set(chunks) == {"chara", "ccv3"}
    v3 = json.loads(base64.b64decode(chunks["ccv3"]))
    v2 = json.loads(base64.b64decode(chunks["chara"]))
    assert (v3["spec"], v3["data"]["name"]) == ("chara_card_v3", "Three")
    assert (v2["spec"], v2["data"]["name"], v2["name"], v2["first_mes"]) == (
        "chara_card_v2",
        "Three",
        "Three",
        "yo",
    )
    assert "group_only_greetings" not in v2["data"]
    assert v2["data"]["character_book"]["entries"][0]["keys"] == ["moon"]
    assert out.count(b"tEXtchara\0") == 1
    assert decode_card(out).spec == "chara_card_v3"


def test_lore_13_png_export_keeps_the_image_chunks() -> None:
    png = fixture("own_wren_v2.png")
    out = encode_card(decode_card(png), png=png)
    idat = png.index(b"IDAT") - 4
    image = png[idat : png.index(b"tEXt") - 4]
    assert len(image) > 100 and image in out


def test_issue_31_card_fields_reach_the_persona_and_come_back_in_its_export() -> None:
    """Alternate greetings, example dialogue, personality and scenario survive import → persona →
    export (LORE-13)."""
    data = {
        "name": "Nyx",
        "personality": "calm",
        "scenario": "night",
        "first_mes": "Hello",
        "alternate_greetings": ["Hey {{user}}", "Yo"],
        "mes_example": "<START>\n{{user}}: Hi\n{{char}}: Hm.",
    }
    card = {"spec": "chara_card_v2", "spec_version": "2.0", "data": data}
    persona = persona_from_card(decode_card(json.dumps(card).encode()), persona_id=None, book_id=None)
    assert persona.alternate_greetings == ("Hey {{user}}", "Yo")
    assert persona.mes_example == "<START>\n{{user}}: Hi\n{{char}}: Hm."
    assert (persona.personality, persona.scenario) == ("calm", "night")
    exported = CardPersona(
        spec="chara_card_v3",
        name=persona.name,
        personality=persona.personality,
        scenario=persona.scenario,
        greeting=persona.greeting,
        alternate_greetings=persona.alternate_greetings,
        mes_example=persona.mes_example,
    )
    back = json.loads(encode_card(exported))["data"]
    assert back["alternate_greetings"] == data["alternate_greetings"]
    assert back["mes_example"] == data["mes_example"]
    assert (back["personality"], back["scenario"]) == ("calm", "night")
