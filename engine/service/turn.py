"""Helpers of one turn: what it answers, the prompt parts it builds, what it logs and drafts.

Pure except ``Draft``, the mutable accumulator of a reply being written (text, usage over every
tool round, memory writes).
"""

from __future__ import annotations

import msgspec

from engine.lorebook import LoreResult
from engine.macros import MacroContext
from engine.memory import MemoryWrite
from engine.model import JournalEntry, MessageStored, Persona, StoredMessage
from engine.ports import ModelDone
from engine.prompt import MemoryLine, PromptMessage, PromptParts, fill_macros
from engine.requestlog import MemoryLog, MemoryNote, RequestLog, Usage
from engine.service.memory import MemoryContext
from engine.window import Window

__all__ = [
    "MAX_TOOL_ROUNDS",
    "Draft",
    "Talk",
    "answered_ids",
    "memory_logs",
    "memory_note",
    "memory_space",
    "prompt_parts",
    "turn_macros",
]


def answered_ids(window: tuple[StoredMessage, ...], answered: StoredMessage) -> tuple[str, ...]:
    """The user messages a turn answers: those after the last reply, up to ``answered``."""
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
    """The space of a chat: a Telegram group for all its forum topics, a branch's original chat
    (``<chat>=b-<id>``, memories are shared with branches, MEM-1), else the chat itself."""
    return chat.split("/topic/")[0].split("=b-")[0]


class Talk(msgspec.Struct, frozen=True, kw_only=True):
    """What the tools of one reply need to know."""

    answered: StoredMessage
    window: tuple[StoredMessage, ...]
    turn: str
    memory: MemoryContext


class Draft:
    """The reply being written: text, usage over every round, memory writes."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.journal: list[JournalEntry] = []
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
        notes = tuple(memory_note(w) for w in self.journal if not isinstance(w, MessageStored))
        return msgspec.structs.replace(log, usage=self.usage, attempts=self.attempts, memory_writes=notes)


def memory_note(write: MemoryWrite) -> MemoryNote:
    kind = {"memory_saved": "saved", "memory_updated": "updated", "memory_deleted": "deleted"}.get(
        type(write).__struct_config__.tag, "forgotten"
    )
    record = write.after if hasattr(write, "after") else write.before
    return MemoryNote(kind=kind, id=record.id, scope=record.scope, text=record.text)  # type: ignore[arg-type]


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
    return PromptParts(
        persona=persona,
        window=window,
        pinned=tuple(
            MemoryLine(id=c.record.id, text=c.record.text) for c in (stable.pinned if stable else ())
        ),
        active=tuple(
            MemoryLine(id=c.record.id, text=c.record.text, recent=c.recent)
            for c in (stable.active if stable else ())
        ),
        recalled=tuple(
            MemoryLine(id=r.record.id, text=r.record.text)
            for r in (memory.reply.recalled if memory.reply else ())
        ),
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
        answering=len(set(answered_ids(window.messages, answered)) & {m.id for m in window.messages}),
    )


def memory_logs(memory: MemoryContext) -> tuple[MemoryLog, ...]:
    if memory.reply is None:
        return ()
    stable = memory.reply.stable
    matched = {h.memory_id: h.similarity for h in (memory.plan.matches if memory.plan else ())}
    return (
        *(
            MemoryLog(
                id=c.record.id, scope=c.record.scope, state="pinned", similarity=matched.get(c.record.id)
            )
            for c in stable.pinned
        ),
        *(
            MemoryLog(
                id=c.record.id, scope=c.record.scope, state="active", similarity=matched.get(c.record.id)
            )
            for c in stable.active
        ),
        *(
            MemoryLog(id=r.record.id, scope=r.record.scope, state="recalled", similarity=r.similarity)
            for r in memory.reply.recalled
        ),
    )
