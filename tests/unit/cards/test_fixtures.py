"""Every card file imports and decodes to what it says (LORE-13).

The project's own files (``tests/fixtures/cards.py``) always run; the third-party corpus tests
(Seraphina, TavernKit) run when the corpus is present (``tests/corpus.py``).
"""

from __future__ import annotations

import pytest

from adapters.cards import decode_card, decode_lorebook
from engine.errors import InvalidInput
from tests.corpus import CORPUS, needs_corpus
from tests.fixtures.cards import CARD_NAME, GREETING, card_png, card_v2, card_v3, own_file, world_info
from tests.unit.cards.support import WORLD_INFO_FILES, fixture, fixture_json


@needs_corpus
def test_corpus_directory_is_complete() -> None:
    assert CORPUS is not None
    assert len(list(CORPUS.iterdir())) >= 9


@pytest.mark.parametrize("name", WORLD_INFO_FILES)
def test_lore_13_world_info_fixture_imports_every_entry(name: str) -> None:
    raw = fixture_json(name)
    book = decode_lorebook(fixture(name), "application/json")
    assert len(book.entries) == len(raw["entries"])
    by_id = {entry.id: entry for entry in book.entries}
    for uid, wire in raw["entries"].items():
        entry = by_id[uid]
        assert entry.keys == tuple(wire["key"])
        assert entry.secondary_keys == tuple(wire["keysecondary"])
        assert entry.content == wire["content"]
        assert entry.comment == wire["comment"]
        assert entry.enabled is not wire["disable"]
        assert entry.constant is wire["constant"]
        assert entry.order == -wire["order"]
        assert entry.priority == wire["order"]


OWN_CARDS = ["own_wren_v2.png", "own_wren_both.png", "own_wren.charx", "own_wren_v3.json"]


@pytest.mark.parametrize("name", OWN_CARDS)
def test_lore_13_own_card_decodes_to_persona_with_lorebook(name: str) -> None:
    persona = decode_card(own_file(name))
    assert persona.name == CARD_NAME
    assert persona.greeting == GREETING
    assert persona.creator == "Hearth tests"
    assert persona.book is not None and persona.book.name == "Lanternfall"
    wires = world_info()["entries"]
    assert [e.keys for e in persona.book.entries] == [tuple(w["key"]) for w in wires.values()]
    assert [e.order for e in persona.book.entries] == [-w["order"] for w in wires.values()]
    assert [e.enabled for e in persona.book.entries] == [not w["disable"] for w in wires.values()]


def test_lore_13_own_card_book_matches_its_world_info_file() -> None:
    card_book = decode_lorebook(own_file("own_wren_v2.png"))
    world = decode_lorebook(own_file("own_lanternfall_world.json"))
    assert [(e.id, e.keys, e.secondary_keys, e.content, e.order) for e in card_book.entries] == [
        (e.id, e.keys, e.secondary_keys, e.content, e.order) for e in world.entries
    ]


def test_lore_13_own_png_prefers_the_ccv3_chunk_over_chara() -> None:
    v3 = card_v3()
    v3["data"]["name"] = "Wren (V3)"
    persona = decode_card(card_png(chara=card_v2(), ccv3=v3))
    assert (persona.name, persona.spec) == ("Wren (V3)", "chara_card_v3")
    assert decode_card(card_png(chara=card_v2())).spec == "chara_card_v2"


@needs_corpus
def test_lore_13_seraphina_png_decodes_to_persona_with_lorebook() -> None:
    persona = decode_card(fixture("st_default_Seraphina.png"), "image/png")
    assert persona.spec == "chara_card_v2"
    assert persona.name == "Seraphina"
    assert persona.greeting.startswith("*You wake with a start")
    assert persona.creator_notes == "ST Default Bot contest winner: roleplay bots category"
    assert persona.creator == "OtisAlejandro"
    assert dict(persona.extensions)["world"] == '"Eldoria"'
    assert persona.book is not None
    assert persona.book.name == "Eldoria"
    assert [e.keys[0] for e in persona.book.entries] == ["eldoria", "shadowfang", "glade", "power"]
    first = persona.book.entries[0]
    assert first.keys == ("eldoria", "wood", "forest", "magical forest")
    assert first.use_probability is False
    assert first.probability == 100
    assert first.order == -100


