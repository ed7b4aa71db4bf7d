"""Retention scores, reads and feedback (EPI-2, EPI-3, EPI-4).

One published formula, with ``age_days`` counted from ``created_at`` and
``days_since_last_read`` from ``last_read_at``::

    score = salience * e^(-r * age_days) + 0.6 * ln(1 + reads) * e^(-0.04 * days_since_last_read)

``r`` is ``AGE_RATE`` (0.02 per day, a half-life of ~35 days) unless a per-layer half-life is
configured (``r = ln 2 / half_life``). A page is cold when its score is under ``cold_below``.

Invariants:
- without reads the score never rises as time passes, and it never exceeds
  ``salience + 0.6 * ln(1 + reads)``;
- a read never lowers the score (it raises the count and can only move the last read later);
- ``stale``/``wrong`` feedback only lowers salience, to ``lowest_salience``;
- the score decides what the sweep does and nothing else: :func:`rank_pages` orders search hits
  by relevance alone.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from datetime import datetime

import msgspec

from engine.archive.model import READ_RATE, READ_WEIGHT, ArchivePolicy, Feedback, Page, require_aware

__all__ = [
    "PageHit",
    "add_feedback",
    "age_term",
    "days_between",
    "is_cold",
    "rank_pages",
    "read_term",
    "record_read",
    "record_reads",
    "retention_score",
]

_DAY_SECS = 86_400.0


def days_between(earlier: datetime, later: datetime) -> float:
    """Days from ``earlier`` to ``later``, never negative (a future time counts as now)."""
    return max(0.0, (later - earlier).total_seconds() / _DAY_SECS)


def age_term(page: Page, now: datetime, policy: ArchivePolicy) -> float:
    """``salience * e^(-r * age_days)`` with the layer's rate ``r`` (EPI-2, EPI-4)."""
    return page.salience * math.exp(-policy.age_rate(page.layer) * days_between(page.created_at, now))


def read_term(page: Page, now: datetime) -> float:
    """``0.6 * ln(1 + reads) * e^(-0.04 * days_since_last_read)``; 0 for a page never read."""
    if page.read_count <= 0 or page.last_read_at is None:
        return 0.0
    since = days_between(page.last_read_at, now)
    return READ_WEIGHT * math.log1p(page.read_count) * math.exp(-READ_RATE * since)


def retention_score(page: Page, now: datetime, policy: ArchivePolicy) -> float:
    """The retention score of ``page`` at ``now`` (see the module docstring).

    Raises:
        InvalidInput: ``naive_datetime`` when ``now`` has no time zone.
    """
    require_aware(now, "now")
    return age_term(page, now, policy) + read_term(page, now)


def is_cold(page: Page, now: datetime, policy: ArchivePolicy) -> bool:
    """Whether the page's score is under ``policy.cold_below`` at ``now``."""
    return retention_score(page, now, policy) < policy.cold_below


def record_read(page: Page, at: datetime, policy: ArchivePolicy) -> Page:
    """``page`` after one read at ``at`` (a search result, opened, reached by a link, explore).

    The count goes up by one; the last read moves to ``at`` if later; the read log keeps the
    ``policy.max_read_log`` latest times.

    Raises:
        InvalidInput: ``naive_datetime`` when ``at`` has no time zone.
    """
    require_aware(at, "read time")
    last = at if page.last_read_at is None else max(page.last_read_at, at)
    log = tuple(sorted((*page.reads, at)))[-policy.max_read_log :] if policy.max_read_log else ()
    return msgspec.structs.replace(page, read_count=page.read_count + 1, last_read_at=last, reads=log)


def record_reads(
    pages: Sequence[Page], read_ids: Iterable[str], at: datetime, policy: ArchivePolicy
) -> tuple[Page, ...]:
    """``pages`` with one read recorded for each page named in ``read_ids`` (once per page).

    Pages not named come back unchanged, in the same order; unknown ids are ignored.
    """
    wanted = set(read_ids)
    return tuple(record_read(page, at, policy) if page.id in wanted else page for page in pages)


def add_feedback(page: Page, feedback: Feedback, policy: ArchivePolicy) -> Page:
    """``page`` with ``feedback`` recorded; ``stale``/``wrong`` drop it to the lowest salience (EPI-3).

    Raises:
        InvalidInput: ``naive_datetime`` when the feedback time has no time zone.
    """
    require_aware(feedback.at, "feedback time")
    salience = min(page.salience, policy.lowest_salience)
    return msgspec.structs.replace(page, salience=salience, feedback=(*page.feedback, feedback))


class PageHit(msgspec.Struct, frozen=True, kw_only=True):
    """A page a search found: its relevance, and its retention score for display only."""

    page_id: str
    relevance: float
    score: float | None = None


def rank_pages(hits: Iterable[PageHit]) -> tuple[PageHit, ...]:
    """Search hits best first by relevance; the retention score never changes the order (EPI-3).

    Ties keep their input order.
    """
    return tuple(sorted(hits, key=lambda hit: -hit.relevance))
