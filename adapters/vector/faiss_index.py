"""In-process vector indexes: FAISS ``IndexFlatIP`` and a brute-force numpy twin (DEC-3, DOC-1).

Theory of operation. An index is a cache of *entries*, one per key — a memory list and an
embedder (``memory_key``), or a persona's documents and an embedder (``document_key``). An
entry holds a version, the ids and their unit vectors; the source of truth is Redis. Whoever
reads the source compares its version with ``version(key)`` and calls ``replace`` when they
differ (``refresh`` for a synchronous source, ``load_memory_vectors`` for the memory store,
which does it inside the turn's one snapshot round trip). Invariants:

- A search looks only at the keys it names and, when ``allowed_ids`` is given, returns only
  those ids (privacy, DEC-10): the filter runs inside the search (a FAISS ``IDSelectorBatch``)
  so ``k`` results are still found, and once more on the way out.
- Scores are inner products of unit vectors, i.e. cosines; results are best first, ties by id.
- Entries are immutable once built and swapped under a lock, so searches from several threads
  are safe while another thread replaces an entry. Least recently used entries are dropped
  beyond ``max_bytes``.

Exact flat search is enough for the sizes at hand (a memory list holds 120 entries, a persona's
documents about 10,000 chunks: ~1 ms per FAISS search at 384 dimensions).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Hashable, Sequence
from typing import Any, Protocol

import faiss
import msgspec
import numpy as np
import numpy.typing as npt

from engine.errors import InvalidInput
from engine.memory import ScopeList
from storage.redis_memory import MemorySnapshot, RedisMemoryStore

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

Vectors = npt.NDArray[np.float32]
Hit = tuple[str, float]
"""A search result: an id and its cosine with the query."""

_Positions = npt.NDArray[np.int64]


class VectorIndex(Protocol):
    """Versioned sets of unit vectors, searched by cosine (the vector index port)."""

    def version(self, key: Hashable) -> int | None:
        """The version cached under ``key``, or ``None`` when nothing is cached."""
        ...

    def replace(self, key: Hashable, version: int, ids: Sequence[str], vectors: npt.ArrayLike) -> None:
        """Cache ``vectors`` (row i belongs to ``ids[i]``) under ``key`` at ``version``.

        Raises:
            InvalidInput: ``vector_shape`` (rows do not match ids, not 2-D) or
                ``duplicate_vector_id``.
        """
        ...

    def search(
        self, keys: Sequence[Hashable], query: npt.ArrayLike, k: int, *, allowed_ids: Collection[str] | None
    ) -> list[Hit]:
        """The ``k`` ids most similar to ``query`` across the entries of ``keys``.

        Args:
            keys: the entries to search (keys not cached contribute nothing).
            query: the ``(dim,)`` or ``(1, dim)`` unit vector of the query.
            k: how many results at most.
            allowed_ids: the only ids that may be returned; ``None`` allows every id.

        Returns:
            ``(id, cosine)`` pairs, best first (ties by id); an id in several entries once.

        Raises:
            InvalidInput: ``vector_dim_mismatch`` when the query's size differs from an entry's.
        """
        ...

    def lookup(self, keys: Sequence[Hashable], ids: Sequence[str]) -> tuple[tuple[str, ...], Vectors]:
        """The cached vectors of ``ids`` (for scoring candidates); ids not cached are left out.

        Returns:
            The ids found, in the order asked, and their ``(n, dim)`` rows.
        """
        ...


def memory_key(scope: ScopeList, model: str) -> tuple[str, ScopeList, str]:
    """The index key of one memory list's vectors of embedder ``model``."""
    return ("memory", scope, model)


def document_key(persona: str, model: str) -> tuple[str, str, str]:
    """The index key of a persona's document chunks embedded by ``model`` (DOC-1)."""
    return ("document", persona, model)


class _Entry(msgspec.Struct, frozen=True, kw_only=True, eq=False):
    version: int
    ids: tuple[str, ...]
    positions: dict[str, int]
    matrix: Vectors
    native: Any = None


