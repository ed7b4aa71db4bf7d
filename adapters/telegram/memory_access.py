"""Which memory lists a Telegram command works on, and who may change an entry (MEM-1, MEM-9).

- The space's list: ``space_list(persona, tg:<chat>)`` — the group (all its forum topics), or
  the private chat. Anyone may read it; in groups only admins change it.
- A person's own lists: personal local to the space, personal Global, and their ``global``
  list (read by every persona). Only that person changes them, from anywhere.

Anything else (another space's list, someone else's memory) is answered as "not found", so a
crafted button or id learns nothing about memories it may not touch.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from adapters.telegram.ids import space_key
from adapters.telegram.memory_views import Listing, ordered, page_count
from engine.errors import Conflict, Forbidden, NotFound
from engine.memory import ScopeList, global_list, global_personal_list, personal_list, space_list
from engine.notices import NOTICE_LEVELS
from engine.ports import MemoryDirectory
from engine.service import ChatService
from engine.service.memory import MemoryDesk

__all__ = [
    "check_may_change",
    "desk_of",
    "load_listing",
    "notice_level",
    "own_lists",
    "space_lists",
]


def desk_of(service: ChatService) -> MemoryDesk:
    """The memory desk.

    Raises:
        Conflict: ``memory_unavailable`` when this deployment runs without memory.
    """
    if service.memory is None:
        raise Conflict("Memory is not configured in this deployment.", code="memory_unavailable")
    return service.memory


def space_lists(persona: str, space: int) -> tuple[ScopeList, ...]:
    """The space's list, for the space of Telegram chat ``space``."""
    return (space_list(persona, space_key(space)),)


def own_lists(persona: str, user: str, space: int) -> tuple[ScopeList, ...]:
    """A person's lists as seen from a space: local to it, Global, and ``global``."""
    return (
        personal_list(persona, user, space_key(space)),
        global_personal_list(persona, user),
        global_list(user),
    )


async def load_listing(
    desk: MemoryDesk,
    *,
    persona: str,
    view: str,
    space: int,
    user: str | None,
    title: str,
    page: int = 0,
    note: str = "",
) -> Listing:
    """Read a view's lists and build the page to show (``page`` is kept in range).

    Raises:
        Forbidden: ``no_person`` for a personal view without a person behind it.
    """
    if view == "p" and user is None:
        raise Forbidden("Only a person has personal memories.", code="no_person")
    targets = own_lists(persona, user, space) if view == "p" and user else space_lists(persona, space)
    records = ordered(await desk.list(targets))
    last = page_count(len(records)) - 1
    empty = "I don't remember anything about you yet." if view == "p" else "No memories here yet."
    return Listing(
        view=view,
        space=space,
        title=title,
        records=records,
        page=min(max(page, 0), last),
        empty=empty + " /remember <text> saves one.",
        note=note,
    )


async def check_may_change(
    scope: ScopeList,
    *,
    persona: str,
    space: int,
    user: str | None,
    admin: Callable[[], Awaitable[bool]],
) -> None:
    """Refuse unless the memory is this space's (and ``admin()`` allows) or the caller's own.

    Raises:
        Forbidden: ``not_group_admin`` for a space memory changed by a non-admin.
        NotFound: ``memory_not_found`` for any memory outside these lists.
    """
    if scope.scope == "space" and scope.persona == persona and scope.space == space_key(space):
        if await admin():
            return
        raise Forbidden("Only group admins can change this group's memories.", code="not_group_admin")
    if user is not None and scope.owner == user and scope.persona in (persona, None):
        return
    raise NotFound("There is no such memory that you can change here.", code="memory_not_found")


async def notice_level(directory: MemoryDirectory, space: int) -> str:
    """The space's memory-notice level (DEC-11), ``brief`` when unset or unknown."""
    level = await directory.notice_level(space_key(space))
    return level if level in NOTICE_LEVELS else "brief"
