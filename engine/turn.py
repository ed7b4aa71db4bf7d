"""One turn of a chat, planned without IO: gather → plan → perform → finish.

The chat service (``engine.service.chat``) *gathers* a turn's inputs: one Redis read
(``TurnInputs``), then, together, the turn's memories and the lorebook scan over the messages
``frame_turn`` picked. ``plan_turn`` turns what was gathered into the prompt, its request log,
the turn record and the tools the model may call. The service *performs* the model call and its
tool rounds into a ``Draft``, and *finishes* by storing, in one write, what ``finish_turn`` (a
reply) or ``fail_turn`` (none) returns.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from typing import Literal

import msgspec

from engine.archive.working import Briefing
from engine.images import RECENT_IMAGE_MESSAGES, Image, image_tokens
from engine.lorebook import LoreResult, LoreState
from engine.macros import MacroContext
from engine.memory import MemoryRecord, MemoryWrite
from engine.memory.journal import Deleted, Forgotten, Saved, Updated
from engine.memory.mode import MEMORY_OFF_NOTE
from engine.memory.tools import MemoryContext, display_names, memory_line
from engine.model import JournalEntry, ModelSettings, Persona, StoredMessage, Turn
from engine.ports import ModelDone, NewMessage, TurnInputs
from engine.prompt import (
    Prompt,
    PromptMessage,
    PromptParts,
    assemble_prompt,
    dialogue_examples,
    fill_macros,
    resolve_template,
)
from engine.requestlog import (
    LoreLog,
    MemoryLog,
    MemoryNote,
    RefusedWrite,
    RequestLog,
    SettingsLog,
    Usage,
    build_request_log,
)
from engine.summary import SummaryState, prompt_summaries
from engine.tools import ARCHIVE_TOOLS, ToolSpec, memory_tools
from engine.user_persona import UserPersona, budgeted_description
from engine.window import Window, WindowPolicy, live_window

__all__ = [
    "BACKDATED",
    "MAX_TOOL_ROUNDS",
    "Commit",
    "Draft",
    "Frame",
    "Gathered",
    "TurnPlan",
    "answered_ids",
    "fail_turn",
    "finish_turn",
    "frame_turn",
    "memory_logs",
    "memory_note",
    "memory_space",
    "memory_writes",
    "persona_message",
    "plan_turn",
    "prompt_parts",
    "recent_image_ids",
    "reply_time",
    "turn_macros",
    "turn_tools",
    "unseen_ids",
    "writable_people",
]


class Frame(msgspec.Struct, frozen=True, kw_only=True):
    """Which messages a turn sees (the window) and answers, and who is in it (MEM-4).

    The participants are the authors of the messages the turn replies to; the author of a
    listened-to message (stored without a reply) is not one, though the message is in the window.
    """

    answered: StoredMessage
    candidates: tuple[StoredMessage, ...]  # every message after the summarized ones (SUM-3)
    window: Window
    answers: tuple[str, ...]
    participants: tuple[str, ...]  # the authors of the messages it answers
    guests: tuple[str, ...]
    summary: SummaryState

    @property
    def at_greeting(self) -> bool:
        """Nothing but the greeting and user messages so far (LORE: entries for the chat's start)."""
        return all(m.role == "user" or m.id == "m0" for m in self.candidates)

    @property
    def spilled(self) -> bool:
        """Some messages left the window: the summaries have work (SUM-1)."""
        return len(self.candidates) > len(self.window.messages)


def frame_turn(
    inputs: TurnInputs,
    answered: StoredMessage,
    *,
    policy: WindowPolicy,
    context_window: int,
    summaries: bool,
) -> Frame:
    """The turn's window over what was read; with ``summaries`` on, summarized messages are left
    to their tiers (SUM-3: never twice in the prompt)."""
    summary = inputs.summary if summaries else SummaryState()
    candidates = tuple(m for m in inputs.messages if m.position > summary.upto)
    window = live_window(candidates, policy, context_window)
    answers = answered_ids(window.messages, answered)
    answering = [m for m in window.messages if m.id in answers] or [answered]
    return Frame(
        answered=answered,
        candidates=candidates,
        window=window,
        answers=answers,
        participants=tuple(dict.fromkeys(m.user for m in answering)),
        guests=tuple(dict.fromkeys(m.user for m in answering if m.guest)),
        summary=summary,
    )


class Gathered(msgspec.Struct, frozen=True, kw_only=True):
    """Everything a turn plans from."""

    frame: Frame
    persona: Persona
    settings: ModelSettings  # the model name resolved
    provider: str
    lore: LoreResult
    memory: MemoryContext
    turn_id: str
    started: datetime
    replaces: Turn | None = None
    memory_tools: bool = False  # the memory desk is on (the turn may still not write)
    archive_tools: bool = False
    memory_off: bool = False  # the chat is in memory-off mode (MEM-8): no lists, no archive, no tools
    pictures: dict[str, Image] = msgspec.field(default_factory=dict)  # the pictures the prompt carries
    briefing: Briefing = Briefing()  # the archive's pinned pages and working notes (EPI-1, EPI-13)
    cast: bool = False  # the chat has a cast of several personas: replies are attributed (CAST-1)
    slot: float | None = None  # the turn's position when not the answered message's (``reply_slot``)
    user_persona: UserPersona | None = None  # the answered person's own persona: {{user}}, description


class TurnPlan(msgspec.Struct, frozen=True, kw_only=True):
    """What to send and how to record it, before the model is called."""

    prompt: Prompt
    log: RequestLog
    turn: Turn
    tools: tuple[ToolSpec, ...]


NO_SAMPLING = frozenset({"anthropic", "offline"})
"""Providers whose requests carry no temperature or top-p (Anthropic's API refuses them)."""


def plan_turn(g: Gathered, *, estimate: Callable[[str], int]) -> TurnPlan:
    """The prompt (PRM-1), its request log (PRM-3) and the turn record of a gathered turn."""
    frame, persona, me = g.frame, g.persona, g.user_persona
    template = resolve_template(persona.template)
    answered = msgspec.structs.replace(frame.answered, name=me.name) if me and me.name else frame.answered
    parts = msgspec.structs.replace(
        prompt_parts(persona, frame.window, g.lore, g.memory, answered),
        user_description=budgeted_description(me.description, estimate) if me else "",
        summaries=prompt_summaries(frame.summary),
        memory_note=MEMORY_OFF_NOTE if g.memory_off else "",
        pictures=g.pictures,
        archive_pinned=g.briefing.pinned,
        working_notes=g.briefing.notes,
        cast=g.cast,
    )
    parts = msgspec.structs.replace(
        parts,
        examples=dialogue_examples(
            persona.mes_example,
            char=persona.name,
            user=parts.user_name,
            ctx=parts.macros,
            estimate=estimate,
            room=frame.window.dropped == 0,
        ),
    )
    prompt = assemble_prompt(parts, template)
    log = build_request_log(
        turn=g.turn_id,
        chat=frame.answered.chat,
        persona=persona.id,
        provider=g.provider,
        model=g.settings.name if g.provider != "offline" else "offline",
        created_at=g.started,
        prompt=prompt,
        window=frame.window,
        template=template,
        message_tokens={
            i: estimate(m.text) + sum(image_tokens(p.width, p.height) for p in m.images)
            for i, m in enumerate(prompt.messages)
        },
        lore=tuple(
            LoreLog(book=d.book, entry=d.entry, name=d.name, included=d.included, reason=d.reason)
            for d in g.lore.decisions
        ),
        memories=memory_logs(g.memory),
        recall=g.memory.reasons,
        documents=len(g.memory.documents),
        summaries=len(frame.summary.tiers),
        memory="off" if g.memory_off else "on",
        settings=SettingsLog(
            temperature=g.settings.temperature,
            top_p=g.settings.top_p,
            max_tokens=g.settings.max_tokens,
            context_window=g.settings.context_window,
            window_tokens=frame.window.budget,
            summaries=persona.summaries,
            learn_from_chat=persona.learn_from_chat,
            sampling_sent=g.provider not in NO_SAMPLING,
        ),
    )
    turn = Turn(
        id=g.turn_id,
        chat=frame.answered.chat,
        persona=persona.id,
        answers=frame.answers,
        position=frame.answered.position if g.slot is None else g.slot,
        status="done",
        created_at=g.started,
        replaces=g.replaces.id if g.replaces else None,
    )
    return TurnPlan(prompt=prompt, log=log, turn=turn, tools=turn_tools(g))


def turn_tools(g: Gathered) -> tuple[ToolSpec, ...]:
    """The tools a turn offers: the memory tools when it may write memories, the archive's when
    the archive is in play; none of either in a memory-off chat (MEM-8)."""
    if g.memory_off:
        return ()
    tools = memory_tools(writable_people(g)) if g.memory.can_write and g.memory_tools else ()
    return (*tools, *(ARCHIVE_TOOLS if g.archive_tools else ()))


def recent_image_ids(
    messages: tuple[StoredMessage, ...], keep: int = RECENT_IMAGE_MESSAGES
) -> tuple[str, ...]:
    """The pictures a prompt carries: those of the newest ``keep`` user messages of ``messages``
    (oldest first) that have pictures; the others stay placeholders (``engine.images``)."""
    carriers = [m for m in messages if m.role == "user" and m.images][-keep:] if keep > 0 else []
    return tuple(ref.id for m in carriers for ref in m.images)


def writable_people(g: Gathered) -> tuple[tuple[str, str], ...]:
    """(platform id, display name) of each participant the model may save memories about
    (MEM-4, MEM-8, DEC-10): not a guest, not opted out."""
    turn = g.memory.turn
    if turn is None:
        return ()
    frame = g.frame
    names = {m.user: m.name for m in (*frame.window.messages, frame.answered) if m.id in frame.answers}
    return tuple(
        (user, names.get(user, user))
        for user in dict.fromkeys(turn.participants)
        if user not in turn.guests and user not in turn.opted_out
    )


class Commit(msgspec.Struct, frozen=True, kw_only=True):
    """The one write that finishes a turn (``TurnStore.finish``)."""

    turn: Turn
    log: RequestLog
    reply: NewMessage | None = None
    superseded: Turn | None = None
    lore_state: LoreState | None = None


BACKDATED = timedelta(minutes=15)
"""A message sent this long before its turn began was back-dated (imported, or sent with an
explicit past ``sent_at``): longer than any wait for the chat's lock and the model."""


def reply_time(answered_at: datetime, *, started: datetime, now: datetime) -> datetime:
    """When a reply is dated: ``now``, unless the answered message is back-dated (``BACKDATED``);
    then the message's time plus the time the turn took, so the reply follows the message in the
    conversation's own timeline (archive sessions split where that timeline says)."""
    if answered_at < started - BACKDATED:
        return answered_at + max(now - started, timedelta(0))
    return now


def finish_turn(
    g: Gathered,
    plan: TurnPlan,
    draft: Draft,
    *,
    text: str,
    reply_tokens: int,
    now: datetime,
    duration_ms: int,
) -> Commit:
    """The commit of a turn the model answered with ``text`` (already stripped, not empty).

    The reply is dated by ``reply_time``: now, or after the message it answers when that one was
    sent long before the turn began (an imported or back-dated conversation keeps its timeline).
    """
    persona = g.persona
    turn = msgspec.structs.replace(
        plan.turn, reply=text, reply_message=f"r-{plan.turn.id}", journal=tuple(draft.journal)
    )
    answered = g.frame.answered
    at = reply_time(answered.sent_at, started=g.started, now=now)
    reply = persona_message(persona, text, sent_at=at, tokens=reply_tokens, reply_to=answered.id)
    state = g.lore.state
    keep = g.lore.decisions or state.marks or state.timed or state.before  # a state worth storing
    return Commit(
        turn=turn,
        log=msgspec.structs.replace(draft.finish(plan.log), duration_ms=duration_ms),
        reply=reply,
        superseded=msgspec.structs.replace(g.replaces, status="superseded") if g.replaces else None,
        lore_state=state if keep else None,
    )


def persona_message(
    persona: Persona, text: str, *, sent_at: datetime, tokens: int, reply_to: str | None = None
) -> NewMessage:
    """A message the persona says: a reply, or its greeting."""
    return NewMessage(
        role="assistant",
        user=f"persona:{persona.id}",
        name=persona.name,
        text=text,
        sent_at=sent_at,
        tokens=tokens,
        persona=persona.id,
        reply_to=reply_to,
    )


def fail_turn(plan: TurnPlan, draft: Draft, *, code: str, message: str, duration_ms: int) -> Commit:
    """The commit of a turn the model could not answer: the turn and its log, no reply."""
    turn = msgspec.structs.replace(plan.turn, status="failed", error_code=code, journal=tuple(draft.journal))
    log = msgspec.structs.replace(draft.finish(plan.log), error=f"{code}: {message}", duration_ms=duration_ms)
    return Commit(turn=turn, log=log)


def answered_ids(window: tuple[StoredMessage, ...], answered: StoredMessage) -> tuple[str, ...]:
    """The user messages a turn replies to (MEM-4): those after the last reply, up to
    ``answered``, that asked for a reply; a listened-to message there is context only."""
    listened = {m.id for m in window if m.listened}
    return tuple(i for i in unseen_ids(window, answered) if i == answered.id or i not in listened)


def unseen_ids(window: tuple[StoredMessage, ...], answered: StoredMessage) -> tuple[str, ...]:
    """The user messages after the persona's last reply, up to ``answered``: new to the model."""
    ids: list[str] = []
    for message in reversed(window):
        if message.role == "assistant":
            break
        ids.append(message.id)
    if answered.id not in ids:
        ids.insert(0, answered.id)
    return tuple(reversed(ids))


MAX_TOOL_ROUNDS = 3


def memory_space(chat: str) -> str:
    """The space of a chat: a Telegram group for all its forum topics, a person's private chat for
    each persona-bound bot's chat with them (``tg:<id>/bot/<persona>``), a branch's original chat
    (``<chat>=b-<id>``, memories are shared with branches, MEM-1), else the chat itself."""
    return chat.split("/topic/")[0].split("/bot/")[0].split("=b-")[0]


class Talk(msgspec.Struct, frozen=True, kw_only=True):
    """What the tools of one reply need to know."""

    answered: StoredMessage
    window: tuple[StoredMessage, ...]
    turn: str
    memory: MemoryContext


class Draft:
    """The reply being written: text, usage over every round, memory writes and the memory
    tool calls that changed nothing."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.journal: list[JournalEntry] = []
        self.refused: list[RefusedWrite] = []
        self.usage = Usage()
        self.attempts = 0
        self.estimated = 0

    def add_usage(self, done: ModelDone) -> None:
        u, d = self.usage, done.usage
        self.usage = Usage(
            input_tokens=u.input_tokens + d.input_tokens,
            output_tokens=u.output_tokens + d.output_tokens,
            cache_creation_input_tokens=u.cache_creation_input_tokens + d.cache_creation_input_tokens,
            cache_read_input_tokens=u.cache_read_input_tokens + d.cache_read_input_tokens,
        )
        self.attempts += done.attempts
        self.estimated += done.estimated_input

    @property
    def reported_input(self) -> int:
        """Every input token the provider reported over the rounds (fresh, cache writes, cache reads)."""
        u = self.usage
        return u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens

    def finish(self, log: RequestLog) -> RequestLog:
        notes = tuple(memory_note(w) for w in memory_writes(self.journal))
        return msgspec.structs.replace(
            log,
            usage=self.usage,
            attempts=self.attempts,
            memory_writes=notes,
            refused_writes=tuple(self.refused),
        )


def memory_writes(journal: Iterable[JournalEntry]) -> list[MemoryWrite]:
    """The memory writes of a turn's journal (MEM-7 undoes them), without its stored messages."""
    return [w for w in journal if isinstance(w, Saved | Updated | Deleted | Forgotten)]


def memory_note(write: MemoryWrite) -> MemoryNote:
    """The DEC-11 note of one memory write."""
    if isinstance(write, Saved):
        return _note("saved", write.after)
    if isinstance(write, Updated):
        return _note("updated", write.after)
    return _note("deleted" if isinstance(write, Deleted) else "forgotten", write.before)


def _note(kind: Literal["saved", "updated", "deleted", "forgotten"], record: MemoryRecord) -> MemoryNote:
    return MemoryNote(kind=kind, id=record.id, scope=record.scope, text=record.text)


def turn_macros(persona: Persona, answered: StoredMessage) -> MacroContext:
    """Macro values of a turn (LORE-17): names, the answered message's time, chat and turn seeds."""
    return MacroContext(
        char=persona.name,
        user=answered.name,
        now=answered.sent_at,
        chat_seed=answered.chat,
        turn_seed=f"{answered.chat}#{answered.id}",
    )


def prompt_parts(
    persona: Persona, window: Window, lore: LoreResult, memory: MemoryContext, answered: StoredMessage
) -> PromptParts:
    stable = memory.reply.stable if memory.reply else None
    macros = turn_macros(persona, answered)
    line = functools.partial(memory_line, display_names(window.messages))
    return PromptParts(
        persona=persona,
        window=window,
        pinned=tuple(line(c.record) for c in (stable.pinned if stable else ())),
        active=tuple(line(c.record, recent=c.recent) for c in (stable.active if stable else ())),
        recalled=tuple(line(r.record) for r in (memory.reply.recalled if memory.reply else ())),
        lore=tuple(
            PromptMessage(
                role=m.role,
                text=fill_macros(m.text, char=persona.name, user=answered.name, ctx=macros),
                slot="lore",
                source=f"{m.book}/{m.entry}",
            )
            for m in lore.messages
        ),
        user_name=answered.name,
        documents=memory.documents,
        macros=macros,
        answering=len(set(unseen_ids(window.messages, answered)) & {m.id for m in window.messages}),
    )


def memory_logs(memory: MemoryContext) -> tuple[MemoryLog, ...]:
    """The request log's memories: each carried one with the score the turn's search gave it
    (``similarity``, the fused score; None when nothing was searched) and whether the search used
    it (``matched``, DEC-4: a reasonable match, or a recalled dormant one)."""
    if memory.reply is None:
        return ()
    stable = memory.reply.stable
    used = {h.memory_id: h.similarity for h in (memory.plan.matches if memory.plan else ())}
    scored = {h.memory_id: h.similarity for h in memory.scores} | used

    def carried(record: MemoryRecord, state: Literal["pinned", "active"]) -> MemoryLog:
        return MemoryLog(
            id=record.id,
            scope=record.scope,
            state=state,
            similarity=scored.get(record.id),
            matched=record.id in used,
        )

    return (
        *(carried(c.record, "pinned") for c in stable.pinned),
        *(carried(c.record, "active") for c in stable.active),
        *(
            MemoryLog(
                id=r.record.id, scope=r.record.scope, state="recalled", similarity=r.similarity, matched=True
            )
            for r in memory.reply.recalled
        ),
    )
