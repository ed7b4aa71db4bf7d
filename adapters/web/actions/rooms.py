"""Renaming and deleting a browser room (``/app/rooms/{room}``).

A room's id (its slug) names its chats, so renaming changes only its title: every message,
branch, summary and memory stays. Deleting a room deletes its chats with every persona and their
branches — messages, turns, summaries, swipes, lore state, pictures, archive pages — and, as
for a deleted persona (MEM-10), keeps what the persona learned about the person: the personal
memories saved in the room become Global personal ones (they follow the person into every room
with that persona), while the room's own memories (its space list, facts about the room) go
with it. Global memories are in no room and stay. The main room can be neither.
"""

from __future__ import annotations

from adapters.web.actions.messages import controls_of, root_chat
from adapters.web.schemas.chat import Room, RoomDeleted, RoomMade
from adapters.web.session import MAIN_ROOM, BrowserSession, chat_for
from adapters.web.state import WebState
from engine.errors import ConfigError, Conflict, NotFound
from engine.ports.accounts import AccountStore
from engine.turn import memory_space
from engine.validate import check_title

__all__ = ["ROOM_TITLE_CHARS", "delete_room", "rename_room"]

ROOM_TITLE_CHARS = 60


def _rooms(web: WebState) -> AccountStore:
    if web.accounts is None:
        raise ConfigError("Accounts are not configured in this deployment.", code="accounts_unavailable")
    return web.accounts.store


def _not_main(room: str) -> None:
    if room == MAIN_ROOM:
        raise Conflict("The main room is always there; it cannot be renamed or deleted.", code="main_room")


async def rename_room(web: WebState, visitor: BrowserSession, room: str, title: str) -> RoomMade:
    """Give one of the visitor's rooms a new title; nothing in it changes.

    Raises:
        Conflict: ``main_room``. InvalidInput: ``title_empty``, ``title_too_long``,
            ``title_invalid``. NotFound: ``room_not_found``.
    """
    _not_main(room)
    name = check_title(title, what="A room name", limit=ROOM_TITLE_CHARS)
    renamed = await _rooms(web).rename_room(visitor.slug, room, name)
    if renamed is None:
        raise NotFound(f"You have no room {room!r}.", code="room_not_found")
    return RoomMade(room=Room(slug=renamed.slug, title=renamed.title))


async def delete_room(web: WebState, visitor: BrowserSession, room: str) -> RoomDeleted:
    """Delete one of the visitor's rooms: its chats go, the memories about people stay (moved to
    their Global personal lists), the room's own memories go.

    Raises:
        Conflict: ``main_room``. NotFound: ``room_not_found``.
    """
    _not_main(room)
    store = _rooms(web)
    if room not in {r.slug for r in await store.rooms(visitor.slug)}:
        raise NotFound(f"You have no room {room!r}.", code="room_not_found")
    _, controls = controls_of(web)
    base = chat_for(visitor, "default", room)
    chats = await controls.chats_of(base)
    kept = deleted = 0
    desk = web.service.memory
    if desk is not None and chats:
        # a chat is ``base`` (the default persona) or ``base.<persona>``, or a branch of one
        personas = {root_chat(c)[len(base) + 1 :] or "default" for c in chats}
        spaces = frozenset(memory_space(c) for c in chats)
        kept, deleted = await desk.delete_spaces(sorted(personas), spaces)
    await controls.delete_chats(chats)
    await store.delete_room(visitor.slug, room)
    return RoomDeleted(room=room, chats=len(chats), memories_kept=kept, memories_deleted=deleted)
