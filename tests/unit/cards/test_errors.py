"""Bad input gets a clear error whose code names the problem; nothing partial comes back (LORE-13)."""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Callable
from typing import Any

import pytest

from adapters.cards import CardLimits, decode_card, decode_lorebook
from engine.errors import InvalidInput
from tests.unit.cards.support import (
    card_png,
    charx,
    chunk,
    fixture,
    minimal_png,
    png_with_chunks,
    text_chunk,
)

SMALL = CardLimits(max_bytes=4096, max_depth=8, max_json_values=50, max_entries=3, max_zip_members=5)


def code_of(call: Callable[[], Any]) -> tuple[str, str]:
    with pytest.raises(InvalidInput) as caught:
        call()
    return caught.value.code, caught.value.message


def world(*entries: dict[str, Any]) -> bytes:
    return json.dumps({"entries": {str(i): e for i, e in enumerate(entries)}}).encode()


def test_lore_13_truncated_json_is_invalid_json() -> None:
    code, message = code_of(lambda: decode_lorebook(b'{"entries": {"0": {"key": ["a"]'))
    assert code == "invalid_json"
    assert "not valid JSON" in message


def test_lore_13_non_utf8_json_is_invalid_json() -> None:
    assert code_of(lambda: decode_lorebook(b'{"entries": "\xff"}'))[0] == "invalid_json"


def test_lore_13_deep_nesting_is_refused_before_parsing() -> None:
    bomb = b'{"entries": {}, "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    code, message = code_of(lambda: decode_lorebook(bomb))
    assert code == "json_too_deep"
    assert "100001" in message


def test_lore_13_brackets_inside_strings_do_not_count_as_depth() -> None:
    doc = {"entries": {"0": {"key": ["[[[[[[[[[[[[{{{{{{{{{{{{"], "content": '\\"]]]]'}}}
    book = decode_lorebook(json.dumps(doc).encode(), limits=SMALL)
    assert book.entries[0].keys == ("[[[[[[[[[[[[{{{{{{{{{{{{",)


def test_lore_13_nesting_at_the_limit_is_accepted() -> None:
    doc = b'{"entries": {}, "x": ' + b"[" * 7 + b"]" * 7 + b"}"
    assert decode_lorebook(doc, limits=SMALL).entries == ()
    deeper = b'{"entries": {}, "x": ' + b"[" * 8 + b"]" * 8 + b"}"
    assert code_of(lambda: decode_lorebook(deeper, limits=SMALL))[0] == "json_too_deep"


def test_lore_13_huge_array_is_refused_before_parsing() -> None:
    bomb = b'{"entries": {}, "x": [' + b"[]," * 60 + b"[]]}"
    code, message = code_of(lambda: decode_lorebook(bomb, limits=SMALL))
    assert code == "json_too_large"
    assert "62 values" in message
    commas_in_strings = json.dumps({"entries": {}, "x": "," * 500}).encode()
    assert decode_lorebook(commas_in_strings, limits=SMALL).entries == ()


def test_lore_13_fifty_megabyte_upload_is_too_large() -> None:
    upload = b"{" + b" " * (50 * 1024 * 1024) + b"}"
    code, message = code_of(lambda: decode_lorebook(upload))
    assert code == "file_too_large"
    assert str(20 * 1024 * 1024) in message


def test_lore_13_max_size_is_a_parameter() -> None:
    upload = world({"key": ["a"], "content": "x" * 5000})
    assert code_of(lambda: decode_lorebook(upload, limits=SMALL))[0] == "file_too_large"


def test_lore_13_too_many_entries() -> None:
    upload = world(*({"key": [str(i)]} for i in range(4)))
    code, message = code_of(lambda: decode_lorebook(upload, limits=SMALL))
    assert code == "too_many_entries"
    assert "4 entries" in message


@pytest.mark.parametrize(
    ("entry", "path"),
    [
        ({"key": 5}, 'entries["0"].key'),
        ({"key": ["a", 3]}, 'entries["0"].key[1]'),
        ({"key": ["a"], "order": "first"}, 'entries["0"].order'),
        ({"key": ["a"], "order": 1.5}, 'entries["0"].order'),
        ({"key": ["a"], "selectiveLogic": 4}, 'entries["0"].selectiveLogic'),
        ({"key": ["a"], "role": 3}, 'entries["0"].role'),
        ({"key": ["a"], "probability": 101}, 'entries["0"].probability'),
        ({"key": ["a"], "disable": "no"}, 'entries["0"].disable'),
        ({"key": ["a"], "scanDepth": -1}, 'entries["0"].scanDepth'),
        ({"key": ["a"], "extensions": []}, 'entries["0"].extensions'),
    ],
)
def test_lore_13_wrong_types_name_the_field(entry: dict[str, Any], path: str) -> None:
    code, message = code_of(lambda: decode_lorebook(world(entry)))
    assert code == "invalid_field"
    assert f"`{path}`" in message


