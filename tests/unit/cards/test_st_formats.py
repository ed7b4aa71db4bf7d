"""SillyTavern/CCv3 format details (LORE-18, LORE-20, LORE-21), on books written by the tests."""

from __future__ import annotations

import base64
import json
from typing import Any

import msgspec
import pytest

from adapters.cards import CardPersona, decode_card, decode_lorebook, encode_card, encode_lorebook
from adapters.cards.png import read_card_chunks
from adapters.cards.report import import_report
from engine.errors import InvalidInput
from engine.lorebook import LoreBook, LoreEntry, LoreState, compile_book, json_pairs, scan_lore
from tests.unit.cards.support import b64json, minimal_png, png_with_chunks, text_chunk


def world(*entries: dict[str, Any], **book: Any) -> bytes:
    return json.dumps({**book, "entries": {str(i): {"uid": i, **e} for i, e in enumerate(entries)}}).encode()


def card_book(*entries: dict[str, Any]) -> bytes:
    data = {"name": "Mira", "character_book": {"entries": list(entries)}}
    return json.dumps({"spec": "chara_card_v2", "spec_version": "2.0", "data": data}).encode()


def rolls_included(book: LoreBook, turns: int = 40) -> int:
    compiled = compile_book(msgspec.structs.replace(book, id="b"))
    return sum(
        bool(
            scan_lore(
                [compiled], ["the owl"], LoreState(), turn_id=f"t{t}", message_count=1,
                at_greeting=False, count_tokens=len,
            ).messages
        )
        for t in range(turns)
    )  # fmt: skip


def test_lore_20_world_info_without_use_probability_never_rolls() -> None:
    old = decode_lorebook(world({"key": ["owl"], "content": "Owls.", "probability": 25}))
    assert old.entries[0].use_probability is False
    assert rolls_included(old) == 40
    flagged = {"key": ["owl"], "content": "Owls.", "probability": 25, "useProbability": True}
    rolled = decode_lorebook(world(flagged))
    assert 0 < rolls_included(rolled) < 40  # control: with the field it rolls


def test_lore_20_card_books_roll_by_default() -> None:
    book = decode_lorebook(
        card_book({"keys": ["owl"], "content": "Owls.", "insertion_order": 1, "enabled": True,
                   "extensions": {"probability": 25}})
    )  # fmt: skip
    assert book.entries[0].use_probability is True
    assert 0 < rolls_included(book) < 40


def test_lore_20_legacy_key_strings_keep_regex_commas() -> None:
    book = decode_lorebook(world({"key": "/foo,bar/i, baz ,, qux", "keysecondary": "a,b", "content": "x"}))
    assert book.entries[0].keys == ("/foo,bar/i", "baz", "qux")
    assert book.entries[0].secondary_keys == ("a", "b")


def test_lore_20_priority_and_use_regex_survive_world_info_export() -> None:
    regex = LoreEntry(
        id="0", keys=("k.y",), priority=7, order=-3, use_regex=True, extra=json_pairs({"position": 1})
    )
    book = LoreBook(name="B", matching="whole_words", entries=(regex,))
    exported = json.loads(encode_lorebook(book, "sillytavern"))
    assert exported["entries"]["0"]["order"] == 3
    assert exported["entries"]["0"]["extensions"]["hearth"] == {"priority": 7, "use_regex": True}
    assert exported["extensions"]["hearth"] == {"matching": "whole_words"}
    back = decode_lorebook(json.dumps(exported).encode())
    assert back == book


def test_lore_20_unknown_card_positions_survive_world_info() -> None:
    raw = card_book(
        {"keys": ["k"], "content": "x", "insertion_order": 5, "enabled": True, "position": "after_char_defs"}
    )
    book = decode_lorebook(raw)
    via_world = decode_lorebook(encode_lorebook(book, "sillytavern"))
    assert via_world == book
    card = json.loads(encode_lorebook(via_world, "ccv3"))
    assert card["data"]["entries"][0]["position"] == "after_char_defs"


def test_lore_20_png_export_writes_both_chunks_complete() -> None:
    book = LoreBook(name="B", entries=(LoreEntry(id="0", keys=("k",), content="x", sticky=2, group="g"),))
    tags = ("fantasy", "maps")
    persona = CardPersona(spec="chara_card_v3", name="Mira", tags=tags, nickname="Mi", book=book)
    chunks = read_card_chunks(encode_card(persona, png=minimal_png()), limits=_limits())
    v2 = json.loads(base64.b64decode(chunks["chara"]))
    v3 = json.loads(base64.b64decode(chunks["ccv3"]))
    assert v2["tags"] == ["fantasy", "maps"] and v2["data"]["tags"] == ["fantasy", "maps"]
    assert v2["data"]["character_book"] == v3["data"]["character_book"]
    assert v2["data"]["character_book"]["entries"][0]["extensions"]["sticky"] == 2
    assert v3["data"]["nickname"] == "Mi" and "nickname" not in v2["data"]


