"""RECALL-1, DOC-1: the fused-score threshold for document chunks and archive pages
(engine.memory.fusion)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import InvalidInput
from engine.memory.fusion import Evidence, FusionRule, decide, fuse

finite = st.floats(min_value=-20, max_value=20, allow_nan=False)
share = st.floats(min_value=0, max_value=1, allow_nan=False)
weight = st.floats(min_value=0, max_value=5, allow_nan=False)
rules = st.builds(
    FusionRule, query_weight=weight, memory_weight=weight, distinct_weight=weight, threshold=finite
)
evidence = st.builds(
    Evidence,
    id=st.sampled_from([f"m{i}" for i in range(12)]),
    dense=finite,
    query_cover=share,
    memory_cover=share,
    distinct_cover=share,
)


@given(rules, evidence, st.sampled_from(["dense", "query_cover", "memory_cover", "distinct_cover"]), share)
def test_recall_1_fused_score_is_monotone_in_each_component(
    rule: FusionRule, item: Evidence, field: str, more: float
) -> None:
    higher = Evidence(
        **{**{f: getattr(item, f) for f in item.__struct_fields__}, field: getattr(item, field) + more}
    )
    assert fuse(higher, rule) >= fuse(item, rule)


@given(rules, st.lists(evidence, max_size=12), st.randoms(use_true_random=False))
def test_recall_1_the_passage_decision_never_depends_on_candidate_order(
    rule: FusionRule, items: list[Evidence], rng: object
) -> None:
    shuffled = list(items)
    rng.shuffle(shuffled)  # type: ignore[attr-defined]
    assert decide(shuffled, rule) == decide(items, rule)


def test_recall_1_hits_are_best_first_with_fused_similarity() -> None:
    rule = FusionRule(query_weight=2.0, threshold=3.0)
    found = decide(
        [
            Evidence(id="b", dense=2.0, query_cover=0.6, distinct_cover=0.5),  # 3.2
            Evidence(id="a", dense=4.0),  # 4.0
            Evidence(id="c", dense=2.5),  # 2.5: below the threshold
        ],
        rule,
    )
    assert [(h.memory_id, h.similarity) for h in found] == [("a", 4.0), ("b", 3.2)]


def test_recall_1_negative_weights_are_refused() -> None:
    with pytest.raises(InvalidInput):
        FusionRule(query_weight=-1.0)
    with pytest.raises(InvalidInput):
        FusionRule(distinct_weight=-0.5)
