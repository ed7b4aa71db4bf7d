"""Summary tiers, pure parts: SUM-1..3, SUM-5."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from engine.model import StoredMessage
from engine.summary import (
    SummaryPolicy,
    SummaryState,
    Tier,
    add_tier,
    apply_fold,
    backlog,
    extractive_summary,
    merged_tier,
    plan_fold,
    plan_summary,
    prompt_summaries,
)

NOW = datetime(2026, 11, 30, tzinfo=UTC)


def msgs(n: int) -> list[StoredMessage]:
    return [
        StoredMessage(
            id=f"m{i}",
            chat="web:c",
            role="user",
            user="web:u",
            name="U",
            text=f"Line {i}.",
            sent_at=NOW,
            position=float(i),
            tokens=3,
        )
        for i in range(1, n + 1)
    ]


def tier(level: str, first: float, last: float, n: int = 0) -> Tier:
    return Tier(
        id=f"{level}-{first}",
        level=level,
        text=f"{level} {first}-{last}",
        first=first,
        last=last,  # type: ignore[arg-type]
        messages=n,
        created_at=NOW,
    )


def test_sum_1_only_whole_chunks_of_the_backlog_are_planned() -> None:
    policy = SummaryPolicy(chunk_messages=10, chunks_per_job=3)
    assert plan_summary(msgs(9), policy) is None
    plan = plan_summary(msgs(45), policy)
    assert plan is not None and [len(c) for c in plan.chunks] == [10, 10, 10]
    assert plan.chunks[0][0].id == "m1" and plan.chunks[2][-1].id == "m30"


def test_sum_1_backlog_is_what_left_the_window_after_the_last_summary() -> None:
    state = SummaryState(upto=5.0)
    assert [m.id for m in backlog(msgs(20), 12.0, state)] == [f"m{i}" for i in range(6, 12)]


def test_sum_2_four_recent_fold_into_one_merged_and_four_merged_into_long_term() -> None:
    policy = SummaryPolicy()
    state = SummaryState()
    for i in range(4):
        state = add_tier(state, tier("recent", i * 10 + 1, i * 10 + 10, 10))
    fold = plan_fold(state, policy)
    assert fold is not None and fold.level == "recent" and len(fold.tiers) == 4
    state = apply_fold(state, fold, merged_tier(fold, id="m1", text="merged", now=NOW, offline=False))
    (merged,) = state.level("merged")
    assert (merged.first, merged.last, merged.messages) == (1, 40, 40)
    assert state.level("recent") == () and state.upto == 40
    state = SummaryState(tiers=tuple(tier("merged", i, i) for i in range(4)))
    fold = plan_fold(state, policy)
    assert fold is not None and fold.level == "merged"
    assert merged_tier(fold, id="x", text="t", now=NOW, offline=False).level == "long_term"


def test_sum_3_prompt_carries_long_term_then_merged_then_recent() -> None:
    state = SummaryState(
        tiers=(tier("recent", 41, 50), tier("merged", 1, 20), tier("long_term", 0, 0), tier("merged", 21, 40))
    )
    assert prompt_summaries(state) == ("long_term 0-0", "merged 1-20", "merged 21-40", "recent 41-50")


def test_sum_5_extractive_summary_keeps_first_sentences_within_the_limit() -> None:
    text = extractive_summary(
        ["Ana: We met at the inn. It rained.", "Bo: I found a map! Great."], max_chars=60
    )
    assert text == "Ana: We met at the inn. Bo: I found a map!"
    assert len(extractive_summary(["x" * 500], max_chars=100)) <= 500


@given(st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=30))
def test_sum_2_property_tiers_never_overlap_and_cover_in_order(sizes: list[int]) -> None:
    policy = SummaryPolicy(fold=4)
    state, start = SummaryState(), 1
    for n in sizes:
        state = add_tier(state, tier("recent", start, start + n - 1, n))
        start += n
        while (fold := plan_fold(state, policy)) is not None:
            state = apply_fold(
                state, fold, merged_tier(fold, id=f"f{start}-{fold.level}", text="", now=NOW, offline=False)
            )
    spans = sorted((t.first, t.last) for t in state.tiers)
    assert all(a[1] < b[0] for a, b in itertools.pairwise(spans))  # no overlap
    assert sum(t.messages for t in state.tiers) == sum(sizes)  # nothing lost
    assert all(len(state.level(level)) < 4 for level in ("recent", "merged"))  # 4:1 folds happened
