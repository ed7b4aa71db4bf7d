"""The scheduled sweep, as a pure planner (EPI-2, EPI-5, EPI-6, EPI-11).

Theory of operation. :func:`plan_sweep` looks at a chat's pages at ``now`` and returns a
:class:`SweepPlan`; the service stores ``plan.updates`` and deletes ``plan.purge`` (atomically),
and :func:`apply_sweep` is the reference for that. In order:

1. *Purge*: an evicted page is deleted for good ``delete_after_days`` after its eviction; a
   superseded page goes with the page it points to.
2. *Score* every sweepable page: episodic, unpinned, ``active`` or ``cold`` (compacted). Other
   layers and pinned pages are never touched (EPI-1).
3. *Dedup* (``dedup_cold_clusters``, off by default): in each given cluster of cold pages the
   highest-scoring page survives and absorbs the others' keep-worthy tokens; the others are
   marked superseded and point to it.
4. *Cold pages* left: compacted when ``compact_cold_episodic`` is on (once; a compacted page
   stays ``cold``), evicted otherwise (the default). A page the dream pass rewrote less than
   ``DREAM_GRACE`` ago is spared: the merge it holds is not undone by the sweep that follows.

Every change of content or status is a new version (EPI-11), so ``restore_page`` can undo it.
Invariants: running the sweep again at the same ``now`` on the applied result plans nothing;
warm pages, pinned pages and non-episodic pages are never in ``updates`` or ``purge``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Literal

import msgspec

from engine.archive.model import SWEPT_LAYERS, ArchivePolicy, Page, require_aware
from engine.archive.retention import retention_score
from engine.archive.versions import absorb_tokens, compact_page, rewrite_page, supersede_page
from engine.errors import InvalidInput

__all__ = [
    "DREAM_GRACE",
    "Absorbed",
    "Compacted",
    "Evicted",
    "PageScore",
    "Purged",
    "Superseded",
    "SweepAction",
    "SweepPlan",
    "apply_sweep",
    "evict_page",
    "plan_sweep",
    "sweepable",
]


DREAM_GRACE = timedelta(days=7)
"""How long a page the dream pass rewrote is neither evicted nor compacted (EPI-10): its merged
text was written because the page was cold, and the same pass's sweep must not throw it away."""


class PageScore(msgspec.Struct, frozen=True, kw_only=True):
    """The score a sweepable page had at the sweep, and whether it was cold."""

    page_id: str
    score: float
    cold: bool


class Evicted(msgspec.Struct, frozen=True, kw_only=True, tag="evicted"):
    """A cold page left search; it is purged ``delete_after_days`` later."""

    page_id: str
    score: float


class Compacted(msgspec.Struct, frozen=True, kw_only=True, tag="compacted"):
    """A cold page kept only its abstract, summary and keep-worthy tokens (EPI-5)."""

    page_id: str
    score: float
    version: int


class Absorbed(msgspec.Struct, frozen=True, kw_only=True, tag="absorbed"):
    """The surviving page of a cluster took in the others' keep-worthy tokens (EPI-6)."""

    page_id: str
    score: float
    absorbed: tuple[str, ...]


class Superseded(msgspec.Struct, frozen=True, kw_only=True, tag="superseded"):
    """A cold page was merged into ``survivor_id`` and now points to it (EPI-6)."""

    page_id: str
    score: float
    survivor_id: str


class Purged(msgspec.Struct, frozen=True, kw_only=True, tag="purged"):
    """A page deleted for good: evicted long enough ago, or its survivor was purged."""

    page_id: str
    reason: Literal["expired", "survivor_purged"]


SweepAction = Evicted | Compacted | Absorbed | Superseded | Purged


class SweepPlan(msgspec.Struct, frozen=True, kw_only=True):
    """What one sweep decided.

    Attributes:
        at: the sweep time.
        scores: every sweepable page's score, in input order.
        actions: what happens to which page, in the order decided.
        updates: the pages to store (new versions), in input order.
        purge: ids of pages to delete for good.
    """

    at: datetime
    scores: tuple[PageScore, ...] = ()
    actions: tuple[SweepAction, ...] = ()
    updates: tuple[Page, ...] = ()
    purge: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        """Whether the sweep changes nothing."""
        return not (self.updates or self.purge)


def sweepable(page: Page) -> bool:
    """Whether the sweep scores ``page``: episodic, unpinned, ``active`` or ``cold`` (EPI-1, EPI-2)."""
    return page.layer in SWEPT_LAYERS and not page.pinned and page.status in ("active", "cold")


def evict_page(page: Page, at: datetime) -> Page:
    """``page`` evicted at ``at`` as a new version (its text stays until it is purged)."""
    return msgspec.structs.replace(
        rewrite_page(page, at=at, reason="evicted", status="evicted"), evicted_at=at
    )


