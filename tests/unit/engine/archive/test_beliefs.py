"""EPI-8, EPI-9: lint and confidence on semantic entries."""

from __future__ import annotations

from datetime import datetime

import pytest

from engine.archive import (
    CONFIDENCE_CAP,
    BeliefHit,
    LintPair,
    LintPolicy,
    SemanticEntry,
    confidence,
    entry_of,
    explain,
    lint,
    rank_beliefs,
)
from engine.errors import InvalidInput

from .helpers import day, page


def _entry(entry_id: str, text: str, updated: float) -> SemanticEntry:
    return SemanticEntry(id=entry_id, text=text, created_at=day(0), updated_at=day(updated))


ENTRIES = (
    _entry("cat1", "Juno's cat is called Mochi", 1),
    _entry("cat2", "Juno's cat is called Bánh Bao", 9),
    _entry("cat3", "juno's  cat is called MOCHI", 3),
    _entry("job", "Juno works as a nurse", 2),
)
MATRIX = (
    (1.0, 0.85, 0.80, 0.1),
    (0.85, 1.0, 0.83, 0.1),
    (0.80, 0.83, 1.0, 0.1),
    (0.1, 0.1, 0.1, 1.0),
)


def test_epi_8_same_topic_pairs_name_the_newer_entry() -> None:
    assert lint(ENTRIES, MATRIX) == (
        LintPair(older_id="cat1", newer_id="cat2", similarity=0.85),
        LintPair(older_id="cat3", newer_id="cat2", similarity=0.83),
    )


def test_epi_8_duplicates_are_not_reported() -> None:
    assert lint(ENTRIES[:2], [[1.0, 0.97], [0.97, 1.0]]) == ()
    assert lint(ENTRIES[:2], [[1.0, 0.97], [0.97, 1.0]], LintPolicy(duplicate=0.99)) != ()


def test_epi_8_similarity_may_be_a_function() -> None:
    def topic(a: SemanticEntry, b: SemanticEntry) -> float:
        return 0.8 if ("cat" in a.id) == ("cat" in b.id) else 0.0

    pairs = lint(ENTRIES, topic)
    assert {(p.older_id, p.newer_id) for p in pairs} == {("cat1", "cat2"), ("cat3", "cat2")}


def test_epi_8_lint_edits_nothing() -> None:
    before = tuple(ENTRIES)
    lint(ENTRIES, MATRIX)
    assert before == ENTRIES


def test_epi_8_matrix_must_fit() -> None:
    with pytest.raises(InvalidInput) as err:
        lint(ENTRIES, MATRIX[:2])
    assert err.value.code == "similarity_shape"


NOW = day(100)
FACT = _entry("f", "Juno's cat is called Mochi", 50)


def test_epi_9_published_confidence() -> None:
    assert confidence(FACT, 0, None, 0, NOW) == 0.0
    assert confidence(FACT, 1, NOW, 0, NOW) == pytest.approx(0.5)
    assert confidence(FACT, 2, NOW, 0, NOW) == pytest.approx(0.75)
    assert confidence(FACT, 2, day(10), 0, NOW) == pytest.approx(0.75 * 0.75)  # 90 days: recency 0.75
    assert confidence(FACT, 2, NOW, 1, NOW) == pytest.approx(0.375)


def test_epi_9_confidence_never_reaches_certainty() -> None:
    assert confidence(FACT, 50, NOW, 0, NOW) == CONFIDENCE_CAP == 0.95


def test_epi_9_entry_time_stands_in_for_missing_support_time() -> None:
    assert confidence(FACT, 1, None, 0, NOW) == confidence(FACT, 1, day(50), 0, NOW)


def test_epi_9_bad_counts_and_naive_times_are_refused() -> None:
    with pytest.raises(InvalidInput) as err:
        confidence(FACT, -1, NOW, 0, NOW)
    assert err.value.code == "negative_count"
    with pytest.raises(InvalidInput):
        confidence(FACT, 1, NOW, 0, datetime(2026, 1, 1))  # noqa: DTZ001


def test_epi_9_explain_shows_confidence_and_its_inputs() -> None:
    text = explain(FACT, 2, day(10), 1, NOW)
    assert text.startswith("f: Juno's cat is called Mochi\n")
    assert "confidence 0.28" in text
    assert "2 supporting sessions" in text
    assert "latest 2026-01-11 (90 days ago)" in text
    assert "1 contradiction" in text


def test_epi_9_confidence_changes_ranking_only_with_a_weight() -> None:
    hits = [
        BeliefHit(entry_id="doubtful", relevance=0.80, confidence=0.05),
        BeliefHit(entry_id="solid", relevance=0.78, confidence=0.95),
    ]
    assert [h.entry_id for h in rank_beliefs(hits)] == ["doubtful", "solid"]
    assert [h.entry_id for h in rank_beliefs(hits, 0.0)] == ["doubtful", "solid"]
    assert [h.entry_id for h in rank_beliefs(hits, 0.1)] == ["solid", "doubtful"]
    with pytest.raises(InvalidInput):
        rank_beliefs(hits, -1.0)


def test_epi_9_entry_of_a_semantic_page() -> None:
    entry = entry_of(page("s", 3, layer="semantic", summary="Juno is a nurse"))
    assert (entry.id, entry.text, entry.created_at, entry.updated_at) == (
        "s",
        "Juno is a nurse",
        day(3),
        day(3),
    )
