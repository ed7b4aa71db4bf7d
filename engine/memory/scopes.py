"""Which scope lists a turn reads and may write (MEM-4, MEM-8, DEC-9, DEC-10).

The scopes in play are the space list of the chat's space, then for each participant (the
authors of the user messages the turn replies to, in order of first appearance; the author of a
listened-to message is not one) their local personal list, their Global personal list and their
global list. The model writes personal and global entries only for a participant, named by
platform id (``write_owner``), never by display name. A participant who opted out
of memory (a privacy setting, DEC-10) or who is not signed in (MEM-8) contributes no lists.
Memory switched off for the persona or the chat means no lists at all: nothing is read, searched,
aged or written. The order of the result is stable and is the round-robin order of MEM-3.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from engine.errors import Conflict
from engine.memory.model import (
    MemoryRecord,
    ScopeList,
    global_list,
    global_personal_list,
    personal_list,
    scope_list_of,
    space_list,
)

__all__ = [
    "MemoryTurn",
    "check_turn_write",
    "memory_enabled",
    "records_in_play",
    "scopes_in_play",
    "write_owner",
]


class MemoryTurn(msgspec.Struct, frozen=True, kw_only=True):
    """Who and where a turn happens, as far as memory is concerned.

    Attributes:
        persona: the persona replying.
        space: the chat's space.
        participants: authors of the user messages the turn answers.
        opted_out: users whose privacy setting keeps their memories out (DEC-10).
        guests: participants who are not signed in; nothing is saved for them (MEM-8).
        learn_from_chat: the persona's "learn from chat" switch (MEM-8).
        chat_memory_off: the chat is in memory-off mode, e.g. a challenge chat (MEM-8).
    """

    persona: str
    space: str
    participants: tuple[str, ...]
    opted_out: tuple[str, ...] = ()
    guests: tuple[str, ...] = ()
    learn_from_chat: bool = True
    chat_memory_off: bool = False


def memory_enabled(turn: MemoryTurn) -> bool:
    """Whether the turn reads and writes memory at all (MEM-8).

    Memory is off when the persona does not learn from chat, when the chat is in memory-off
    mode, and when every participant is a guest (an anonymous web user gets nothing saved, and
    reads nothing either).
    """
    if not turn.learn_from_chat or turn.chat_memory_off:
        return False
    return any(user not in turn.guests for user in turn.participants)


def scopes_in_play(turn: MemoryTurn) -> tuple[ScopeList, ...]:
    """The scope lists a turn carries and searches (MEM-4), in round-robin order.

    Returns:
        The space list first, then each remembered participant's local personal, Global
        personal and global lists; empty when memory is off for the turn (MEM-8).
    """
    if not memory_enabled(turn):
        return ()
    keys = [space_list(turn.persona, turn.space)]
    for user in dict.fromkeys(turn.participants):
        if user in turn.guests or user in turn.opted_out:
            continue
        keys.append(personal_list(turn.persona, user, turn.space))
        keys.append(global_personal_list(turn.persona, user))
        keys.append(global_list(user))
    return tuple(keys)


def records_in_play(records: Iterable[MemoryRecord], scopes: Iterable[ScopeList]) -> tuple[MemoryRecord, ...]:
    """The memories usable in a conversation: in the scopes in play and not hidden (DEC-3, DEC-10).

    These are the memories a turn's search compares with; nothing else is searched or aged, so
    a personal memory ages only on the days its owner takes part (DEC-9).
    """
    wanted = frozenset(scopes)
    return tuple(r for r in records if not r.hidden and scope_list_of(r) in wanted)


def check_turn_write(turn: MemoryTurn, target: ScopeList) -> None:
    """Refuse a write made from inside a turn (model tools) that the turn may not make.

    Args:
        turn: the turn writing.
        target: the scope list written to.

    Raises:
        Conflict: ``memory_off`` when memory is off for the turn (MEM-8);
            ``scope_not_in_play`` when ``target`` is not one of the turn's scopes in play
            (another space, a guest, a user who opted out or did not take part).
    """
    if not memory_enabled(turn):
        raise Conflict("Memory is switched off for this chat, so nothing can be saved.", code="memory_off")
    if target not in scopes_in_play(turn):
        raise Conflict(
            f"This turn cannot write to the {target.scope} memory list it named: it is not one "
            "of the lists in play (wrong space, or an owner who is not taking part, is not "
            "signed in or opted out).",
            code="scope_not_in_play",
        )


def write_owner(turn: MemoryTurn, about: str | None, speaker: str) -> str:
    """Whose personal or global list a write from inside ``turn`` goes to (MEM-4).

    Args:
        turn: the turn writing.
        about: the platform id the model named, or ``None`` (blank counts as ``None``).
        speaker: the author of the message the turn answers, the owner when ``about`` is none.

    Returns:
        The owner's platform id: always a participant of the turn.

    Raises:
        Conflict: ``not_a_participant`` when ``about`` is not the platform id of a participant
            (a display name never is: two people may share one, and anyone can choose any).
    """
    owner = (about or "").strip() or speaker
    if owner not in turn.participants:
        ids = ", ".join(f'"{p}"' for p in dict.fromkeys(turn.participants))
        raise Conflict(
            f"{owner!r} is not one of the people this reply answers. Personal and global "
            f"memories can be saved only about them, named by id in about: {ids}.",
            code="not_a_participant",
        )
    return owner