def test_lore_13_wrong_type_in_a_card_book_names_the_full_path() -> None:
    card = {
        "spec": "chara_card_v2",
        "data": {"name": "A", "character_book": {"entries": [{"keys": ["a"]}, {"keys": 7}]}},
    }
    code, message = code_of(lambda: decode_card(json.dumps(card).encode()))
    assert code == "invalid_field"
    assert "`data.character_book.entries[1].keys`" in message


def test_lore_13_bad_tuning_in_card_extensions_names_the_field() -> None:
    card = {
        "spec": "chara_card_v3",
        "data": {
            "name": "A",
            "character_book": {"entries": [{"keys": ["a"], "extensions": {"role": "narrator"}}]},
        },
    }
    code, message = code_of(lambda: decode_card(json.dumps(card).encode()))
    assert code == "invalid_field"
    assert "`data.character_book.entries[0].extensions.role`" in message


def test_lore_13_entry_that_is_not_an_object() -> None:
    code, message = code_of(lambda: decode_lorebook(b'{"entries": {"0": {"key": []}, "1": 3}}'))
    assert code == "invalid_field"
    assert '`entries["1"]`' in message


def test_lore_13_error_in_the_last_entry_rejects_the_whole_book() -> None:
    upload = world({"key": ["fine"]}, {"key": ["fine too"]}, {"key": {"not": "a list"}})
    assert code_of(lambda: decode_lorebook(upload))[0] == "invalid_field"


def test_lore_13_card_name_is_required() -> None:
    card = {"spec": "chara_card_v3", "data": {"description": "no name"}}
    code, message = code_of(lambda: decode_card(json.dumps(card).encode()))
    assert code == "invalid_field"
    assert "`data.name`" in message


@pytest.mark.parametrize("spec", ["chara_card_v4", "lorebook_v9", 3])
def test_lore_13_unknown_spec_is_unsupported(spec: Any) -> None:
    upload = json.dumps({"spec": spec, "data": {"name": "A"}}).encode()
    assert code_of(lambda: decode_card(upload))[0] == "unsupported_spec"
    assert code_of(lambda: decode_lorebook(upload))[0] == "unsupported_spec"


@pytest.mark.parametrize(
    "upload",
    [
        b"[1, 2]",
        b'{"spec": "chara_card_v2"}',
        b'{"spec": "chara_card_v3", "data": []}',
        b'{"name": "no spec, no greeting"}',
        b'{"entries": {}}',
    ],
)
def test_lore_13_json_that_is_not_a_card(upload: bytes) -> None:
    assert code_of(lambda: decode_card(upload))[0] == "invalid_card"


@pytest.mark.parametrize("upload", [b"[]", b'{"name": "x"}', b'"entries"'])
def test_lore_13_json_that_is_not_a_lorebook(upload: bytes) -> None:
    assert code_of(lambda: decode_lorebook(upload))[0] == "invalid_lorebook"


