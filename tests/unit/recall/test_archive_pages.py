"""RECALL-1, EPI-13 (issue 28): how an archive page's chunks make its dense score (``pooled``),
and the stored lexicon a page's BM25 index is loaded from (``lexical.parse``)."""

from __future__ import annotations

import msgspec
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from adapters.embedding.background import BACKGROUND_PASSAGES
from adapters.recall.archive import pooled
from adapters.recall.lexical import Bm25, Parsed, parse
from adapters.recall.scorer import ONE_CORE_ROWS, SIGMA_FLOOR, candidate_stats

PAGES = [
    "Melanie: My sister Lena adopted a greyhound called Biscuit last week.\nJon: Lovely!",
    "Jon: The neighbours walk their noisy poodle every single morning.\nMelanie: Ugh, poodles.",
    "Gina: Работаю в пекарне, а по выходным хожу в бассейн.\nJon: Nice. Carol tem alergia a glúten.",
]
ASKED = ["which greyhound did Mel's sister adopt?", "poodle mornings", "Где работает Gina?", "alérgica"]


def test_a_page_of_one_chunk_scores_that_chunk() -> None:
    assert pooled([1.5, -0.2, 3.0], [0, 1, 2]).tolist() == [1.5, -0.2, 3.0]


def test_a_page_where_several_chunks_match_outranks_one_with_a_single_match_as_good() -> None:
    """Page 0: its best chunk 2.0 and another at 1.9; page 1: one chunk at 2.0 among weak ones."""
    scores = pooled([2.0, 1.9, -1.0, 2.0, -1.0, -1.0], [0, 3])
    assert scores[0] > scores[1] >= 2.0
    assert abs(scores[0] - (2.0 + np.log(1 + np.exp(-0.1) + np.exp(-3.0)))) < 1e-9
    # a weak chunk adds little: the page stays close to its best chunk
    assert pooled([2.0, -1.0], [0])[0] - 2.0 < 0.05


@given(st.lists(st.lists(st.floats(-8, 8), min_size=1, max_size=6), min_size=1, max_size=6))
def test_a_page_never_scores_below_its_best_chunk_nor_drops_when_a_chunk_grows(
    pages: list[list[float]],
) -> None:
    flat = [s for page in pages for s in page]
    starts = np.cumsum([0, *[len(p) for p in pages][:-1]])
    scores = pooled(flat, starts)
    assert all(s >= max(p) - 1e-9 for s, p in zip(scores, pages, strict=True))
    grown = pooled([s + 1.0 if n == 0 else s for n, s in enumerate(flat)], starts)
    assert grown[0] >= scores[0] - 1e-9 and np.allclose(grown[1:], scores[1:])


def test_an_index_loaded_from_stored_lexicons_scores_exactly_as_one_read_from_the_texts() -> None:
    """The lexicon survives msgpack (Redis) and gives the same BM25, covers, content and name
    aliases ("Mel" holds Melanie's forms) as parsing the texts."""
    stored = [msgspec.msgpack.decode(msgspec.msgpack.encode(parse(t)), type=Parsed) for t in PAGES]
    loaded = Bm25(PAGES, BACKGROUND_PASSAGES, stored)
    read = Bm25(PAGES, BACKGROUND_PASSAGES)
    for query in ASKED:
        assert loaded.scores(query).tolist() == read.scores(query).tolist()
        assert [c.tolist() for c in loaded.cover(query)] == [c.tolist() for c in read.cover(query)]
        assert loaded.content(query) == read.content(query)
    assert loaded.cover(ASKED[0])[0][0] > loaded.cover("which greyhound did her sister adopt?")[0][0]


def test_candidate_statistics_are_the_same_on_one_core_and_through_blas() -> None:
    """The background statistics of a small set (one core) and of a large one (BLAS) agree
    with the plain float64 product."""
    rng = np.random.default_rng(28)
    background = rng.normal(size=(12, 16)).astype(np.float32)
    for rows in (3, ONE_CORE_ROWS + 5):
        cands = rng.normal(size=(rows, 16)).astype(np.float32)
        mean, std = candidate_stats(cands, background)
        exact = cands.astype(np.float64) @ background.T.astype(np.float64)
        assert np.allclose(mean, exact.mean(axis=1), atol=1e-5)
        assert np.allclose(std, np.maximum(exact.std(axis=1), SIGMA_FLOOR), atol=1e-5)
