"""LORE-1..4, LORE-6..9, LORE-11, LORE-12: the scan, budget, order, rendering and log."""

from __future__ import annotations

import pytest

from engine.errors import InvalidInput
from engine.lorebook import LoreEntry, LoreMessage, probability_roll, scan_lore
from engine.lorebook.model import LoreState
from tests.unit.engine.lorebook.support import book, decision, entry, included, scan


def test_lore_1_books_are_scanned_together_as_one_pool() -> None:
    vietnamese = book(entry("1", "rồng", order=1), id="vi")
    russian = book(entry("1", "дракон", order=2), id="ru")
    result = scan([vietnamese, russian], ["Con rồng — это дракон"])
    assert [(m.book, m.entry) for m in result.messages] == [("ru", "1"), ("vi", "1")]


def test_lore_1_duplicate_book_in_pool_is_refused() -> None:
    compiled = book(entry("1", "x"))
    with pytest.raises(InvalidInput) as caught:
        scan([compiled, compiled], ["x"])
    assert caught.value.code == "duplicate_book"


def test_lore_2_scan_depth_limits_scanned_messages() -> None:
    compiled = book(entry("1", "שמש"), scan_depth=2)
    assert included(scan(compiled, ["שמש זורחת", "מה נשמע?", "טוב"])) == []
    assert included(scan(compiled, ["שמש זורחת", "מה נשמע?"])) == ["1"]


def test_lore_2_scan_depth_zero_scans_nothing_but_constants() -> None:
    compiled = book(entry("1", "gato"), entry("2", constant=True), scan_depth=0)
    assert included(scan(compiled, ["o gato"])) == ["2"]


def test_lore_2_highest_budget_wins_across_books() -> None:
    small = book(entry("1", constant=True, content="x" * 396), id="small", token_budget=100)
    large = book(entry("1", constant=True, content="y" * 396), id="large", token_budget=200)
    result = scan([small, large], [])
    assert result.tokens == 200
    assert len(result.messages) == 2


def test_lore_2_recursion_lets_lore_trigger_lore() -> None:
    entries = (
        entry("1", "Hà Nội", content="Hà Nội là thủ đô, gần sông Hồng."),
        entry("2", "sông Hồng", content="Sông Hồng chảy qua đồng bằng."),
    )
    assert included(scan(book(*entries, recursive_scanning=True), ["Tôi ở Hà Nội"])) == ["1", "2"]
    assert included(scan(book(*entries), ["Tôi ở Hà Nội"])) == ["1"]


def test_lore_2_recursion_stops_after_three_passes() -> None:
    chain = [entry(str(i), f"k{i}", content=f"see k{i + 1}") for i in range(6)]
    result = scan(book(*chain, recursive_scanning=True), ["k0"])
    # pass 1 activates 0; recursion passes 2, 3, 4 activate 1, 2, 3; entry 4 never comes.
    assert sorted(included(result)) == ["0", "1", "2", "3"]
    assert decision(result, "3").reason == "recursion pass 4: key 'k3' matched in entry 2"


def test_lore_2_recursion_respects_exclude_and_prevent() -> None:
    entries = (
        entry("1", "Lisboa", content="Lisboa fica perto do Porto e de Sintra."),
        entry("2", "Porto", exclude_recursion=True),
        entry("3", "Sintra"),
        entry("4", "Coimbra", content="Coimbra e Faro", prevent_recursion=True),
        entry("5", "Faro"),
    )
    result = scan(book(*entries, recursive_scanning=True), ["Lisboa e Coimbra"])
    assert sorted(included(result)) == ["1", "3", "4"]


def test_lore_3_any_primary_key_activates() -> None:
    compiled = book(entry("1", "sakura", "桜", content="Cherry blossoms."))
    result = scan(compiled, ["満開の桜を見た"])
    assert result.messages == (LoreMessage(role="system", text="Cherry blossoms.", book="b", entry="1"),)
    assert decision(result, "1").reason == "key '桜' matched in the newest message"


