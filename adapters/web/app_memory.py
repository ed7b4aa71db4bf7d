"""The memory panel's endpoints: a signed-in person's memories in play for one of their chats.

The lists in play for a person in their own room (MEM-4) are four, named for the page:

- ``space``            the room's space list ("this room"),
- ``personal``         the person's personal list local to this room,
- ``personal_global``  the person's Global personal list (follows them into every room),
- ``global``           the person's global list (every persona may read it).

A person may change memories only in those lists: a memory whose list belongs to someone else,
or to a space that is not one of their rooms, is ``403 not_your_memory``. Guests have no
memories (MEM-8): ``403 sign_in_required``. The panel also tells the chat's memory mode and
whether the deep memory pass applies to it ("Deep memory: Active", DEEP-1..4), and the chat's
settings are switched here (memory off). What happens is ``adapters.web.actions.memory``,
shared with the operator API; these routes add the session, the ownership and ``recent``.
"""

from __future__ import annotations

from litestar import Router, delete, get, patch, post, put
from litestar.di import NamedDependency
from litestar.params import FromPath, FromQuery, JSONBody

from adapters.web.actions import memory as act
from adapters.web.actions.chat import chat_settings, deep_memory, put_chat_settings
from adapters.web.actions.memory import memory_desk
from adapters.web.app_auth import owned_chat, require_user
from adapters.web.layers import BODY_DTO, browser_guards, web_dependency
from adapters.web.schemas.chat import ChatSettingsBody, ChatSettingsView
from adapters.web.schemas.memory import (
    Cleared,
    Composed,
    Drafts,
    ListName,
    MemoryAdded,
    MemoryDeleted,
    MemoryEdit,
    MemoryList,
    MemoryOne,
    NoticeLevel,
    NoticeLevelBody,
    Panel,
    PanelAdd,
    PanelClear,
    PanelCompose,
    PanelDialogue,
    PanelLimits,
    PanelList,
)
from adapters.web.session import BrowserSession
from adapters.web.state import WebState
from engine.errors import Forbidden
from engine.memory import (
    ScopeList,
    global_list,
    global_personal_list,
    personal_list,
    space_list,
)
from engine.turn import memory_space

__all__ = ["LISTS", "MEMORY_ROUTES", "ListName", "list_of", "may_touch"]

LISTS: tuple[tuple[ListName, str], ...] = (
    ("space", "This room"),
    ("personal", "About you, in this room"),
    ("personal_global", "About you, everywhere"),
    ("global", "About you, for every persona"),
)


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


def may_touch(visitor: BrowserSession, scope: ScopeList) -> bool:
    """Whether the visitor may see and change memories of ``scope``: theirs, or their rooms'."""
    if visitor.guest:
        return False
    if scope.scope == "space":
        return scope.space is not None and visitor.owns(scope.space)
    return scope.owner == visitor.user


def _chat(visitor: BrowserSession, chat: str) -> str:
    chat_id = owned_chat(visitor, chat)
    require_user(visitor)
    return chat_id


def _panel_list(visitor: BrowserSession, chat: str, name: ListName) -> act.TargetOf:
    """The visitor's list ``name`` in their ``chat``, for the persona the action resolves."""
    return lambda persona: list_of(name, persona, visitor.user, chat)


async def _mine(web: WebState, visitor: BrowserSession, memory: str) -> None:
    require_user(visitor)
    if not may_touch(visitor, await act.locate(web, memory)):
        raise Forbidden("This memory is not yours.", code="not_your_memory")


@get("/chats/{chat:str}/memories")
async def list_memories(
    web: NamedDependency[WebState],
    visitor: NamedDependency[BrowserSession],
    chat: FromPath[str],
    persona: FromQuery[str] = "default",
    q: FromQuery[str | None] = None,
) -> Panel:
    """The lists in play for the visitor in this chat, pinned first, then newest; with ``q``, only
    the memories holding every word of it (case and accents ignored)."""
    chat_id = _chat(visitor, chat)
    desk = memory_desk(web)
    found = await web.service.persona(persona)
    policy, now = desk.policy_for(found.memory), web.clock.now()
    lists = []
    for name, title in LISTS:
        records = await desk.list([list_of(name, found.id, visitor.user, chat_id)])
        shown = act.newest_first(act.matches(records, q))
        uses = await desk.uses(shown)
        views = [act.memory_view(r, desk, now, uses) for r in shown]
        lists.append(PanelList(list_=name, title=title, memories=views))
    settings = await web.service.chats.chat_settings(chat_id)
    return Panel(
        persona=found.id,
        lists=lists,
        limits=PanelLimits(unpinned=policy.max_unpinned, pinned=policy.max_pinned, chars=policy.max_chars),
        decay=policy.decay_enabled,
        dormant_after=policy.dormant_after,
        notices=await web.directory.notice_level(memory_space(chat_id)),
        memory=settings.memory,
        deep_memory=deep_memory(web, chat_id, found, settings),
    )


@get("/chats/{chat:str}/settings")
async def get_chat_settings(
    web: NamedDependency[WebState], visitor: NamedDependency[BrowserSession], chat: FromPath[str]
) -> ChatSettingsView:
    """One of the visitor's chats' settings: ``memory`` ``on`` or ``off`` (MEM-8)."""
    return await chat_settings(web, owned_chat(visitor, chat))


