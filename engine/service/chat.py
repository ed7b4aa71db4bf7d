"""The chat service: the one async module of the engine (STYLE C3, P6).

It drives the ports and performs what the pure functions decide. A message is first stored
(so it is never lost), then answered under the chat's lock. Under the lock the service answers
the chat's pending messages oldest first, up to and including its own, so two messages sent at
once are both answered, in order, even with several web processes; a message another process
already answered is reported with that turn.

A turn (``engine.turn``) is *gathered* (one read of the chat, which also takes the chat's lock;
then the memories and the lorebook scan together), *planned* by the pure ``plan_turn``,
*performed* (the model's stream and its tool rounds, memory tools planned by
``engine.memory.tools``) and *finished* with one write, which also frees the lock.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import datetime

import msgspec

from engine.archive import Briefing
from engine.errors import Conflict, InvalidInput, LLMUnavailable, LockLost, NotFound, StorageUnavailable
from engine.images import Image, ImageRef, check_images, image_tokens
from engine.lorebook import LoreResult, LoreState, scan_lore
from engine.memory.compose import DRAFT_LIMIT, check_description, compose_prompt, extract_drafts, parse_drafts
from engine.memory.mode import chat_memory_off, switch_memory
from engine.memory.model import MemoryUse
from engine.memory.tools import MEMORY_OFF, MemoryContext, decode_input, display_names
from engine.model import (
    ChatSettings,
    IncomingMessage,
    MemoryMode,
    ModelSettings,
    Persona,
    StoredMessage,
    Turn,
)
from engine.notices import NO_VISION, NO_VISION_NOTICE
from engine.persona_settings import window_policy
from engine.ports import (
    ChatLock,
    ChatModel,
    ChatStore,
    Clock,
    DocumentVersion,
    LoreSource,
    NewMessage,
    PersonaStore,
    TextDelta,
    TokenCounter,
    TurnInputs,
    TurnObserver,
)
from engine.prompt import fill_macros
from engine.requestlog import Context, RequestLog, summarize_context
from engine.service.archive import ArchiveDesk
from engine.service.memory import MemoryDesk
from engine.service.summaries import SummaryDesk
from engine.tools import (
    ARCHIVE_TOOLS,
    AddWorkingNoteInput,
    ExploreArchiveInput,
    SearchArchiveInput,
    ToolCall,
    ToolExchange,
    ToolResult,
)
from engine.turn import (
    MAX_TOOL_ROUNDS,
    Commit,
    Draft,
    Frame,
    Gathered,
    TurnPlan,
    fail_turn,
    finish_turn,
    frame_turn,
    memory_space,
    memory_writes,
    persona_message,
    plan_turn,
    recent_image_ids,
    turn_macros,
)
from engine.validate import TextLimits, check_text
from engine.window import WindowPolicy

__all__ = [
    "Accepted",
    "ChatService",
    "ReplyDelta",
    "ReplyDone",
    "ReplyEvent",
    "ReplyFailed",
    "ServicePolicy",
]

log = logging.getLogger("hearth.service")

_ARCHIVE_TOOL_NAMES = frozenset(spec.name for spec in ARCHIVE_TOOLS)

INLINE_SCAN_COST = 500
"""Lorebooks are scanned on the event loop only when none recurses and their compiled ``cost``
(entries plus keys) is at most this: even if every entry activated, such a scan takes about a
millisecond (125 entries of 3 keys). Anything bigger could take long (20,000 entries that all
match: ~0.5 s) and runs in a worker thread, which costs ~0.05 ms to hand off."""


class ServicePolicy(msgspec.Struct, frozen=True, kw_only=True):
    """The service's knobs, taken from settings."""

    window: WindowPolicy = msgspec.field(default_factory=WindowPolicy)
    text: TextLimits = msgspec.field(default_factory=TextLimits)
    default_model: str = "claude-sonnet-5-5"
    scan_limit: int = 100  # LORE-2: the deepest scan a book may ask for
    lore_seconds: float = 2.0
    """Time budget of one lorebook scan; past it the scan keeps what it activated and it is logged."""


class ReplyDelta(msgspec.Struct, frozen=True, kw_only=True, tag="delta"):
    """A piece of the reply, as it streams."""

    text: str


class ReplyDone(msgspec.Struct, frozen=True, kw_only=True, tag="done"):
    """The reply is complete and stored; ``notices`` tell what it saved or forgot (DEC-11)."""

    turn: str
    reply: str
    context: Context
    notices: tuple[str, ...] = ()


