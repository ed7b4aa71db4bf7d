"""Book complexity limits (issue 13, finding 7): refused with ``lorebook_too_complex`` naming the entry."""

from __future__ import annotations

import pytest

from engine.errors import InvalidInput
from engine.lorebook import LoreBook, LoreEntry, compile_book
from engine.lorebook.regex_keys import MAX_BOOK_KEYS, MAX_BOOK_PROGRAM, MAX_KEY_PROGRAM, MAX_REGEX_KEYS
from tests.unit.engine.lorebook.support import included, scan


def heavy(n: int) -> str:
    return f"/(word{n}|term{n})\\w{{0,60}}(fire|ice)[a-z]{{1,40}}/i"


def grimoire(keys: list[list[str]], **fields: object) -> LoreBook:
    entries = tuple(
        LoreEntry(id=str(n), keys=tuple(k), content=f"Spell {n}", comment=f"Spell {n}", **fields)  # type: ignore[arg-type]
        for n, k in enumerate(keys)
    )
    return LoreBook(id="g", name="Grimoire", entries=entries)


def refusal(book: LoreBook) -> str:
    with pytest.raises(InvalidInput) as caught:
        compile_book(book)
    assert caught.value.code == "lorebook_too_complex"
    assert "of book 'Grimoire'" in caught.value.message
    return caught.value.message


def test_too_many_regex_keys_are_refused_at_the_first_one_past_the_limit() -> None:
    message = refusal(grimoire([[f"/dragon{n}/i"] for n in range(MAX_REGEX_KEYS + 1)]))
    assert f"entry '{MAX_REGEX_KEYS}'" in message and f"more than {MAX_REGEX_KEYS} regex keys" in message
    fine = compile_book(grimoire([[f"/dragon{n}/i"] for n in range(MAX_REGEX_KEYS)]))  # control
    assert "7" in included(scan(fine, ["Alice: a DRAGON7 sleeps here"]))


def test_the_regex_program_budget_of_a_book_names_where_it_ran_out() -> None:
    message = refusal(grimoire([[heavy(n)] for n in range(400)]))
    assert "RE2 instructions" in message and f"{MAX_BOOK_PROGRAM:,}" in message
    assert "entry '399'" not in message  # stopped where the budget ran out, before the end


def test_one_enormous_regex_key_is_refused() -> None:
    message = refusal(grimoire([["/plain/"], ["/" + "[a-zа-я]{1000}" * 5 + "/"]]))
    assert "entry '1'" in message and f"limit {MAX_KEY_PROGRAM:,}" in message


def test_use_regex_keys_and_secondary_keys_count_too() -> None:
    keys = [[f"dragon{n}"] for n in range(MAX_REGEX_KEYS + 1)]
    refusal(grimoire(keys, use_regex=True))
    compile_book(grimoire(keys))  # control: the same words as plain keys are cheap
    many = [[f"k{n}-{i}" for i in range(100)] for n in range(MAX_BOOK_KEYS // 100)]
    many.append(["one too many"])
    assert f"more than {MAX_BOOK_KEYS:,} keys" in refusal(grimoire(many))