def test_lore_20_data_only_in_the_chara_chunk_is_kept() -> None:
    v3 = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {"name": "Mira", "extensions": {"a": 1}}}
    v2 = {
        "spec": "chara_card_v2",
        "data": {
            "name": "Old Mira",
            "scenario": "A harbour town.",
            "extensions": {"a": 2, "depth_prompt": {"prompt": "p"}},
            "character_book": {"entries": [{"keys": ["k"], "content": "v2 only", "insertion_order": 1}]},
        },
    }
    png = png_with_chunks(text_chunk("chara", b64json(v2)), text_chunk("ccv3", b64json(v3)))
    persona = decode_card(png)
    assert persona.name == "Mira" and persona.scenario == "A harbour town."  # V3 wins, V2 fills
    assert dict(persona.extensions) == dict(json_pairs({"a": 1, "depth_prompt": {"prompt": "p"}}))
    assert persona.book is not None and persona.book.entries[0].content == "v2 only"


def test_lore_18_imported_books_default_to_whole_words_and_carry_hearth_settings() -> None:
    """Issue 31, LORE-5: whole words with endings unless the file asks; Hearth's setting wins."""
    plain = decode_lorebook(world({"key": ["wood"], "content": "x"}))
    assert plain.matching == "inflections"
    assert decode_lorebook(card_book({"keys": ["wood"], "content": "x"})).matching == "inflections"
    settings = {"hearth": {"matching": "whole_words"}}
    tuned = decode_lorebook(world({"key": ["wood"], "content": "x"}, extensions=settings))
    assert tuned.matching == "whole_words" and tuned.extensions == ()
    loose = decode_lorebook(world({"key": ["wood"], "content": "x"}, matchWholeWords=False))
    assert loose.matching == "substring"
    assert (
        decode_lorebook(world({"key": ["wood"], "content": "x"}, matchWholeWords=True)).matching
        == "whole_words"
    )
    both = decode_lorebook(
        world({"key": ["wood"], "content": "x"}, matchWholeWords=False, extensions=settings)
    )
    assert both.matching == "whole_words"


def test_lore_18_export_writes_the_matching_only_when_the_file_would_not_give_it() -> None:
    """Issue 31: an imported book exports its own fields unchanged; a changed default travels."""
    for book in (
        world({"key": ["wood"], "content": "x"}),
        world({"key": ["w"], "content": "x"}, matchWholeWords=False),
    ):
        decoded = decode_lorebook(book)
        exported = json.loads(encode_lorebook(decoded))
        assert "extensions" not in exported and exported.get("matchWholeWords") == json.loads(book).get(
            "matchWholeWords"
        )
        changed = msgspec.structs.replace(decoded, matching="whole_words")
        assert decode_lorebook(encode_lorebook(changed)).matching == "whole_words"
    with pytest.raises(InvalidInput) as bad:
        decode_lorebook(world({"key": ["w"], "content": "x"}, matchWholeWords="no"))
    assert bad.value.code == "invalid_field" and "matchWholeWords" in str(bad.value)


def test_lore_14_15_16_fields_decode_from_both_formats() -> None:
    st = decode_lorebook(
        world({"key": ["k"], "content": "x", "sticky": 3, "cooldown": 2, "delay": 4, "group": "a, b",
               "groupOverride": True, "groupWeight": 40, "useGroupScoring": True, "delayUntilRecursion": 2})
    ).entries[0]  # fmt: skip
    card = decode_lorebook(
        card_book({"keys": ["k"], "content": "x", "insertion_order": 1, "extensions": {
            "sticky": 3, "cooldown": 2, "delay": 4, "group": "a, b", "group_override": True,
            "group_weight": 40, "use_group_scoring": True, "delay_until_recursion": 2}})
    ).entries[0]  # fmt: skip
    for entry in (st, card):
        assert (entry.sticky, entry.cooldown, entry.delay, entry.group) == (3, 2, 4, "a, b")
        assert (entry.group_override, entry.group_weight, entry.use_group_scoring) == (True, 40, True)
        assert entry.delay_until_recursion == 2


def test_lore_21_import_report_lists_ignored_parts_per_entry() -> None:
    book = decode_lorebook(
        world(
            {"key": ["/(?<=a)b/", "owl"], "content": "Owls."},
            {"key": ["moth"], "content": "@@probability abc\n@@depth 4\n@@zzz\nMoths."},
            {"key": ["bat"], "content": "Bats.", "position": 4, "ignoreBudget": True,
             "characterFilter": {"names": ["Mira"], "tags": []}},
            {"key": ["fox"], "content": "Foxes.", "position": 1, "characterFilter": {"names": []}},
        )
    )  # fmt: skip
    report = [(i.entry, i.field, i.code) for i in import_report(book)]
    assert report == [
        ("0", "key '/(?<=a)b/'", "invalid_regex_key"),
        ("1", "@@probability abc", "invalid_decorator"),
        ("1", "@@depth 4", "unsupported"),
        ("1", "@@zzz", "unsupported"),
        ("2", "position 4 (at depth)", "unsupported"),
        ("2", "characterFilter", "unsupported"),
        ("2", "ignoreBudget", "unsupported"),
    ]  # entry 3 uses nothing Hearth ignores


def _limits():  # type: ignore[no-untyped-def]
    from adapters.cards import DEFAULT_LIMITS

    return DEFAULT_LIMITS