@pytest.mark.parametrize(
    ("logic", "text", "expected"),
    [
        ("AND_ANY", "магия и заклинание", True),
        ("AND_ANY", "просто магия", False),
        ("AND_ALL", "магия, заклинание, волшебник", True),
        ("AND_ALL", "магия и заклинание", False),
        ("NOT_ANY", "просто магия", True),
        ("NOT_ANY", "магия и волшебник", False),
        ("NOT_ALL", "магия и заклинание", True),
        ("NOT_ALL", "магия, заклинание, волшебник", False),
    ],
)
def test_lore_4_selective_logic(logic: str, text: str, expected: bool) -> None:
    compiled = book(
        entry(
            "1",
            "магия",
            selective=True,
            selective_logic=logic,
            secondary_keys=("заклинание", "волшебник"),
        )
    )
    result = scan(compiled, [text])
    assert (included(result) == ["1"]) is expected
    if not expected:
        label = logic.replace("_", " ")
        assert (
            decision(result, "1").reason
            == f"key 'магия' matched in the newest message; secondary: {label} failed"
        )


def test_lore_4_selective_with_empty_secondary_keys_uses_primary_alone() -> None:
    compiled = book(entry("1", "fogo", selective=True, secondary_keys=("", "  ")))
    assert included(scan(compiled, ["o fogo"])) == ["1"]


def test_lore_4_secondary_keys_ignored_when_not_selective() -> None:
    compiled = book(entry("1", "fogo", selective=False, secondary_keys=("água",)))
    assert included(scan(compiled, ["o fogo"])) == ["1"]


def test_lore_4_constant_and_disabled_entries() -> None:
    compiled = book(
        entry("1", constant=True, content="Sempre."),
        entry("2", "fogo", enabled=False),
        entry("3", constant=True, enabled=False),
    )
    result = scan(compiled, ["fogo!"])
    assert included(result) == ["1"]
    assert decision(result, "1").reason == "constant"
    assert {d.entry for d in result.decisions} == {"1"}


def test_lore_4_secondary_key_found_by_recursion() -> None:
    entries = (
        entry("1", "vua", content="Nhà vua có một thanh kiếm."),
        entry("2", "vua", selective=True, secondary_keys=("kiếm",), content="Kiếm báu."),
    )
    result = scan(book(*entries, recursive_scanning=True), ["Nhà vua đến"])
    assert sorted(included(result)) == ["1", "2"]
    assert decision(result, "2").reason.startswith("recursion pass 2:")


def test_lore_6_comment_is_never_sent() -> None:
    compiled = book(entry("1", "dragão", comment="SEGREDO do editor", content="Dragões voam."))
    result = scan(compiled, ["um dragão"])
    assert all("SEGREDO" not in m.text for m in result.messages)
    assert decision(result, "1").name == "SEGREDO do editor"


def test_lore_7_lowest_priority_drops_first() -> None:
    compiled = book(
        entry("hi", constant=True, priority=9, content="a" * 236),  # 60 tokens
        entry("mid", constant=True, priority=5, content="b" * 156),  # 40 tokens
        entry("lo", constant=True, priority=1, content="c" * 36),  # 10 tokens
        token_budget=100,
    )
    result = scan(compiled, [])
    assert sorted(included(result)) == ["hi", "mid"]
    assert result.tokens == 100
    assert decision(result, "lo").reason == ("dropped: token budget (priority 1, 10 tokens, 0 left)")


def test_lore_7_entry_below_a_dropped_one_drops_too() -> None:
    compiled = book(
        entry("hi", constant=True, priority=9, content="a" * 236),  # 60 tokens
        entry("big", constant=True, priority=5, content="b" * 396),  # 100 tokens
        entry("tiny", constant=True, priority=1, content="c" * 4),  # 2 tokens
        token_budget=100,
    )
    result = scan(compiled, [])
    assert included(result) == ["hi"]
    assert decision(result, "big").reason == ("dropped: token budget (priority 5, 100 tokens, 40 left)")
    assert "ranks below entry big" in decision(result, "tiny").reason