def _as_matrix(ids: Sequence[str], vectors: npt.ArrayLike) -> Vectors:
    matrix = np.ascontiguousarray(np.asarray(vectors, dtype=np.float32))
    if matrix.size == 0 and len(ids) == 0:
        return np.zeros((0, matrix.shape[-1] if matrix.ndim == 2 else 0), dtype=np.float32)
    if matrix.ndim != 2 or matrix.shape[0] != len(ids):
        raise InvalidInput(
            f"Expected {len(ids)} vector rows, got an array of shape {matrix.shape}.", code="vector_shape"
        )
    if len(set(ids)) != len(ids):
        raise InvalidInput("The same id appears twice among the vectors.", code="duplicate_vector_id")
    return matrix


def _as_query(query: npt.ArrayLike) -> Vectors:
    return np.ascontiguousarray(np.asarray(query, dtype=np.float32).reshape(1, -1))


class _CachedIndex:
    """The cache, the filtering and the merging; subclasses supply the nearest-neighbour search."""

    def __init__(self, *, max_bytes: int = 256 * 2**20) -> None:
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()
        self._lock = threading.Lock()
        self._max_bytes = max_bytes

    def version(self, key: Hashable) -> int | None:
        """See ``VectorIndex.version``."""
        entry = self._get(key)
        return None if entry is None else entry.version

    def replace(self, key: Hashable, version: int, ids: Sequence[str], vectors: npt.ArrayLike) -> None:
        """See ``VectorIndex.replace``."""
        names = tuple(ids)
        matrix = _as_matrix(names, vectors)
        native, stored = self._build(matrix)
        entry = _Entry(
            version=version,
            ids=names,
            positions={rid: pos for pos, rid in enumerate(names)},
            matrix=stored,
            native=native,
        )
        with self._lock:
            self._entries[key] = entry
            self._entries.move_to_end(key)
            self._evict()

    def search(
        self, keys: Sequence[Hashable], query: npt.ArrayLike, k: int, *, allowed_ids: Collection[str] | None
    ) -> list[Hit]:
        """See ``VectorIndex.search``."""
        vector = _as_query(query)
        allowed = None if allowed_ids is None else frozenset(allowed_ids)
        best: dict[str, float] = {}
        for key in dict.fromkeys(keys):
            entry = self._get(key)
            if k <= 0 or entry is None or not entry.ids:
                continue
            _check_dim(entry, vector)
            positions = _allowed_positions(entry, allowed)
            if positions is not None and positions.size == 0:
                continue
            count = len(entry.ids) if positions is None else int(positions.size)
            for pos, score in self._top(entry, vector, min(k, count), positions):
                rid = entry.ids[pos]
                if (allowed is None or rid in allowed) and score > best.get(rid, -np.inf):
                    best[rid] = score
        return sorted(best.items(), key=lambda hit: (-hit[1], hit[0]))[: max(k, 0)]

    def lookup(self, keys: Sequence[Hashable], ids: Sequence[str]) -> tuple[tuple[str, ...], Vectors]:
        """See ``VectorIndex.lookup``."""
        entries = [e for e in (self._get(key) for key in dict.fromkeys(keys)) if e is not None and e.ids]
        found: list[str] = []
        rows: list[Vectors] = []
        for rid in dict.fromkeys(ids):
            entry = next((e for e in entries if rid in e.positions), None)
            if entry is not None:
                found.append(rid)
                rows.append(entry.matrix[entry.positions[rid]])
        dim = entries[0].matrix.shape[1] if entries else 0
        matrix = np.stack(rows) if rows else np.zeros((0, dim), dtype=np.float32)
        return tuple(found), np.ascontiguousarray(matrix, dtype=np.float32)

    def _get(self, key: Hashable) -> _Entry | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
            return entry

    def _evict(self) -> None:
        total = sum(e.matrix.nbytes for e in self._entries.values())
        while total > self._max_bytes and len(self._entries) > 1:
            _, dropped = self._entries.popitem(last=False)
            total -= dropped.matrix.nbytes

    def _build(self, matrix: Vectors) -> tuple[Any, Vectors]:
        """The native index of ``matrix`` (or ``None``) and the rows to keep for ``lookup``."""
        raise NotImplementedError

    def _top(
        self, entry: _Entry, query: Vectors, k: int, positions: _Positions | None
    ) -> list[tuple[int, float]]:
        """The ``k`` best ``(position, score)`` of ``entry``, among ``positions`` when given."""
        raise NotImplementedError


