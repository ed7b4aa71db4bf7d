"""The ports the service drives (STYLE P1): small Protocols (≤ 5 methods each), by concern.

Implemented in ``storage/`` and ``adapters/`` (built by ``adapters/bootstrap.py``); in-memory
fakes of every store port live in ``tests/fakes/stores/``, and ``tests/contract/`` runs one suite
per port over the fake and the Redis implementation. Where a service needs several ports of one
store, a composite Protocol names them together (``ChatStore``, ``SummaryStore``,
``ArchiveStore``, ``DreamStore``, ``ControlStore``, ``MemoryRecall``); it adds no method.

- ``clock``: Clock.  ``observer``: TurnObserver.  ``model``: ChatModel, TokenCounter (and the model's events).
- ``chat``: MessageLog, MessageIntake, TurnReads, TurnRecords, ChatSettingsStore, ImageStore, ChatLock.
- ``controls``: MessageEdits, SwipeStore.  ``persona``: PersonaStore.  ``lore``: LoreSource.
- ``summary``: SummaryTiers, SummaryLog, SummaryQueue, ReportStore.
- ``memory``: MemoryStore, Directory.  ``recall``: Recall, DocumentRecall.
- ``documents``: DocumentStore, JobStore.
- ``archive``: ArchiveChats, ArchiveLog, SessionPages, PageStore, SweepLease, EmbeddingQueue,
  PageVectorStore, ActivityLog, DreamReports, DreamRejections, PageSearch, PageIndex, PageRecall, DreamRecall.
"""

from __future__ import annotations

from engine.ports.archive import (
    ActivityLog,
    ArchiveChats,
    ArchiveLog,
    ArchiveStore,
    DreamRecall,
    DreamRejections,
    DreamReports,
    DreamStore,
    EmbeddingQueue,
    PageChange,
    PageIndex,
    PageRecall,
    PageSearch,
    PageStore,
    PageVectorStore,
    SessionPages,
    StoredVectors,
    SweepLease,
)
from engine.ports.chat import (
    ChatLock,
    ChatSettingsStore,
    ChatStore,
    ImageStore,
    MessageIntake,
    MessageLog,
    NewMessage,
    TurnInputs,
    TurnReads,
    TurnRecords,
    TurnStore,
)
from engine.ports.clock import Clock
from engine.ports.controls import ControlStore, MessageEdits, SwipeStore
from engine.ports.documents import DocumentStore, JobStore
from engine.ports.lore import LoreSource
from engine.ports.memory import Applied, DecayApplied, Directory, MemoryStore, Snapshot
from engine.ports.model import ChatModel, ModelDone, ModelEvent, TextDelta, TokenCounter
from engine.ports.observer import TurnObserver
from engine.ports.persona import PersonaStore
from engine.ports.recall import DocumentRecall, DocumentVersion, MemoryRecall, Query, Recall, Vector, Vectors
from engine.ports.summary import ReportStore, SummaryLog, SummaryQueue, SummaryStore, SummaryTiers

__all__ = [
    "ActivityLog",
    "Applied",
    "ArchiveChats",
    "ArchiveLog",
    "ArchiveStore",
    "ChatLock",
    "ChatModel",
    "ChatSettingsStore",
    "ChatStore",
    "Clock",
    "ControlStore",
    "DecayApplied",
    "Directory",
    "DocumentRecall",
    "DocumentStore",
    "DocumentVersion",
    "DreamRecall",
    "DreamRejections",
    "DreamReports",
    "DreamStore",
    "EmbeddingQueue",
    "ImageStore",
    "JobStore",
    "LoreSource",
    "MemoryRecall",
    "MemoryStore",
    "MessageEdits",
    "MessageIntake",
    "MessageLog",
    "ModelDone",
    "ModelEvent",
    "NewMessage",
    "PageChange",
    "PageIndex",
    "PageRecall",
    "PageSearch",
    "PageStore",
    "PageVectorStore",
    "PersonaStore",
    "Query",
    "Recall",
    "ReportStore",
    "SessionPages",
    "Snapshot",
    "StoredVectors",
    "SummaryLog",
    "SummaryQueue",
    "SummaryStore",
    "SummaryTiers",
    "SweepLease",
    "SwipeStore",
    "TextDelta",
    "TokenCounter",
    "TurnInputs",
    "TurnObserver",
    "TurnReads",
    "TurnRecords",
    "TurnStore",
    "Vector",
    "Vectors",
]