@put("/chats/{chat:str}/settings")
async def set_chat_settings(
    web: NamedDependency[WebState],
    visitor: NamedDependency[BrowserSession],
    chat: FromPath[str],
    data: JSONBody[ChatSettingsBody],
) -> ChatSettingsView:
    """Switch one of the signed-in visitor's chats to memory off or back on (MEM-8, DEEP-4)."""
    return await put_chat_settings(web, _chat(visitor, chat), data)


@put("/chats/{chat:str}/memory-notices")
async def set_notices(
    web: NamedDependency[WebState],
    visitor: NamedDependency[BrowserSession],
    chat: FromPath[str],
    data: JSONBody[NoticeLevelBody],
) -> NoticeLevel:
    """How visible memory notices are in this room (DEC-11): off, brief (counts) or full (texts)."""
    chat_id = _chat(visitor, chat)
    await web.directory.set_notice_level(memory_space(chat_id), data.level)
    return NoticeLevel(chat=chat_id, level=data.level)


@post("/chats/{chat:str}/memories", status_code=201)
async def add_memory(
    web: NamedDependency[WebState],
    visitor: NamedDependency[BrowserSession],
    chat: FromPath[str],
    data: JSONBody[PanelAdd],
) -> MemoryAdded:
    """A person saves a memory (protected, DEC-12); a full list forgets one dormant (DEC-11)."""
    target_of = _panel_list(visitor, _chat(visitor, chat), data.list_)
    return await act.add_memory(
        web,
        persona=data.persona,
        target_of=target_of,
        text=data.text,
        pinned=data.pinned,
        source="person",
        recent=True,
    )


@patch("/memories/{memory:str}")
async def edit_memory(
    web: NamedDependency[WebState],
    visitor: NamedDependency[BrowserSession],
    memory: FromPath[str],
    data: JSONBody[MemoryEdit],
) -> MemoryOne:
    """Edit the text (which protects it, DEC-12) or pin/unpin one of the person's memories."""
    await _mine(web, visitor, memory)
    return await act.edit_memory(web, memory, text=data.text, pinned=data.pinned, recent=True)


@delete("/memories/{memory:str}", status_code=200)
async def forget_memory(
    web: NamedDependency[WebState], visitor: NamedDependency[BrowserSession], memory: FromPath[str]
) -> MemoryDeleted:
    """Forget one of the person's memories (pinned ones too: people may)."""
    await _mine(web, visitor, memory)
    return await act.delete_memory(web, memory, recent=True)


@post("/memories/{memory:str}/restore", status_code=200)
async def restore_memory(
    web: NamedDependency[WebState], visitor: NamedDependency[BrowserSession], memory: FromPath[str]
) -> MemoryOne:
    """Undo Forget: one of the person's forgotten memories back as it was (``UNDO_SECONDS``)."""
    require_user(visitor)
    return await act.restore_memory(web, memory, lambda scope: may_touch(visitor, scope), recent=True)


@post("/chats/{chat:str}/memories/clear", status_code=200)
async def clear_memories(
    web: NamedDependency[WebState],
    visitor: NamedDependency[BrowserSession],
    chat: FromPath[str],
    data: JSONBody[PanelClear],
) -> Cleared:
    """Clear all: unpinned first; pinned only with ``pinned_confirmed`` (MEM-9)."""
    chat_id = _chat(visitor, chat)
    memory_desk(web)  # 422 memory_unavailable before persona_not_found
    persona = await web.service.persona(data.persona)
    target = list_of(data.list_, persona.id, visitor.user, chat_id)
    return await act.clear_memories(web, target, pinned_confirmed=data.pinned_confirmed)


@post("/chats/{chat:str}/memories/compose", status_code=201)
async def compose_memories(
    web: NamedDependency[WebState],
    visitor: NamedDependency[BrowserSession],
    chat: FromPath[str],
    data: JSONBody[PanelCompose],
) -> Composed:
    """ "Create memories": the model turns the person's description into memories (MEM-6c)."""
    target_of = _panel_list(visitor, _chat(visitor, chat), data.list_)
    return await act.compose_memories(
        web, persona=data.persona, target_of=target_of, description=data.description, recent=True
    )


@post("/chats/{chat:str}/memories/from-dialogue", status_code=201)
async def memories_from_dialogue(
    web: NamedDependency[WebState],
    visitor: NamedDependency[BrowserSession],
    chat: FromPath[str],
    data: JSONBody[PanelDialogue],
) -> Drafts | MemoryList:
    """ "Save from dialogue": ≤20 messages, drafted by AI (≤5, for review) or kept as is; pinned."""
    chat_id = _chat(visitor, chat)
    return await act.from_dialogue(
        web,
        chat=chat_id,
        messages=data.messages,
        compose=data.mode == "compose",
        texts=data.texts,
        persona=data.persona,
        target_of=_panel_list(visitor, chat_id, data.list_),
        recent=True,
    )


MEMORY_ROUTES = [
    Router(
        path="/",
        route_handlers=[
            list_memories,
            set_notices,
            add_memory,
            edit_memory,
            forget_memory,
            restore_memory,
            clear_memories,
            compose_memories,
            memories_from_dialogue,
            get_chat_settings,
            set_chat_settings,
        ],
        guards=browser_guards(),
        dependencies=web_dependency(),
        dto=BODY_DTO,
        return_dto=None,
        tags=["memories"],
    )
]
"""The memory panel's routes, for the ``/app`` router."""