def _check_dim(entry: _Entry, query: Vectors) -> None:
    if entry.matrix.shape[1] != query.shape[1]:
        raise InvalidInput(
            f"The query has {query.shape[1]} dimensions but the index holds {entry.matrix.shape[1]}; "
            "were they embedded by different models?",
            code="vector_dim_mismatch",
        )


def _allowed_positions(entry: _Entry, allowed: frozenset[str] | None) -> _Positions | None:
    """Positions of the allowed ids, or ``None`` when every id of the entry is allowed."""
    if allowed is None:
        return None
    if len(allowed) < len(entry.ids):
        chosen = sorted(entry.positions[rid] for rid in allowed if rid in entry.positions)
    else:
        chosen = [pos for pos, rid in enumerate(entry.ids) if rid in allowed]
    if len(chosen) == len(entry.ids):
        return None
    return np.asarray(chosen, dtype=np.int64)


class FaissVectorIndex(_CachedIndex):
    """FAISS exact inner-product search (``IndexFlatIP``) per entry.

    Args:
        max_bytes: vector bytes kept before the least recently used entries are dropped.
    """

    def _build(self, matrix: Vectors) -> tuple[Any, Vectors]:
        if matrix.shape[0] == 0:
            return None, matrix
        native = faiss.IndexFlatIP(matrix.shape[1])
        native.add(matrix)
        # a view of FAISS's own copy, so the rows are held once (alive as long as ``native``)
        rows = faiss.rev_swig_ptr(native.get_xb(), matrix.size).reshape(matrix.shape)
        return native, rows

    def _top(
        self, entry: _Entry, query: Vectors, k: int, positions: _Positions | None
    ) -> list[tuple[int, float]]:
        selector = None if positions is None else faiss.IDSelectorBatch(positions)
        params = None
        if selector is not None:
            params = faiss.SearchParameters()
            params.sel = selector
        scores, labels = entry.native.search(query, k, params=params)  # keeps `selector` alive until here
        return [(int(pos), float(score)) for score, pos in zip(scores[0], labels[0], strict=True) if pos >= 0]


class BruteForceVectorIndex(_CachedIndex):
    """The same contract with a numpy matrix product (tests, and a fallback without FAISS).

    Args:
        max_bytes: vector bytes kept before the least recently used entries are dropped.
    """

    def _build(self, matrix: Vectors) -> tuple[Any, Vectors]:
        return None, matrix

    def _top(
        self, entry: _Entry, query: Vectors, k: int, positions: _Positions | None
    ) -> list[tuple[int, float]]:
        rows = entry.matrix if positions is None else entry.matrix[positions]
        scores = rows @ query[0]
        order = np.argsort(-scores, kind="stable")[:k]
        chosen = order if positions is None else positions[order]
        return [(int(pos), float(scores[i])) for pos, i in zip(chosen, order, strict=True)]


def refresh(
    index: VectorIndex, key: Hashable, version: int, fetch: Callable[[], tuple[Sequence[str], npt.ArrayLike]]
) -> bool:
    """Rebuild ``key`` from ``fetch()`` only when ``version`` differs from the cached one.

    Returns:
        Whether the entry was rebuilt.
    """
    if index.version(key) == version:
        return False
    ids, vectors = fetch()
    index.replace(key, version, ids, vectors)
    return True


async def load_memory_vectors(
    store: RedisMemoryStore, index: VectorIndex, scopes: Sequence[ScopeList], model: str
) -> MemorySnapshot:
    """The turn's memory snapshot, refreshing ``index`` in the same round trip.

    Only lists whose vector version differs from the cached one send their vectors; a list
    without vectors of ``model`` (none yet, or another embedder's) is cached empty.

    Args:
        store: the memory store.
        index: the process's vector index.
        scopes: the scopes in play.
        model: the embedder's name.

    Returns:
        The snapshot (records, versions; vectors already moved into ``index``).

    Raises:
        StorageUnavailable: Redis failed.
    """
    cached = {s: index.version(memory_key(s, model)) for s in scopes}
    snap = await store.snapshot(scopes, model=model, cached=cached)
    for scope, state in snap.lists.items():
        key = memory_key(scope, model)
        if state.vectors is not None:
            index.replace(key, state.vector_version, state.vectors.ids, state.vectors.matrix)
        elif state.model != model and cached.get(scope) != state.vector_version:
            index.replace(key, state.vector_version, (), np.zeros((0, 0), dtype=np.float32))
    return snap
