"""LORE-10: every decorator, with the per-chat state the timed ones keep."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine.errors import InvalidInput
from engine.lorebook import (
    Decorator,
    LoreBook,
    LoreEntry,
    LoreMark,
    LoreState,
    probability_roll,
    validate_book,
)
from tests.unit.engine.lorebook.support import book, decision, entry, included, scan


def _turn_where(accept: Callable[[int], bool], entry_id: str = "1") -> str:
    return next(f"t{i}" for i in range(1000) if accept(probability_roll(f"t{i}", "b", entry_id)))


def test_lore_10_probability_roll_passes_and_fails() -> None:
    compiled = book(entry("1", "rồng", content="@@probability 40\nRồng hiếm."))
    lucky = _turn_where(lambda roll: roll <= 40)
    unlucky = _turn_where(lambda roll: roll > 40)
    assert included(scan(compiled, ["con rồng"], turn_id=lucky)) == ["1"]
    result = scan(compiled, ["con rồng"], turn_id=unlucky)
    assert included(result) == []
    roll = probability_roll(unlucky, "b", "1")
    assert decision(result, "1").reason == f"dropped: probability roll {roll} > 40"


def test_lore_10_probability_roll_is_stable_within_a_turn() -> None:
    compiled = book(
        entry("1", "кот", content="Кот и собака дружат."),
        entry("2", "собака", content="@@probability 50\nСобака.", order=-1),
        recursive_scanning=True,
    )
    turns = (_turn_where(lambda r: r <= 50, "2"), _turn_where(lambda r: r > 50, "2"))
    outcomes = {turn: tuple(included(scan(compiled, ["кот"], turn_id=turn))) for turn in turns}
    assert outcomes[turns[0]] == ("1", "2")  # activated by recursion, roll passed
    for turn, outcome in outcomes.items():
        for _ in range(3):
            assert tuple(included(scan(compiled, ["кот"], turn_id=turn))) == outcome
    assert len(set(outcomes.values())) == 2  # the two turns rolled differently
    rolls = {probability_roll(f"t{i}", "b", "2") for i in range(2000)}
    assert rolls == set(range(1, 101))  # the roll covers exactly 1..100 across turns


def test_lore_10_probability_field_and_use_probability() -> None:
    unlucky = _turn_where(lambda roll: roll > 30)
    assert included(scan(book(entry("1", "gato", probability=30)), ["gato"], turn_id=unlucky)) == []
    off = book(entry("1", "gato", probability=30, use_probability=False))
    assert included(scan(off, ["gato"], turn_id=unlucky)) == ["1"]


def test_lore_10_scan_depth_overrides_book_depth() -> None:
    compiled = book(
        entry("deep", "שמש", content="@@scan_depth 3\nעמוק"),
        entry("field", "שמש", scan_depth=3),
        entry("book", "שמש"),
        scan_depth=1,
    )
    assert sorted(included(scan(compiled, ["שמש", "ירח", "כוכב"]))) == ["deep", "field"]


def test_lore_10_order_and_priority_override_fields() -> None:
    compiled = book(
        entry("1", "fogo", order=1, priority=6, content="@@order 9\nprimeiro"),
        entry("2", "fogo", order=5, priority=6, content="segundo"),
        entry("3", "fogo", priority=0, content="@@priority 7\n" + "x" * 300),
        entry("4", "fogo", priority=5, content="y" * 300),
        token_budget=100,
    )
    result = scan(compiled, ["fogo"])
    assert included(result) == ["1", "2", "3"]
    assert decision(result, "4").included is False


def test_lore_10_role_decorator() -> None:
    result = scan(book(entry("1", "ドラゴン", content="@@role assistant\n竜だ。")), ["ドラゴン!"])
    assert [(m.role, m.text) for m in result.messages] == [("assistant", "竜だ。")]


@pytest.mark.parametrize(("count", "expected"), [(3, False), (4, False), (5, True), (9, True)])
def test_lore_10_activate_only_after(count: int, expected: bool) -> None:
    compiled = book(entry("1", "mèo", content="@@activate_only_after 5\nMèo."))
    result = scan(compiled, ["con mèo"], message_count=count)
    assert (included(result) == ["1"]) is expected
    if not expected:
        assert decision(result, "1").reason == f"@@activate_only_after 5: only {count} messages"


@pytest.mark.parametrize(("count", "expected"), [(3, True), (6, True), (7, False), (1, False)])
def test_lore_10_activate_only_every(count: int, expected: bool) -> None:
    compiled = book(entry("1", "луна", content="@@activate_only_every 3\nЛуна."))
    result = scan(compiled, ["луна"], message_count=count)
    assert (included(result) == ["1"]) is expected
    if not expected:
        assert decision(result, "1").reason == f"@@activate_only_every 3: message {count}"


def test_lore_10_keep_stays_active_after_first_match() -> None:
    compiled = book(entry("1", "Sintra", content="@@keep\nO palácio."), entry("2", "Sintra"))
    first = scan(compiled, ["Vamos a Sintra"], turn_id="t1")
    assert first.state == LoreState(marks=(LoreMark(book="b", entry="1", turn_id="t1"),))
    later = scan(compiled, ["Outro assunto"], first.state, turn_id="t2")
    assert included(later) == ["1"]
    assert decision(later, "1").reason == "@@keep: active since turn t1"
    assert later.state == first.state


def test_lore_10_keep_alias_and_no_mark_without_match() -> None:
    compiled = book(entry("1", "Sintra", content="@@keep_activate_after_match\nO palácio."))
    assert scan(compiled, ["nada"]).state == LoreState()
    first = scan(compiled, ["Sintra"], turn_id="t1")
    assert included(scan(compiled, ["nada"], first.state, turn_id="t2")) == ["1"]


def test_lore_10_dont_activate_after_match() -> None:
    compiled = book(entry("1", "ירושלים", content="@@dont_activate_after_match\nעיר עתיקה."))
    first = scan(compiled, ["בירושלים", "ירושלים"], turn_id="t1")
    assert included(first) == ["1"]
    again = scan(compiled, ["ירושלים"], first.state, turn_id="t2")
    assert included(again) == []
    assert decision(again, "1").reason == "@@dont_activate_after_match: already matched in turn t1"
    rerender = scan(compiled, ["ירושלים"], first.state, turn_id="t1")
    assert included(rerender) == ["1"]


def test_lore_10_is_greeting() -> None:
    compiled = book(entry("1", "こんにちは", content="@@is_greeting\n初対面。"))
    assert included(scan(compiled, ["こんにちは"], at_greeting=True)) == ["1"]
    result = scan(compiled, ["こんにちは"], at_greeting=False)
    assert included(result) == []
    assert decision(result, "1").reason == "@@is_greeting: chat past greeting"


def test_lore_10_activate_and_dont_activate() -> None:
    compiled = book(
        entry("1", content="@@activate\nLuôn luôn."),
        entry("2", "trăng", content="@@dont_activate\nKhông bao giờ."),
    )
    result = scan(compiled, ["trăng"])
    assert included(result) == ["1"]
    assert decision(result, "1").reason == "@@activate"
    assert decision(result, "2").reason == "@@dont_activate"


def test_lore_10_decorators_are_stripped_and_fallbacks_apply() -> None:
    compiled = book(
        entry("1", "rio", content="@@future_thing 3\n@@@role user\n@@depth 4\nO rio."),
        entry("2", "rio", content="@@role assistant\n@@@role user\nA margem.", order=-1),
    )
    result = scan(compiled, ["o rio"])
    assert [(m.role, m.text) for m in result.messages] == [
        ("user", "O rio."),
        ("assistant", "A margem."),
    ]


def test_lore_10_parsed_decorators_field_is_honoured() -> None:
    parsed = LoreEntry(
        id="1",
        keys=("neve",),
        content="Neve.",
        decorators=(Decorator(name="role", value="user"), Decorator(name="scan_depth", value="2")),
    )
    result = scan(book(parsed, scan_depth=1), ["neve", "sol"])
    assert [(m.role, m.text) for m in result.messages] == [("user", "Neve.")]


@pytest.mark.parametrize(
    "line",
    ["@@probability many", "@@probability 140", "@@role narrator", "@@scan_depth -1", "@@order"],
)
def test_lore_10_malformed_known_decorator_is_rejected(line: str) -> None:
    bad = LoreBook(name="Atlas", entries=(LoreEntry(id="3", content=f"{line}\nTexto"),))
    with pytest.raises(InvalidInput) as caught:
        validate_book(bad)
    assert caught.value.code == "invalid_decorator"
    assert "'3'" in caught.value.message and "Atlas" in caught.value.message
