"""Saving, changing and deleting memories, as plans (MEM-2, MEM-5, MEM-6, MEM-9, MEM-10, DEC-12).

Every function checks the request against the rules and returns the journal entries to perform
(see ``journal``); the service performs them atomically and keeps them in the turn's journal.
Refusals raise: ``InvalidInput`` for a request that can never succeed (empty or too long text,
the model pinning), ``Conflict`` for one the current state refuses (``memory_pinned``,
``memory_full``), ``NotFound`` for an unknown id.

Who may do what: the model (tools) and the deep pass may change or delete only unpinned entries
and never pin (MEM-5, MEM-6a); a person may do anything, and whatever a person adds or edits
becomes protected from being forgotten for room (DEC-12). Imported memories start unprotected.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

import msgspec

from engine.errors import Conflict, InvalidInput, NotFound
from engine.memory.journal import Deleted, Forgotten, MemoryWrite, Saved, Updated, WritePlan
from engine.memory.model import (
    MemoryPolicy,
    MemoryRecord,
    ScopeList,
    Source,
    Writer,
    scope_list_of,
    utc_day,
)
from engine.memory.room import check_room, plan_room
from engine.memory.voice import third_person
from engine.validate import has_control_chars

__all__ = [
    "ClearPlan",
    "NewMemory",
    "SavePlan",
    "check_memory_text",
    "plan_clear_all",
    "plan_delete",
    "plan_persona_deletion",
    "plan_save",
    "plan_third_person",
    "plan_update",
]

_PERSON_SOURCES: frozenset[Source] = frozenset({"person", "dialogue"})


class SavePlan(msgspec.Struct, frozen=True, kw_only=True):
    """A planned save: the new record, the memory forgotten for room (if any), and the writes."""

    record: MemoryRecord
    forgotten: MemoryRecord | None = None
    writes: tuple[MemoryWrite, ...] = ()


class ClearPlan(msgspec.Struct, frozen=True, kw_only=True):
    """A planned "Clear all memories" pass and the pinned entries it leaves (MEM-9)."""

    writes: tuple[MemoryWrite, ...] = ()
    pinned_left: int = 0


def check_memory_text(text: str, policy: MemoryPolicy) -> str:
    """Validate an entry's text and return it without surrounding whitespace (MEM-2).

    Raises:
        InvalidInput: ``memory_empty`` (nothing but whitespace), ``memory_too_long`` or
            ``memory_invalid`` (a control character such as NUL; tab and newlines are fine).
    """
    clean = text.strip()
    if not clean:
        raise InvalidInput("A memory needs some text.", code="memory_empty")
    if has_control_chars(clean) or any(0xD800 <= ord(c) <= 0xDFFF for c in clean):
        raise InvalidInput(
            "A memory cannot contain control characters such as NUL (tab and newlines are fine).",
            code="memory_invalid",
        )
    if len(clean) > policy.max_chars:
        raise InvalidInput(
            f"A memory is {len(clean):,} characters long; the limit is {policy.max_chars:,}.",
            code="memory_too_long",
        )
    return clean


class NewMemory(msgspec.Struct, frozen=True, kw_only=True):
    """A request to save one memory (MEM-6).

    Attributes:
        id: the new memory's id, chosen by the caller.
        persona: the persona saving; must be ``target``'s persona unless ``target`` is global.
        target: the list to save into.
        text: the entry.
        source: who saves it; ``"dialogue"`` entries always arrive pinned (MEM-6d).
        pinned: save it pinned (a person, an import or save-from-dialogue only).
        turn: the turn saving it, if any.
        author: the display name of the person the text's first person ("I", "my") refers
            to; a personal or global memory that starts in the first person is stored in the
            third person with this name (``third_person``). ``None``: as sent.
    """

    id: str
    persona: str
    target: ScopeList
    text: str
    source: Source
    pinned: bool = False
    turn: str | None = None
    author: str | None = None


def _worded(clean: str, author: str | None, owner: str | None, policy: MemoryPolicy) -> str:
    """The text to store: a personal memory (``owner`` set) in the third person about ``author``
    (``third_person``), when that fits the limit; else ``clean`` as it is."""
    if author is None or owner is None:
        return clean
    said = third_person(clean, author)
    return said if len(said) <= policy.max_chars else clean


def plan_save(
    records: Iterable[MemoryRecord],
    new: NewMemory,
    *,
    now: datetime,
    policy: MemoryPolicy,
    search_available: bool = True,
) -> SavePlan:
    """Plan saving a new memory (MEM-2, MEM-6, DEC-11..14).

    Args:
        records: stored memories (only those of ``new.target`` matter).
        new: what to save, where, and who saves it.
        now: the time of saving (tz-aware); its UTC day counts as accounted, so the memory
            does not age on the day it is saved (DEC-16: saved → 0).
        policy: the persona's memory policy.
        search_available: whether this turn's search works (DEC-13).

    A personal or global memory with an ``author`` is stored in the third person.

    Returns:
        The plan: ``Saved``, preceded by ``Forgotten`` when room had to be made (DEC-11).

    Raises:
        InvalidInput: ``memory_empty``, ``memory_too_long``, ``scope_mismatch``,
            ``pin_not_allowed`` (the model or the deep pass asked to pin), ``naive_datetime``.
        Conflict: ``memory_full`` (DEC-13, DEC-14), ``memory_exists`` (id taken).
    """
    clean = _worded(check_memory_text(new.text, policy), new.author, new.target.owner, policy)
    pinned = new.pinned or new.source == "dialogue"
    _check_new(new, pinned)
    stored = tuple(records)
    if any(r.id == new.id for r in stored):
        raise Conflict(f"A memory with id {new.id!r} already exists.", code="memory_exists")
    target = new.target
    forgotten = plan_room(stored, target, policy, pinned=pinned, search_available=search_available)
    record = MemoryRecord(
        id=new.id,
        persona=new.persona,
        scope=target.scope,
        text=clean,
        space=target.space,
        owner=target.owner,
        is_global=target.is_global,
        pinned=pinned,
        protected=new.source in _PERSON_SOURCES,
        source=new.source,
        last_counted_day=utc_day(now),
        created_at=now,
        updated_at=now,
        created_turn=new.turn,
    )
    writes: tuple[MemoryWrite, ...] = (Saved(after=record),)
    if forgotten is not None:
        writes = (Forgotten(before=forgotten), *writes)
    return SavePlan(record=record, forgotten=forgotten, writes=writes)


def _check_new(new: NewMemory, pinned: bool) -> None:
    owner = new.target.persona
    if owner is not None and owner != new.persona:
        raise InvalidInput(
            f"Persona {new.persona!r} cannot save into a list of persona {owner!r}.",
            code="scope_mismatch",
        )
    if pinned and new.source in ("model", "deep"):
        raise InvalidInput(
            "Only a person can pin a memory; the model and the deep pass save unpinned ones.",
            code="pin_not_allowed",
        )


def _find(records: Iterable[MemoryRecord], memory_id: str) -> MemoryRecord:
    for record in records:
        if record.id == memory_id:
            return record
    raise NotFound(f"No memory has the id {memory_id!r}.", code="memory_not_found")


def _check_writer(record: MemoryRecord, writer: Writer, action: str) -> None:
    if writer != "person" and record.pinned:
        raise Conflict(
            f"Memory {record.id!r} is pinned: only a person can {action} it.",
            code="memory_pinned",
        )


def plan_update(
    records: Sequence[MemoryRecord],
    memory_id: str,
    *,
    writer: Writer,
    now: datetime,
    policy: MemoryPolicy,
    text: str | None = None,
    pinned: bool | None = None,
    author: str | None = None,
) -> WritePlan:
    """Plan changing a memory's text or pin (MEM-5, MEM-6a, DEC-12).

    Args:
        records: stored memories (the one to change and its list).
        memory_id: the memory to change.
        writer: who changes it; only a person may touch pinned entries or (un)pin.
        now: the time of the change (tz-aware).
        policy: the persona's memory policy.
        text: the new text, or ``None`` to keep it.
        pinned: the new pin state, or ``None`` to keep it.
        author: as ``NewMemory.author``: a personal memory's new first-person text is stored in
            the third person with this name.

    Returns:
        One ``Updated`` entry, or an empty plan when nothing would change. A person's change
        makes the memory protected.

    Raises:
        NotFound: ``memory_not_found``.
        Conflict: ``memory_pinned`` (model/deep on a pinned entry), ``memory_full`` (moving it
            into a full pinned or unpinned allowance; nothing is forgotten for that).
        InvalidInput: ``memory_empty``, ``memory_too_long``, ``pin_not_allowed``,
            ``naive_datetime``.
    """
    utc_day(now)  # refuse a naive ``now`` before it is stored
    before = _find(records, memory_id)
    _check_writer(before, writer, "change")
    if pinned is not None and pinned != before.pinned:
        if writer != "person":
            raise InvalidInput("Only a person can pin or unpin a memory.", code="pin_not_allowed")
        check_room(records, scope_list_of(before), policy, pinned=pinned)
    new_text = before.text
    if text is not None:
        new_text = _worded(check_memory_text(text, policy), author, before.owner, policy)
    new_pin = before.pinned if pinned is None else pinned
    if new_text == before.text and new_pin == before.pinned:
        return WritePlan()
    after = msgspec.structs.replace(
        before,
        text=new_text,
        pinned=new_pin,
        protected=before.protected or writer == "person",
        updated_at=now,
    )
    return WritePlan(writes=(Updated(before=before, after=after),))


def plan_delete(records: Iterable[MemoryRecord], memory_id: str, *, writer: Writer) -> WritePlan:
    """Plan deleting one memory (MEM-5, MEM-6a).

    Raises:
        NotFound: ``memory_not_found``.
        Conflict: ``memory_pinned`` when the model or the deep pass targets a pinned entry.
    """
    before = _find(records, memory_id)
    _check_writer(before, writer, "delete")
    return WritePlan(writes=(Deleted(before=before),))


def plan_clear_all(
    records: Iterable[MemoryRecord], target: ScopeList, *, pinned_confirmed: bool = False
) -> ClearPlan:
    """Plan "Clear all memories" of one list, a person's command (MEM-9).

    Args:
        records: stored memories (only those of ``target`` matter).
        target: the list to clear.
        pinned_confirmed: the second, separate confirmation: delete the pinned entries too.

    Returns:
        The first pass deletes every unpinned entry and reports how many pinned ones are left
        (ask the second question when ``pinned_left > 0``); the second pass deletes them all.
    """
    mine = [r for r in records if scope_list_of(r) == target]
    gone = [r for r in mine if pinned_confirmed or not r.pinned]
    return ClearPlan(
        writes=tuple(Deleted(before=r) for r in gone),
        pinned_left=sum(1 for r in mine if r.pinned) if not pinned_confirmed else 0,
    )


def plan_persona_deletion(records: Iterable[MemoryRecord], persona: str) -> WritePlan:
    """Plan what happens to a deleted persona's memories (MEM-10).

    Its personal memories (local and Global) become ``global`` memories of their owners, keeping
    text, pin, protection and counters; the global lists may then exceed their limits, since
    nothing may be lost. Its space memories are deleted with it. Global memories it saved stay.
    ``updated_at`` is kept: the facts themselves did not change.
    """
    writes: list[MemoryWrite] = []
    for record in records:
        if record.persona != persona or record.scope == "global":
            continue
        if record.scope == "space":
            writes.append(Deleted(before=record))
            continue
        after = msgspec.structs.replace(record, scope="global", space=None, is_global=False)
        writes.append(Updated(before=record, after=after))
    return WritePlan(writes=tuple(writes))


def plan_third_person(
    records: Iterable[MemoryRecord], names: Mapping[str, str], policy: MemoryPolicy
) -> WritePlan:
    """Plan rewriting stored first-person personal memories in the third person.

    Args:
        records: stored memories.
        names: user id → display name of the owners known by name.
        policy: bounds the rewritten text (``max_chars``); a text that would not fit stays.

    Returns:
        One ``Updated`` per personal or global memory whose owner has a name and whose text
        starts in the first person (``third_person``). Pin, protection, counters and
        ``updated_at`` are kept: the fact did not change, only how it is worded. Running it again
        plans nothing.
    """
    writes: list[MemoryWrite] = []
    for record in records:
        name = names.get(record.owner) if record.owner is not None else None
        said = _worded(record.text, name, record.owner, policy)
        if said != record.text:
            writes.append(Updated(before=record, after=msgspec.structs.replace(record, text=said)))
    return WritePlan(writes=tuple(writes))
