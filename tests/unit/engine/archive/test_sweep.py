"""EPI-1, EPI-2, EPI-5, EPI-6, EPI-12: the sweep planner."""

from __future__ import annotations

from datetime import timedelta

import pytest
from msgspec.structs import replace

from engine.archive import (
    Absorbed,
    ArchivePolicy,
    Compacted,
    Evicted,
    Page,
    Purged,
    Superseded,
    apply_sweep,
    evict_page,
    keep_worthy_tokens,
    plan_sweep,
    record_read,
    retention_score,
    rewrite_page,
    supersede_page,
)
from engine.archive.sweep import DREAM_GRACE
from engine.errors import InvalidInput

from .helpers import BODY, POLICY, by_id, day, page

COMPACT = ArchivePolicy(compact_cold_episodic=True)
DEDUP = ArchivePolicy(dedup_cold_clusters=True, compact_cold_episodic=True)
NOW = day(100)  # a page created on day 0 is cold (score ~0.14); one created on day 90 is warm


def test_epi_2_default_sweep_evicts_cold_pages_and_leaves_warm_ones() -> None:
    pages = (page("old", 0), page("new", 90))
    plan = plan_sweep(pages, NOW, POLICY)
    assert [(s.page_id, s.cold) for s in plan.scores] == [("old", True), ("new", False)]
    assert plan.scores[0].score == pytest.approx(retention_score(pages[0], NOW, POLICY))
    assert plan.actions == (Evicted(page_id="old", score=plan.scores[0].score),)
    (evicted,) = plan.updates
    assert (evicted.id, evicted.status, evicted.evicted_at, evicted.body) == ("old", "evicted", NOW, BODY)
    assert evicted.versions[-1].status == "active"
    assert plan.purge == ()


def test_epi_2_a_read_page_is_not_swept() -> None:
    read = record_read(page("old", 0), day(95), POLICY)
    assert plan_sweep((read,), NOW, POLICY).empty


def test_epi_1_pinned_pages_are_never_swept() -> None:
    pinned = page("pinned", 0, pinned=True)
    plan = plan_sweep((pinned,), day(900), DEDUP, clusters=[("pinned",)])
    assert plan.empty
    assert plan.scores == ()


@pytest.mark.parametrize("layer", ["working", "semantic", "procedural"])
def test_epi_1_other_layers_are_never_swept(layer: str) -> None:
    stale = page("p", 0, layer=layer, salience=0.0)
    for policy in (POLICY, DEDUP):
        plan = plan_sweep((stale,), day(900), policy)
        assert plan.empty
        assert plan.scores == ()


def test_epi_5_compaction_keeps_paths_urls_code_error_codes_and_identifiers() -> None:
    plan = plan_sweep((page("old", 0),), NOW, COMPACT)
    (compacted,) = plan.updates
    assert plan.actions == (Compacted(page_id="old", score=plan.scores[0].score, version=2),)
    assert (compacted.status, compacted.body) == ("cold", "")
    assert compacted.abstract == "Session old: fixing the deploy"
    assert compacted.summary == "We fixed the deploy of the bot together."
    kinds = {t.text: t.kind for t in keep_worthy_tokens(BODY)}
    assert set(kinds.values()) == {"path", "url", "code", "error", "identifier", "uuid", "hash"}
    for token in (
        "/srv/hearth/config/settings.toml",
        "https://docs.example.com/deploy#redis",
        "`make run`",
        "ERR_CONNECTION_REFUSED",
        "HTTP 502",
        "E1234",
        "load_settings",
        "ConfigError",
        "123e4567-e89b-12d3-a456-426614174000",
        "9f3c2ab",
    ):
        assert token in compacted.keep, token
    assert "weather" not in compacted.body + " ".join(compacted.keep)
    assert compacted.versions[-1].body == BODY


def test_epi_5_a_compacted_page_is_not_compacted_again() -> None:
    pages = apply_sweep((page("old", 0),), plan_sweep((page("old", 0),), NOW, COMPACT))
    again = plan_sweep(pages, day(200), COMPACT)
    assert again.empty
    assert again.scores[0].cold


def test_epi_5_without_compaction_a_compacted_cold_page_is_evicted() -> None:
    pages = apply_sweep((page("old", 0),), plan_sweep((page("old", 0),), NOW, COMPACT))
    plan = plan_sweep(pages, day(101), POLICY)
    assert [type(a) for a in plan.actions] == [Evicted]
    assert plan.updates[0].status == "evicted"


def test_epi_5_eviction_is_permanent_deletion_180_days_later() -> None:
    evicted = evict_page(page("old", 0), day(100))
    assert plan_sweep((evicted,), day(279.9), POLICY).empty
    plan = plan_sweep((evicted,), day(280), POLICY)
    assert plan.purge == ("old",)
    assert plan.actions == (Purged(page_id="old", reason="expired"),)
    assert apply_sweep((evicted, page("new", 270)), plan) == (page("new", 270),)


def test_epi_5_deletion_delay_is_configurable() -> None:
    evicted = evict_page(page("old", 0), day(100))
    assert plan_sweep((evicted,), day(110), ArchivePolicy(delete_after_days=10)).purge == ("old",)


def test_epi_5_pages_merged_into_a_purged_page_go_with_it() -> None:
    survivor = evict_page(page("s", 0), day(100))
    merged = supersede_page(page("m", 0), "s", day(100))
    chained = supersede_page(page("c", 0), "m", day(100))
    elsewhere = supersede_page(page("x", 0), "other", day(100))
    plan = plan_sweep((chained, elsewhere, merged, survivor), day(280), POLICY)
    assert plan.purge == ("s", "m", "c")
    assert Purged(page_id="c", reason="survivor_purged") in plan.actions