def test_lore_13_truncated_png() -> None:
    png = fixture("own_wren_v2.png")
    for cut in (len(png) - 5, len(png) // 2, 20):
        code, message = code_of(lambda cut=cut: decode_card(png[:cut]))
        assert code == "invalid_png"
        assert "truncated" in message


def test_lore_13_png_with_bad_crc() -> None:
    png = bytearray(fixture("own_wren_both.png"))
    at = png.index(b"ccv3") + 10
    png[at] ^= 0xFF
    code, message = code_of(lambda: decode_card(bytes(png)))
    assert code == "invalid_png"
    assert "CRC" in message


def test_lore_13_png_must_start_with_ihdr() -> None:
    png = minimal_png()
    broken = png[:8] + chunk(b"tEXt", b"chara\0e30=") + png[8:]
    assert code_of(lambda: decode_card(broken))[0] == "invalid_png"


def test_lore_13_declared_png_that_is_not_a_png() -> None:
    code, _ = code_of(lambda: decode_card(b'{"spec": "chara_card_v2"}', "image/png"))
    assert code == "invalid_png"


def test_lore_13_png_without_card() -> None:
    assert code_of(lambda: decode_card(minimal_png(), "image/png"))[0] == "png_without_card"
    other_text = png_with_chunks(text_chunk("Comment", b"hello"))
    assert code_of(lambda: decode_lorebook(other_text))[0] == "png_without_card"


def test_lore_13_base64_garbage_in_the_card_chunk() -> None:
    png = png_with_chunks(text_chunk("chara", b"!!not base64!!"))
    code, message = code_of(lambda: decode_card(png))
    assert code == "invalid_card"
    assert "base64" in message


def test_lore_13_base64_of_garbage_json_in_the_card_chunk() -> None:
    png = png_with_chunks(text_chunk("ccv3", base64.b64encode(b"\x00\x01garbage")))
    assert code_of(lambda: decode_card(png))[0] == "invalid_json"


def test_lore_13_ztxt_bomb_is_refused() -> None:
    bomb = png_with_chunks(text_chunk("chara", b"A" * 10_000, kind=b"zTXt"))
    assert len(bomb) < SMALL.max_bytes
    assert code_of(lambda: decode_card(bomb, limits=SMALL))[0] == "file_too_large"


def test_lore_13_itxt_with_broken_zlib() -> None:
    body = b"ccv3\0\1\0\0\0" + b"not zlib"
    png = png_with_chunks(chunk(b"iTXt", body))
    assert code_of(lambda: decode_card(png))[0] == "invalid_png"


def test_lore_13_declared_zip_that_is_not_a_zip() -> None:
    assert code_of(lambda: decode_card(b"{}", "application/zip"))[0] == "invalid_charx"


def test_lore_13_corrupt_zip() -> None:
    assert code_of(lambda: decode_card(b"PK\x03\x04garbage"))[0] == "invalid_charx"


@pytest.mark.parametrize(
    "name", ["../evil.json", "assets/../../x.png", "/etc/passwd", "C:/x.png", "a\\b.png"]
)
def test_lore_13_charx_path_traversal_is_refused(name: str) -> None:
    archive = charx({"card.json": b'{"spec": "chara_card_v3", "data": {"name": "A"}}', name: b"x"})
    code, message = code_of(lambda: decode_card(archive))
    assert code == "invalid_charx"
    assert "unsafe" in message


def test_lore_13_charx_without_card_json() -> None:
    archive = charx({"assets/icon/images/main.png": minimal_png()})
    code, message = code_of(lambda: decode_card(archive))
    assert code == "invalid_charx"
    assert "card.json" in message


def test_lore_13_charx_zip_bomb_is_refused() -> None:
    card = {"spec": "chara_card_v3", "data": {"name": "A", "description": " " * 100_000}}
    archive = charx({"card.json": json.dumps(card).encode()})
    assert len(archive) < SMALL.max_bytes
    assert code_of(lambda: decode_card(archive, limits=SMALL))[0] == "file_too_large"


def test_lore_13_charx_with_too_many_files() -> None:
    members = {f"assets/other/other/{i}.bin": b"" for i in range(6)}
    members["card.json"] = b'{"spec": "chara_card_v3", "data": {"name": "A"}}'
    assert code_of(lambda: decode_card(charx(members), limits=SMALL))[0] == "invalid_charx"


def test_lore_13_charx_with_invalid_card_json() -> None:
    archive = charx({"card.json": b'{"spec": "chara_card_v3", "data": {"name": '})
    assert code_of(lambda: decode_card(archive))[0] == "invalid_json"


def test_lore_13_png_card_json_depth_is_limited_too() -> None:
    card = {"spec": "chara_card_v2", "data": {"name": "A", "extensions": {}}}
    nested: Any = {}
    for _ in range(10):
        nested = {"n": nested}
    card["data"]["extensions"] = nested
    png = card_png(chara=card)
    assert code_of(lambda: decode_card(png, limits=SMALL))[0] == "json_too_deep"


def test_lore_13_truncated_zlib_stream_in_a_text_chunk() -> None:
    body = b"chara\0\0" + zlib.compress(base64.b64encode(b'{"a": 1}'))[:-3]
    png = png_with_chunks(chunk(b"zTXt", body))
    code, message = code_of(lambda: decode_card(png))
    assert code == "invalid_png"
    assert "truncated zlib" in message
