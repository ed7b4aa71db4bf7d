"""Benchmark of the whole lorebook step per turn (``scan_lore``) on generated books.

Book: N entries x 3 keys in mixed scripts (English, Vietnamese, Russian, Hebrew, Portuguese,
Japanese), 10% multi-word keys, 2% regex keys, recursion on, scan depth 50, budget 2048.
Chat: 50 realistic-length messages (the newest 50 of a rolling conversation) that mention a
few keys per message. The compiled book is built once and reused, as the service caches it.
Token counting: ``--counter offline`` (default) is the production offline estimate
(cl100k × 1.25, ``adapters.llm.tokens.offline_count``), which the service also uses for the
lore budget until exact counts are cached; ``--counter simple`` is ``len(text) // 4 + 1``.

Run: ``.venv/bin/python bench/lorebook_scan.py`` (``--sizes 500 5000 --turns 1000``).
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import datasets
from engine.lorebook import (
    CompiledBook,
    LoreBook,
    LoreEntry,
    LoreState,
    compile_book,
    scan_lore,
)

_BANK = datasets.load("lorebook_scan")
SEED = datasets.seed("lorebook_scan")
SYLLABLES = {lang: words.split() for lang, words in _BANK["syllables"].items()}
FILLER = {lang: words.split() for lang, words in _BANK["filler"].items()}
LANGS = list(SYLLABLES)


def make_key(rng: random.Random, lang: str, used: set[str]) -> str:
    """A new pseudo-word of 3-4 syllables in one script (unique within the book)."""
    while True:
        key = "".join(rng.choice(SYLLABLES[lang]) for _ in range(rng.randint(3, 4)))
        if key not in used:
            used.add(key)
            return key


def make_book(size: int, seed: int = SEED) -> tuple[LoreBook, list[str]]:
    """Generate a book and the list of its plain keys (used to write the chat)."""
    rng = random.Random(seed)
    plain: list[str] = []
    used: set[str] = set()
    entries = []
    for index in range(size):
        lang = LANGS[index % len(LANGS)]
        keys = []
        for _ in range(3):
            roll = rng.random()
            if roll < 0.02:
                keys.append(f"/{make_key(rng, 'en', used)}(s|en)?\\d*/i")
            elif roll < 0.12:
                keys.append(f"{make_key(rng, lang, used)} {make_key(rng, lang, used)}")
            else:
                keys.append(make_key(rng, lang, used))
        plain.extend(k for k in keys if not k.startswith("/"))
        filler = " ".join(rng.choice(FILLER[lang]) for _ in range(30))
        mention = rng.choice(plain) if rng.random() < 0.3 else ""
        entries.append(
            LoreEntry(
                id=str(index),
                keys=tuple(keys),
                content=f"{filler} {mention}".strip(),
                comment=f"entry {index}",
                priority=rng.randint(0, 10),
                order=rng.randint(0, 100),
            )
        )
    book = LoreBook(
        id="bench",
        name="bench",
        scan_depth=50,
        token_budget=2048,
        recursive_scanning=True,
        entries=tuple(entries),
    )
    return book, plain


def make_chat(rng: random.Random, keys: Sequence[str], count: int) -> list[str]:
    """Messages of 20-60 words in one language each; ~1 in 3 mentions a key."""
    messages = []
    for index in range(count):
        lang = LANGS[index % len(LANGS)]
        words = [rng.choice(FILLER[lang]) for _ in range(rng.randint(20, 60))]
        if rng.random() < 0.35:
            words.insert(rng.randrange(len(words)), rng.choice(keys))
        messages.append(" ".join(words))
    return messages


def count_tokens(text: str) -> int:
    """Simple pure token counter used by the benchmark."""
    return len(text) // 4 + 1


COUNTERS: dict[str, Callable[[str], int]] = {"simple": count_tokens}
COUNTER: list[Callable[[str], int]] = [count_tokens]


def run_turn(book: CompiledBook, window: Sequence[str], turn: int) -> tuple[int, int]:
    """One lorebook step; returns (included entries, decisions)."""
    result = scan_lore(
        [book],
        window,
        LoreState(),
        turn_id=f"turn-{turn}",
        message_count=turn + 50,
        at_greeting=False,
        count_tokens=COUNTER[0],
    )
    return len(result.messages), len(result.decisions)


def bench(size: int, turns: int) -> dict[str, float]:
    """Time ``turns`` scans of a window sliding over a generated chat."""
    source, keys = make_book(size)
    started = time.perf_counter()
    book = compile_book(source)
    compile_s = time.perf_counter() - started
    chat = make_chat(random.Random(size), keys, turns + 50)
    for turn in range(10):  # warm-up (lru caches, allocator)
        run_turn(book, chat[turn : turn + 50], turn)
    timings, included, decided = [], 0, 0
    for turn in range(turns):
        window = chat[turn : turn + 50]
        start = time.perf_counter()
        kept, decisions = run_turn(book, window, turn)
        timings.append(time.perf_counter() - start)
        included += kept
        decided += decisions
    tracemalloc.start()
    run_turn(book, chat[:50], 0)
    _, scan_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    tracemalloc.start()
    compile_book(source)
    _, compile_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    cuts = statistics.quantiles(timings, n=100)
    return {
        "entries": size,
        "compile_s": compile_s,
        "median_ms": statistics.median(timings) * 1000,
        "p90_ms": cuts[89] * 1000,
        "p99_ms": cuts[98] * 1000,
        "included": included / turns,
        "decisions": decided / turns,
        "scan_peak_kib": scan_peak / 1024,
        "compile_peak_mib": compile_peak / 2**20,
    }


def main() -> None:
    """Run the benchmark and print one line per size plus the flatness ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 5000])
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--counter", choices=["offline", "simple"], default="offline")
    args = parser.parse_args()
    if args.counter == "offline":
        from adapters.llm.tokens import offline_count

        offline_count("warm up")
        COUNTERS["offline"] = offline_count
    COUNTER[0] = COUNTERS[args.counter]
    print(f"token counter: {args.counter}")
    rows = [bench(size, args.turns) for size in args.sizes]
    for row in rows:
        print(
            f"entries={row['entries']:>5}  median={row['median_ms']:.2f} ms  "
            f"p90={row['p90_ms']:.2f} ms  p99={row['p99_ms']:.2f} ms  "
            f"included/turn={row['included']:.1f}  "
            f"decisions/turn={row['decisions']:.1f}  scan peak={row['scan_peak_kib']:.0f} KiB  "
            f"compile={row['compile_s']:.2f} s (peak {row['compile_peak_mib']:.1f} MiB traced)"
        )
    if len(rows) > 1:
        ratio = rows[-1]["median_ms"] / rows[0]["median_ms"]
        print(f"median ratio {rows[-1]['entries']}/{rows[0]['entries']} entries: {ratio:.2f}x")
    print(f"process max RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
