"""What the memory endpoints do, for the operator (``/api``) and the browser (``/app``) alike.

Each function takes the ``web`` state and already authorized arguments: the list a memory goes
to (``target_of(persona_id)``, the operator's named list or the visitor's panel list) and whether
the answer shows ``recent`` (the panel does). Authentication and ownership stay in the routes.
Writes go through the ``MemoryDesk`` (DEC-11..13, MEM-6, MEM-9).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta

from msgspec import UNSET, UnsetType

from adapters.web.schemas.memory import (
    Cleared,
    Composed,
    Drafts,
    LastUse,
    Memory,
    MemoryAdded,
    MemoryDeleted,
    MemoryList,
    MemoryOne,
)
from adapters.web.state import WebState
from engine.errors import InvalidInput
from engine.memory import MemoryRecord, ScopeList, memory_state
from engine.memory.compose import DRAFT_LIMIT
from engine.memory.model import MemoryUse, Source
from engine.service.memory import MemoryDesk
from engine.validate import qualify_id

__all__ = [
    "DIALOGUE_LIMIT",
    "TargetOf",
    "add_memory",
    "clear_memories",
    "compose_memories",
    "delete_memory",
    "edit_memory",
    "from_dialogue",
    "locate",
    "matches",
    "memory_desk",
    "memory_view",
    "newest_first",
    "restore_memory",
]

DIALOGUE_LIMIT = 20
"""At most this many messages are saved from a dialogue at once (MEM-6d)."""

TargetOf = Callable[[str], ScopeList]
"""The scope list a write goes to, given the persona's id."""


def memory_desk(web: WebState) -> MemoryDesk:
    """The memory desk, or 422 ``memory_unavailable``."""
    if web.service.memory is None:
        raise InvalidInput("Memory is not configured in this deployment.", code="memory_unavailable")
    return web.service.memory


def memory_view(
    record: MemoryRecord,
    desk: MemoryDesk,
    now: datetime | None = None,
    uses: Mapping[str, MemoryUse] | None = None,
) -> Memory:
    """A memory as API.md shows it; with ``now``, also whether it is ``recent`` (the panel's mark);
    with ``uses`` (the desk's ``uses``), its ``last_used``."""
    recent: bool | UnsetType = UNSET
    last_used: LastUse | UnsetType | None = UNSET
    if uses is not None:
        use = uses.get(record.id)
        last_used = LastUse(turn=use.turn, chat=use.chat, at=use.at, message=use.excerpt) if use else None
    if now is not None:
        recent = not record.pinned and record.updated_at > now - timedelta(days=desk.policy.recent_days)
    return Memory(
        id=record.id,
        persona=record.persona,
        scope=record.scope,
        text=record.text,
        space=record.space,
        owner=record.owner,
        global_=record.is_global,
        pinned=record.pinned,
        protected=record.protected,
        source=record.source,
        state=memory_state(record, desk.policy),
        unused_days=record.unused_days,
        last_matched_at=record.last_matched_at,
        created_at=record.created_at,
        updated_at=record.updated_at,
        recent=recent,
        last_used=last_used,
    )


def newest_first(records: Sequence[MemoryRecord]) -> list[MemoryRecord]:
    """Pinned first, then newest first (ties by id)."""
    return sorted(records, key=lambda r: (not r.pinned, -r.updated_at.timestamp(), r.id))


def _now(web: WebState, recent: bool) -> datetime | None:
    return web.clock.now() if recent else None


async def add_memory(
    web: WebState,
    *,
    persona: str,
    target_of: TargetOf,
    text: str,
    pinned: bool,
    source: Source,
    recent: bool,
) -> MemoryAdded:
    """A person saves a memory (protected, DEC-12); a full list forgets one dormant (DEC-11)."""
    desk = memory_desk(web)
    found = await web.service.persona(persona)
    now = web.clock.now()
    plan = await desk.add(
        persona=found.id,
        target=target_of(found.id),
        text=text,
        pinned=pinned,
        source=source,
        now=now,
        limits=found.memory,
    )
    shown = now if recent else None
    forgotten = memory_view(plan.forgotten, desk, shown) if plan.forgotten else None
    return MemoryAdded(memory=memory_view(plan.record, desk, shown), forgotten=forgotten)


async def locate(web: WebState, memory: str) -> ScopeList:
    """The list a memory is on (404 ``memory_not_found``), for an ownership check."""
    scope, _ = await memory_desk(web).locate(memory)
    return scope


async def edit_memory(
    web: WebState, memory: str, *, text: str | None, pinned: bool | None, recent: bool
) -> MemoryOne:
    """Edit the text (which protects it, DEC-12) or pin/unpin."""
    desk = memory_desk(web)
    now = web.clock.now()
    record = await desk.edit(memory, text=text, pinned=pinned, now=now)
    return MemoryOne(memory=memory_view(record, desk, now if recent else None))