def plan_sweep(
    pages: Sequence[Page], now: datetime, policy: ArchivePolicy, clusters: Iterable[Sequence[str]] = ()
) -> SweepPlan:
    """Plan one sweep over a chat's pages (see the module docstring).

    Args:
        pages: the pages (all layers; only sweepable ones are scored).
        now: the sweep time (tz-aware).
        policy: the archive policy.
        clusters: groups of near-duplicate page ids (from their embeddings, e.g. with
            ``cluster_by_similarity``); used only with ``dedup_cold_clusters``. Members that are
            not cold and sweepable are ignored; a page is handled by its first cluster only.

    Returns:
        The plan; ``plan.empty`` when nothing changes.

    Raises:
        InvalidInput: ``naive_datetime`` for a naive ``now``; ``duplicate_page_id`` when two
            pages share an id.
    """
    require_aware(now, "now")
    by_id = _index(pages)
    purge = _purged(pages, now, policy)
    scores = tuple(_score(p, now, policy) for p in pages if sweepable(p))
    score_of = {s.page_id: s.score for s in scores}
    cold = [by_id[s.page_id] for s in scores if s.cold]
    work: dict[str, Page] = {}
    actions: list[SweepAction] = [Purged(page_id=i, reason=r) for i, r in purge]
    if policy.dedup_cold_clusters:
        cold_ids = {p.id for p in cold}
        for cluster in clusters:
            actions.extend(_merge(cluster, cold_ids, by_id, score_of, work, now))
    for page in cold:
        current = work.get(page.id, page)
        if current.status == "superseded" or _dreamt_lately(current, now):
            continue
        action = _cold_action(current, score_of[page.id], now, policy, work)
        if action is not None:
            actions.append(action)
    updates = tuple(work[p.id] for p in pages if p.id in work)
    return SweepPlan(
        at=now, scores=scores, actions=tuple(actions), updates=updates, purge=tuple(i for i, _ in purge)
    )


def apply_sweep(pages: Sequence[Page], plan: SweepPlan) -> tuple[Page, ...]:
    """``pages`` after ``plan``: updated pages replaced, purged pages dropped, order kept."""
    updated = {page.id: page for page in plan.updates}
    gone = set(plan.purge)
    return tuple(updated.get(page.id, page) for page in pages if page.id not in gone)


def _dreamt_lately(page: Page, now: datetime) -> bool:
    at = page.version_at
    return page.version_reason == "dream" and at is not None and now - at < DREAM_GRACE


def _index(pages: Sequence[Page]) -> dict[str, Page]:
    by_id: dict[str, Page] = {}
    for page in pages:
        if page.id in by_id:
            raise InvalidInput(f"Two pages share the id {page.id}.", code="duplicate_page_id")
        by_id[page.id] = page
    return by_id


def _score(page: Page, now: datetime, policy: ArchivePolicy) -> PageScore:
    score = retention_score(page, now, policy)
    return PageScore(page_id=page.id, score=score, cold=score < policy.cold_below)


def _purged(
    pages: Sequence[Page], now: datetime, policy: ArchivePolicy
) -> list[tuple[str, Literal["expired", "survivor_purged"]]]:
    keep_for = timedelta(days=policy.delete_after_days)
    purged: list[tuple[str, Literal["expired", "survivor_purged"]]] = [
        (p.id, "expired")
        for p in pages
        if p.status == "evicted"
        and not p.pinned
        and p.evicted_at is not None
        and now - p.evicted_at >= keep_for
    ]
    gone = {page_id for page_id, _ in purged}
    grew = True
    while grew:
        followers = [
            p.id
            for p in pages
            if p.status == "superseded" and not p.pinned and p.superseded_by in gone and p.id not in gone
        ]
        purged.extend((page_id, "survivor_purged") for page_id in followers)
        gone.update(followers)
        grew = bool(followers)
    return purged


def _merge(
    cluster: Sequence[str],
    cold_ids: set[str],
    by_id: dict[str, Page],
    score_of: dict[str, float],
    work: dict[str, Page],
    now: datetime,
) -> list[SweepAction]:
    members = [by_id[i] for i in dict.fromkeys(cluster) if i in cold_ids and i not in work]
    if len(members) < 2:
        return []
    survivor = max(members, key=lambda p: (score_of[p.id], p.created_at))
    others = tuple(p for p in members if p.id != survivor.id)
    actions: list[SweepAction] = []
    for other in others:
        work[other.id] = supersede_page(other, survivor.id, now)
        actions.append(Superseded(page_id=other.id, score=score_of[other.id], survivor_id=survivor.id))
    work[survivor.id] = absorb_tokens(survivor, others, now)
    actions.append(
        Absorbed(page_id=survivor.id, score=score_of[survivor.id], absorbed=tuple(p.id for p in others))
    )
    return actions


def _cold_action(
    page: Page, score: float, now: datetime, policy: ArchivePolicy, work: dict[str, Page]
) -> SweepAction | None:
    if not policy.compact_cold_episodic:
        work[page.id] = evict_page(page, now)
        return Evicted(page_id=page.id, score=score)
    if page.status == "cold":
        return None
    work[page.id] = compact_page(page, now)
    return Compacted(page_id=page.id, score=score, version=work[page.id].version)
