"""Explore: read outward from a query through links and related pages, within a budget (EPI-2, EPI-13).

The search (elsewhere) gives the seed pages, best first. :func:`explore` reads the seeds, then
the pages reached from them through links and backlinks (``query.related_items``), breadth
first, one hop at a time, and stops when the next page's text would pass the token budget of
the ``reasoning`` level (``answer.REASONING_LEVELS``: ``max_tokens`` to read, ``results`` seeds,
``hops`` links). Every page read is named in ``reads``: the service records one read on each,
so reading through explore keeps a page alive as a search result does (EPI-2).

Only ``active`` and ``cold`` pages are read; working notes are in the prompt already and are
not explored.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

import msgspec

from engine.archive.answer import ReasoningBudget
from engine.archive.model import Page
from engine.archive.query import related_items
from engine.archive.working import approx_tokens

__all__ = ["Exploration", "ExploreStep", "explore", "explore_text"]

_READABLE = ("active", "cold")


class ExploreStep(msgspec.Struct, frozen=True, kw_only=True):
    """One page read: how far from the seeds, reached from which page, and what it cost."""

    id: str
    hops: int = 0
    via: str | None = None
    tokens: int = 0


class Exploration(msgspec.Struct, frozen=True, kw_only=True):
    """The pages read in order, the reads to record, the tokens spent and why it stopped.

    ``stopped``: ``budget`` when a further page would have passed the budget, ``exhausted``
    when every reachable page was read.
    """

    steps: tuple[ExploreStep, ...]
    reads: tuple[str, ...]
    spent: int
    budget: int
    stopped: Literal["budget", "exhausted"]


def explore_text(page: Page) -> str:
    """What explore reads of a page: its abstract and summary (or its body when it has neither)."""
    parts = [page.abstract] if page.abstract else []
    if page.summary and page.summary != page.abstract:
        parts.append(page.summary)
    return "\n".join(parts) or page.body


def explore(
    seeds: Sequence[str],
    pages: Sequence[Page],
    budget: ReasoningBudget,
    estimate: Callable[[str], int] = approx_tokens,
) -> Exploration:
    """Read from ``seeds`` outward within ``budget`` (see the module docstring).

    Args:
        seeds: the search's page ids, best first (the first ``budget.results`` are used).
        pages: the chat's pages (the link graph).
        budget: the reasoning level's budget.
        estimate: the token estimate of a page's text.
    """
    by_id = {p.id: p for p in pages if p.layer != "working" and p.status in _READABLE}
    start = [i for i in dict.fromkeys(seeds) if i in by_id][: budget.results]
    visible = list(by_id.values())
    order = [ExploreStep(id=i) for i in start]
    order += [
        ExploreStep(id=item.id, hops=item.hops, via=item.via)
        for item in (related_items(start, visible, budget.hops) if start else ())
        if item.id in by_id
    ]
    steps: list[ExploreStep] = []
    spent = 0
    stopped: Literal["budget", "exhausted"] = "exhausted"
    for step in order:
        cost = estimate(explore_text(by_id[step.id]))
        if spent + cost > budget.max_tokens:
            stopped = "budget"
            break
        steps.append(msgspec.structs.replace(step, tokens=cost))
        spent += cost
    return Exploration(
        steps=tuple(steps),
        reads=tuple(s.id for s in steps),
        spent=spent,
        budget=budget.max_tokens,
        stopped=stopped,
    )
