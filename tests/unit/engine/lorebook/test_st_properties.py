"""Hypothesis invariants of inclusion groups, timed effects and regenerate (LORE-14, LORE-15, LORE-16)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.lorebook import LoreEntry
from tests.unit.engine.lorebook.support import book, included, scan

WORDS = ["fog", "sea", "owl", "bell", "tower"]


@st.composite
def st_entries(draw: st.DrawFn) -> list[LoreEntry]:
    count = draw(st.integers(1, 8))
    return [
        LoreEntry(
            id=str(i),
            keys=(draw(st.sampled_from(WORDS)),),
            content=" ".join(draw(st.lists(st.sampled_from(WORDS), max_size=3))) or "plain",
            group=draw(st.sampled_from(["", "g", "h", "g, h"])),
            group_override=draw(st.booleans()),
            group_weight=draw(st.integers(0, 200)),
            use_group_scoring=draw(st.none() | st.booleans()),
            sticky=draw(st.integers(0, 4)),
            cooldown=draw(st.integers(0, 4)),
            delay=draw(st.integers(0, 6)),
            delay_until_recursion=draw(st.sampled_from([False, True, 2, 3])),
            exclude_recursion=draw(st.booleans()),
            prevent_recursion=draw(st.booleans()),
            priority=draw(st.integers(-2, 2)),
        )
        for i in range(count)
    ]


MESSAGE = st.lists(st.sampled_from([*WORDS, "calm"]), min_size=1, max_size=4).map(" ".join)
MESSAGES = st.lists(MESSAGE, min_size=1, max_size=6)


@settings(max_examples=80)
@given(st_entries(), MESSAGES, st.booleans())
def test_lore_15_at_most_one_entry_per_group_and_recursion_ends(
    entries: list[LoreEntry], messages: list[str], recursive: bool
) -> None:
    compiled = book(*entries, recursive_scanning=recursive)
    result = scan(compiled, messages, turn_id="t", message_count=9)
    by_id = {e.id: e for e in entries}
    for name in ("g", "h"):
        members = [i for i in included(result) if name in [g.strip() for g in by_id[i].group.split(",")]]
        assert len(members) <= 1
    assert len({d.entry for d in result.decisions}) == len(result.decisions)  # one decision each


@settings(max_examples=60)
@given(st_entries(), st.lists(MESSAGES, min_size=1, max_size=5))
def test_lore_14_a_regenerate_renders_the_turn_again_exactly(
    entries: list[LoreEntry], turns: list[list[str]]
) -> None:
    compiled = book(*entries, recursive_scanning=True)
    state = scan(compiled, ["calm"], turn_id="t0", message_count=1).state
    for number, messages in enumerate(turns, start=1):
        first = scan(compiled, messages, state, turn_id=f"t{number}", message_count=1 + 2 * number)
        again = scan(compiled, messages, first.state, turn_id=f"t{number}", message_count=1 + 2 * number)
        assert again.messages == first.messages and again.state == first.state
        assert again.decisions == first.decisions
        state = first.state
