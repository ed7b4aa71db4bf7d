"""Query options on memory search, over pages and their links (EPI-13, EPI-2).

The search itself (recall over memories and pages) happens elsewhere and yields ids, best first;
:func:`apply_query_options` adds what the options ask for and names every page returned, so the
service records one read on each (reads raise retention scores, EPI-2):

- ``pin_first``: up to ten pinned pages before the results (pinned results move up, in order;
  other pinned pages follow, newest first);
- ``include_related``: pages and memories reached through links and backlinks, up to 3 hops,
  each with the hop count and the id it was reached from;
- ``include_superseded``: pages merged into anything returned, flagged ``superseded``.

Only ``active`` and ``cold`` pages are visible; evicted, deleted and superseded pages are never
followed or returned (superseded ones only through ``include_superseded``). Ids that name no
page (memories) are returned as they are and followed through the extra ``edges`` given.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

import msgspec

from engine.archive.model import Page
from engine.errors import InvalidInput

__all__ = [
    "MAX_HOPS",
    "MAX_PINNED_FIRST",
    "QueryItem",
    "QueryOptions",
    "QueryResult",
    "apply_query_options",
    "pinned_first",
    "related_items",
    "superseded_items",
]

MAX_PINNED_FIRST = 10
MAX_HOPS = 3
_VISIBLE = ("active", "cold")

Source = Literal["pinned", "result", "related", "superseded"]


class QueryOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The archive-side query options (EPI-13); ``answer``/``reasoning`` live with the LLM.

    Raises:
        InvalidInput: ``invalid_hops`` when ``related_hops`` is not 1..3.
    """

    pin_first: bool = False
    include_related: bool = False
    related_hops: int = MAX_HOPS
    include_superseded: bool = False

    def __post_init__(self) -> None:
        if not 1 <= self.related_hops <= MAX_HOPS:
            raise InvalidInput(
                f"related_hops must be between 1 and {MAX_HOPS}, not {self.related_hops}.",
                code="invalid_hops",
            )


class QueryItem(msgspec.Struct, frozen=True, kw_only=True):
    """One returned id: why it is there, how far from the results, and whether it is a page."""

    id: str
    source: Source
    hops: int = 0
    via: str | None = None
    superseded: bool = False
    is_page: bool = True


class QueryResult(msgspec.Struct, frozen=True, kw_only=True):
    """The items to return, in order, and the page ids to record one read on."""

    items: tuple[QueryItem, ...]
    reads: tuple[str, ...]


def _visible(page: Page | None) -> bool:
    return page is None or page.status in _VISIBLE


def pinned_first(
    result_ids: Sequence[str], pages: Iterable[Page], limit: int = MAX_PINNED_FIRST
) -> tuple[str, ...]:
    """Up to ``limit`` (at most ten) visible pinned pages: pinned results first, then newest."""
    pinned = [p for p in pages if p.pinned and p.status in _VISIBLE]
    in_results = {p.id for p in pinned} & set(result_ids)
    ranked = [i for i in dict.fromkeys(result_ids) if i in in_results]
    rest = sorted(
        (p for p in pinned if p.id not in in_results), key=lambda p: (-p.created_at.timestamp(), p.id)
    )
    return tuple([*ranked, *(p.id for p in rest)][: min(limit, MAX_PINNED_FIRST)])


def _neighbours(pages: dict[str, Page], edges: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    graph: dict[str, list[str]] = {}
    links = [(p.id, target) for p in pages.values() for target in p.links]
    for a, b in (*links, *edges):
        if a != b:
            graph.setdefault(a, []).append(b)
            graph.setdefault(b, []).append(a)
    return {node: list(dict.fromkeys(targets)) for node, targets in graph.items()}


def related_items(
    start_ids: Sequence[str],
    pages: Iterable[Page],
    hops: int = MAX_HOPS,
    edges: Iterable[tuple[str, str]] = (),
) -> tuple[QueryItem, ...]:
    """Ids reached from ``start_ids`` through links and backlinks within ``hops`` (breadth first).

    Args:
        start_ids: the ids already returned (not repeated in the output).
        pages: the pages whose ``links`` form the graph.
        hops: the most links to follow (1..3).
        edges: extra ``(from, to)`` links, e.g. between memories and pages.

    Raises:
        InvalidInput: ``invalid_hops`` when ``hops`` is not 1..3.
    """
    if not 1 <= hops <= MAX_HOPS:
        raise InvalidInput(f"hops must be between 1 and {MAX_HOPS}, not {hops}.", code="invalid_hops")
    by_id = {p.id: p for p in pages}
    graph = _neighbours(by_id, edges)
    seen = set(start_ids)
    frontier = list(dict.fromkeys(start_ids))
    found: list[QueryItem] = []
    for depth in range(1, hops + 1):
        following: list[str] = []
        for node in frontier:
            for target in graph.get(node, ()):
                if target in seen or not _visible(by_id.get(target)):
                    continue
                seen.add(target)
                following.append(target)
                found.append(
                    QueryItem(id=target, source="related", hops=depth, via=node, is_page=target in by_id)
                )
        frontier = following
    return tuple(found)


def superseded_items(ids: Sequence[str], pages: Iterable[Page]) -> tuple[QueryItem, ...]:
    """Superseded pages pointing (directly or through other superseded pages) to any of ``ids``."""
    by_target: dict[str, list[str]] = {}
    for page in pages:
        if page.status == "superseded" and page.superseded_by is not None:
            by_target.setdefault(page.superseded_by, []).append(page.id)
    seen = set(ids)
    queue = list(dict.fromkeys(ids))
    found: list[QueryItem] = []
    while queue:
        target = queue.pop(0)
        for page_id in by_target.get(target, ()):
            if page_id not in seen:
                seen.add(page_id)
                queue.append(page_id)
                found.append(QueryItem(id=page_id, source="superseded", via=target, superseded=True))
    return tuple(found)


def apply_query_options(
    result_ids: Sequence[str],
    pages: Sequence[Page],
    options: QueryOptions,
    edges: Iterable[tuple[str, str]] = (),
) -> QueryResult:
    """What a query returns with ``options``, and the pages it reads (see the module docstring).

    Args:
        result_ids: the search results, best first (page or memory ids).
        pages: the pages in scope.
        options: the query options.
        edges: extra links between ids (e.g. memory links) for ``include_related``.

    Returns:
        The items in order (pinned, results, related, superseded) and the page ids read.
    """
    by_id = {p.id: p for p in pages}
    pinned = pinned_first(result_ids, pages) if options.pin_first else ()
    items = [QueryItem(id=i, source="pinned", is_page=True) for i in pinned]
    items += [
        QueryItem(id=i, source="result", is_page=i in by_id)
        for i in dict.fromkeys(result_ids)
        if i not in pinned
    ]
    shown = [item.id for item in items]
    if options.include_related:
        items += related_items(shown, pages, options.related_hops, edges)
    if options.include_superseded:
        items += superseded_items([item.id for item in items], pages)
    reads = tuple(item.id for item in items if item.id in by_id)
    return QueryResult(items=tuple(items), reads=reads)
