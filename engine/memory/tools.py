"""A turn's memories and the model's memory tools over them, pure part (MEM-6a).

``MemoryContext`` is what a turn knows of its memories (who is in play, what was stored before,
what the reply carries). A tool call of the model is decoded into its typed input
(``decode_memory_tool``) and planned against the context (``plan_memory_tool``): the step says which
write the memory desk performs, or the call is refused with an ``InvalidInput``, ``NotFound`` or
``Conflict`` the model reads as an error result (``tool_result``) and the request log keeps
(``refused_write``). What the model is told after a save is ``save_reply``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TypeVar

import msgspec

from engine.errors import Conflict, InvalidInput, NotFound
from engine.memory.carry import ReplyMemories
from engine.memory.decay import DecayPlan, RecallReason, SearchHit
from engine.memory.model import (
    MemoryPolicy,
    MemoryRecord,
    ScopeList,
    global_list,
    personal_list,
    scope_list_of,
    space_list,
)
from engine.memory.scopes import MemoryTurn, check_turn_write, write_owner
from engine.memory.writes import NewMemory, SavePlan
from engine.model import StoredMessage
from engine.prompt import MemoryLine
from engine.requestlog import RefusedWrite
from engine.tools import DeleteMemoryInput, SaveMemoryInput, ToolCall, ToolResult, UpdateMemoryInput

__all__ = [
    "MEMORY_OFF",
    "RULE_REFUSALS",
    "DeleteStep",
    "MemoryContext",
    "MemoryInput",
    "MemoryStep",
    "SaveStep",
    "UpdateStep",
    "decode_input",
    "decode_memory_tool",
    "display_names",
    "memory_line",
    "plan_memory_tool",
    "refused_write",
    "save_reply",
    "tool_result",
]


class MemoryContext(msgspec.Struct, frozen=True, kw_only=True):
    """A turn's memories: who is in play, what was stored before, what the reply carries."""

    enabled: bool
    turn: MemoryTurn | None = None
    scopes: tuple[ScopeList, ...] = ()
    records: tuple[MemoryRecord, ...] = ()
    plan: DecayPlan | None = None
    reply: ReplyMemories | None = None
    search_ok: bool = False
    scores: tuple[SearchHit, ...] = ()  # every memory's score from the turn's search (the request log)
    reasons: tuple[RecallReason, ...] = ()
    """Why the search used each used and near-miss memory or not (the request log's ``recall``)."""
    can_write: bool = False
    documents: tuple[str, ...] = ()
    policy: MemoryPolicy | None = None


MEMORY_OFF = MemoryContext(enabled=False)

MemoryInput = SaveMemoryInput | UpdateMemoryInput | DeleteMemoryInput
_S = TypeVar("_S", bound=msgspec.Struct)


class SaveStep(msgspec.Struct, frozen=True, kw_only=True):
    """Save ``text`` into ``target`` (room is made by ``plan_save``); a first-person ``text``
    about ``author`` is stored in the third person."""

    persona: str
    target: ScopeList
    text: str
    turn: str
    author: str | None = None

    def memory(self, memory_id: str) -> NewMemory:
        """The memory to save, under the id the desk gives it."""
        return NewMemory(
            id=memory_id,
            persona=self.persona,
            target=self.target,
            text=self.text,
            source="model",
            turn=self.turn,
            author=self.author,
        )


class UpdateStep(msgspec.Struct, frozen=True, kw_only=True):
    """Rewrite the memory ``id`` as ``text``; a first-person ``text`` about ``author`` is stored in
    the third person."""

    id: str
    text: str
    author: str | None = None


class DeleteStep(msgspec.Struct, frozen=True, kw_only=True):
    """Delete the memory ``id``."""

    id: str


MemoryStep = SaveStep | UpdateStep | DeleteStep


def decode_input(arguments: str, kind: type[_S]) -> _S:
    """A tool call's arguments as ``kind``.

    Raises:
        InvalidInput: ``invalid_tool_input`` when they do not fit.
    """
    try:
        return msgspec.json.decode(arguments, type=kind)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise InvalidInput(f"the tool input does not fit: {exc}", code="invalid_tool_input") from exc


def decode_memory_tool(call: ToolCall) -> MemoryInput:
    """The typed input of a memory tool call.

    Raises:
        InvalidInput: ``unknown_tool``, or ``invalid_tool_input`` when the arguments do not fit.
    """
    if call.name == "save_memory":
        return decode_input(call.arguments, SaveMemoryInput)
    if call.name == "update_memory":
        return decode_input(call.arguments, UpdateMemoryInput)
    if call.name == "delete_memory":
        return decode_input(call.arguments, DeleteMemoryInput)
    raise InvalidInput(f"unknown tool {call.name!r}.", code="unknown_tool")