def test_epi_5_pinned_evicted_page_is_never_purged() -> None:
    evicted = evict_page(page("old", 0), day(100))
    assert plan_sweep((evicted,), day(900), POLICY).purge == ("old",)
    assert plan_sweep((replace(evicted, pinned=True),), day(900), POLICY).empty


def _cluster_pages() -> tuple[Page, Page, Page, Page]:
    best = record_read(page("best", 0, body="best page mentions /opt/a.py"), day(10), POLICY)
    low = page("low", 0, salience=0.5, body="low page mentions E4040 and fooBar")
    mid = page("mid", 0, salience=0.9, body="mid page mentions https://x.org/m")
    warm = page("warm", 95, body="warm page mentions warm_token")
    return low, best, mid, warm


def test_epi_6_dedup_keeps_the_best_page_and_points_the_others_to_it() -> None:
    pages = _cluster_pages()
    plan = plan_sweep(pages, NOW, DEDUP, clusters=[("low", "best", "mid", "warm", "nope")])
    after = by_id(apply_sweep(pages, plan))
    scores = {s.page_id: s.score for s in plan.scores}
    assert scores["best"] > scores["mid"] > scores["low"]
    assert [a for a in plan.actions if isinstance(a, Superseded)] == [
        Superseded(page_id="low", score=scores["low"], survivor_id="best"),
        Superseded(page_id="mid", score=scores["mid"], survivor_id="best"),
    ]
    assert Absorbed(page_id="best", score=scores["best"], absorbed=("low", "mid")) in plan.actions
    for loser in ("low", "mid"):
        assert (after[loser].status, after[loser].superseded_by) == ("superseded", "best")
        assert after[loser].body == by_id(pages)[loser].body  # nothing lost
        assert after[loser].version == 2
    survivor = after["best"]
    for token in ("/opt/a.py", "E4040", "fooBar", "https://x.org/m"):
        assert token in survivor.keep
    assert "warm_token" not in survivor.keep
    assert survivor.merged_from == ("low", "mid")
    assert (survivor.status, survivor.body) == ("cold", "")  # then compacted like any cold page
    assert after["warm"] == by_id(pages)["warm"]


def test_epi_6_dedup_is_off_by_default() -> None:
    pages = _cluster_pages()
    plan = plan_sweep(pages, NOW, COMPACT, clusters=[("low", "best", "mid")])
    assert {type(a) for a in plan.actions} == {Compacted}


def test_epi_6_a_page_is_merged_by_its_first_cluster_only() -> None:
    low, best, mid, _ = _cluster_pages()
    plan = plan_sweep((low, best, mid), NOW, DEDUP, clusters=[("low", "mid"), ("mid", "best"), ("best",)])
    supers = {a.page_id: a.survivor_id for a in plan.actions if isinstance(a, Superseded)}
    assert supers == {"low": "mid"}


def test_epi_6_without_compaction_the_survivor_is_evicted() -> None:
    low, best, mid, _ = _cluster_pages()
    plan = plan_sweep(
        (low, best, mid), NOW, ArchivePolicy(dedup_cold_clusters=True), clusters=[("low", "best")]
    )
    after = by_id(apply_sweep((low, best, mid), plan))
    assert (after["best"].status, after["low"].status, after["mid"].status) == (
        "evicted",
        "superseded",
        "evicted",
    )


def test_epi_12_default_sweep_never_rewrites_text() -> None:
    assert not POLICY.compact_cold_episodic and not POLICY.dedup_cold_clusters
    pages = _cluster_pages()
    plan = plan_sweep(pages, NOW, POLICY, clusters=[("low", "best", "mid")])
    assert {type(a) for a in plan.actions} == {Evicted}
    for updated in plan.updates:
        original = by_id(pages)[updated.id]
        assert (updated.abstract, updated.summary, updated.body, updated.keep) == (
            original.abstract,
            original.summary,
            original.body,
            original.keep,
        )


def test_epi_2_sweeping_the_result_again_plans_nothing() -> None:
    pages = (*_cluster_pages(), evict_page(page("gone", 0), day(50)))
    for policy in (POLICY, COMPACT, DEDUP):
        once = apply_sweep(pages, plan_sweep(pages, NOW, policy, clusters=[("low", "best", "mid")]))
        assert plan_sweep(once, NOW, policy, clusters=[("low", "best", "mid")]).empty


def test_duplicate_page_ids_are_refused() -> None:
    with pytest.raises(InvalidInput) as err:
        plan_sweep((page("a"), page("a")), NOW, POLICY)
    assert err.value.code == "duplicate_page_id"


@pytest.mark.parametrize("policy", [POLICY, COMPACT])
def test_epi_10_a_page_the_dream_just_rewrote_is_not_swept(policy: ArchivePolicy) -> None:
    """Issue 29: the dream's merged page (cold, as every page it merges) was evicted by the sweep
    of the same archive pass; it is spared for ``DREAM_GRACE`` after the rewrite."""
    dreamt = rewrite_page(page("merged", 0), at=NOW, reason="dream", body="All of it, merged.")
    other = page("other", 0)
    plan = plan_sweep((dreamt, other), NOW + timedelta(seconds=5), policy)
    assert [u.id for u in plan.updates] == ["other"]
    assert plan_sweep((dreamt,), NOW + DREAM_GRACE - timedelta(minutes=1), policy).empty
    later = plan_sweep((dreamt,), NOW + DREAM_GRACE, policy)  # cold and long since dreamt: swept
    assert [u.id for u in later.updates] == ["merged"]
