"""RECALL-1..3: the fused reasonable-match decision (engine.memory.fusion)."""

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
    FusionRule,
    query_weight=weight,
    memory_weight=weight,
    distinct_weight=weight,
    threshold=finite,
    lead=st.none() | st.floats(min_value=0, max_value=3, allow_nan=False),
    min_distinct=share,
    solo_lead=st.none() | st.floats(min_value=0, max_value=3, allow_nan=False),
    solo_dense=finite,
    min_content=share,
    person_gate=st.booleans(),
    phatic_cut=st.none() | share,
    phatic_distinct=share,
    phatic_plain=st.booleans(),
    short_cut=st.none() | share,
    short_words=st.integers(min_value=0, max_value=6),
)
evidence = st.builds(
    Evidence,
    id=st.sampled_from([f"m{i}" for i in range(12)]),
    dense=finite,
    query_cover=share,
    memory_cover=share,
    distinct_cover=share,
    content=share,
    elsewhere=st.booleans(),
    plain_distinct=st.none() | share,
)


@given(rules, evidence, st.sampled_from(["dense", "query_cover", "memory_cover", "distinct_cover"]), share)
def test_recall_1_fused_score_is_monotone_in_each_component(
    rule: FusionRule, item: Evidence, field: str, more: float
) -> None:
    higher = Evidence(
        **{**{f: getattr(item, f) for f in item.__struct_fields__}, field: getattr(item, field) + more}
    )
    assert fuse(higher, rule) >= fuse(item, rule)


@given(rules, st.lists(evidence, max_size=12), st.randoms(use_true_random=False), share)
def test_recall_1_the_decision_never_depends_on_candidate_order(
    rule: FusionRule, items: list[Evidence], rng: object, phatic: float
) -> None:
    shuffled = list(items)
    rng.shuffle(shuffled)  # type: ignore[attr-defined]
    assert decide(shuffled, rule, phatic=phatic) == decide(items, rule, phatic=phatic)


@given(
    rules,
    st.lists(evidence, min_size=1, max_size=12, unique_by=lambda e: e.id),
    st.integers(0, 11),
    finite,
    st.sampled_from(["dense", "query_cover", "memory_cover", "distinct_cover"]),
)
def test_recall_1_raising_a_candidates_evidence_never_drops_it(
    rule: FusionRule, items: list[Evidence], pick: int, more: float, field: str
) -> None:
    item = items[pick % len(items)]
    before = {h.memory_id for h in decide(items, rule)}
    value = getattr(item, field) + abs(more)
    value = value if field == "dense" else min(value, 1.0)
    raised = Evidence(**{**{f: getattr(item, f) for f in item.__struct_fields__}, field: value})
    after = {h.memory_id for h in decide([raised if e is item else e for e in items], rule)}
    assert item.id not in before or item.id in after


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


def test_recall_1_lead_keeps_only_a_clear_winner() -> None:
    close = [Evidence(id="a", dense=5.0), Evidence(id="b", dense=4.8)]
    assert decide(close, FusionRule(threshold=3.0, lead=0.5)) == ()
    clear = [Evidence(id="a", dense=5.0), Evidence(id="b", dense=3.9)]
    assert [h.memory_id for h in decide(clear, FusionRule(threshold=3.0, lead=0.5))] == ["a"]


def test_recall_1_small_talk_sharing_only_a_name_is_gated_out() -> None:
    rule = FusionRule(threshold=3.0, min_distinct=0.1)
    name_only = Evidence(id="a", dense=5.0, distinct_cover=0.04)
    assert decide([name_only], rule) == ()
    assert [h.memory_id for h in decide([Evidence(id="a", dense=5.0, distinct_cover=0.3)], rule)] == ["a"]


def test_recall_1_a_message_that_only_names_the_lists_people_recalls_nothing() -> None:
    rule = FusionRule(query_weight=3.0, threshold=3.5, lead=1.0, min_content=0.1)
    # "ok thanks Kate": Kate's job memory leads her others, but the message says nothing else
    thanks = [Evidence(id="job", dense=3.0, query_cover=1.0, content=0.0), Evidence(id="cat", dense=1.5)]
    assert decide(thanks, rule) == ()
    # "how is Kate's job going?": the same lead, and words besides the name
    asked = [Evidence(id="job", dense=3.0, query_cover=0.5, content=0.9), Evidence(id="cat", dense=1.0)]
    assert [h.memory_id for h in decide(asked, rule)] == ["job"]


