"""EPI-6: clusters of near-duplicate pages from their embeddings."""

from __future__ import annotations

import pytest

from engine.archive import cluster_by_similarity, cosine, similarity_matrix
from engine.errors import InvalidInput


def test_epi_6_cosine() -> None:
    assert cosine((1.0, 0.0), (2.0, 0.0)) == pytest.approx(1.0)
    assert cosine((1.0, 0.0), (0.0, 3.0)) == pytest.approx(0.0)
    assert cosine((0.0, 0.0), (1.0, 1.0)) == 0.0
    with pytest.raises(InvalidInput) as err:
        cosine((1.0,), (1.0, 2.0))
    assert err.value.code == "vector_size_mismatch"


def test_epi_6_near_duplicates_cluster_from_vectors() -> None:
    vectors = [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.99, 0.05, 0.0), (0.0, 0.98, 0.1), (0.0, 0.0, 1.0)]
    matrix = similarity_matrix(vectors)
    assert matrix[0][0] == pytest.approx(1.0)
    assert cluster_by_similarity(["a", "b", "c", "d", "e"], matrix, 0.95) == (("a", "c"), ("b", "d"))


def test_epi_6_complete_linkage_does_not_chain() -> None:
    # a~b and b~c are close, a and c are not: only one pair joins
    matrix = [[1.0, 0.95, 0.5], [0.95, 1.0, 0.95], [0.5, 0.95, 1.0]]
    assert cluster_by_similarity(["a", "b", "c"], matrix, 0.9) == (("a", "b"),)


def test_epi_6_singletons_are_not_clusters() -> None:
    assert cluster_by_similarity(["a", "b"], [[1.0, 0.1], [0.1, 1.0]], 0.9) == ()
    assert cluster_by_similarity([], [], 0.9) == ()


@pytest.mark.parametrize(
    ("ids", "matrix", "code"),
    [
        (["a", "b"], [[1.0]], "similarity_shape"),
        (["a", "b"], [[1.0, 0.2], [0.2]], "similarity_shape"),
        (["a", "a"], [[1.0, 1.0], [1.0, 1.0]], "duplicate_id"),
    ],
)
def test_epi_6_bad_input_is_refused(ids: list[str], matrix: list[list[float]], code: str) -> None:
    with pytest.raises(InvalidInput) as err:
        cluster_by_similarity(ids, matrix, 0.9)
    assert err.value.code == code
