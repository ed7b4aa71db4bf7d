"""Hostile lorebooks (issue 29, item 8; LORE-3, LORE-5, LORE-16, LORE-19): every limit refuses
the book naming the entry before anything reaches pyahocorasick or RE2, and a scan does work
linear in what it considers, within the budget its caller gives."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine.errors import InvalidInput
from engine.lorebook import (
    CompiledBook,
    LoreBook,
    LoreEntry,
    LoreResult,
    LoreState,
    compile_book,
    regex_keys,
    scan_lore,
    validate_book,
)
from engine.lorebook.regex_keys import MAX_BOOK_KEYS, MAX_DELAY_LEVELS, MAX_KEY_LENGTH, MAX_WHOLE_NUMBER
from engine.lorebook.scan import CHECK_EVERY
from tests.unit.engine.lorebook.support import approx_tokens, book, entry, included, scan


def budgeted(compiled: CompiledBook, messages: list[str], out_of_time: Callable[[], bool]) -> LoreResult:
    """``scan_lore`` with a budget check."""
    return scan_lore(
        [compiled],
        messages,
        LoreState(),
        turn_id="t1",
        message_count=len(messages),
        at_greeting=False,
        count_tokens=approx_tokens,
        out_of_time=out_of_time,
    )


def refused(entries: tuple[LoreEntry, ...], code: str) -> str:
    with pytest.raises(InvalidInput) as caught:
        compile_book(LoreBook(id="h", name="Hostile", entries=entries))
    assert caught.value.code == code, caught.value.message
    assert "of book 'Hostile'" in caught.value.message
    return caught.value.message


def test_a_key_past_the_length_limit_is_refused_naming_the_entry() -> None:
    """A 550,000-character plain key crashed the process inside pyahocorasick."""
    huge = "a" * 550_000
    fine = entry("0", "dragon", comment="Dragon")
    for where in ({"keys": (huge,)}, {"secondary_keys": (huge,), "selective": True}):
        long_one = LoreEntry(id="1", comment="Long", content="x", **where)  # type: ignore[arg-type]
        message = refused((fine, long_one), "key_too_long")
        assert "entry '1' ('Long')" in message and f"{MAX_KEY_LENGTH:,}" in message and "550,000" in message
    for decorator in ("additional_keys", "exclude_keys"):
        inline = LoreEntry(id="2", keys=("k",), content=f"@@{decorator} {huge}\nbody", comment="Deco")
        assert "entry '2' ('Deco')" in refused((fine, inline), "key_too_long")
    regex = LoreEntry(id="3", keys=("/" + "a" * MAX_KEY_LENGTH + "/",), content="x")
    refused((regex,), "key_too_long")
    # control: a key of exactly the limit is a fine key, and it matches
    edge = "b" * MAX_KEY_LENGTH
    compiled = book(entry("0", edge, content="edge lore"))
    assert included(scan(compiled, [f"say {edge} now"])) == ["0"]


def test_exclude_keys_count_toward_the_key_limit() -> None:
    """``@@exclude_keys`` bypassed the 100,000-key limit (a million keys imported)."""
    per_entry = 1_000
    keys = ",".join(f"x{i}" for i in range(per_entry))
    count = MAX_BOOK_KEYS // (per_entry + 1) + 1
    entries = tuple(
        LoreEntry(id=str(n), keys=(f"k{n}",), content=f"@@exclude_keys {keys}\nlore {n}", comment=f"E{n}")
        for n in range(count)
    )
    message = refused(entries, "lorebook_too_complex")
    assert f"more than {MAX_BOOK_KEYS:,} keys" in message and f"entry '{count - 1}'" in message
    # @@additional_keys count as well; with use_regex @@exclude_keys is ignored (CCv3), so not counted
    additional = tuple(
        LoreEntry(id=str(n), keys=(f"k{n}",), content=f"@@additional_keys {keys}\nlore {n}")
        for n in range(count)
    )
    refused(additional, "lorebook_too_complex")
    compile_book(LoreBook(entries=entries[: count - 1]))  # control: just under the limit


def test_more_delay_levels_than_the_limit_are_refused() -> None:
    levels = tuple(
        LoreEntry(id=str(n), keys=(f"k{n}",), content=f"lore {n}", delay_until_recursion=n + 1)
        for n in range(MAX_DELAY_LEVELS + 1)
    )
    message = refused(levels, "lorebook_too_complex")
    assert f"entry '{MAX_DELAY_LEVELS}'" in message and "delay_until_recursion levels" in message
    compile_book(LoreBook(entries=levels[:MAX_DELAY_LEVELS]))  # control
    # many entries sharing few levels are fine
    shared = tuple(
        LoreEntry(id=str(n), keys=(f"k{n}",), content="x", delay_until_recursion=n % 3 + 1)
        for n in range(1000)
    )
    compile_book(LoreBook(entries=shared))


@pytest.mark.parametrize("field", ["order", "priority", "delay_until_recursion", "sticky", "group_weight"])
def test_whole_numbers_out_of_range_are_refused_naming_the_field(field: str) -> None:
    """2**65 in ``order``/``priority`` reached the store, which holds 64 bits: a 500."""
    for value in (2**65, -(2**65), MAX_WHOLE_NUMBER + 1):
        bad = LoreEntry(id="7", keys=("k",), content="x", comment="Big", **{field: value})  # type: ignore[arg-type]
        message = refused((bad,), "number_out_of_range")
        assert "entry '7' ('Big')" in message and field in message
    with pytest.raises(InvalidInput):
        validate_book(LoreBook(name="Hostile", entries=(LoreEntry(id="1", **{field: 2**65}),)))  # type: ignore[arg-type]
    compile_book(LoreBook(entries=(LoreEntry(id="1", **{field: MAX_WHOLE_NUMBER}),)))  # type: ignore[arg-type]


def test_a_scan_over_many_delay_levels_does_linear_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every level used to re-list every delayed entry: 20,000 levels took 109 s a turn.

    Work is counted through ``out_of_time``, which the scan asks every ``CHECK_EVERY`` units and
    once per pass, so the count does not depend on the machine's speed.
    """
    monkeypatch.setattr(regex_keys, "MAX_DELAY_LEVELS", 10**6)
    levels = 3_000
    chained = compile_book(
        LoreBook(
            id="c",
            recursive_scanning=True,
            entries=tuple(
                LoreEntry(id=str(n), keys=(f"w{n}",), content=f"lore w{n + 1}", delay_until_recursion=n + 1)
                for n in range(levels)
            ),
        )
    )
    for messages, activated in ((["nothing here"], 0), (["we say w0"], levels)):
        asked = 0

        def out_of_time() -> bool:
            nonlocal asked
            asked += 1
            return False

        result = budgeted(chained, messages, out_of_time)
        assert (
            sum(d.included or d.reason.startswith("dropped: token budget") for d in result.decisions)
            == activated
        )
        assert not result.cut_short
        # one check per pass (a pass per level, two when the chain goes on) plus one per CHECK_EVERY
        # entries considered; re-listing every delayed entry per level would be ~levels²/2/64
        assert asked <= 3 * levels + levels // CHECK_EVERY + 10, asked


def test_a_scan_past_its_budget_stops_with_what_it_found() -> None:
    many = book(
        *(entry(str(n), content=f"lore {n}", constant=True) for n in range(1_000)), token_budget=32_000
    )
    full = scan(many, ["hi"])
    assert len(full.messages) == 1_000 and not full.cut_short
    calls = 0

    def after_two_checks() -> bool:
        nonlocal calls
        calls += 1
        return calls > 2

    cut = budgeted(many, ["hi"], after_two_checks)
    assert cut.cut_short
    assert 0 < len(cut.messages) <= 3 * CHECK_EVERY  # kept what it had activated
    assert {m.entry for m in cut.messages} <= {m.entry for m in full.messages}
    never = budgeted(many, ["hi"], lambda: False)
    assert never == full  # a budget that never runs out changes nothing


def test_the_compiled_cost_grows_with_entries_and_keys() -> None:
    small = book(entry("0", "a"))
    big = book(*(entry(str(n), f"k{n}", f"j{n}", content=f"@@exclude_keys x{n}\nlore") for n in range(100)))
    assert small.cost == 2 and big.cost == 100 * 4
    disabled = book(*(entry(str(n), f"k{n}", enabled=False) for n in range(100)))
    assert disabled.cost == 0
