"""One deployment's services, wired from its ports: the same function for every process
(``adapters.bootstrap.build``, on Redis) and for the service tests (``tests/unit/service/world.py``,
on the in-memory fakes).

The caller makes the stores and the adapters (the model, the token counter, the searches) and
passes them in; ``wire_services`` makes the desks and the chat service around them, so a test
runs the services exactly as a process wires them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime

from engine.memory import MemoryPolicy
from engine.memory.deep import DeepPolicy
from engine.ports import (
    ArchiveStore,
    ChatLock,
    ChatModel,
    ChatStore,
    Clock,
    ControlStore,
    Directory,
    DocumentStore,
    LoreStore,
    MemoryRecall,
    MemoryStore,
    PageRecall,
    PersonaStore,
    SummaryStore,
    TokenCounter,
    TurnObserver,
)
from engine.service.archive import ArchiveDesk
from engine.service.archive_settings import ArchiveSettings
from engine.service.chat import ChatService, ServicePolicy
from engine.service.controls import MessageControls
from engine.service.deep import DeepPass
from engine.service.lore import LoreDesk
from engine.service.memory import MemoryDesk
from engine.service.summaries import SummaryDesk
from engine.summary import SummaryPolicy
from engine.window import WindowPolicy

__all__ = ["Policies", "Services", "Stores", "wire_services"]


@dataclass(frozen=True, kw_only=True, eq=False)
class Stores:
    """The store ports the services run on (Redis in a process, fakes in the service tests)."""

    chats: ChatStore
    lock: ChatLock
    personas: PersonaStore
    lore: LoreStore
    memories: MemoryStore
    directory: Directory
    summaries: SummaryStore
    archive: ArchiveStore
    controls: ControlStore
    documents: DocumentStore | None = None


@dataclass(frozen=True, kw_only=True)
class Policies:
    """The settings of the services (from ``config.settings.Settings`` in a process)."""

    default_model: str
    service: ServicePolicy = field(default_factory=ServicePolicy)
    memory: MemoryPolicy = field(default_factory=MemoryPolicy)
    summary: SummaryPolicy = field(default_factory=SummaryPolicy)
    window: WindowPolicy = field(default_factory=WindowPolicy)
    deep: DeepPolicy | None = field(default_factory=DeepPolicy)
    """The deep memory pass after a summary job (DEEP-1); None: no deep pass."""
    archive: ArchiveSettings = field(default_factory=ArchiveSettings)


@dataclass(frozen=True, kw_only=True, eq=False)
class Services:
    """The wired services of one deployment."""

    chat: ChatService
    memory: MemoryDesk
    summaries: SummaryDesk
    deep: DeepPass | None
    archive: ArchiveDesk
    controls: MessageControls
    lore: LoreDesk


def wire_services(
    stores: Stores,
    *,
    model: ChatModel,
    counter: TokenCounter,
    clock: Clock,
    recall: MemoryRecall,
    policies: Policies,
    turn_model: ChatModel | None = None,
    page_recall: PageRecall | None = None,
    observer: TurnObserver | None = None,
    on_activity: Callable[[datetime], Awaitable[None]] | None = None,
) -> Services:
    """The desks and the chat service on ``stores``.

    ``model`` writes summaries and runs the deep pass; ``turn_model`` (default ``model``) streams
    the chat turns (a process passes a wrapper that can stop a reply). ``recall`` searches
    memories and documents; ``page_recall`` the archive's pages (None: no archive search).
    ``on_activity`` hears of every accepted message (the archive's idle sweep).
    """
    memory = MemoryDesk(
        store=stores.memories,
        recall=recall,
        directory=stores.directory,
        policy=policies.memory,
        documents=stores.documents,
    )
    deep = (
        None
        if policies.deep is None
        else DeepPass(
            model=model,
            memory=memory,
            reports=stores.summaries,
            clock=clock,
            policy=policies.deep,
            default_model=policies.default_model,
            chats=stores.chats,
        )
    )
    summaries = SummaryDesk(
        store=stores.summaries,
        model=model,
        personas=stores.personas,
        clock=clock,
        policy=policies.summary,
        window=policies.window,
        default_model=policies.default_model,
        deep=deep,
    )
    archive = ArchiveDesk(store=stores.archive, clock=clock, settings=policies.archive, recall=page_recall)
    chat = ChatService(
        chats=stores.chats,
        lock=stores.lock,
        personas=stores.personas,
        lore=stores.lore,
        memory=memory,
        summaries=summaries,
        archive=archive,
        on_activity=on_activity,
        model=turn_model or model,
        counter=counter,
        clock=clock,
        policy=policies.service,
        observer=observer,
    )
    return Services(
        chat=chat,
        memory=memory,
        summaries=summaries,
        deep=deep,
        archive=archive,
        controls=MessageControls(chat, stores.controls, stores.lock),
        lore=LoreDesk(stores.lore),
    )
