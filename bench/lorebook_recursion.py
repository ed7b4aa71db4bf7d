"""Recursion scan on a dense lorebook: this tree's ``scan_lore`` against the pre-issue-15 one (LORE-16).

Dense book: 5,000 entries x 2 keys; each entry's content names ``--mentions`` keys of other
entries, so recursion (on, 3 passes) activates about a third of the book from the keys that
50 chat messages mention. Realistic book: the one of ``bench/lorebook_scan.py`` (5,000
entries, recursion on). Both scans run in the same process on the same compiled data: the
baseline is ``engine/lorebook`` as it was at commit ``--baseline`` (read with ``git show`` and
imported under another package name), so the figures compare code, not machines.

Run: ``.venv/bin/python bench/lorebook_recursion.py`` (``--entries 5000 --turns 30``).
"""

from __future__ import annotations

import argparse
import importlib
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from lorebook_scan import make_book, make_chat  # noqa: E402

from engine import lorebook as current  # noqa: E402
from engine.lorebook import LoreBook, LoreEntry  # noqa: E402

BASELINE = "154e9f9"
_FILES = (
    *("__init__", "activation", "compile", "decorators", "inject"),
    *("match", "model", "regex_keys", "scan", "text"),
)


def load_baseline(commit: str, where: Path) -> ModuleType:
    """``engine/lorebook`` at ``commit`` as the package ``baseline_lorebook``."""
    package = where / "baseline_lorebook"
    package.mkdir()
    for name in _FILES:
        command = ["git", "show", f"{commit}:engine/lorebook/{name}.py"]
        source = subprocess.run(command, cwd=ROOT, check=True, capture_output=True, text=True).stdout
        (package / f"{name}.py").write_text(source.replace("engine.lorebook", "baseline_lorebook"))
    sys.path.insert(0, str(where))
    return importlib.import_module("baseline_lorebook")


def dense_book(
    size: int, mentions: int, per_entry: int, hot: float, seed: int = 11
) -> tuple[LoreBook, list[str]]:
    """Entries of ``per_entry`` keys; each content names ``mentions`` keys of the "hot" entries
    (the first ``hot`` share of the book), so what activates stays within that share."""
    rng = random.Random(seed)
    keys = [tuple(f"dense{i}k{j}" for j in range(per_entry)) for i in range(size)]
    hot_count = max(1, int(size * hot))
    entries = []
    for index in range(size):
        named = [rng.choice(keys[rng.randrange(hot_count)]) for _ in range(mentions)]
        words = ("the", "old", "road", "north", "of", "river", "town")
        filler = " ".join(rng.choice(words) for _ in range(25))
        entries.append(
            LoreEntry(
                id=str(index),
                keys=keys[index],
                content=f"{filler} {' '.join(named)}.",
                priority=rng.randint(0, 10),
                order=rng.randint(0, 100),
            )
        )
    book = LoreBook(id="dense", name="dense", scan_depth=50, token_budget=2048, recursive_scanning=True,
                    entries=tuple(entries))  # fmt: skip
    return book, [k for pair in keys[:hot_count] for k in pair]


def chat_for(keys: list[str], count: int, per_message: int, seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    words = [["we", "walked", "on", *rng.sample(keys, per_message), "and", "talked"] for _ in range(count)]
    return [" ".join(message) for message in words]


def timed(module: Any, compiled: Any, chat: list[str], turns: int) -> tuple[float, float, int]:
    """Median CPU time and wall time of a scan (ms), and how many entries activated."""
    timings, walls, activated = [], [], 0
    for turn in range(turns + 3):
        started, wall = time.process_time(), time.perf_counter()
        result = module.scan_lore(
            [compiled], chat, module.LoreState(), turn_id=f"t{turn}", message_count=51,
            at_greeting=False, count_tokens=lambda text: len(text) // 4 + 1,
        )  # fmt: skip
        if turn >= 3:  # warm-up turns are not counted
            timings.append(time.process_time() - started)
            walls.append(time.perf_counter() - wall)
        activated = len(result.messages) + sum(
            1 for d in result.decisions if not d.included and d.reason.startswith("dropped: token budget")
        )
    return statistics.median(timings) * 1000, statistics.median(walls) * 1000, activated


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=5000)
    parser.add_argument("--mentions", type=int, default=40)
    parser.add_argument("--keys", type=int, default=20)
    parser.add_argument("--per-message", type=int, default=20)
    parser.add_argument("--hot", type=float, default=0.36)
    parser.add_argument("--only", choices=["dense", "realistic"])
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--baseline", default=BASELINE)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        old = load_baseline(args.baseline, Path(tmp))
        book, keys = dense_book(args.entries, args.mentions, args.keys, args.hot)
        chat = chat_for(keys, 50, args.per_message)
        real, real_keys = make_book(args.entries)
        real_chat = make_chat(random.Random(args.entries), real_keys, 50)
        rows = []
        cases = [("dense", book, chat), ("realistic", real, real_chat)]
        for label, source, messages in [c for c in cases if args.only in (None, c[0])]:
            for name, module in (("baseline", old), ("this tree", current)):
                compiled = module.compile_book(source)
                cpu, wall, activated = timed(module, compiled, messages, args.turns)
                rows.append((label, name, cpu, wall, activated))
        for label, name, cpu, wall, activated in rows:
            share = 100 * activated / args.entries
            print(
                f"{label:>9} {name:>9}: median {cpu:8.2f} ms CPU ({wall:8.2f} ms wall) per scan, "
                f"{activated} activated ({share:.0f}%)"
            )


if __name__ == "__main__":
    main()
