"""Upgrading changes nothing (EPI-12).

Stored pages evolve only by adding fields with defaults, so a page written by an older release
decodes as it is. :func:`migrate_page` brings a decoded page to :data:`PAGE_SCHEMA` without
touching anything that feeds the score, the status or the text; :func:`migration_changes` lets
the service check that before it commits a migration (after backing up the data).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import msgspec

from engine.archive.model import PAGE_SCHEMA, ArchivePolicy, Page
from engine.archive.retention import retention_score
from engine.archive.versions import current_version

__all__ = ["migrate_page", "migrate_pages", "migration_changes"]


def migrate_page(page: Page) -> Page:
    """``page`` at the current schema; score inputs, status, pointers and versions are kept."""
    if page.schema == PAGE_SCHEMA:
        return page
    return msgspec.structs.replace(page, schema=PAGE_SCHEMA)


def migrate_pages(pages: Sequence[Page]) -> tuple[Page, ...]:
    """Every page of ``pages`` migrated (see :func:`migrate_page`), order kept."""
    return tuple(migrate_page(page) for page in pages)


def migration_changes(
    before: Sequence[Page], after: Sequence[Page], now: datetime, policy: ArchivePolicy
) -> tuple[str, ...]:
    """Ids of pages a migration changed in a way it must not: lost, score, status or text.

    Args:
        before: the pages as stored before the migration.
        after: the migrated pages.
        now: the time to compare scores at (tz-aware).
        policy: the archive policy.

    Returns:
        The offending ids in ``before`` order; empty when the migration is safe.
    """
    migrated = {page.id: page for page in after}
    bad: list[str] = []
    for old in before:
        new = migrated.get(old.id)
        if new is None or not _same(old, new, now, policy):
            bad.append(old.id)
    return tuple(bad)


def _same(old: Page, new: Page, now: datetime, policy: ArchivePolicy) -> bool:
    return (
        retention_score(old, now, policy) == retention_score(new, now, policy)
        and current_version(old) == current_version(new)
        and old.versions == new.versions
        and (old.pinned, old.layer, old.evicted_at) == (new.pinned, new.layer, new.evicted_at)
    )
