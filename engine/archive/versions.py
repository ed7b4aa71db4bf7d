"""The version chain: every rewrite is a new version, nothing is lost (EPI-11).

Theory of operation. A page's current content (abstract, summary, body, keep-worthy tokens,
status and ``superseded_by``) is version ``page.version``. :func:`rewrite_page` appends the
current content to ``page.versions`` as a :class:`PageVersion` and installs the new content as
version ``page.version + 1``. :func:`restore_page` is itself a rewrite whose new content is an
exact copy of an earlier version, so a restore can be undone the same way.

Invariants:
- version numbers of ``versions`` are ``1 .. page.version - 1`` in order;
- every text a page ever held is either current or in ``versions``.
"""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Literal

import msgspec

from engine.archive.model import Page, PageStatus, PageVersion, require_aware
from engine.archive.tokens import keep_worthy, merge_keep
from engine.errors import NotFound

__all__ = [
    "absorb_tokens",
    "compact_page",
    "current_version",
    "find_version",
    "page_text",
    "restore_page",
    "rewrite_page",
    "supersede_page",
]


class _Keep(enum.Enum):
    """Sentinel: keep the current pointer."""

    POINTER = "keep"


def current_version(page: Page) -> PageVersion:
    """The current content of ``page`` as a :class:`PageVersion` (what a rewrite archives)."""
    return PageVersion(
        number=page.version,
        at=page.version_at or page.created_at,
        reason=page.version_reason,
        abstract=page.abstract,
        summary=page.summary,
        body=page.body,
        keep=page.keep,
        status=page.status,
        superseded_by=page.superseded_by,
    )


def rewrite_page(
    page: Page,
    *,
    at: datetime,
    reason: str,
    abstract: str | None = None,
    summary: str | None = None,
    body: str | None = None,
    keep: tuple[str, ...] | None = None,
    status: PageStatus | None = None,
    superseded_by: str | Literal[_Keep.POINTER] | None = _Keep.POINTER,
) -> Page:
    """A new version of ``page``: the current content is archived, the given fields replace it.

    Args:
        page: the page to rewrite.
        at: when the rewrite happens (tz-aware).
        reason: why (``compacted``, ``absorbed``, ``superseded``, ``edited``, ...).
        abstract: new abstract, or ``None`` to keep the current one; likewise the other fields.
        summary: new summary.
        body: new body.
        keep: new keep-worthy tokens.
        status: new status.
        superseded_by: new pointer (``None`` clears it); omitted keeps the current one.

    Returns:
        The page at version ``page.version + 1``.

    Raises:
        InvalidInput: ``naive_datetime`` when ``at`` has no time zone.
    """
    require_aware(at, "rewrite time")
    pointer = page.superseded_by if superseded_by is _Keep.POINTER else superseded_by
    return msgspec.structs.replace(
        page,
        abstract=page.abstract if abstract is None else abstract,
        summary=page.summary if summary is None else summary,
        body=page.body if body is None else body,
        keep=page.keep if keep is None else keep,
        status=page.status if status is None else status,
        superseded_by=pointer,
        version=page.version + 1,
        version_at=at,
        version_reason=reason,
        versions=(*page.versions, current_version(page)),
    )


def find_version(page: Page, number: int) -> PageVersion:
    """Version ``number`` of ``page`` (the current one included).

    Raises:
        NotFound: ``no_such_version`` when the page has no such version.
    """
    if number == page.version:
        return current_version(page)
    for version in page.versions:
        if version.number == number:
            return version
    raise NotFound(
        f"Page {page.id} has no version {number} (current: {page.version}).", code="no_such_version"
    )


def restore_page(page: Page, version: int, at: datetime) -> Page:
    """Bring back the exact content of an earlier ``version`` as a new version (EPI-11).

    Text, keep-worthy tokens, status and pointer come back as they were; an eviction mark is
    cleared when the restored status is not ``evicted``. Restoring the current version changes
    nothing.

    Raises:
        NotFound: ``no_such_version`` when the page has no such version.
        InvalidInput: ``naive_datetime`` when ``at`` has no time zone.
    """
    earlier = find_version(page, version)
    if version == page.version:
        return page
    restored = rewrite_page(
        page,
        at=at,
        reason=f"restored:{version}",
        abstract=earlier.abstract,
        summary=earlier.summary,
        body=earlier.body,
        keep=earlier.keep,
        status=earlier.status,
        superseded_by=earlier.superseded_by,
    )
    evicted_at = restored.evicted_at if restored.status == "evicted" else None
    return msgspec.structs.replace(restored, evicted_at=evicted_at)


def compact_page(page: Page, at: datetime) -> Page:
    """The cold form of ``page``: abstract, summary and keep-worthy tokens; the prose is dropped (EPI-5).

    Tokens found in the dropped body are added to ``keep`` first, so compaction loses none; the
    full earlier text stays in the version chain. The new status is ``cold``.
    """
    keep = merge_keep(page.keep, keep_worthy("\n\n".join((page.abstract, page.summary, page.body))))
    return rewrite_page(page, at=at, reason="compacted", body="", keep=keep, status="cold")


def absorb_tokens(survivor: Page, others: tuple[Page, ...], at: datetime) -> Page:
    """``survivor`` after absorbing the keep-worthy tokens of ``others`` (EPI-6), as a new version."""
    absorbed = merge_keep(survivor.keep, *(merge_keep(p.keep, keep_worthy(page_text(p))) for p in others))
    page = rewrite_page(survivor, at=at, reason="absorbed", keep=absorbed)
    return msgspec.structs.replace(page, merged_from=merge_keep(page.merged_from, (p.id for p in others)))


def supersede_page(page: Page, survivor_id: str, at: datetime) -> Page:
    """``page`` marked superseded by ``survivor_id`` (EPI-6), as a new version; its text stays."""
    return rewrite_page(page, at=at, reason="superseded", status="superseded", superseded_by=survivor_id)


def page_text(page: Page) -> str:
    """The searchable text of ``page``: abstract, summary, body, then tokens not already in them."""
    text = "\n\n".join(part for part in (page.abstract, page.summary, page.body) if part)
    extra = [token for token in page.keep if token not in text]
    return "\n\n".join(part for part in (text, "\n".join(extra)) if part)
