"""Hypothesis invariants of the budget and the ordering (LORE-7, LORE-8)."""

from __future__ import annotations

from typing import Any

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from engine.lorebook import LoreEntry, LoreResult
from tests.unit.engine.lorebook.support import approx_tokens, book, scan

_IDS = ["0", "1", "2", "7", "10", "11", "a", "b", "zz", "Ω"]


@st.composite
def _entries(draw: st.DrawFn) -> list[LoreEntry]:
    ids = draw(st.lists(st.sampled_from(_IDS), min_size=1, max_size=len(_IDS), unique=True))
    return [
        LoreEntry(
            id=entry_id,
            keys=("chave",),
            constant=draw(st.booleans()),
            content="x" * draw(st.integers(1, 400)),
            priority=draw(st.integers(-3, 3)),
            order=draw(st.integers(-3, 3)),
            role=draw(st.sampled_from(["system", "user", "assistant"])),
        )
        for entry_id in ids
    ]


def _run(entries: list[LoreEntry], budget: int, **fields: Any) -> LoreResult:
    return scan(book(*entries, token_budget=budget, **fields), ["a chave"])


def _dropped(result: LoreResult) -> set[str]:
    return {d.entry for d in result.decisions if not d.included}


@given(_entries(), st.integers(100, 600))
def test_lore_7_included_entries_never_exceed_the_budget(entries: list[LoreEntry], budget: int) -> None:
    result = _run(entries, budget)
    assert result.tokens <= budget
    assert result.tokens == sum(approx_tokens(m.text) for m in result.messages)
    assert len(result.messages) + len(_dropped(result)) == len(entries)


@given(_entries(), st.integers(100, 600))
def test_lore_7_no_entry_is_dropped_while_a_lower_priority_one_stays(
    entries: list[LoreEntry], budget: int
) -> None:
    result = _run(entries, budget)
    priority = {e.id: e.priority for e in entries}
    kept = {m.entry for m in result.messages}
    for lost in _dropped(result):
        assert all(priority[lost] <= priority[k] for k in kept)


@given(_entries(), st.integers(100, 600), st.data())
def test_lore_7_raising_priority_never_drops_it_while_lower_stays(
    entries: list[LoreEntry], budget: int, data: st.DataObject
) -> None:
    index = data.draw(st.integers(0, len(entries) - 1))
    before = _run(entries, budget)
    raised = msgspec.structs.replace(
        entries[index], priority=entries[index].priority + data.draw(st.integers(1, 5))
    )
    after = _run([*entries[:index], raised, *entries[index + 1 :]], budget)
    kept_after = {m.entry for m in after.messages}
    if raised.id in {m.entry for m in before.messages}:
        assert raised.id in kept_after
    if raised.id not in kept_after:
        lower = {e.id for e in entries if e.id != raised.id and e.priority < raised.priority}
        assert not lower & kept_after


@given(_entries(), st.integers(100, 600), st.randoms(use_true_random=False))
def test_lore_8_output_order_is_total_and_independent_of_input_order(
    entries: list[LoreEntry], budget: int, rng: Any
) -> None:
    result = _run(entries, budget)
    shuffled = list(entries)
    rng.shuffle(shuffled)
    assert _run(shuffled, budget) == result
    by_id = {e.id: e for e in entries}
    keys = [(-by_id[m.entry].order, -by_id[m.entry].priority) for m in result.messages]
    assert keys == sorted(keys)


@given(_entries(), _entries(), st.integers(100, 600))
def test_lore_8_order_independent_of_book_order_in_pool(
    first: list[LoreEntry], second: list[LoreEntry], budget: int
) -> None:
    one = book(*first, id="one", token_budget=budget)
    two = book(*second, id="two", token_budget=budget)
    forward = scan([one, two], ["a chave"])
    backward = scan([two, one], ["a chave"])
    assert forward.messages == backward.messages
    assert forward.decisions == backward.decisions
