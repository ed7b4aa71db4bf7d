"""The ports the service drives (STYLE P1): small Protocols (≤ 5 methods each), by concern.

Implemented in ``storage/`` and ``adapters/`` (built by ``adapters/bootstrap.py``); in-memory
fakes of every store port live in ``tests/fakes/stores/``, and ``tests/contract/`` runs one suite
per port over the fake and the Redis implementation. Where a service needs several ports of one
store, a composite Protocol names them together (``ChatStore``, ``SummaryStore``,
``ArchiveStore``, ``DreamStore``, ``ControlStore``, ``MemoryRecall``, ``LoreStore``); it adds
no method.

- ``clock``: Clock.  ``observer``: TurnObserver.  ``model``: ChatModel, TokenCounter (and the model's events).
- ``chat``: MessageLog, MessageIntake, TurnReads, TurnRecords, ChatSettingsStore, ImageStore, ChatLock.
- ``controls``: MessageEdits, SwipeStore, BranchStore, ChatFiles.  ``lore``: LoreSource, LoreLibrary.
- ``persona``: PersonaStore, PersonaOwners, PersonaAvatars.  ``platform``: DeliveryMarks, PlatformLinks.
- ``accounts``: AccountRecords, KnownAddresses, SignOutStream, RateCounters, AccountRooms, LinkCodes.
- ``summary``: SummaryTiers, SummaryLog, SummaryQueue, ReportStore.
- ``memory``: MemoryStore, MemoryPlaces, MemoryUses, MemoryChoices.  ``recall``: Recall, DocumentRecall.
- ``documents``: DocumentStore, JobStore.
- ``archive``: ArchiveChats, ArchiveLog, SessionPages, PageStore, SweepLease, EmbeddingQueue,
  PageVectorStore, ActivityLog, DreamReports, DreamRejections, PageSearch, PageIndex, PageRecall, DreamRecall.
"""

from __future__ import annotations

from engine.ports.accounts import (
    Account,
    AccountLorebooks,
    AccountRecords,
    AccountRooms,
    AccountStore,
    KnownAddresses,
    LinkCodes,
    RateCounters,
    Room,
    SignOutStream,
)
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
from engine.ports.controls import (
    Branch,
    BranchStore,
    ChatControlStore,
    ChatFiles,
    ControlStore,
    KeptSwipes,
    MessageEdits,
    RoomChats,
    SwipeStore,
)
from engine.ports.documents import DocumentStore, JobStore
from engine.ports.lore import BookSummary, LoreDeletion, LoreLibrary, LoreSource, LoreStore
from engine.ports.memory import (
    Applied,
    DecayApplied,
    Directory,
    MemoryChoices,
    MemoryDirectory,
    MemoryPlaces,
    MemoryStore,
    MemoryUses,
    Snapshot,
)
from engine.ports.model import ChatModel, ModelDone, ModelEvent, TextDelta, TokenCounter
from engine.ports.observer import TurnObserver
from engine.ports.people import UserPersonaStore
from engine.ports.persona import PersonaAvatars, PersonaExtras, PersonaOwners, PersonaStore
from engine.ports.platform import CastNotes, DeliveryMarks, GroupMembers, PlatformLinks, PlatformStore
from engine.ports.recall import DocumentRecall, DocumentVersion, MemoryRecall, Query, Recall, Vector, Vectors
from engine.ports.summary import ReportStore, SummaryLog, SummaryQueue, SummaryStore, SummaryTiers

__all__ = [
    "Account",
    "AccountLorebooks",
    "AccountRecords",
    "AccountRooms",
    "AccountStore",
    "ActivityLog",
    "Applied",
    "ArchiveChats",
    "ArchiveLog",
    "ArchiveStore",
    "BookSummary",
    "Branch",
    "BranchStore",
    "CastNotes",
    "ChatControlStore",
    "ChatFiles",
    "ChatLock",
    "ChatModel",
    "ChatSettingsStore",
    "ChatStore",
    "Clock",
    "ControlStore",
    "DecayApplied",
    "DeliveryMarks",
    "Directory",
    "DocumentRecall",
    "DocumentStore",
    "DocumentVersion",
    "DreamRecall",
    "DreamRejections",
    "DreamReports",
    "DreamStore",
    "EmbeddingQueue",
    "GroupMembers",
    "ImageStore",
    "JobStore",
    "KeptSwipes",
    "KnownAddresses",
    "LinkCodes",
    "LoreDeletion",
    "LoreLibrary",
    "LoreSource",
    "LoreStore",
    "MemoryChoices",
    "MemoryDirectory",
    "MemoryPlaces",
    "MemoryRecall",
    "MemoryStore",
    "MemoryUses",
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
    "PersonaAvatars",
    "PersonaExtras",
    "PersonaOwners",
    "PersonaStore",
    "PlatformLinks",
    "PlatformStore",
    "Query",
    "RateCounters",
    "Recall",
    "ReportStore",
    "Room",
    "RoomChats",
    "SessionPages",
    "SignOutStream",
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
    "UserPersonaStore",
    "Vector",
    "Vectors",
]
