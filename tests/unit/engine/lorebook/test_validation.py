"""Book validation at import (LORE-2, LORE-5, LORE-13 engine side)."""

from __future__ import annotations

from typing import Any

import pytest

from engine.errors import InvalidInput
from engine.lorebook import LoreBook, LoreEntry, compile_book, validate_book


@pytest.mark.parametrize(
    ("book", "code"),
    [
        (LoreBook(name="A", scan_depth=101), "invalid_scan_depth"),
        (LoreBook(name="A", scan_depth=-1), "invalid_scan_depth"),
        (LoreBook(name="A", token_budget=99), "invalid_token_budget"),
        (LoreBook(name="A", token_budget=32001), "invalid_token_budget"),
        (LoreBook(name="A", entries=(LoreEntry(id=" "),)), "invalid_entry_id"),
        (LoreBook(name="A", entries=(LoreEntry(id="1"), LoreEntry(id="1"))), "duplicate_entry_id"),
        (LoreBook(name="A", entries=(LoreEntry(id="1", scan_depth=200),)), "invalid_scan_depth"),
        (LoreBook(name="A", entries=(LoreEntry(id="1", probability=101),)), "invalid_probability"),
        (
            LoreBook(name="A", entries=(LoreEntry(id="1", enabled=False, keys=("/(?=x)/",)),)),
            "invalid_regex_key",
        ),
    ],
)
def test_lore_2_invalid_books_are_rejected_with_a_code(book: LoreBook, code: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        validate_book(book)
    assert caught.value.code == code
    assert "'A'" in caught.value.message


@pytest.mark.parametrize(
    "fields",
    [
        {"scan_depth": 0, "token_budget": 100},
        {"scan_depth": 100, "token_budget": 32000},
        {},
    ],
)
def test_lore_2_settings_at_the_limits_are_accepted(fields: dict[str, Any]) -> None:
    book = LoreBook(name="A", entries=(LoreEntry(id="x", keys=("/ok/i", "ok")),), **fields)
    validate_book(book)
    assert compile_book(book).entries[0].id == "x"


def test_lore_2_defaults_apply_when_settings_are_absent() -> None:
    compiled = compile_book(LoreBook(name="A", entries=(LoreEntry(id="1", keys=("k",)),)))
    assert compiled.token_budget == 2048
    assert compiled.depth == 2
    assert compiled.recursive is False
    assert compiled.id == "A"  # no store id yet: the name identifies the book