def display_names(window: Iterable[StoredMessage]) -> dict[str, str]:
    """User id → display name (the newest) of the people in the window."""
    return {m.user: m.name for m in window if m.role == "user"}


def memory_line(people: Mapping[str, str], record: MemoryRecord, *, recent: bool = False) -> MemoryLine:
    """A memory as the prompt shows it: a personal or global one with its owner's display name
    (``people``: user id → name, ``display_names``; an owner not among them is shown without)."""
    owner = people.get(record.owner) if record.owner is not None else None
    return MemoryLine(id=record.id, text=record.text, recent=recent, owner=owner)


def plan_memory_tool(
    ctx: MemoryContext,
    call: ToolCall,
    *,
    speaker: str,
    turn: str,
    people: Mapping[str, str] | None = None,
) -> MemoryStep:
    """What a memory tool call of the reply ``turn`` asks of the desk.

    A personal or global memory is saved for the participant ``about`` names by platform id,
    else for ``speaker`` (the author of the message answered); an update or a delete reaches only
    a memory of the lists in play, so only a participant's or the space's (MEM-4). ``people``
    (user id → display name, ``display_names``) names the owner of a personal or global memory,
    so a first-person text is stored in the third person.

    Raises:
        Conflict: ``memory_off`` when the turn may not write memories; ``not_a_participant``
            when ``about`` is not a participant's id; ``scope_not_in_play`` for a list the turn
            may not write (a guest's, an opted-out person's).
        InvalidInput: an unknown tool, input that does not fit.
        NotFound: ``memory_not_found`` for a memory that is not in this conversation.
    """
    if ctx.turn is None or not ctx.can_write:
        raise Conflict("memory is off in this chat.", code="memory_off")
    args = decode_memory_tool(call)
    if isinstance(args, SaveMemoryInput):
        if args.scope == "space":
            target = space_list(ctx.turn.persona, ctx.turn.space)
        else:
            owner = write_owner(ctx.turn, args.about, speaker)
            target = (
                personal_list(ctx.turn.persona, owner, ctx.turn.space)
                if args.scope == "personal"
                else global_list(owner)
            )
        check_turn_write(ctx.turn, target)
        author = (people or {}).get(owner) if args.scope != "space" else None
        return SaveStep(persona=ctx.turn.persona, target=target, text=args.text, turn=turn, author=author)
    found = next((r for r in ctx.records if r.id == args.id), None)
    if found is None:
        raise NotFound(f"there is no memory {args.id} in this conversation.", code="memory_not_found")
    check_turn_write(ctx.turn, scope_list_of(found))
    if isinstance(args, UpdateMemoryInput):
        author = (people or {}).get(found.owner) if found.owner is not None else None
        return UpdateStep(id=args.id, text=args.text, author=author)
    return DeleteStep(id=args.id)


RULE_REFUSALS = frozenset({"memory_off", "not_a_participant", "scope_not_in_play"})
"""Codes of the writes the privacy rules refuse (MEM-4, MEM-8, DEC-10), as opposed to writes
that failed for another reason (a full list, a pinned entry, input that does not fit)."""


def refused_write(call: ToolCall, code: str, reason: str) -> RefusedWrite:
    """The request log's record of a memory tool call that changed nothing, with what it asked."""
    try:
        args: MemoryInput | None = decode_memory_tool(call)
    except InvalidInput:
        args = None
    return RefusedWrite(
        tool=call.name,
        code=code,
        reason=reason,
        scope=args.scope if isinstance(args, SaveMemoryInput) else None,
        about=args.about if isinstance(args, SaveMemoryInput) else None,
        memory=args.id if isinstance(args, UpdateMemoryInput | DeleteMemoryInput) else None,
        text=args.text if isinstance(args, SaveMemoryInput | UpdateMemoryInput) else None,
        kind="refused" if code in RULE_REFUSALS else "not_done",
    )


def tool_result(call: ToolCall, code: str, reason: str) -> ToolResult:
    """What the model reads after a memory tool call that changed nothing."""
    said = "Refused" if code in RULE_REFUSALS else "Not done"
    return ToolResult(call_id=call.id, content=f"{said}: {reason}", is_error=True)


def save_reply(plan: SavePlan) -> str:
    """What the model is told after ``save_memory``."""
    said = f"I'll remember that: “{plan.record.text}” [{plan.record.id}]."
    if plan.forgotten is not None:
        said += f" To make room I forgot: “{plan.forgotten.text}”."
    return said
