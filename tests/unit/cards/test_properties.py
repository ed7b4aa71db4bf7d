"""Invariants of the codecs, checked on generated books (LORE-8, LORE-13, LORE-6, LORE-20).

LORE-20: every model field survives import -> export -> import in every format: SillyTavern
World Info JSON, CCv2 card JSON, CCv3 lorebook JSON, CCv3 card JSON, PNG (both chunks) and CHARX.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.cards import (
    CardPersona,
    decode_card,
    decode_lorebook,
    encode_card,
    encode_lorebook,
    insertion_from_order,
    order_from_insertion,
)
from adapters.cards.card import encode_card_v2
from engine.lorebook.model import Decorator, LoreBook, LoreEntry, json_pairs
from tests.unit.cards.support import charx, minimal_png

INTS = st.integers(min_value=-(10**12), max_value=10**12)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**9), 10**9) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
# Unknown fields use names no format defines, so they must come back exactly where they were.
UNKNOWN = st.dictionaries(st.from_regex(r"x_[a-z]{1,6}", fullmatch=True), JSON_VALUES, max_size=3)
DECORATORS = st.lists(
    st.builds(
        Decorator,
        name=st.from_regex(r"[a-z_]{1,12}", fullmatch=True),
        value=st.from_regex(r"([0-9a-z,]+( [0-9a-z]+)?)?", fullmatch=True),
        fallback=st.booleans(),
    ),
    max_size=3,
).map(tuple)
KEYS = st.lists(st.text(max_size=12), max_size=4).map(tuple)
NULLABLE_BOOL = st.none() | st.booleans()

ENTRIES = st.builds(
    LoreEntry,
    id=st.integers(0, 10**6).map(str),
    keys=KEYS,
    secondary_keys=KEYS,
    content=st.text(max_size=40).filter(lambda s: not s.startswith("@@")),
    comment=st.text(max_size=12),
    constant=st.booleans(),
    enabled=st.booleans(),
    selective=st.booleans(),
    selective_logic=st.sampled_from(["AND_ANY", "AND_ALL", "NOT_ANY", "NOT_ALL"]),
    case_sensitive=NULLABLE_BOOL,
    match_whole_words=NULLABLE_BOOL,
    use_regex=st.booleans(),
    priority=INTS,
    order=INTS,
    role=st.sampled_from(["system", "user", "assistant"]),
    probability=st.integers(0, 100),
    use_probability=st.booleans(),
    scan_depth=st.none() | st.integers(0, 1000),
    exclude_recursion=st.booleans(),
    prevent_recursion=st.booleans(),
    delay_until_recursion=st.booleans() | st.integers(2, 9),
    sticky=st.integers(0, 50),
    cooldown=st.integers(0, 50),
    delay=st.integers(0, 50),
    group=st.from_regex(r"([a-z]{1,6}(, ?[a-z]{1,6})?)?", fullmatch=True),
    group_override=st.booleans(),
    group_weight=st.integers(0, 1000),
    use_group_scoring=NULLABLE_BOOL,
    decorators=DECORATORS,
    extensions=UNKNOWN.map(json_pairs),
    extra=UNKNOWN.map(json_pairs),
)
BOOKS = st.builds(
    LoreBook,
    name=st.text(max_size=10),
    description=st.text(max_size=10),
    scan_depth=st.none() | st.integers(0, 100),
    token_budget=st.none() | st.integers(100, 32000),
    recursive_scanning=NULLABLE_BOOL,
    case_sensitive=st.booleans(),
    matching=st.sampled_from(["whole_words", "substring", "inflections"]),
    use_group_scoring=st.booleans(),
    entries=st.lists(ENTRIES, max_size=4, unique_by=lambda e: e.id).map(tuple),
    extensions=UNKNOWN.map(json_pairs),
    extra=UNKNOWN.map(json_pairs),
)


def without(entry: LoreEntry, **fields: Any) -> LoreEntry:
    return msgspec.structs.replace(entry, **fields)


@given(INTS)
def test_lore_8_order_mapping_round_trips_exactly(number: int) -> None:
    assert insertion_from_order(order_from_insertion(number)) == number
    assert order_from_insertion(insertion_from_order(number)) == number


@given(INTS, INTS)
def test_lore_8_lower_insertion_order_means_higher_order(a: int, b: int) -> None:
    if a < b:
        assert order_from_insertion(a) > order_from_insertion(b)


@given(BOOKS)
def test_lore_13_ccv3_export_then_import_keeps_every_model_field(book: LoreBook) -> None:
    back = decode_lorebook(encode_lorebook(book, "ccv3"))
    assert without(back, entries=()) == without(book, entries=())
    assert len(back.entries) == len(book.entries)
    for before, after in zip(book.entries, back.entries, strict=True):
        # Tuning lives in the card entry's `extensions`, so that is the one field that may grow.
        assert without(after, extensions=()) == without(before, extensions=())
        assert set(before.extensions) <= set(after.extensions)


def _placed(entry: LoreEntry) -> LoreEntry:
    """The entry as World Info exports it: placed after the character when it had no position."""
    extra = dict(entry.extra)
    if "position" in extra:
        return entry
    return without(entry, extra=(*entry.extra, ("position", "1")))


@given(BOOKS)
def test_lore_20_world_info_export_then_import_keeps_every_model_field(book: LoreBook) -> None:
    # Priority and use_regex, which World Info has no field for, travel in `extensions.hearth`;
    # an entry without a position gets one (Issue 31: ST inserts it nowhere otherwise).
    expected = msgspec.structs.replace(book, entries=tuple(_placed(e) for e in book.entries))
    assert decode_lorebook(encode_lorebook(book, "sillytavern")) == expected


def _card(book: LoreBook) -> CardPersona:
    return CardPersona(spec="chara_card_v3", name="Mira", description="A cartographer.", book=book)


def _same_book(back: LoreBook | None, book: LoreBook) -> None:
    assert back is not None
    assert without(back, entries=()) == without(book, entries=())
    assert len(back.entries) == len(book.entries)
    for before, after in zip(book.entries, back.entries, strict=True):
        assert without(after, extensions=()) == without(before, extensions=())
        assert set(before.extensions) <= set(after.extensions)


@settings(max_examples=40)
@given(BOOKS, st.sampled_from(["ccv2", "ccv3", "png", "charx"]))
def test_lore_20_card_formats_keep_every_model_field(book: LoreBook, fmt: str) -> None:
    persona = _card(book)
    if fmt == "ccv2":
        data = json.dumps(encode_card_v2(persona)).encode()
    elif fmt == "ccv3":
        data = encode_card(persona)
    elif fmt == "png":
        data = encode_card(persona, png=minimal_png())
    else:
        data = charx({"card.json": encode_card(persona), "assets/icon.png": minimal_png()})
    _same_book(decode_lorebook(data), book)
    _same_book(decode_card(data).book, book)


@given(BOOKS, st.sampled_from(["sillytavern", "ccv3"]))
def test_lore_13_export_of_an_import_is_a_fixpoint(book: LoreBook, fmt: str) -> None:
    once = encode_lorebook(book, fmt)  # type: ignore[arg-type]
    assert encode_lorebook(decode_lorebook(once), fmt) == once  # type: ignore[arg-type]
