"""Vector indexes (the ``VectorIndex`` port): FAISS, and a brute-force numpy twin.

``FaissVectorIndex`` caches one exact ``IndexFlatIP`` per key — a memory list and embedder
(``memory_key``) or a persona's documents and embedder (``document_key``) — rebuilt when the
version read from Redis changes (``load_memory_vectors``, ``refresh``). ``BruteForceVectorIndex``
has the same contract for tests and as a fallback.
"""

from __future__ import annotations

import logging

# faiss probes for AVX512/AVX2 builds that the wheel does not ship and logs every miss, with its
# ModuleNotFoundError, at INFO; the generic build it then loads is the one we use. Quiet it.
logging.getLogger("faiss.loader").setLevel(logging.WARNING)

from adapters.vector.faiss_index import (  # noqa: E402 (after quieting the loader)
    BruteForceVectorIndex,
    FaissVectorIndex,
    Hit,
    VectorIndex,
    Vectors,
    document_key,
    load_memory_vectors,
    memory_key,
    refresh,
)

__all__ = [
    "BruteForceVectorIndex",
    "FaissVectorIndex",
    "Hit",
    "VectorIndex",
    "Vectors",
    "document_key",
    "load_memory_vectors",
    "memory_key",
    "refresh",
]