async def delete_memory(web: WebState, memory: str, *, recent: bool) -> MemoryDeleted:
    """Forget one memory (pinned ones too: people may)."""
    desk = memory_desk(web)
    record = await desk.delete(memory)
    return MemoryDeleted(deleted=memory_view(record, desk, _now(web, recent)))


async def restore_memory(
    web: WebState, memory: str, allowed: Callable[[ScopeList], bool], *, recent: bool
) -> MemoryOne:
    """Undo a Forget: the memory as it was, within the desk's ``UNDO_SECONDS``."""
    desk = memory_desk(web)
    record = await desk.restore(memory, allowed)
    return MemoryOne(memory=memory_view(record, desk, _now(web, recent)))


def _folded(text: str) -> str:
    """``text`` without case or accents: ``Élan`` and ``elan`` fold alike."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def matches(records: Sequence[MemoryRecord], query: str | None) -> list[MemoryRecord]:
    """The memories whose text holds every word of ``query`` (case and accents ignored)."""
    words = _folded(query or "").split()
    return [r for r in records if all(w in _folded(r.text) for w in words)]


async def clear_memories(web: WebState, target: ScopeList, *, pinned_confirmed: bool) -> Cleared:
    """Clear all: unpinned first; pinned only with ``pinned_confirmed`` (MEM-9)."""
    plan = await memory_desk(web).clear(target, pinned_confirmed=pinned_confirmed)
    return Cleared(deleted=len(plan.writes), pinned_left=plan.pinned_left)


async def _save_all(
    web: WebState,
    persona: str,
    target: ScopeList,
    texts: Sequence[str],
    *,
    pinned: bool,
    source: Source,
    recent: bool,
    authors: Sequence[str | None] | None = None,
) -> list[Memory]:
    """Save ``texts`` one by one; ``authors[i]`` is who the "I" of ``texts[i]`` is (a personal
    memory in the first person is stored in the third person, issue 28)."""
    desk = memory_desk(web)
    limits = (await web.service.persona(persona)).memory
    saved = []
    for text, author in zip(texts, authors or [None] * len(texts), strict=True):
        now = web.clock.now()
        plan = await desk.add(
            persona=persona,
            target=target,
            text=text,
            pinned=pinned,
            source=source,
            now=now,
            limits=limits,
            author=author,
        )
        saved.append(memory_view(plan.record, desk, now if recent else None))
    return saved


async def compose_memories(
    web: WebState, *, persona: str, target_of: TargetOf, description: str, recent: bool
) -> Composed:
    """ "Create memories": the model turns a person's description into memories (MEM-6c)."""
    target = target_of(persona)
    drafts, offline = await web.service.memories_from_description(persona, description)
    saved = await _save_all(web, persona, target, drafts, pinned=False, source="person", recent=recent)
    return Composed(memories=saved, offline=offline)


async def from_dialogue(
    web: WebState,
    *,
    chat: str,
    messages: Sequence[str],
    compose: bool,
    texts: Sequence[str] | None,
    persona: str,
    target_of: TargetOf,
    recent: bool,
) -> Drafts | MemoryList:
    """ "Save from dialogue": up to 20 messages of ``chat`` (a bare id is qualified), drafted by AI
    (for review) or kept as they are, pinned (MEM-6d)."""
    if not 1 <= len(messages) <= DIALOGUE_LIMIT:
        raise InvalidInput(f"Select 1 to {DIALOGUE_LIMIT} messages.", code="invalid_selection")
    chat = qualify_id(chat, what="chat")
    found = [await web.service.chats.message(chat, m) for m in dict.fromkeys(messages)]
    selected = [m for m in found if m is not None]
    if len(selected) != len(found):
        raise InvalidInput("A selected message is not in this chat.", code="message_not_found")
    target = target_of(persona)
    if compose:
        lines = "\n".join(f"{m.name}: {m.text}" for m in selected)
        drafts, offline = await web.service.draft_memories(persona, lines, limit=DRAFT_LIMIT)
        return Drafts(drafts=list(drafts), offline=offline)
    # a kept message's "I" is its author; a reviewed draft's is the list's owner (issue 28)
    owner = next((m.name for m in selected if m.user == target.owner), None)
    kept = list(texts) if texts is not None else [m.text for m in selected]
    authors = [owner] * len(kept) if texts is not None else [m.name for m in selected]
    if not kept or len(kept) > DIALOGUE_LIMIT:
        raise InvalidInput(f"Keep 1 to {DIALOGUE_LIMIT} entries.", code="invalid_selection")
    saved = await _save_all(
        web, persona, target, kept, pinned=True, source="dialogue", recent=recent, authors=authors
    )
    return MemoryList(memories=saved)