def test_recall_1_a_clear_dense_winner_passes_the_gate_without_a_distinctive_word() -> None:
    rule = FusionRule(threshold=3.0, lead=0.5, min_distinct=0.1, solo_lead=1.5, solo_dense=4.0)
    # "what can't Nina eat?": her allergy far above her other memories, sharing only the name
    clear = [Evidence(id="allergy", dense=5.6, distinct_cover=0.05), Evidence(id="job", dense=3.9)]
    assert [h.memory_id for h in decide(clear, rule)] == ["allergy"]
    # "ok thanks Nina": her memories lifted together, none by 1.5
    close = [Evidence(id="allergy", dense=5.0, distinct_cover=0.05), Evidence(id="job", dense=4.2)]
    assert decide(close, rule) == ()
    # a clear lead of a weak dense score, or no rival to lead, is not enough
    weak = [Evidence(id="allergy", dense=3.8, distinct_cover=0.05), Evidence(id="job", dense=1.0)]
    assert decide(weak, rule) == ()
    assert decide(clear[:1], rule) == ()


def test_recall_1_negative_weights_are_refused() -> None:
    with pytest.raises(InvalidInput) as caught:
        FusionRule(query_weight=-1.0)
    with pytest.raises(InvalidInput):
        FusionRule(distinct_weight=-0.5)
    assert caught.value.code == "invalid_fusion_rule"


def test_recall_2_a_memory_about_other_people_neither_passes_nor_is_the_rival() -> None:
    # "what is Lara's cat called?": Juno's cat memory scores high on "cat" but is about Juno
    rule = FusionRule(threshold=1.0, lead=0.5, person_gate=True)
    juno_cat = Evidence(id="juno-cat", dense=4.0, elsewhere=True)
    lara_cat = Evidence(id="lara-cat", dense=3.8)
    assert [h.memory_id for h in decide([juno_cat, lara_cat], rule)] == ["lara-cat"]
    # without the gate, the two lie within the lead of each other: neither is a clear match
    assert decide([juno_cat, lara_cat], FusionRule(threshold=1.0, lead=0.5)) == ()
    # the gate only removes what the adapter marked: alone, Juno's memory is still dropped
    assert decide([juno_cat], rule) == ()


def test_recall_2_an_id_given_twice_keeps_its_evidence_that_is_not_elsewhere() -> None:
    rule = FusionRule(threshold=1.0, person_gate=True)
    items = [Evidence(id="m", dense=5.0, elsewhere=True), Evidence(id="m", dense=2.0)]
    assert [(h.memory_id, h.similarity) for h in decide(items, rule)] == [("m", 2.0)]


def test_recall_3_chit_chat_recalls_only_what_shares_a_distinctive_word() -> None:
    rule = FusionRule(
        threshold=3.0,
        lead=0.25,
        min_distinct=0.1,
        solo_lead=1.0,
        solo_dense=3.5,
        phatic_cut=0.9,
        phatic_distinct=0.2,
    )
    # "good morning Omar!": his birthday leads his other memories by the name alone
    birthday = [Evidence(id="birthday", dense=4.2, distinct_cover=0.07), Evidence(id="job", dense=2.5)]
    assert decide(birthday, rule, phatic=0.93) == ()
    # "I ordered a cake for Omar, the big day is coming": the same evidence, not chit-chat
    assert [h.memory_id for h in decide(birthday, rule, phatic=0.84)] == ["birthday"]
    # "haha Mochi knocked the vase over again": chit-chat that names the cat recalls it
    mochi = [Evidence(id="cat", dense=4.0, distinct_cover=0.45), Evidence(id="job", dense=2.5)]
    assert [h.memory_id for h in decide(mochi, rule, phatic=0.95)] == ["cat"]
    # without a cut the score is ignored
    assert decide(birthday, FusionRule(**{**_fields(rule), "phatic_cut": None}), phatic=0.99) != ()