def test_lore_8_higher_order_first_then_priority_then_id() -> None:
    compiled = book(
        entry("10", "ねこ", order=1, priority=0),
        entry("2", "ねこ", order=1, priority=0),
        entry("3", "ねこ", order=1, priority=7),
        entry("4", "ねこ", order=9, priority=0),
    )
    assert included(scan(compiled, ["ねこがいる"])) == ["4", "3", "2", "10"]


def test_lore_9_one_message_per_entry_with_its_role() -> None:
    compiled = book(
        entry("1", "шторм", role="user", order=3, content="Шторм близко."),
        entry("2", "шторм", role="assistant", order=2, content="Я чувствую шторм."),
        entry("3", "шторм", order=1, content="Система: шторм."),
    )
    result = scan(compiled, ["Идёт шторм"])
    assert [(m.role, m.text) for m in result.messages] == [
        ("user", "Шторм близко."),
        ("assistant", "Я чувствую шторм."),
        ("system", "Система: шторм."),
    ]


def test_lore_11_budget_uses_the_given_token_counter() -> None:
    compiled = book(
        entry("1", constant=True, priority=2, content="שלום עולם"),
        entry("2", constant=True, priority=1, content="עוד"),
        token_budget=100,
    )
    result = scan(compiled, [], count_tokens=lambda text: 60)
    assert included(result) == ["1"]
    assert result.tokens == 60
    assert decision(result, "1").tokens == 60


def test_lore_12_decisions_explain_inclusion_and_drops() -> None:
    compiled = book(
        entry("1", "rồng", comment="Rồng", content="Rồng lửa."),
        entry("2", "rồng", priority=-1, content="x" * 800, comment="Dài"),
        entry("3", "rồng", probability=0, comment="Hiếm"),
        entry("4", "mèo"),
        token_budget=100,
    )
    result = scan(compiled, ["Có một con rồng"])
    assert [(d.entry, d.included, d.reason) for d in result.decisions] == [
        ("1", True, "key 'rồng' matched in the newest message"),
        ("2", False, "dropped: token budget (priority -1, 201 tokens, 97 left)"),
        (
            "3",
            False,
            f"dropped: probability roll {probability_roll('t1', 'b', '3')} > 0",
        ),
    ]
    assert decision(result, "1").name == "Rồng"


def test_lore_12_scan_is_pure_and_repeatable() -> None:
    compiled = book(entry("1", "luz", probability=50), entry("2", constant=True))
    first = scan_lore(
        [compiled],
        ["luz"],
        LoreState(),
        turn_id="t9",
        message_count=1,
        at_greeting=False,
        count_tokens=len,
    )
    again = scan_lore(
        [compiled],
        ["luz"],
        LoreState(),
        turn_id="t9",
        message_count=1,
        at_greeting=False,
        count_tokens=len,
    )
    assert first == again


def test_lore_3_entry_without_keys_never_activates_by_match() -> None:
    compiled = book(LoreEntry(id="1", content="orphan"))
    result = scan(compiled, ["orphan"])
    assert result.messages == ()
    assert result.decisions == ()


def test_lore_2_recursion_setting_of_the_triggered_book_decides() -> None:
    plain = book(
        entry("1", "Москва", content="Москва и Казань."),
        entry("2", "Нева"),
        id="plain",
    )
    recursive = book(
        entry("1", "Казань", content="Казань на Волге, а не Нева."),
        entry("2", "Волге"),
        id="rec",
        recursive_scanning=True,
    )
    result = scan([plain, recursive], ["Я из Москва"])
    assert sorted((m.book, m.entry) for m in result.messages) == [
        ("plain", "1"),
        ("rec", "1"),
        ("rec", "2"),
    ]
    assert decision(result, "1", "rec").reason == (
        "recursion pass 2: key 'Казань' matched in entry 1 of plain"
    )


def test_lore_12_reason_says_where_the_key_matched() -> None:
    compiled = book(entry("1", "harbor", content="The harbor."))
    result = scan(compiled, ["the harbor at dawn", "nice weather", "indeed"])
    assert decision(result, "1").reason == "key 'harbor' matched in message 3 from the end"
