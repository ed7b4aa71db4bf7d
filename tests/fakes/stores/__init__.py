"""In-memory fakes of every store port (STYLE P2), one module per concern.

They share one ``InMemoryData`` the way the Redis stores share one server; ``tests/contract/``
runs the same suite over each fake and its Redis store, so they behave alike.
"""

from __future__ import annotations

from tests.fakes.stores.archive import InMemoryArchiveStore
from tests.fakes.stores.chat import InMemoryChatLock, InMemoryChatStore, InMemoryPersonaStore
from tests.fakes.stores.controls import InMemoryChatControls
from tests.fakes.stores.data import InMemoryData
from tests.fakes.stores.documents import InMemoryDocumentStore
from tests.fakes.stores.lore import InMemoryLoreStore
from tests.fakes.stores.memory import InMemoryMemoryDirectory, InMemoryMemoryStore, InMemoryRecall
from tests.fakes.stores.summary import InMemorySummaryStore

__all__ = [
    "InMemoryArchiveStore",
    "InMemoryChatControls",
    "InMemoryChatLock",
    "InMemoryChatStore",
    "InMemoryData",
    "InMemoryDocumentStore",
    "InMemoryLoreStore",
    "InMemoryMemoryDirectory",
    "InMemoryMemoryStore",
    "InMemoryPersonaStore",
    "InMemoryRecall",
    "InMemorySummaryStore",
]