def test_recall_3_with_phatic_plain_a_name_is_not_the_distinctive_word() -> None:
    rule = FusionRule(
        threshold=3.0,
        lead=0.1,
        min_distinct=0.1,
        solo_lead=0.5,
        solo_dense=2.5,
        phatic_cut=0.855,
        phatic_distinct=0.1,
        phatic_plain=True,
    )
    # "morning Chloe": the short "Chloe is a Leo" gets a distinct cover of 0.15 from the name
    leo = [
        Evidence(id="leo", dense=3.6, distinct_cover=0.15, plain_distinct=0.0),
        Evidence(id="tent", dense=2.0, distinct_cover=0.03, plain_distinct=0.0),
    ]
    assert decide(leo, rule, phatic=0.884) == ()
    assert [
        h.memory_id for h in decide(leo, FusionRule(**{**_fields(rule), "phatic_plain": False}), phatic=0.884)
    ] == ["leo"]
    # "haha Chloe, is The Bear that good?": chit-chat sharing a plain word recalls the show
    bear = [
        Evidence(id="bear", dense=3.9, distinct_cover=0.5, plain_distinct=0.42),
        Evidence(id="leo", dense=2.0, distinct_cover=0.1, plain_distinct=0.0),
    ]
    assert [h.memory_id for h in decide(bear, rule, phatic=0.9)] == ["bear"]
    # not chit-chat: the plain cover plays no part ("is Chloe a Leo or a Virgo?")
    assert [h.memory_id for h in decide(leo, rule, phatic=0.8)] == ["leo"]
    # not measured (None): the distinct cover stands in
    unmeasured = [Evidence(id="leo", dense=3.6, distinct_cover=0.15), Evidence(id="tent", dense=2.0)]
    assert [h.memory_id for h in decide(unmeasured, rule, phatic=0.884)] == ["leo"]


def _fields(rule: FusionRule) -> dict[str, object]:
    return {f: getattr(rule, f) for f in rule.__struct_fields__}


@given(rules, st.lists(evidence, max_size=12), share, share)
def test_recall_3_a_message_more_like_chit_chat_never_uses_more(
    rule: FusionRule, items: list[Evidence], phatic: float, more: float
) -> None:
    plain = {h.memory_id for h in decide(items, rule, phatic=phatic)}
    chattier = {h.memory_id for h in decide(items, rule, phatic=phatic + more)}
    assert chattier <= plain


def test_recall_3_a_short_message_is_chit_chat_from_the_lower_cut() -> None:
    rule = FusionRule(
        threshold=2.0,
        lead=0.1,
        min_distinct=0.1,
        solo_lead=0.25,
        phatic_cut=0.865,
        phatic_distinct=0.1,
        phatic_plain=True,
        short_cut=0.855,
        short_words=3,
    )
    # "hahaha Ben stop it" (2 words, score 0.857): one of Ben's memories leads by the name alone
    ben = [
        Evidence(id="liverpool", dense=3.4, distinct_cover=0.12, plain_distinct=0.0),
        Evidence(id="sax", dense=2.9, distinct_cover=0.05, plain_distinct=0.0),
    ]
    assert decide(ben, rule, phatic=0.857, words=2) == ()
    # "Юля вечно что-то одалживает и потом забывает 😂" (6 words, 0.867 would be chit-chat, 0.86
    # is not): a longer chatty remark may take the solo path to the fact it is about
    assert [h.memory_id for h in decide(ben, rule, phatic=0.86, words=6)] == ["liverpool"]
    assert decide(ben, rule, phatic=0.867, words=6) == ()
    # words not counted: only the full cut applies
    assert [h.memory_id for h in decide(ben, rule, phatic=0.857)] == ["liverpool"]
    assert decide(ben, rule, phatic=0.857, words=3) == ()
    assert [h.memory_id for h in decide(ben, rule, phatic=0.857, words=4)] == ["liverpool"]


@given(
    rules, st.lists(evidence, max_size=12), share, st.integers(min_value=0, max_value=8), st.integers(0, 4)
)
def test_recall_3_a_shorter_message_never_uses_more(
    rule: FusionRule, items: list[Evidence], phatic: float, words: int, fewer: int
) -> None:
    longer = {h.memory_id for h in decide(items, rule, phatic=phatic, words=words)}
    shorter = {h.memory_id for h in decide(items, rule, phatic=phatic, words=max(words - fewer, 0))}
    assert shorter <= longer