class ReplyFailed(msgspec.Struct, frozen=True, kw_only=True, tag="error"):
    """No reply this time; the person's message is stored all the same."""

    code: str
    message: str
    turn: str | None = None


ReplyEvent = ReplyDelta | ReplyDone | ReplyFailed


class Accepted(msgspec.Struct, frozen=True, kw_only=True):
    """A stored message; ``events`` answers it (or yields nothing when no reply was asked)."""

    message: StoredMessage
    events: AsyncIterator[ReplyEvent]


async def _nothing() -> AsyncIterator[ReplyEvent]:
    return
    yield  # pragma: no cover - makes this an async generator


class ChatService:
    """Receives normalized messages from every adapter and answers them."""

    def __init__(
        self,
        *,
        chats: ChatStore,
        lock: ChatLock,
        personas: PersonaStore,
        lore: LoreSource,
        model: ChatModel,
        counter: TokenCounter,
        clock: Clock,
        policy: ServicePolicy,
        memory: MemoryDesk | None = None,
        summaries: SummaryDesk | None = None,
        archive: ArchiveDesk | None = None,
        on_activity: Callable[[datetime], Awaitable[None]] | None = None,
        new_id: Callable[[], str] | None = None,
        observer: TurnObserver | None = None,
    ) -> None:
        self.chats = chats
        self.personas = personas
        self.lore = lore
        self.memory = memory
        self.summaries = summaries
        self.archive = archive
        self._on_activity = on_activity
        self.model = model
        self.counter = counter
        self.policy = policy
        self._lock = lock
        self._clock = clock
        self._new_id = new_id or (lambda: secrets.token_hex(6))
        self._observer = observer  # metrics: told after each step, never on the turn's Redis path
        self._personas: dict[str, tuple[int, Persona]] = {}  # by version (issue 12)
        self._books: OrderedDict[str, tuple[str, ...]] = OrderedDict()  # chat → attached, last seen

    async def persona(self, persona_id: str) -> Persona:
        """The persona, or ``NotFound(persona_not_found)``."""
        persona = await self.personas.get(persona_id)
        if persona is None:
            raise NotFound(f"There is no persona {persona_id!r}.", code="persona_not_found")
        return persona

    async def _persona_at(self, persona_id: str, version: int | None) -> Persona:
        """The persona from this process's cache when ``version`` is the stored one, else read."""
        cached = self._personas.get(persona_id)
        if cached is not None and version is not None and cached[0] == version:
            return cached[1]
        found = await self.personas.versioned(persona_id)
        if found is None:
            self._personas.pop(persona_id, None)
            raise NotFound(f"There is no persona {persona_id!r}.", code="persona_not_found")
        self._personas[persona_id] = found
        return found[1]

    async def accept(self, message: IncomingMessage, persona_id: str, *, reply: bool = True) -> Accepted:
        """Validate and store a message; return the stream that answers it.

        A message with pictures may have no text; its tokens count its pictures too
        (``engine.images``), and the pictures are stored with it.

        Raises:
            InvalidInput: the text is empty (and no picture came), too long or not valid text;
                a picture is refused (``too_many_images``, ``image_too_large``, ``image_type``);
                nothing is stored.
            NotFound: the persona does not exist (nothing is stored).
        """
        pictures = check_images([(i.media_type, i.data) for i in message.images])
        text = check_text(message.text, self.policy.text) if message.text.strip() or not pictures else ""
        cached = self._personas.get(persona_id)
        persona = cached[1] if cached is not None else await self._persona_at(persona_id, None)
        (tokens,) = await self.counter.count([text]) if text else (0,)
        refs = tuple(
            ImageRef(
                id=f"i{self._new_id()}",
                media_type=p.media_type,
                width=p.width,
                height=p.height,
                size=len(p.data),
            )
            for p in pictures
        )
        tokens += sum(image_tokens(p.width, p.height) for p in pictures)
        new = NewMessage(
            role="user",
            user=message.user,
            name=message.display_name,
            text=text,
            sent_at=message.sent_at,
            tokens=tokens,
            persona=persona.id,
            reply_to=message.reply_to,
            guest=message.guest,
            listened=not reply,
            images=refs,
        )
        greeting = await self._greeting(persona, message)
        stored, version = await self.chats.store_message(
            message.chat,
            new,
            pending=reply,
            greeting=greeting,
            images=[(r.id, p.data) for r, p in zip(refs, pictures, strict=True)],
        )
        if version is None:  # deleted since this process cached it: nothing stays stored
            await self.chats.discard(message.chat, stored)
            self._personas.pop(persona_id, None)
            raise NotFound(f"There is no persona {persona_id!r}.", code="persona_not_found")
        if self._on_activity is not None:  # any platform's message wakes the archive (EPI-10 idle trigger)
            try:
                await self._on_activity(self._clock.now())
            except StorageUnavailable as exc:  # a deployment-wide mark: the message is stored, go on
                log.warning("client activity not recorded: %s", exc.message)
        events = self._answer(stored) if reply else _nothing()
        return Accepted(message=stored, events=events)

    async def _greeting(self, persona: Persona, message: IncomingMessage) -> NewMessage | None:
        """The greeting a new chat opens with: the one the message chose (``greeting``), filled in."""
        if not persona.greeting.strip():
            return None
        choices = (persona.greeting, *persona.alternate_greetings)
        if not 0 <= message.greeting < len(choices):
            raise InvalidInput(
                f"The persona has {len(choices)} greetings; greeting {message.greeting} is not one.",
                code="invalid_greeting",
            )
        text = fill_macros(choices[message.greeting], char=persona.name, user=message.display_name)
        (tokens,) = await self.counter.count([text])
        return persona_message(persona, text, sent_at=message.sent_at, tokens=tokens)

    def answer(self, stored: StoredMessage) -> AsyncIterator[ReplyEvent]:
        """The stream that answers a stored message on the pending queue (and any pending before it)."""
        return self._answer(stored)

    async def _answer(self, stored: StoredMessage) -> AsyncIterator[ReplyEvent]:
        chat = stored.chat
        async with self._lock.hold(chat, lazy=True):  # taken by the read, freed by the finish (issue 12)
            while (inputs := await self._read(chat, stored.position, stored.persona)).answered is not None:
                pending = inputs.answered
                mine = pending.id == stored.id
                try:
                    if pending.persona != stored.persona:  # the version read was of another persona
                        inputs = await self._read(chat, stored.position, pending.persona)
                    persona = await self._persona_at(pending.persona, inputs.persona_version)
                    async for event in self._run_turn(pending, persona, None, inputs):
                        if mine:
                            yield event
                except (StorageUnavailable, LockLost, OSError):
                    raise  # Redis, the network or a lost lock: the message stays pending for later
                except Exception:
                    # A message whose turn broke must never wedge the chat: answered first on every
                    # later message, it would fail them all. It stays in the log, unanswered.
                    await self.chats.drop_pending(chat, pending.id)
                    if mine:
                        raise
                    why = "dropped pending message %s of %s: its turn failed"
                    log.exception(why, pending.id, chat, extra={"chat": chat})
                    continue
                if mine:
                    return
        yield await self._already_answered(stored)

    async def _read(self, chat: str, upto: float, persona_id: str, *, pending: bool = True) -> TurnInputs:
        """The one read of a turn's inputs (issue 12), with the books this chat had last turn."""
        cached = self._personas.get(persona_id)
        books = (*(cached[1].lorebooks if cached else ()), *self._books.get(chat, ()))
        inputs = await self.chats.turn_inputs(
            chat,
            upto,
            max(self.policy.window.max_messages, self.policy.scan_limit),
            pending=pending,
            persona=persona_id,
            model=self.policy.default_model,
            books=books,
        )
        self.counter.use_ratio(inputs.token_ratio)
        self._books[chat] = inputs.attached
        self._books.move_to_end(chat)
        while len(self._books) > 10_000:
            self._books.popitem(last=False)
        return inputs

    async def _already_answered(self, stored: StoredMessage) -> ReplyEvent:
        turn = await self.chats.answer_of(stored.chat, stored.id)
        found = await self.chats.get(stored.chat, turn.id) if turn is not None else None
        if turn is None or found is None or turn.reply is None:
            return ReplyFailed(
                code="not_answered",
                message="This message was not answered; your message is saved, send another.",
            )
        return ReplyDone(turn=turn.id, reply=turn.reply, context=summarize_context(found[1]))

    async def set_memory(self, chat: str, memory: MemoryMode) -> ChatSettings:
        """Switch a chat's memory off or back on (MEM-8); a chat not started yet starts so.

        Nothing in any memory list changes, so switching back on brings every memory back; the
        stretch of messages written memory-off is kept, so the deep pass never reads it.
        """
        newest = await self.chats.history(chat, 1)
        now = await self.chats.chat_settings(chat)
        settings = switch_memory(now, memory, newest[-1].position if newest else 0.0)
        if settings != now:
            await self.chats.put_chat_settings(chat, settings)
        return settings

    async def draft_memories(
        self, persona_id: str, material: str, *, limit: int
    ) -> tuple[tuple[str, ...], bool]:
        """Ask the model "What should the persona remember?" about ``material`` (MEM-6c/6d).

        Returns:
            The drafts, and whether they came from the offline extractive fallback.
        """
        persona = await self.persona(persona_id)
        max_chars = self.memory.policy.max_chars if self.memory else 500
        if self._settings(persona).provider == "offline":
            return extract_drafts(material, limit=limit, max_chars=max_chars), True
        prompt = compose_prompt(persona, material, limit=limit, max_chars=max_chars)
        parts = [
            e.text
            async for e in self.model.stream(prompt, self._settings(persona), persona.name)
            if isinstance(e, TextDelta)
        ]
        return parse_drafts("".join(parts), limit=limit, max_chars=max_chars), False

    async def memories_from_description(
        self, persona_id: str, description: str
    ) -> tuple[tuple[str, ...], bool]:
        """ "Create memories" (MEM-6c): check the description and draft memories from it.

        Raises:
            InvalidInput: ``description_empty``, ``description_too_long``, ``nothing_to_remember``.
        """
        drafts, offline = await self.draft_memories(
            persona_id, check_description(description), limit=DRAFT_LIMIT
        )
        if not drafts:
            raise InvalidInput(
                "Nothing in the description looks worth remembering.", code="nothing_to_remember"
            )
        return drafts, offline

    async def turn(self, chat: str, turn_id: str) -> tuple[Turn, RequestLog]:
        """A turn and its request log.

        Raises:
            NotFound: ``turn_not_found``.
        """
        found = await self.chats.get(chat, turn_id)
        if found is None:
            raise NotFound(f"There is no turn {turn_id!r} in this chat.", code="turn_not_found")
        return found

    async def regenerate(self, chat: str, turn_id: str) -> AsyncIterator[ReplyEvent]:
        """Answer the latest turn's message again, replacing its reply (MEM-7 applies).

        Raises:
            NotFound: no such turn.
            Conflict: ``not_latest_turn`` when the turn is not the chat's latest reply.
        """
        turn, _ = await self.turn(chat, turn_id)
        latest = await self.chats.latest(chat)
        if latest is None or latest.id != turn.id or turn.status != "done":
            raise Conflict("Only the chat's latest reply can be regenerated.", code="not_latest_turn")
        answered = await self.chats.message(chat, turn.answers[-1])
        if answered is None:
            raise NotFound("The message this turn answered is gone.", code="message_not_found")
        persona = await self.persona(turn.persona)
        return self._regenerate(answered, persona, turn)

    async def _regenerate(
        self, answered: StoredMessage, persona: Persona, old: Turn
    ) -> AsyncIterator[ReplyEvent]:
        async with self._lock.hold(answered.chat):
            latest = await self.chats.latest(answered.chat)
            if latest is None or latest.id != old.id:
                yield ReplyFailed(code="not_latest_turn", message="A newer reply arrived meanwhile.")
                return
            if self.memory is not None:  # MEM-7: the old reply's memory writes are undone
                await self.memory.rollback(memory_writes(old.journal))
            inputs = await self._read(answered.chat, answered.position, persona.id, pending=False)
            inputs = msgspec.structs.replace(inputs, answered=answered)
            async for event in self._run_turn(answered, persona, old, inputs):
                yield event

    def _settings(self, persona: Persona) -> ModelSettings:
        """The persona's model settings with the deployment's provider and model filled in."""
        return msgspec.structs.replace(
            persona.model,
            name=persona.model.name or self.policy.default_model,
            provider=persona.model.provider or self.model.provider,
        )

    async def _run_turn(
        self, answered: StoredMessage, persona: Persona, replaces: Turn | None, inputs: TurnInputs
    ) -> AsyncIterator[ReplyEvent]:
        """Gather → plan → perform → finish (``engine.turn``)."""
        gathered = await self._gather(answered, persona, replaces, inputs)
        plan = plan_turn(gathered, estimate=self.counter.estimate)
        if self.memory is not None:
            await self.memory.commit(gathered.memory)
        draft = Draft()
        try:
            async for delta in self._perform(plan, gathered, draft):
                yield delta
            text = "".join(draft.text).strip()
            if not text:
                raise LLMUnavailable("The model returned an empty reply.")
        except LLMUnavailable as exc:
            yield await self._fail(gathered, plan, draft, exc)
            return
        (reply_tokens,) = await self.counter.count([text])
        ratio = self._learn_ratio(gathered.settings.name, draft)
        duration = self._elapsed_ms(gathered.started)
        commit = finish_turn(
            gathered,
            plan,
            draft,
            text=text,
            reply_tokens=reply_tokens,
            now=self._clock.now(),
            duration_ms=duration,
        )
        await self._finish(commit, ratio)
        if self.memory is not None:  # the panel's "why": this turn used these memories
            use = MemoryUse.of(
                turn=plan.turn.id, chat=answered.chat, at=commit.log.created_at, message=answered.text
            )
            await self.memory.note_use([m.id for m in commit.log.memories], use)
        if self._observer is not None:
            self._observer.turn_done(commit.log, self._seconds_since(gathered.started))
        spilled = gathered.persona.summaries and gathered.frame.spilled  # SUM-1: some left the window
        if self.summaries is not None and spilled:
            await self._enqueue_summary(answered.chat)
        space = memory_space(answered.chat)
        notices = await self.memory.notices(space, commit.log.memory_writes) if self.memory else ()
        notices = (*await self._vision_notice(gathered.frame), *notices)
        yield ReplyDone(turn=plan.turn.id, reply=text, context=summarize_context(commit.log), notices=notices)

    async def _enqueue_summary(self, chat: str) -> None:
        """Queue the chat's summary job; the reply is stored already, so a queue that cannot be
        reached is logged and the next turn that spills queues the job again (a summary covers
        everything outside the window whenever it runs)."""
        assert self.summaries is not None
        try:
            await self.summaries.store.enqueue(chat)
        except StorageUnavailable as exc:
            log.warning("summary job of %s not queued: %s; the next turn queues it", chat, exc.message)

    async def _gather(
        self, answered: StoredMessage, persona: Persona, replaces: Turn | None, inputs: TurnInputs
    ) -> Gathered:
        """What the turn plans from: the window over ``inputs``, then its memories and lore together."""
        started, settings = self._clock.now(), self._settings(persona)
        frame = frame_turn(
            inputs,
            answered,
            policy=window_policy(persona, self.policy.window),
            context_window=settings.context_window,
            summaries=self.summaries is not None and persona.summaries,
        )
        memory_off = chat_memory_off(inputs.chat_settings)  # MEM-8: decided, not read again
        # memories (Redis reads, maybe the embedding) run while the lorebooks are scanned
        memory_task = asyncio.ensure_future(self._memories(persona, frame, inputs.documents, memory_off))
        briefing_task = asyncio.ensure_future(self._briefing(frame, inputs, memory_off))
        await asyncio.sleep(0)  # the memory reads leave first, then the lorebooks are scanned
        try:
            lore = await self._scan_lore(persona, frame, inputs)
            pictures = await self._pictures(frame)
        finally:
            memory = await memory_task
            briefing = await briefing_task
        return Gathered(
            frame=frame,
            persona=persona,
            settings=settings,
            provider=settings.provider,
            lore=lore,
            memory=memory,
            turn_id=self._new_id(),
            started=started,
            replaces=replaces,
            memory_tools=self.memory is not None,
            archive_tools=self.archive is not None,
            memory_off=memory_off,
            pictures=pictures,
            briefing=briefing,
        )

    async def _briefing(self, frame: Frame, inputs: TurnInputs, memory_off: bool) -> Briefing:
        """The archive's pinned pages and the running session's working notes (EPI-1, EPI-13);
        nothing in a memory-off chat (MEM-8)."""
        if self.archive is None or memory_off:
            return Briefing()
        answered = frame.answered
        return await self.archive.briefing(
            answered.chat, (m.sent_at for m in inputs.messages), answered.sent_at
        )

    @property
    def vision(self) -> bool:
        """Whether the model reads pictures (a ``ChatModel`` with ``vision = True``)."""
        return getattr(self.model, "vision", False) is True

    async def _pictures(self, frame: Frame) -> dict[str, Image]:
        """The pictures the turn's prompt carries (``recent_image_ids``); none for a model that
        cannot see them. One read, only when the window has pictures."""
        ids = recent_image_ids(frame.window.messages) if self.vision else ()
        if not ids:
            return {}
        found = await self.chats.images(frame.answered.chat, ids)
        refs = {r.id: r for m in frame.window.messages for r in m.images}
        return {
            i: Image(media_type=refs[i].media_type, data=found[i], width=refs[i].width, height=refs[i].height)
            for i in ids
            if i in found
        }

    async def _vision_notice(self, frame: Frame) -> tuple[str, ...]:
        """Once per chat, tell a person whose picture the model cannot see."""
        if self.vision or not any(m.images for m in frame.window.messages if m.id in frame.answers):
            return ()
        first = await self.chats.first_notice(frame.answered.chat, NO_VISION)
        return (NO_VISION_NOTICE,) if first else ()

    async def _finish(self, commit: Commit, ratio: tuple[str, float] | None = None) -> None:
        await self.chats.finish(
            commit.turn, commit.log, commit.reply, commit.superseded, commit.lore_state, token_ratio=ratio
        )

    def _learn_ratio(self, model: str, draft: Draft) -> tuple[str, float] | None:
        """Learn the counter's ratio from the reply's usage; when it moved, the ratio to store
        with the turn (in the finish's round trip, issue 12)."""
        ratio = self.counter.learn(draft.estimated, draft.reported_input)
        if ratio is not None and model == self.policy.default_model:
            return model, ratio
        return None

    async def _perform(self, plan: TurnPlan, g: Gathered, draft: Draft) -> AsyncIterator[ReplyDelta]:
        """Stream the model's reply, running its tools between rounds (MEM-6a)."""
        prompt = plan.prompt
        first = self._observer is not None
        for _ in range(MAX_TOOL_ROUNDS):
            said: list[str] = []
            calls: list[ToolCall] = []
            async for event in self.model.stream(prompt, g.settings, g.persona.name, plan.tools):
                if isinstance(event, TextDelta):
                    if first and self._observer is not None:
                        first = False
                        self._observer.first_token(g.provider, self._seconds_since(g.started))
                    said.append(event.text)
                    draft.text.append(event.text)
                    yield ReplyDelta(text=event.text)
                elif isinstance(event, ToolCall):
                    calls.append(event)
                else:
                    draft.add_usage(event)
            if not calls:
                return
            results = [await self._tool(call, g, draft) for call in calls]
            exchange = ToolExchange(text="".join(said), calls=tuple(calls), results=tuple(results))
            prompt = msgspec.structs.replace(prompt, exchanges=(*prompt.exchanges, exchange))

    async def _archive_tool(self, call: ToolCall, g: Gathered) -> ToolResult:
        """``search_archive``, ``explore_archive`` and ``add_working_note`` (EPI-1, EPI-13)."""
        assert self.archive is not None
        answered = g.frame.answered
        try:
            if call.name == "search_archive":
                query = decode_input(call.arguments, SearchArchiveInput).query
                content = await self.archive.tool_search(answered.chat, query)
            elif call.name == "explore_archive":
                asked = decode_input(call.arguments, ExploreArchiveInput)
                content = await self.archive.tool_explore(answered.chat, asked.query, asked.reasoning)
            else:
                text = decode_input(call.arguments, AddWorkingNoteInput).text
                note = await self.archive.add_note(
                    answered.chat,
                    text,
                    author=f"persona:{g.persona.id}",
                    at=answered.sent_at,
                    times=(m.sent_at for m in g.frame.candidates),
                )
                content = f"Noted for this session [{note.id}]."
        except (InvalidInput, Conflict) as exc:
            return ToolResult(call_id=call.id, content=f"Not done: {exc.message}", is_error=True)
        return ToolResult(call_id=call.id, content=content)

    async def _tool(self, call: ToolCall, g: Gathered, draft: Draft) -> ToolResult:
        answered = g.frame.answered
        if call.name in _ARCHIVE_TOOL_NAMES and g.memory_off:  # MEM-8: the archive is not in play
            return ToolResult(call_id=call.id, content="Refused: memory is off in this chat.", is_error=True)
        if call.name in _ARCHIVE_TOOL_NAMES and self.archive is not None:
            return await self._archive_tool(call, g)
        if self.memory is None:
            return ToolResult(call_id=call.id, content="Not done: memory is off.", is_error=True)
        result, writes, refused = await self.memory.run_tool(
            g.memory,
            call,
            speaker=answered.user,
            turn=g.turn_id,
            now=answered.sent_at,
            people=display_names(g.frame.window.messages),
        )
        draft.journal.extend(writes)
        draft.refused.extend(refused)
        return result

    async def _memories(
        self,
        persona: Persona,
        frame: Frame,
        documents: DocumentVersion | None = None,
        memory_off: bool = False,
    ) -> MemoryContext:
        """The turn's memories; participants are the authors of the messages it answers (MEM-4);
        ``documents``: the persona's document version the turn read; ``memory_off``: the chat is
        in memory-off mode (MEM-8), so no list is read."""
        if self.memory is None:
            return MEMORY_OFF
        answered = frame.answered
        return await self.memory.for_turn(
            persona=persona.id,
            limits=persona.memory,
            learn_from_chat=persona.learn_from_chat,
            chat_memory_off=memory_off,
            space=memory_space(answered.chat),
            participants=frame.participants,
            guests=frame.guests,
            text=answered.text,
            message_at=answered.sent_at,
            documents_seen=documents,
        )

    async def _scan_lore(self, persona: Persona, frame: Frame, inputs: TurnInputs) -> LoreResult:
        """Scan the persona's and the chat's lorebooks over the recent messages (LORE-1..12)."""
        answered = frame.answered
        ids = list(dict.fromkeys([*persona.lorebooks, *inputs.attached]))
        books = await self.lore.compiled(ids, inputs.book_versions) if ids else []
        if not books:
            return LoreResult(state=LoreState())
        scan = functools.partial(
            scan_lore,
            books,
            [m.text for m in frame.candidates],
            inputs.lore_state,
            # seeded by the answered message, so a regenerate re-renders the same rolls (LORE-10)
            turn_id=f"{answered.chat}#{answered.id}",
            message_count=inputs.count,
            at_greeting=frame.at_greeting,
            count_tokens=self.counter.estimate,
            macros=turn_macros(persona, answered),  # LORE-17: the message's time, never the clock
        )
        started = self._clock.now()
        if any(b.recursive for b in books) or sum(b.cost for b in books) > INLINE_SCAN_COST:
            # a scan that may take long runs in a thread, within its budget: other chats go on
            deadline = time.monotonic() + self.policy.lore_seconds
            result = await asyncio.to_thread(scan, out_of_time=functools.partial(_out_of_time, deadline))
            if result.cut_short:
                log.warning(
                    "lore scan of chat %s stopped after its budget of %.1f s (books %s); kept %d entries",
                    answered.chat,
                    self.policy.lore_seconds,
                    ", ".join(b.id for b in books),
                    len(result.messages),
                )
        else:
            result = scan()  # about a millisecond at most: no budget needed
        if self._observer is not None:
            self._observer.lore_scanned(self._seconds_since(started))
        return result

    def _elapsed_ms(self, started: datetime) -> int:
        return int(self._seconds_since(started) * 1000)

    def _seconds_since(self, started: datetime) -> float:
        return (self._clock.now() - started).total_seconds()

    async def _fail(self, g: Gathered, plan: TurnPlan, draft: Draft, exc: LLMUnavailable) -> ReplyFailed:
        duration = self._elapsed_ms(g.started)
        commit = fail_turn(plan, draft, code=exc.code, message=exc.message, duration_ms=duration)
        await self._finish(commit)
        if self._observer is not None:
            self._observer.turn_failed(commit.log, exc.code, self._seconds_since(g.started))
        return ReplyFailed(
            code=exc.code,
            message=(
                f"The model could not answer ({exc.message}). "
                "Your message is saved; send it again or regenerate later."
            ),
            turn=plan.turn.id,
        )


def _out_of_time(deadline: float) -> bool:
    """The lore scan's budget check, called in its worker thread between units of work.

    ``time.sleep(0)`` releases the GIL for a moment, so the event loop's thread (which wants it
    back after every network wait) does not queue behind the scan's 5 ms switch interval.
    """
    time.sleep(0)
    return time.monotonic() > deadline
