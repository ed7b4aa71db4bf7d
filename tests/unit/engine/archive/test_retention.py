"""EPI-2, EPI-3, EPI-4: the published retention score, reads, feedback, per-layer half-lives."""

from __future__ import annotations

import math
from datetime import datetime

import msgspec
import pytest

from engine.archive import (
    AGE_RATE,
    LAYERS,
    ArchivePolicy,
    Feedback,
    HalfLives,
    PageHit,
    add_feedback,
    is_cold,
    rank_pages,
    record_read,
    record_reads,
    retention_score,
)
from engine.errors import ConfigError, InvalidInput

from .helpers import POLICY, day, page


def test_epi_2_half_life_is_about_35_days() -> None:
    p = page("p")
    ratio = retention_score(p, day(35), POLICY) / retention_score(p, day(0), POLICY)
    assert ratio == pytest.approx(0.5, abs=0.01)
    assert math.log(2) / AGE_RATE == pytest.approx(35, abs=0.5)


def test_epi_2_published_formula() -> None:
    p = page("p", salience=0.8, read_count=3, last_read_at=day(5))
    expected = 0.8 * math.exp(-0.02 * 10) + 0.6 * math.log(1 + 3) * math.exp(-0.04 * 5)
    assert retention_score(p, day(10), POLICY) == pytest.approx(expected, rel=1e-12)


def test_epi_2_a_page_is_cold_below_0_20() -> None:
    p = page("p")  # salience 1: cold once e^(-0.02 t) < 0.2, i.e. after ~80.5 days
    assert not is_cold(p, day(80), POLICY)
    assert is_cold(p, day(81), POLICY)
    assert not is_cold(p, day(81), ArchivePolicy(cold_below=0.1))


def test_epi_2_reads_raise_the_score() -> None:
    p = page("p")
    read = record_read(p, day(60), POLICY)
    assert retention_score(read, day(60), POLICY) > retention_score(p, day(60), POLICY)
    again = record_read(read, day(61), POLICY)
    assert retention_score(again, day(61), POLICY) > retention_score(read, day(61), POLICY)
    assert (again.read_count, again.last_read_at, again.reads) == (2, day(61), (day(60), day(61)))


def test_epi_2_a_read_keeps_a_cold_page_warm() -> None:
    p = page("p")
    assert is_cold(p, day(90), POLICY)
    assert not is_cold(record_read(p, day(90), POLICY), day(90), POLICY)


def test_epi_2_the_effect_of_old_reads_decays() -> None:
    read = record_read(page("p", salience=0.0), day(10), POLICY)
    fresh = retention_score(read, day(10), POLICY)
    later = retention_score(read, day(10 + 17.33), POLICY)
    assert fresh == pytest.approx(0.6 * math.log(2))
    assert later == pytest.approx(fresh / 2, rel=0.01)  # the read term halves in ~17 days


def test_epi_2_an_older_read_never_moves_the_last_read_back() -> None:
    p = record_read(page("p"), day(20), POLICY)
    late = record_read(p, day(5), POLICY)
    assert late.last_read_at == day(20)
    assert late.reads == (day(5), day(20))
    assert retention_score(late, day(30), POLICY) > retention_score(p, day(30), POLICY)


def test_epi_2_read_log_is_bounded_but_the_count_is_not() -> None:
    policy = ArchivePolicy(max_read_log=2)
    p = page("p")
    for n in range(5):
        p = record_read(p, day(n), policy)
    assert (p.read_count, p.reads) == (5, (day(3), day(4)))
    assert record_read(page("q"), day(1), ArchivePolicy(max_read_log=0)).reads == ()


def test_epi_2_record_reads_once_per_named_page() -> None:
    pages = (page("a"), page("b"), page("c"))
    after = record_reads(pages, ["c", "a", "c", "unknown"], day(3), POLICY)
    assert [(p.id, p.read_count) for p in after] == [("a", 1), ("b", 0), ("c", 1)]