@needs_corpus
def test_lore_13_seraphina_book_matches_the_eldoria_world_file() -> None:
    card_book = decode_lorebook(fixture("st_default_Seraphina.png"))
    world = decode_lorebook(fixture("st_default_Eldoria.json"))
    assert [(e.id, e.keys, e.content, e.order) for e in card_book.entries] == [
        (e.id, e.keys, e.content, e.order) for e in world.entries
    ]


@needs_corpus
def test_lore_13_ccv3_chunk_is_preferred_over_chara() -> None:
    persona = decode_card(fixture("tavernkit_ccv3_over_chara.png"))
    assert persona.name == "V3"
    assert persona.spec == "chara_card_v3"


@needs_corpus
def test_lore_13_card_without_book_is_not_a_lorebook() -> None:
    with pytest.raises(InvalidInput) as caught:
        decode_lorebook(fixture("tavernkit_ccv3_over_chara.png"))
    assert caught.value.code == "card_without_lorebook"


@needs_corpus
def test_lore_4_selective_logic_numbers_follow_sillytavern() -> None:
    book = decode_lorebook(fixture("tavernkit_wi_selective_logic.json"))
    assert [e.selective_logic for e in book.entries] == ["AND_ANY", "NOT_ALL", "NOT_ANY", "AND_ALL"]
    assert all(e.selective for e in book.entries)


@needs_corpus
def test_lore_4_disabled_entry_is_kept_disabled() -> None:
    book = decode_lorebook(fixture("tavernkit_wi_complete_book.json"))
    disabled = [e for e in book.entries if not e.enabled]
    assert [e.comment for e in disabled] == ["This entry is disabled"]


@needs_corpus
def test_lore_6_comments_are_display_names() -> None:
    book = decode_lorebook(fixture("tavernkit_wi_basic_entries.json"))
    assert [e.comment for e in book.entries] == [
        "Main character entry",
        "Secondary character with selective logic",
        "Location entry - always active",
    ]


@needs_corpus
def test_lore_13_tuning_fields_are_decoded() -> None:
    book = decode_lorebook(fixture("tavernkit_wi_complete_book.json"))
    assert (book.name, book.scan_depth, book.token_budget, book.recursive_scanning) == (
        "Test Fantasy Lorebook",
        4,
        2048,
        True,
    )
    entries = {e.id: e for e in book.entries}
    assert entries["2"].probability == 80
    assert entries["2"].case_sensitive is False
    assert entries["3"].case_sensitive is True
    assert entries["3"].match_whole_words is True
    assert entries["3"].scan_depth == 2
    assert entries["3"].prevent_recursion is True
    assert entries["0"].case_sensitive is None
    recursion = decode_lorebook(fixture("tavernkit_wi_recursion_settings.json"))
    assert [e.exclude_recursion for e in recursion.entries] == [False, False, True, False, False]


@needs_corpus
def test_lore_13_fields_the_engine_ignores_are_carried_in_extra() -> None:
    book = decode_lorebook(fixture("tavernkit_wi_timed_effects.json"))
    extra = dict(book.entries[0].extra)
    assert book.entries[0].sticky == 3 and "sticky" not in extra  # LORE-14: modelled now
    assert extra["depth"] == "4"
    assert extra["position"] == "0"
    assert "key" not in extra and "probability" not in extra
    assert dict(book.extra)["_comment"].startswith('"World Info entries with timed')


@needs_corpus
def test_lore_8_lower_file_order_goes_earlier_here() -> None:
    book = decode_lorebook(fixture("tavernkit_wi_complete_book.json"))
    entries = {e.id: e for e in book.entries}
    # File order: "0" is 10, "2" is 50, "1" is 100, "3" is 200 (lower goes earlier in ST).
    ranked = sorted(("0", "1", "2", "3"), key=lambda i: -entries[i].order)
    assert ranked == ["0", "2", "1", "3"]
    # ST fills its budget from the highest `order` down: that is our priority.
    assert entries["3"].priority > entries["1"].priority > entries["0"].priority
