"""LORE-5: whole-word, multilingual, multi-word, case and regex matching."""

from __future__ import annotations

import time
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import InvalidInput
from engine.lorebook import LoreBook, LoreEntry, validate_book
from tests.unit.engine.lorebook.support import book, entry, included, scan


def _matches(key: str, text: str, **fields: Any) -> bool:
    return included(scan(book(entry("1", key, **fields)), [text])) == ["1"]


@pytest.mark.parametrize(
    ("key", "text", "expected"),
    [
        ("lửa", "Ngọn lửa bùng lên.", True),  # Vietnamese
        ("lửa", "Con lửng chạy mất.", False),
        ("lửa", "LỬA!", True),
        ("кот", "Мой кот спит.", True),  # Russian
        ("кот", "Это скотина.", False),
        ("кот", "котёнок", False),
        ("שלום", "אמרתי שלום לכולם", True),  # Hebrew
        ("שלום", "השלומים", False),
        ("coração", "Meu coração bate.", True),  # Portuguese
        ("coração", "corações", False),
        ("cão", "o cãozinho", False),
        ("dragon", "dragonfly", False),
        ("dragon", "a dragon's lair", True),
        ("dragon", "(dragon)", True),
        ("dragon", "snap_dragon", True),  # underscore is punctuation, not a letter
    ],
)
def test_lore_5_whole_word_every_script(key: str, text: str, expected: bool) -> None:
    assert _matches(key, text) is expected


def test_lore_5_combining_mark_blocks_whole_word() -> None:
    # 'lu' followed by a decomposed combining hook that NFC cannot fold into one letter
    # ("u" + U+031B + U+0309 → "ử") must not match: marks belong to the word.
    assert not _matches("lu", "lu\u031b\u0309a")
    assert _matches("lửa", "lu\u031b\u0309a")  # NFC makes both sides "lửa"


@pytest.mark.parametrize(
    ("key", "text", "expected"),
    [
        ("ドラゴン", "昨日ドラゴンを見た", True),  # Japanese kana: substring fallback
        ("東京", "私は東京都に住む", True),  # Han: substring fallback
        ("มังกร", "ฉันเห็นมังกรตัวใหญ่", True),  # Thai
        ("dragon", "私はdragonが好き", True),  # Latin key inside Japanese text
        ("dragon", "私はdragonsが好き", False),  # ... still whole-word on its Latin side
        ("드래곤", "드래곤이 나타났다", True),  # Korean particle attached
    ],
)
def test_lore_5_no_space_scripts_fall_back_to_substring(key: str, text: str, expected: bool) -> None:
    assert _matches(key, text) is expected


@pytest.mark.parametrize(
    ("key", "text", "expected"),
    [
        ("dark magic", "the dark\n\t  magic returns", True),
        ("dark  magic", "dark magic", True),
        ("bóng tối", "Bóng   tối bao trùm", True),  # Vietnamese multi-word
        ("чёрный кот", "Чёрный\nкот", True),
        ("dark magic", "darkmagic", False),
        ("dark magic", "dark magician", False),
    ],
)
def test_lore_5_multi_word_keys_match_any_whitespace(key: str, text: str, expected: bool) -> None:
    assert _matches(key, text) is expected


def test_lore_5_multi_word_key_never_spans_two_messages() -> None:
    result = scan(book(entry("1", "dark magic")), ["the dark", "magic"])
    assert included(result) == []


def test_lore_5_nfc_normalization_of_text_and_key() -> None:
    decomposed_key = "cora\u0063\u0327a\u0303o"  # "coração" written with combining marks
    assert _matches(decomposed_key, "Meu coração")
    assert _matches("coração", "Meu cora\u0063\u0327a\u0303o")


def test_lore_5_casefold_unless_case_sensitive() -> None:
    assert _matches("straße", "STRASSE")
    assert _matches("ДРАКОН", "дракон")
    assert not _matches("Дракон", "дракон", case_sensitive=True)
    assert _matches("Дракон", "Дракон пришёл", case_sensitive=True)


def test_lore_5_book_default_case_and_whole_words() -> None:
    sensitive = book(entry("1", "Rio"), case_sensitive=True)
    assert included(scan(sensitive, ["rio"])) == []
    substring = book(entry("1", "rio"), match_whole_words=False)
    assert included(scan(substring, ["Riozinho"])) == ["1"]
    override = book(entry("1", "rio", match_whole_words=True), match_whole_words=False)
    assert included(scan(override, ["Riozinho"])) == []


@pytest.mark.parametrize(
    ("key", "text", "expected"),
    [
        ("/dra+gon/", "a draaagon!", True),
        ("/DRAGON/", "dragon", False),
        ("/DRAGON/i", "dragon", True),
        ("/^кот$/m", "собака\nкот\nптица", True),
        ("/^кот$/", "собака\nкот\nптица", False),
        ("/a.b/s", "a\nb", True),
        ("/a.b/", "a\nb", False),
        ("/l[ửư]a/gu", "ngọn lửa", True),
        ("/foo/x", "/foo/x here", True),  # unknown flag: a plain key, matched literally
    ],
)
def test_lore_5_regex_keys(key: str, text: str, expected: bool) -> None:
    assert _matches(key, text) is expected


def test_lore_5_use_regex_entry_treats_bare_keys_as_patterns() -> None:
    assert _matches("dra+gon", "DRAAAGON", use_regex=True)
    assert not _matches("dra+gon", "DRAAAGON", use_regex=True, case_sensitive=True)


def test_lore_5_catastrophic_regex_finishes_fast() -> None:
    compiled = book(entry("1", "/(a+)+$/"), entry("2", "/(x+x+)+y/"))
    text = "a" * 100_000 + "b"
    started = time.perf_counter()
    result = scan(compiled, [text, "x" * 50_000])
    assert time.perf_counter() - started < 1.0
    assert included(result) == []


@pytest.mark.parametrize("key", ["/(?<=x)y/", "/(a)\\1/", "/(unclosed/", "/a{2,1}/"])
def test_lore_5_unsupported_regex_is_rejected_at_validation(key: str) -> None:
    bad = LoreBook(name="Bestiary", entries=(LoreEntry(id="7", comment="Wyrm", keys=(key,)),))
    with pytest.raises(InvalidInput) as caught:
        validate_book(bad)
    assert caught.value.code == "invalid_regex_key"
    assert "'7'" in caught.value.message
    assert key in caught.value.message


_LETTERS = st.sampled_from(list("aăâeêoôơuưyбвгджзклмнопрсткאבגדהוזחטכלמנעפצקרשתçãõé"))


@given(
    word=st.text(_LETTERS, min_size=2, max_size=8),
    before=_LETTERS,
    after=_LETTERS,
)
def test_lore_5_word_inside_a_longer_word_never_matches(word: str, before: str, after: str) -> None:
    assert not _matches(word, f"x {before}{word}{after} y")
    assert not _matches(word, f"{before}{word}")
    assert _matches(word, f"x, {word}. y")
