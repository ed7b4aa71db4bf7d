"""The memory panel's endpoints: a signed-in person's memories in play for one of their chats.

The lists in play for a person in their own room (MEM-4) are four, named for the page:

- ``space``            the room's space list ("this room"),
- ``personal``         the person's personal list local to this room,
- ``personal_global``  the person's Global personal list (follows them into every room),
- ``global``           the person's global list (every persona may read it).

A person may change memories only in those lists: a memory whose list belongs to someone else,
or to a space that is not one of their rooms, is ``403 not_your_memory``. Guests have no
memories (MEM-8): ``403 sign_in_required``. Writes go through the ``MemoryDesk`` exactly as the
operator API's do (DEC-11..13, MEM-6, MEM-9).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Literal

import msgspec
from litestar import Request, delete, get, patch, post, put
from litestar.di import NamedDependency
from litestar.params import FromPath, FromQuery

from adapters.web.api import decode_body
from adapters.web.app_auth import owned_chat, require_user
from adapters.web.memory_api import memory_view
from adapters.web.session import BrowserSession
from adapters.web.state import WebState
from engine.errors import Forbidden, InvalidInput
from engine.memory import (
    MemoryRecord,
    ScopeList,
    global_list,
    global_personal_list,
    personal_list,
    space_list,
)
from engine.memory.compose import DRAFT_LIMIT
from engine.service.memory import MemoryDesk
from engine.turn import memory_space

__all__ = ["LISTS", "MEMORY_ROUTES", "ListName", "list_of", "may_touch"]

ListName = Literal["space", "personal", "personal_global", "global"]
LISTS: tuple[tuple[ListName, str], ...] = (
    ("space", "This room"),
    ("personal", "About you, in this room"),
    ("personal_global", "About you, everywhere"),
    ("global", "About you, for every persona"),
)
DIALOGUE_LIMIT = 20


def list_of(name: ListName, persona: str, user: str, chat: str) -> ScopeList:
    """The scope list a panel list name means for ``user`` in ``chat`` with ``persona``."""
    space = memory_space(chat)
    if name == "space":
        return space_list(persona, space)
    if name == "personal":
        return personal_list(persona, user, space)
    if name == "personal_global":
        return global_personal_list(persona, user)
    return global_list(user)


def may_touch(visitor: NamedDependency[BrowserSession], scope: ScopeList) -> bool:
    """Whether the visitor may see and change memories of ``scope``: theirs, or their rooms'."""
    if visitor.guest:
        return False
    if scope.scope == "space":
        return scope.space is not None and visitor.owns(scope.space)
    return scope.owner == visitor.user


def _desk(request: Request[Any, Any, Any]) -> MemoryDesk:
    state: WebState = request.app.state.web
    if state.service.memory is None:
        raise InvalidInput("Memory is not configured in this deployment.", code="memory_unavailable")
    return state.service.memory


def _view(record: MemoryRecord, desk: MemoryDesk, now: datetime) -> dict[str, Any]:
    cutoff = now - timedelta(days=desk.policy.recent_days)
    return {**memory_view(record, desk), "recent": not record.pinned and record.updated_at > cutoff}


def _sorted(records: list[MemoryRecord]) -> list[MemoryRecord]:
    return sorted(records, key=lambda r: (not r.pinned, -r.updated_at.timestamp(), r.id))


def _chat(visitor: NamedDependency[BrowserSession], chat: str) -> str:
    chat_id = owned_chat(visitor, chat)
    require_user(visitor)
    return chat_id


@get("/chats/{chat:str}/memories")
async def list_memories(
    request: Request[Any, Any, Any],
    visitor: NamedDependency[BrowserSession],
    chat: FromPath[str],
    persona: FromQuery[str] = "default",
) -> dict[str, Any]:
    """The lists in play for the visitor in this chat, pinned first, then newest."""
    chat_id = _chat(visitor, chat)
    state: WebState = request.app.state.web
    desk = _desk(request)
    found = await state.service.persona(persona)
    policy, now = desk.policy_for(found.memory), state.clock.now()
    lists = []
    for name, title in LISTS:
        records = await desk.list([list_of(name, found.id, visitor.user, chat_id)])
        lists.append(
            {"list": name, "title": title, "memories": [_view(r, desk, now) for r in _sorted(records)]}
        )
    return {
        "persona": found.id,
        "lists": lists,
        "limits": {"unpinned": policy.max_unpinned, "pinned": policy.max_pinned, "chars": policy.max_chars},
        "decay": policy.decay_enabled,
        "dormant_after": policy.dormant_after,
        "notices": await state.directory.notice_level(memory_space(chat_id)),
    }


class NoticeBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``PUT /app/chats/{chat}/memory-notices``."""

    level: Literal["off", "brief", "full"]


@put("/chats/{chat:str}/memory-notices")
async def set_notices(
    request: Request[Any, Any, Any], visitor: NamedDependency[BrowserSession], chat: FromPath[str]
) -> dict[str, Any]:
    """How visible memory notices are in this room (DEC-11): off, brief (counts) or full (texts)."""
    chat_id = _chat(visitor, chat)
    state: WebState = request.app.state.web
    body: NoticeBody = decode_body(await request.body(), NoticeBody)
    await state.directory.set_notice_level(memory_space(chat_id), body.level)
    return {"chat": chat_id, "level": body.level}


class AddBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /app/chats/{chat}/memories``."""

    list_: ListName = msgspec.field(name="list")
    text: str
    persona: str = "default"
    pinned: bool = False


@post("/chats/{chat:str}/memories", status_code=201)
async def add_memory(
    request: Request[Any, Any, Any], visitor: NamedDependency[BrowserSession], chat: FromPath[str]
) -> dict[str, Any]:
    """A person saves a memory (protected, DEC-12); a full list forgets one dormant (DEC-11)."""
    chat_id = _chat(visitor, chat)
    state: WebState = request.app.state.web
    desk = _desk(request)
    body: AddBody = decode_body(await request.body(), AddBody)
    persona = await state.service.persona(body.persona)
    now = state.clock.now()
    plan = await desk.add(
        persona=persona.id,
        target=list_of(body.list_, persona.id, visitor.user, chat_id),
        text=body.text,
        pinned=body.pinned,
        source="person",
        now=now,
        limits=persona.memory,
    )
    forgotten = _view(plan.forgotten, desk, now) if plan.forgotten else None
    return {"memory": _view(plan.record, desk, now), "forgotten": forgotten}


async def _mine(
    request: Request[Any, Any, Any], visitor: NamedDependency[BrowserSession], memory: str
) -> MemoryDesk:
    require_user(visitor)
    desk = _desk(request)
    scope, _ = await desk.locate(memory)
    if not may_touch(visitor, scope):
        raise Forbidden("This memory is not yours.", code="not_your_memory")
    return desk


class EditBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``PATCH /app/memories/{id}``."""

    text: str | None = None
    pinned: bool | None = None


@patch("/memories/{memory:str}")
async def edit_memory(
    request: Request[Any, Any, Any], visitor: NamedDependency[BrowserSession], memory: FromPath[str]
) -> dict[str, Any]:
    """Edit the text (which protects it, DEC-12) or pin/unpin one of the person's memories."""
    desk = await _mine(request, visitor, memory)
    state: WebState = request.app.state.web
    body: EditBody = decode_body(await request.body(), EditBody)
    now = state.clock.now()
    record = await desk.edit(memory, text=body.text, pinned=body.pinned, now=now)
    return {"memory": _view(record, desk, now)}


@delete("/memories/{memory:str}", status_code=200)
async def forget_memory(
    request: Request[Any, Any, Any], visitor: NamedDependency[BrowserSession], memory: FromPath[str]
) -> dict[str, Any]:
    """Forget one of the person's memories (pinned ones too: people may)."""
    desk = await _mine(request, visitor, memory)
    state: WebState = request.app.state.web
    record = await desk.delete(memory)
    return {"deleted": _view(record, desk, state.clock.now())}


class ClearBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /app/chats/{chat}/memories/clear``."""

    list_: ListName = msgspec.field(name="list")
    persona: str = "default"
    pinned_confirmed: bool = False


@post("/chats/{chat:str}/memories/clear", status_code=200)
async def clear_memories(
    request: Request[Any, Any, Any], visitor: NamedDependency[BrowserSession], chat: FromPath[str]
) -> dict[str, Any]:
    """Clear all: unpinned first; pinned only with ``pinned_confirmed`` (MEM-9)."""
    chat_id = _chat(visitor, chat)
    state: WebState = request.app.state.web
    desk = _desk(request)
    body: ClearBody = decode_body(await request.body(), ClearBody)
    persona = await state.service.persona(body.persona)
    target = list_of(body.list_, persona.id, visitor.user, chat_id)
    plan = await desk.clear(target, pinned_confirmed=body.pinned_confirmed)
    return {"deleted": len(plan.writes), "pinned_left": plan.pinned_left}


class ComposeBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /app/chats/{chat}/memories/compose`` (MEM-6c)."""

    list_: ListName = msgspec.field(name="list")
    description: str
    persona: str = "default"


async def _save_all(
    request: Request[Any, Any, Any],
    target: ScopeList,
    persona: str,
    texts: list[str],
    *,
    pinned: bool,
    source: str,
) -> list[dict[str, Any]]:
    state: WebState = request.app.state.web
    desk = _desk(request)
    limits = (await state.service.persona(persona)).memory
    saved = []
    for text in texts:
        now = state.clock.now()
        plan = await desk.add(
            persona=persona,
            target=target,
            text=text,
            pinned=pinned,
            source=source,  # type: ignore[arg-type]
            now=now,
            limits=limits,
        )
        saved.append(_view(plan.record, desk, now))
    return saved


@post("/chats/{chat:str}/memories/compose", status_code=201)
async def compose_memories(
    request: Request[Any, Any, Any], visitor: NamedDependency[BrowserSession], chat: FromPath[str]
) -> dict[str, Any]:
    """ "Create memories": the model turns the person's description into memories (MEM-6c)."""
    chat_id = _chat(visitor, chat)
    state: WebState = request.app.state.web
    body: ComposeBody = decode_body(await request.body(), ComposeBody)
    persona = await state.service.persona(body.persona)
    drafts, offline = await state.service.memories_from_description(persona.id, body.description)
    target = list_of(body.list_, persona.id, visitor.user, chat_id)
    saved = await _save_all(request, target, persona.id, list(drafts), pinned=False, source="person")
    return {"memories": saved, "offline": offline}


class DialogueBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /app/chats/{chat}/memories/from-dialogue`` (MEM-6d)."""

    list_: ListName = msgspec.field(name="list")
    messages: list[str]
    mode: Literal["compose", "keep"] = "keep"
    texts: list[str] | None = None
    persona: str = "default"


@post("/chats/{chat:str}/memories/from-dialogue", status_code=201)
async def memories_from_dialogue(
    request: Request[Any, Any, Any], visitor: NamedDependency[BrowserSession], chat: FromPath[str]
) -> dict[str, Any]:
    """ "Save from dialogue": ≤20 messages, drafted by AI (≤5, for review) or kept as is; pinned."""
    chat_id = _chat(visitor, chat)
    state: WebState = request.app.state.web
    body: DialogueBody = decode_body(await request.body(), DialogueBody)
    if not 1 <= len(body.messages) <= DIALOGUE_LIMIT:
        raise InvalidInput(f"Select 1 to {DIALOGUE_LIMIT} messages.", code="invalid_selection")
    found = [await state.service.chats.message(chat_id, m) for m in dict.fromkeys(body.messages)]
    messages = [m for m in found if m is not None]
    if len(messages) != len(found):
        raise InvalidInput("A selected message is not in this chat.", code="message_not_found")
    persona = await state.service.persona(body.persona)
    if body.mode == "compose":
        lines = "\n".join(f"{m.name}: {m.text}" for m in messages)
        drafts, offline = await state.service.draft_memories(persona.id, lines, limit=DRAFT_LIMIT)
        return {"drafts": list(drafts), "offline": offline}
    texts = body.texts if body.texts is not None else [m.text for m in messages]
    if not texts or len(texts) > DIALOGUE_LIMIT:
        raise InvalidInput(f"Keep 1 to {DIALOGUE_LIMIT} entries.", code="invalid_selection")
    target = list_of(body.list_, persona.id, visitor.user, chat_id)
    return {"memories": await _save_all(request, target, persona.id, texts, pinned=True, source="dialogue")}


MEMORY_ROUTES = [
    list_memories,
    set_notices,
    add_memory,
    edit_memory,
    forget_memory,
    clear_memories,
    compose_memories,
    memories_from_dialogue,
]
