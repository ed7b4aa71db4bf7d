"""Model round trips the codecs rely on (LORE-6, LORE-13 engine side)."""

from __future__ import annotations

from typing import Any

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from engine.lorebook import (
    Decorator,
    LoreBook,
    LoreEntry,
    join_decorators,
    json_pairs,
    pairs_to_dict,
    split_decorators,
)

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
_NAMES = st.from_regex(r"[a-z_]{1,20}", fullmatch=True)
_VALUES = st.from_regex(r"([^\s@]([^\n\r]*[^\s])?)?", fullmatch=True).filter(
    lambda v: "\n" not in v and "\r" not in v and "\x0b" not in v and "\x0c" not in v
)


@given(st.dictionaries(st.text(max_size=10), _JSON, max_size=6))
def test_lore_13_extensions_round_trip_any_json(obj: dict[str, Any]) -> None:
    pairs = json_pairs(obj)
    entry = LoreEntry(id="1", extensions=pairs, extra=pairs)
    for codec in (msgspec.json, msgspec.msgpack):
        again = codec.decode(codec.encode(entry), type=LoreEntry)
        assert again == entry
        assert pairs_to_dict(again.extensions) == obj
        assert list(pairs_to_dict(again.extra)) == list(obj)


@given(
    st.lists(st.builds(Decorator, name=_NAMES, value=_VALUES, fallback=st.booleans()), max_size=5),
    st.text(max_size=40).filter(lambda body: not body.startswith("@@")),
)
def test_lore_10_decorators_split_join_round_trip(decorators: list[Decorator], body: str) -> None:
    raw = join_decorators(tuple(decorators), body)
    assert split_decorators(raw) == (tuple(decorators), body)


def test_lore_10_split_keeps_later_at_lines_in_body() -> None:
    raw = "@@probability 40\n@@@role user\nCorpo.\n@@not a decorator"
    decorators, body = split_decorators(raw)
    assert decorators == (
        Decorator(name="probability", value="40"),
        Decorator(name="role", value="user", fallback=True),
    )
    assert body == "Corpo.\n@@not a decorator"
    assert join_decorators(decorators, body) == raw


def test_lore_6_every_optional_field_has_a_default() -> None:
    entry = LoreEntry(id="0")
    assert (entry.comment, entry.enabled, entry.selective_logic, entry.role) == (
        "",
        True,
        "AND_ANY",
        "system",
    )
    book = LoreBook()
    assert book.scan_depth is None and book.token_budget is None and book.entries == ()


def test_lore_6_book_round_trips_through_msgpack() -> None:
    book = LoreBook(
        id="b1",
        name="Эльдория",
        scan_depth=4,
        token_budget=2048,
        recursive_scanning=True,
        entries=(
            LoreEntry(
                id="12",
                keys=("rồng", "/dra+gon/i"),
                secondary_keys=("lửa",),
                comment="Rồng — bản nháp",
                selective=True,
                selective_logic="NOT_ALL",
                case_sensitive=False,
                decorators=(Decorator(name="keep"),),
                extra=json_pairs({"vectorized": False, "group": "creatures"}),
            ),
        ),
        extensions=json_pairs({"risu": {"x": 1}}),
    )
    assert msgspec.msgpack.decode(msgspec.msgpack.encode(book), type=LoreBook) == book
