"""Saved memories, pure part: scopes, limits, pinning, decay, room-making, write plans.

SPEC §4 (MEM) and §5 (DEC). Everything here is a synchronous function over frozen Structs with
time passed in; the service loads records, calls these functions and performs the plans they
return atomically. Typical turn::

    scopes = scopes_in_play(turn)                         # MEM-4, MEM-8
    plan = plan_decay(records, scopes, search, at, policy)  # DEC-2..10
    reply = memories_for_reply(records, scopes, plan, at, policy)  # MEM-3, DEC-15
    store(apply_decay(records, plan))                     # the service, atomically
"""

from __future__ import annotations

from engine.memory.carry import (
    CarriedMemories,
    CarriedMemory,
    RecalledMemory,
    ReplyMemories,
    memories_for_reply,
    select_carried,
)
from engine.memory.decay import (
    SEARCH_FAILED,
    CounterChange,
    DecayPlan,
    RecallReason,
    SearchHit,
    SearchResult,
    apply_decay,
    best_matches,
    is_dormant,
    memory_state,
    plan_decay,
)
from engine.memory.journal import (
    Deleted,
    Forgotten,
    MemoryWrite,
    Saved,
    Updated,
    WritePlan,
    apply_writes,
    plan_rollback,
    written_id,
)
from engine.memory.model import (
    MemoryPolicy,
    MemoryRecord,
    MemoryState,
    Scope,
    ScopeList,
    Source,
    Writer,
    global_list,
    global_personal_list,
    personal_list,
    scope_list_of,
    space_list,
    utc_day,
)
from engine.memory.room import can_forget, check_room, forget_candidates, plan_room
from engine.memory.scopes import (
    MemoryTurn,
    check_turn_write,
    memory_enabled,
    records_in_play,
    scopes_in_play,
)
from engine.memory.writes import (
    ClearPlan,
    NewMemory,
    SavePlan,
    check_memory_text,
    plan_clear_all,
    plan_delete,
    plan_persona_deletion,
    plan_save,
    plan_space_deletion,
    plan_third_person,
    plan_update,
)

__all__ = [
    "SEARCH_FAILED",
    "CarriedMemories",
    "CarriedMemory",
    "ClearPlan",
    "CounterChange",
    "DecayPlan",
    "Deleted",
    "Forgotten",
    "MemoryPolicy",
    "MemoryRecord",
    "MemoryState",
    "MemoryTurn",
    "MemoryWrite",
    "NewMemory",
    "RecallReason",
    "RecalledMemory",
    "ReplyMemories",
    "SavePlan",
    "Saved",
    "Scope",
    "ScopeList",
    "SearchHit",
    "SearchResult",
    "Source",
    "Updated",
    "WritePlan",
    "Writer",
    "apply_decay",
    "apply_writes",
    "best_matches",
    "can_forget",
    "check_memory_text",
    "check_room",
    "check_turn_write",
    "forget_candidates",
    "global_list",
    "global_personal_list",
    "is_dormant",
    "memories_for_reply",
    "memory_enabled",
    "memory_state",
    "personal_list",
    "plan_clear_all",
    "plan_decay",
    "plan_delete",
    "plan_persona_deletion",
    "plan_rollback",
    "plan_room",
    "plan_save",
    "plan_space_deletion",
    "plan_third_person",
    "plan_update",
    "records_in_play",
    "scope_list_of",
    "scopes_in_play",
    "select_carried",
    "space_list",
    "utc_day",
    "written_id",
]
