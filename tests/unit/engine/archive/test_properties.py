"""Invariants of retention, versions and the sweep, checked with Hypothesis."""

from __future__ import annotations

import math
from datetime import datetime

from hypothesis import given
from hypothesis import strategies as st

from engine.archive import (
    ArchivePolicy,
    HalfLives,
    Page,
    SemanticEntry,
    absorb_tokens,
    apply_sweep,
    compact_page,
    confidence,
    evict_page,
    keep_worthy,
    plan_sweep,
    record_read,
    restore_page,
    retention_score,
    rewrite_page,
    supersede_page,
    sweepable,
)

from .helpers import POLICY, day, page
from .strategies import moments, pages, texts


@given(pages(), moments(), moments())
def test_epi_2_score_never_rises_with_time_without_reads(p: Page, a: datetime, b: datetime) -> None:
    early, late = min(a, b), max(a, b)
    assert retention_score(p, late, POLICY) <= retention_score(p, early, POLICY)


@given(pages(), moments())
def test_epi_2_score_is_bounded_by_salience_and_read_term(p: Page, now: datetime) -> None:
    bound = p.salience + 0.6 * math.log1p(p.read_count)
    assert 0.0 <= retention_score(p, now, POLICY) <= bound + 1e-12


@given(pages(), moments(), moments())
def test_epi_2_reads_never_lower_the_score(p: Page, read_at: datetime, now: datetime) -> None:
    read = record_read(p, read_at, POLICY)
    assert retention_score(read, now, POLICY) >= retention_score(p, now, POLICY)


@given(pages(), moments())
def test_epi_4_absent_half_lives_leave_scores_exactly_equal(p: Page, now: datetime) -> None:
    shared = retention_score(p, now, POLICY)
    assert retention_score(p, now, ArchivePolicy(half_life_days=HalfLives())) == shared


Op = tuple[str, str, int]
OPS = st.lists(
    st.tuples(
        st.sampled_from(("edit", "compact", "restore", "supersede", "evict", "absorb")),
        texts(),
        st.integers(min_value=1, max_value=20),
    ),
    max_size=12,
)


def _step(p: Page, op: Op, at: datetime) -> Page:
    kind, text, n = op
    if kind == "edit":
        return rewrite_page(p, at=at, reason="edited", body=text, abstract=text[:20])
    if kind == "compact":
        return compact_page(p, at)
    if kind == "restore":
        return restore_page(p, min(n, p.version), at)
    if kind == "supersede":
        return supersede_page(p, f"s{n}", at)
    if kind == "evict":
        return evict_page(p, at)
    return absorb_tokens(p, (page("other", body=text),), at)


@given(texts(), OPS)
def test_epi_11_versions_never_lose_text(body: str, ops: list[Op]) -> None:
    p = page("p", body=body, keep=keep_worthy(body))
    seen = {(p.abstract, p.summary, p.body, p.keep)}
    for n, op in enumerate(ops):
        p = _step(p, op, day(n + 1))
        seen.add((p.abstract, p.summary, p.body, p.keep))
    held = {(v.abstract, v.summary, v.body, v.keep) for v in p.versions}
    held.add((p.abstract, p.summary, p.body, p.keep))
    assert seen == held
    assert [v.number for v in p.versions] == list(range(1, p.version))


@given(texts(), OPS)
def test_epi_11_restore_brings_back_each_version_exactly(body: str, ops: list[Op]) -> None:
    p = page("p", body=body)
    for n, op in enumerate(ops):
        p = _step(p, op, day(n + 1))
    for version in p.versions:
        back = restore_page(p, version.number, day(99))
        assert (back.abstract, back.summary, back.body, back.keep, back.status, back.superseded_by) == (
            version.abstract,
            version.summary,
            version.body,
            version.keep,
            version.status,
            version.superseded_by,
        )


@given(texts())
def test_epi_5_compaction_keeps_every_keep_worthy_token(body: str) -> None:
    compacted = compact_page(page("p", body=body, keep=()), day(1))
    assert compacted.body == ""
    assert set(keep_worthy(body)) <= set(compacted.keep)


POLICIES = st.sampled_from(
    (
        POLICY,
        ArchivePolicy(compact_cold_episodic=True),
        ArchivePolicy(dedup_cold_clusters=True),
        ArchivePolicy(compact_cold_episodic=True, dedup_cold_clusters=True),
    )
)


@st.composite
def page_sets(draw: st.DrawFn) -> tuple[Page, ...]:
    n = draw(st.integers(min_value=0, max_value=8))
    return tuple(draw(pages(f"p{i}")) for i in range(n))


@given(page_sets(), moments(), POLICIES)
def test_epi_1_sweep_touches_only_cold_unpinned_episodic_pages(
    ps: tuple[Page, ...], now: datetime, policy: ArchivePolicy
) -> None:
    ids = [p.id for p in ps]
    clusters = [ids[: len(ids) // 2], ids[len(ids) // 2 :]]
    plan = plan_sweep(ps, now, policy, clusters)
    touched = {p.id for p in plan.updates} | set(plan.purge)
    for p in ps:
        if p.id in touched:
            assert sweepable(p)
            assert retention_score(p, now, policy) < policy.cold_below
    again = apply_sweep(ps, plan)
    assert plan_sweep(again, now, policy, clusters).empty
    assert [p.id for p in again] == [p.id for p in ps if p.id not in plan.purge]


@given(
    st.integers(min_value=0, max_value=40),
    st.integers(min_value=0, max_value=10),
    moments(),
    moments(),
)
def test_epi_9_confidence_stays_in_range_and_grows_with_support(
    sessions: int, contradictions: int, latest: datetime, now: datetime
) -> None:
    entry = SemanticEntry(id="e", text="t", created_at=day(0), updated_at=day(0))
    value = confidence(entry, sessions, latest, contradictions, now)
    assert 0.0 <= value <= 0.95
    assert confidence(entry, sessions + 1, latest, contradictions, now) >= value
    assert confidence(entry, sessions, latest, contradictions + 1, now) <= value
