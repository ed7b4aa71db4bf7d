"""Clusters of near-duplicate pages from their embeddings (EPI-6).

Embeddings are computed elsewhere; this module only compares them. Clustering is greedy
complete linkage: items are taken in input order and each joins the first cluster whose every
member is at least ``threshold`` similar to it, else it starts a new cluster. Complete linkage
keeps chains of "a bit like the next one" from merging pages that do not say the same thing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from engine.errors import InvalidInput

__all__ = ["cluster_by_similarity", "cosine", "similarity_matrix"]


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity of two vectors; 0 when either is all zeros.

    Raises:
        InvalidInput: ``vector_size_mismatch`` when the lengths differ.
    """
    if len(a) != len(b):
        raise InvalidInput(
            f"Vectors of sizes {len(a)} and {len(b)} cannot be compared.", code="vector_size_mismatch"
        )
    norm = math.sqrt(math.fsum(x * x for x in a)) * math.sqrt(math.fsum(y * y for y in b))
    return math.fsum(x * y for x, y in zip(a, b, strict=True)) / norm if norm else 0.0


def similarity_matrix(vectors: Sequence[Sequence[float]]) -> tuple[tuple[float, ...], ...]:
    """The cosine similarity of every pair of ``vectors`` (1 on the diagonal of non-zero vectors)."""
    return tuple(tuple(cosine(a, b) for b in vectors) for a in vectors)


def cluster_by_similarity(
    ids: Sequence[str], similarity: Sequence[Sequence[float]], threshold: float
) -> tuple[tuple[str, ...], ...]:
    """Group ``ids`` into clusters of near-duplicates (see the module docstring).

    Args:
        ids: item ids, in the order of ``similarity``'s rows and columns.
        similarity: a square matrix (e.g. from :func:`similarity_matrix`); ``similarity[i][j]``
            compares ``ids[i]`` and ``ids[j]``.
        threshold: the least similarity between any two members of a cluster.

    Returns:
        Clusters of two or more ids, each in input order, ordered by their first member.

    Raises:
        InvalidInput: ``similarity_shape`` when the matrix is not ``len(ids)`` square;
            ``duplicate_id`` when an id repeats.
    """
    n = len(ids)
    if len(similarity) != n or any(len(row) != n for row in similarity):
        raise InvalidInput(f"The similarity matrix must be {n}x{n}.", code="similarity_shape")
    if len(set(ids)) != n:
        raise InvalidInput("Cluster ids must be unique.", code="duplicate_id")
    clusters: list[list[int]] = []
    for i in range(n):
        home = next(
            (c for c in clusters if all(min(similarity[i][j], similarity[j][i]) >= threshold for j in c)),
            None,
        )
        if home is None:
            clusters.append([i])
        else:
            home.append(i)
    return tuple(tuple(ids[i] for i in c) for c in clusters if len(c) > 1)
