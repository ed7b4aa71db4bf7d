"""The search ports: one embedding per turn searched against memories and documents (DEC-15).

``adapters.recall.EmbeddingRecall`` and ``NoRecall`` implement ``MemoryRecall`` (both ports).
Vectors are numpy float32 arrays; the engine never looks inside them, so numpy is named for the
type checker only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol, TypeAlias

from engine.memory import MemoryRecord, ScopeList, SearchResult

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["DocumentRecall", "MemoryRecall", "Query", "Recall", "Vector", "Vectors"]

Vectors: TypeAlias = "npt.NDArray[np.float32]"
"""``(n, dim)`` unit rows, one per text."""

Vector: TypeAlias = "npt.NDArray[np.float32]"
"""One ``(dim,)`` unit vector: a query, or a row of ``Vectors``."""


class Query(NamedTuple):
    """A turn's message as the search reads it: the text it was embedded from (the lexical
    half: covers, names, RECALL-2/3) and its query vector (the dense half)."""

    text: str
    vector: Vector


DocumentVersion: TypeAlias = tuple[int, str | None]
"""A persona's document version and the embedder its chunk vectors belong to (0, None: none)."""


class Recall(Protocol):
    """Memories in play and their search (``available`` False: nothing is ever searched, DEC-1)."""

    @property
    def available(self) -> bool:
        """Whether there is an embedder (``embed`` and ``search`` are called only then)."""
        ...

    async def load(self, scopes: Sequence[ScopeList]) -> list[MemoryRecord]:
        """The records of ``scopes`` (list order, then save order); missing vectors are embedded."""
        ...

    async def warm(self) -> None:
        """Prepare what the first search needs (process start)."""
        ...

    async def embed(self, text: str) -> Query:
        """The one query of a turn (shared by memories and documents)."""
        ...

    async def search(
        self, query: Query, records: Sequence[MemoryRecord], scopes: Sequence[ScopeList]
    ) -> SearchResult:
        """Score the searchable ``records`` of ``scopes`` against ``query``; hits are the matches."""
        ...


class DocumentRecall(Protocol):
    """Persona documents: their embedding and search (DOC-1)."""

    @property
    def model(self) -> str:
        """The embedder's name (``"none"`` without one); stored vectors are keyed by it."""
        ...

    async def embed_passages(self, texts: Sequence[str]) -> Vectors:
        """Passage vectors of ``texts``, one row each."""
        ...

    async def documents(
        self, query: Query, persona: str, seen: DocumentVersion | None = None
    ) -> tuple[str, ...]:
        """The persona's chunk texts matching ``query`` best, best first (``seen``: as in
        ``has_documents``)."""
        ...

    async def has_documents(self, persona: str, seen: DocumentVersion | None = None) -> bool:
        """Whether the persona has documents to search (mostly without IO); ``seen``: their
        version and embedder as the turn read them (``TurnInputs.documents``), so no IO at all."""
        ...

    def forget_documents(self, persona: str) -> None:
        """Drop this process's cached documents of a persona (it just uploaded one)."""
        ...


class MemoryRecall(Recall, DocumentRecall, Protocol):
    """Both search ports: what ``engine.service.memory.MemoryDesk`` takes as ``recall``."""
