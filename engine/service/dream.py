"""Runs the dream pass (EPI-10, EPI-11) in the worker, after the archive pass archived sessions.

Theory of operation. :meth:`DreamRunner.run` first decides whether to dream at all: the pass is
opt-in (``DreamPolicy.enabled``), needs an LLM (not the offline model) and an embedder, and
runs only when no client was active for ``idle_window_secs`` (the web process records activity
with ``touch_activity``). Every chat's cold, unpinned episodic pages outside the entropy filter
are grouped into near-duplicate clusters by their vectors; a page's novelty is
``1 − max cosine`` to the chat's pages outside its cluster, and ``plan_dream`` orders the clusters
most novel first. Before each cluster the activity mark is read again: any client activity since
the run began stops the run there. The LLM answers JSON that ``parse_dream`` validates; invalid
output changes nothing and is recorded, and the cluster's fingerprint is remembered in the store
so later runs skip that cluster until one of its pages changes. A valid merge is stored in one
compare-and-set through the archive store (the survivor's new version and the stubs), only if
the cluster's pages are still exactly what was planned; the survivor's vector is then
refreshed. Every run, skipped or not, leaves a :class:`DreamReport`.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping, Sequence
from datetime import datetime

from engine.archive import ArchivePolicy, Page, page_text, retention_score
from engine.archive.dream import (
    DreamCluster,
    DreamPolicy,
    DreamReport,
    apply_dream,
    cluster_fingerprint,
    dream_prompt,
    is_idle,
    parse_dream,
    plan_dream,
)
from engine.errors import LLMUnavailable
from engine.model import ModelSettings
from engine.ports import ChatModel, Clock, DreamRecall, DreamStore, TextDelta

__all__ = ["DreamRecall", "DreamRunner", "DreamStore", "novelty_of"]

MAX_TOKENS = 4096


def _unit(raw: bytes) -> tuple[float, ...]:
    values = struct.unpack(f"<{len(raw) // 4}f", raw)
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return tuple(v / norm for v in values)


def novelty_of(clusters: Sequence[Sequence[str]], vectors: Mapping[str, bytes]) -> dict[str, float]:
    """Per clustered page, ``1 − max cosine`` to the pages outside its cluster (1.0 when none).

    Args:
        clusters: near-duplicate groups of one chat.
        vectors: the chat's page vectors (little-endian float32 bytes).

    Returns:
        The novelty of every clustered page that has a vector.
    """
    units = {i: _unit(v) for i, v in vectors.items()}
    novelty: dict[str, float] = {}
    for cluster in clusters:
        inside = set(cluster)
        others = [u for i, u in units.items() if i not in inside]
        for page in cluster:
            if page not in units:
                continue
            mine = units[page]
            best = max((sum(a * b for a, b in zip(mine, o, strict=False)) for o in others), default=0.0)
            novelty[page] = 1.0 - max(0.0, best)
    return novelty


class DreamRunner:
    """The dream pass of one deployment."""

    def __init__(
        self,
        *,
        store: DreamStore,
        recall: DreamRecall | None,
        model: ChatModel | None,
        clock: Clock,
        archive: ArchivePolicy,
        policy: DreamPolicy,
        default_model: str,
    ) -> None:
        self.store = store
        self.recall = recall
        self.model = model
        self.archive = archive
        self.policy = policy
        self._clock = clock
        self._default_model = default_model

    async def run(self) -> DreamReport:
        """One dream run; its report is stored and returned (skipped runs say why)."""
        report = await self._run()
        await self.store.add_dream_report(report)
        return report

    def _missing(self) -> str:
        if not self.policy.enabled:
            return "the dream pass is off (HEARTH_DREAM_ENABLED)"
        if self.model is None or self.model.provider == "offline":
            return "no LLM: the dream pass needs one"
        if self.recall is None:
            return "no embedder: the dream pass needs one to find near-duplicate pages"
        return ""

    async def _run(self) -> DreamReport:
        started = self._clock.now()
        reason = self._missing()
        if reason or self.recall is None or self.model is None:
            return DreamReport(started_at=started, status="skipped", reason=reason)
        seen = await self.store.last_activity()
        if not is_idle(seen, started, self.policy):
            return DreamReport(
                started_at=started,
                status="skipped",
                reason=f"not idle: a client was active at {seen:%Y-%m-%dT%H:%M:%SZ} "
                f"(idle window {self.policy.idle_window_secs} s)",
            )
        pages, planned = await self._plan(self.recall, started)
        if not planned:
            return DreamReport(started_at=started, status="done", reason="no cold near-duplicate clusters")
        return await self._merge_all(self.model, started, seen, pages, planned)

    async def _plan(
        self, recall: DreamRecall, now: datetime
    ) -> tuple[dict[str, Page], tuple[DreamCluster, ...]]:
        every: list[Page] = []
        clusters: list[tuple[str, ...]] = []
        novelty: dict[str, float] = {}
        for chat in await self.store.chats():
            pages = await self.store.pages(chat)
            low = await self.store.low_entropy(chat)
            every.extend(pages)
            cold = [p.id for p in pages if p.id not in low and self._candidate(p, now)]
            if len(cold) < 2:
                continue
            found = await recall.clusters(chat, cold, self.policy.similarity)
            if not found:
                continue
            stored = await self.store.vectors(chat)
            clusters.extend(found)
            if stored.model == recall.model:
                novelty.update(novelty_of(found, stored.vectors))
        rejected = await self.store.rejected_clusters()
        planned = plan_dream(every, clusters, novelty, now, self.archive, self.policy, rejected)
        return {p.id: p for p in every}, planned

    def _candidate(self, page: Page, now: datetime) -> bool:
        return (
            page.layer == "episodic"
            and not page.pinned
            and page.status in ("active", "cold")
            and retention_score(page, now, self.archive) < self.archive.cold_below
        )

    async def _merge_all(
        self,
        model: ChatModel,
        started: datetime,
        seen: datetime | None,
        pages: Mapping[str, Page],
        planned: Sequence[DreamCluster],
    ) -> DreamReport:
        merged: list[tuple[str, tuple[str, ...]]] = []
        rejected: list[tuple[str, str]] = []
        for done, cluster in enumerate(planned):
            latest = await self.store.last_activity()
            if latest is not None and (seen is None or latest > seen):
                return DreamReport(
                    started_at=started,
                    status="stopped",
                    reason=f"client activity resumed; {len(planned) - done} cluster(s) left",
                    merged=tuple(merged),
                    rejected=tuple(rejected),
                )
            problem = await self._merge(model, cluster, [pages[i] for i in cluster.pages])
            if problem:
                rejected.append((cluster.survivor, problem))
            else:
                merged.append((cluster.survivor, cluster.pages))
        return DreamReport(started_at=started, status="done", merged=tuple(merged), rejected=tuple(rejected))

    async def _ask(self, model: ChatModel, members: Sequence[Page]) -> str:
        settings = ModelSettings(name=self._default_model, max_tokens=MAX_TOKENS)
        stream = model.stream(dream_prompt(members), settings, "dream")
        return "".join([e.text async for e in stream if isinstance(e, TextDelta)])

    async def _merge(self, model: ChatModel, cluster: DreamCluster, members: Sequence[Page]) -> str:
        """Merge one cluster; returns why it was rejected, or ``""`` when it was stored."""
        try:
            output = parse_dream(await self._ask(model, members), cluster)
        except LLMUnavailable as exc:
            return f"the LLM failed: {exc.code}"
        at = self._clock.now()
        if isinstance(output, str):  # not sent again while its pages stay as they are
            await self.store.reject_cluster(cluster.fingerprint or cluster_fingerprint(members), at)
            return output
        planned = {p.id: p for p in members}
        chat = members[0].chat

        def decide(current: list[Page]) -> tuple[tuple[Page, ...], tuple[str, ...], str]:
            now = {p.id: p for p in current if p.id in planned}
            if now != planned:
                return (), (), "the pages changed while the LLM was writing; nothing was merged"
            return apply_dream(current, cluster, output, at), (), ""

        problem = await self.store.change(chat, decide)
        if not problem and self.recall is not None:
            survivor = next(p for p in await self.store.pages(chat) if p.id == cluster.survivor)
            (vector,) = await self.recall.embed([page_text(survivor)])
            await self.store.put_vectors(chat, self.recall.model, {survivor.id: vector})
        return problem