@pytest.mark.parametrize("kind", ["stale", "wrong"])
def test_epi_3_feedback_drops_the_page_to_the_lowest_salience(kind: str) -> None:
    p = record_read(page("p"), day(1), POLICY)
    verdict = Feedback(kind=kind, at=day(2), by="web:u")  # type: ignore[arg-type]
    after = add_feedback(p, verdict, POLICY)
    assert after.salience == POLICY.lowest_salience == 0.0
    assert after.feedback == (verdict,)
    assert retention_score(after, day(2), POLICY) < retention_score(p, day(2), POLICY)
    assert add_feedback(p, verdict, ArchivePolicy(lowest_salience=0.05)).salience == 0.05


def test_epi_3_feedback_alone_makes_an_unread_page_cold() -> None:
    after = add_feedback(page("p"), Feedback(kind="stale", at=day(1)), POLICY)
    assert is_cold(after, day(1), POLICY)


def test_epi_3_score_never_changes_search_ranking() -> None:
    hits = [
        PageHit(page_id="cold", relevance=0.9, score=0.01),
        PageHit(page_id="warm", relevance=0.5, score=3.0),
        PageHit(page_id="mid", relevance=0.7, score=1.0),
        PageHit(page_id="tie", relevance=0.5, score=0.0),
    ]
    assert [h.page_id for h in rank_pages(hits)] == ["cold", "mid", "warm", "tie"]


def _every_layer(policy: ArchivePolicy) -> list[float]:
    return [
        retention_score(page(layer, layer=layer, read_count=2, last_read_at=day(3)), day(d), policy)
        for layer in LAYERS
        for d in (0, 1.5, 35, 400)
    ]


def test_epi_4_without_half_lives_scores_stay_exactly_the_same() -> None:
    shared = _every_layer(POLICY)
    assert _every_layer(ArchivePolicy(half_life_days=HalfLives())) == shared
    p = page("e", read_count=2, last_read_at=day(3))
    published = math.exp(-0.02 * 35) + 0.6 * math.log(3) * math.exp(-0.04 * 32)
    assert retention_score(p, day(35), POLICY) == pytest.approx(published, rel=1e-12)


def test_epi_4_per_layer_half_lives_apply_to_their_layer_only() -> None:
    policy = ArchivePolicy(half_life_days=HalfLives(working=7, episodic=365))
    working = page("w", layer="working")
    episodic = page("e")
    semantic = page("s", layer="semantic")
    assert retention_score(working, day(7), policy) == pytest.approx(0.5)
    assert retention_score(episodic, day(365), policy) == pytest.approx(0.5)
    assert retention_score(semantic, day(35), policy) == retention_score(semantic, day(35), POLICY)


@pytest.mark.parametrize("days", [0, -3, math.inf, math.nan])
def test_epi_4_half_life_must_be_positive(days: float) -> None:
    with pytest.raises(ConfigError) as err:
        HalfLives(episodic=days)
    assert err.value.code == "invalid_half_life"


def test_epi_4_half_lives_decode_from_config() -> None:
    policy = msgspec.convert({"half_life_days": {"working": 7, "episodic": 365}}, ArchivePolicy)
    assert policy.half_life_days == HalfLives(working=7, episodic=365)
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({"half_life_days": {"dream": 1}}, ArchivePolicy)


@pytest.mark.parametrize(
    "changes",
    [
        {"cold_below": 1.5},
        {"lowest_salience": -0.1},
        {"lowest_salience": 0.9, "default_salience": 0.5},
        {"session_gap_secs": 0},
        {"delete_after_days": -1},
        {"max_read_log": -1},
        {"belief_authority_weight": -0.5},
    ],
)
def test_policy_out_of_range_is_refused(changes: dict[str, object]) -> None:
    with pytest.raises(ConfigError) as err:
        ArchivePolicy(**changes)  # type: ignore[arg-type]
    assert err.value.code == "invalid_policy"


def test_naive_now_is_refused() -> None:
    with pytest.raises(InvalidInput) as err:
        retention_score(page("p"), datetime(2026, 3, 1), POLICY)  # noqa: DTZ001
    assert err.value.code == "naive_datetime"
