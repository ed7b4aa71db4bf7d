"""A deployment on the in-memory fakes: the services wired as ``adapters.bootstrap`` wires them,
minus Redis, so service behaviour is tested in milliseconds."""

from __future__ import annotations

from collections.abc import AsyncIterator

from adapters.llm.tokens import OfflineTokenCounter
from engine.archive import ArchivePolicy
from engine.memory import MemoryPolicy
from engine.memory.deep import DeepPolicy
from engine.model import IncomingMessage, Persona
from engine.ports import ChatModel, TurnObserver
from engine.service import ChatService, ReplyEvent, ServicePolicy
from engine.service.archive import ArchiveDesk, ArchiveSettings
from engine.service.controls import MessageControls
from engine.service.deep import DeepPass
from engine.service.memory import MemoryDesk
from engine.service.summaries import SummaryDesk
from engine.summary import SummaryPolicy
from engine.window import WindowPolicy
from tests.fakes.ports import FixedClock, ScriptedChatModel
from tests.fakes.stores import (
    InMemoryArchiveStore,
    InMemoryChatControls,
    InMemoryChatLock,
    InMemoryChatStore,
    InMemoryData,
    InMemoryDocumentStore,
    InMemoryLoreStore,
    InMemoryMemoryDirectory,
    InMemoryMemoryStore,
    InMemoryPersonaStore,
    InMemoryRecall,
    InMemorySummaryStore,
)

__all__ = ["PERSONA", "ROOM", "World", "drain"]

PERSONA = Persona(id="default", name="Ember", system_prompt="You are Ember.", greeting="Hello, traveller!")
ROOM = "web:room"


async def drain(events: AsyncIterator[ReplyEvent]) -> list[ReplyEvent]:
    """Every event of a reply."""
    return [e async for e in events]


class World:
    """One deployment's services on one ``InMemoryData``."""

    def __init__(
        self,
        model: ChatModel | None = None,
        *,
        summary: SummaryPolicy | None = None,
        archive: ArchivePolicy | None = None,
        deep: DeepPolicy | None = None,
        observer: TurnObserver | None = None,
    ) -> None:
        self.clock = FixedClock()
        self.data = InMemoryData()
        self.model = model or ScriptedChatModel()
        self.personas = InMemoryPersonaStore(self.data)
        self.lore = InMemoryLoreStore(self.data)
        self.chats = InMemoryChatStore(self.data)
        self.lock = InMemoryChatLock(wait=1.0)
        self.summary_store = InMemorySummaryStore(self.data)
        self.memory_store = InMemoryMemoryStore()
        self.directory = InMemoryMemoryDirectory()
        self.archive_store = InMemoryArchiveStore(self.data)
        self.memory = MemoryDesk(
            store=self.memory_store,
            recall=InMemoryRecall(self.memory_store),
            directory=self.directory,
            policy=MemoryPolicy(),
            documents=InMemoryDocumentStore(),
        )
        self.deep = DeepPass(
            model=self.model,
            memory=self.memory,
            reports=self.summary_store,
            clock=self.clock,
            policy=deep or DeepPolicy(),
            default_model="m",
            chats=self.chats,
        )
        self.summaries = SummaryDesk(
            store=self.summary_store,
            model=self.model,
            personas=self.personas,
            clock=self.clock,
            policy=summary or SummaryPolicy(chunk_messages=10),
            window=WindowPolicy(),
            default_model="m",
            deep=self.deep if deep is not None else None,
        )
        self.archive = ArchiveDesk(
            store=self.archive_store,
            clock=self.clock,
            settings=ArchiveSettings(policy=archive or ArchivePolicy()),
        )
        self.service = ChatService(
            chats=self.chats,
            lock=self.lock,
            personas=self.personas,
            lore=self.lore,
            model=self.model,
            counter=OfflineTokenCounter(),
            clock=self.clock,
            policy=ServicePolicy(),
            memory=self.memory,
            summaries=self.summaries,
            archive=self.archive,
            observer=observer,
        )
        self.controls = MessageControls(self.service, InMemoryChatControls(self.data), self.lock)

    async def start(self, *personas: Persona) -> World:
        """Store the personas (``PERSONA`` when none is given)."""
        for persona in personas or (PERSONA,):
            await self.personas.put(persona)
        return self

    def message(
        self, text: str, *, chat: str = ROOM, user: str = "web:alice", guest: bool = False
    ) -> IncomingMessage:
        """A message sent now by ``user``; the clock then moves on a minute."""
        sent = self.clock.now()
        self.clock.advance(minutes=1)
        return IncomingMessage(
            platform="web",
            space=chat,
            chat=chat,
            user=user,
            display_name=user.split(":")[1].title(),
            text=text,
            sent_at=sent,
            guest=guest,
        )

    async def say(
        self,
        text: str,
        *,
        chat: str = ROOM,
        user: str = "web:alice",
        guest: bool = False,
        reply: bool = True,
        persona: str = "default",
    ) -> list[ReplyEvent]:
        """Send a message and wait for its reply (``reply=False`` only stores it)."""
        message = self.message(text, chat=chat, user=user, guest=guest)
        accepted = await self.service.accept(message, persona, reply=reply)
        return await drain(accepted.events)

    async def run_jobs(self) -> int:
        """Run the queued summary jobs as the worker does (``adapters.worker.jobs.JobRunner``);
        returns how many tiers they wrote."""
        written = 0
        while self.data.jobs:
            _, chat = self.data.jobs.pop(0)
            await self.summary_store.dequeued(chat)
            written += await self.summaries.summarize(chat)
        return written

    async def texts(self, chat: str = ROOM) -> list[str]:
        """The chat's log as text."""
        return [m.text for m in await self.chats.history(chat, 100)]
