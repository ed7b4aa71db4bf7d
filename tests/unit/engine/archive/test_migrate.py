"""EPI-12: upgrading changes nothing."""

from __future__ import annotations

import msgspec

from engine.archive import (
    PAGE_SCHEMA,
    ArchivePolicy,
    HalfLives,
    Page,
    migrate_page,
    migrate_pages,
    migration_changes,
    plan_sweep,
    retention_score,
)

from .helpers import POLICY, day, page

# A page as an earlier release stored it: no keep tokens, links, versions or schema yet.
OLD_PAYLOAD = b"""{
  "id": "p-old", "chat": "web:c", "created_at": "2026-01-01T00:00:00Z",
  "abstract": "Old session", "summary": "We talked.", "body": "We talked about /etc/hosts.",
  "salience": 0.7, "read_count": 4, "last_read_at": "2026-01-20T00:00:00Z", "schema": 0
}"""


def _old_pages() -> tuple[Page, ...]:
    return (msgspec.json.decode(OLD_PAYLOAD, type=Page), page("cur", 0), page("warm", 95, schema=0))


def test_epi_12_an_old_page_decodes_and_migrates_with_the_same_score_and_status() -> None:
    before = _old_pages()
    after = migrate_pages(before)
    assert all(p.schema == PAGE_SCHEMA for p in after)
    for old, new in zip(before, after, strict=True):
        assert retention_score(new, day(100), POLICY) == retention_score(old, day(100), POLICY)
        assert (new.status, new.body, new.keep, new.versions) == (
            old.status,
            old.body,
            old.keep,
            old.versions,
        )
    assert migration_changes(before, after, day(100), POLICY) == ()


def test_epi_12_an_upgrade_changes_no_sweep_decision() -> None:
    before = _old_pages()
    after = migrate_pages(before)
    for policy in (POLICY, ArchivePolicy(half_life_days=HalfLives())):
        old_plan, new_plan = plan_sweep(before, day(100), policy), plan_sweep(after, day(100), policy)
        assert (old_plan.scores, old_plan.actions, old_plan.purge) == (
            new_plan.scores,
            new_plan.actions,
            new_plan.purge,
        )


def test_epi_12_a_current_page_is_returned_as_it_is() -> None:
    current = page("p")
    assert migrate_page(current) is current


def test_epi_12_migration_changes_names_what_a_bad_migration_broke() -> None:
    before = _old_pages()
    broken = (
        msgspec.structs.replace(before[0], salience=0.1),
        msgspec.structs.replace(before[1], status="evicted"),
    )
    assert migration_changes(before, broken, day(100), POLICY) == ("p-old", "cur", "warm")


def test_epi_12_pages_and_plans_round_trip_through_json() -> None:
    pages = (page("a", 0), page("b", 0, keep=()), page("c", 95))
    plan = plan_sweep(
        pages, day(100), ArchivePolicy(compact_cold_episodic=True, dedup_cold_clusters=True), [("a", "b")]
    )
    assert plan.actions
    for value, kind in ((plan, type(plan)), (plan.updates, tuple[Page, ...])):
        assert msgspec.json.decode(msgspec.json.encode(value), type=kind) == value
