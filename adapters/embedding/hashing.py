"""A lexical embedder with no model: hashed character n-grams and words.

The last resort when no model package is installed (``HEARTH_EMBEDDER=hash``). It only
sees shared spelling, so "how is Mochi?" finds "Juno's cat is named Mochi" but "my kitty"
does not. It is deterministic across processes and machines (CRC-32, not ``hash()``),
needs no warm-up and is safe to call from any thread (it holds no state).

Features of the NFC-normalized, case-folded text, for every word (``\\w+``):
the word itself (weight ``WORD_WEIGHT``) and the 3- and 4-grams of ``<word>`` (weight 1),
each counted sublinearly (``1 + ln count``). Each feature is hashed into one of ``dim``
buckets with a hashed sign, so collisions cancel out on average instead of piling up.
"""

from __future__ import annotations

import math
import re
import unicodedata
import zlib
from collections import Counter
from collections.abc import Sequence

import numpy as np

from adapters.embedding.base import Vectors, check_texts, l2_normalize

__all__ = ["HASH_NAME", "HashEmbedder", "text_features"]

HASH_NAME = "hash/char34-word-512"
WORD_WEIGHT = 2.0
_NGRAM_SIZES = (3, 4)
_WORD = re.compile(r"\w+")


def text_features(text: str) -> dict[str, float]:
    """Weighted lexical features of ``text`` (words ``w:`` and char n-grams ``c:``).

    Args:
        text: any text.

    Returns:
        Feature -> weight; empty for a text with no word characters.
    """
    words = _WORD.findall(unicodedata.normalize("NFC", text).casefold())
    counts: Counter[str] = Counter()
    for word in words:
        counts["w:" + word] += 1
        padded = f"<{word}>"
        for size in _NGRAM_SIZES:
            for start in range(len(padded) - size + 1):
                counts["c:" + padded[start : start + size]] += 1
    return {
        feature: (WORD_WEIGHT if feature.startswith("w:") else 1.0) * (1.0 + math.log(count))
        for feature, count in counts.items()
    }


class HashEmbedder:
    """Feature-hashing embedder; queries and passages are embedded alike.

    Args:
        dim: number of hash buckets (the vector size).
    """

    inline = True
    """A query (at most ``QUERY_CHARS`` characters) takes well under a millisecond: embed it on
    the caller's thread (``EmbeddingRecall.embed``)."""

    def __init__(self, dim: int = 512) -> None:
        self.dim = dim
        self.name = HASH_NAME if dim == 512 else f"hash/char34-word-{dim}"

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Embed chat messages; see ``Embedder``."""
        return self._embed(texts)

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        """Embed memories and chunks; see ``Embedder``."""
        return self._embed(texts)

    def _embed(self, texts: Sequence[str]) -> Vectors:
        items = check_texts(texts)
        out = np.zeros((len(items), self.dim), dtype=np.float32)
        for row, text in enumerate(items):
            for feature, weight in text_features(text).items():
                code = zlib.crc32(feature.encode("utf-8"))
                sign = 1.0 if code & 0x80000000 else -1.0
                out[row, (code & 0x7FFFFFFF) % self.dim] += sign * weight
        return l2_normalize(out)
