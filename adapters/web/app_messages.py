"""Message controls of the browser chat (issue 16): edit, delete, swipes, branches, guest chat move.

- ``PUT /app/chats/{chat}/messages/{id}`` ``{text}`` and ``DELETE`` the same: one's own messages
  and the persona's replies (the next turn reads the edited text). Deleting one's message also
  deletes the reply that answered it (``also`` lists it), so two replies never stand in a row.
- ``POST /app/chats/{chat}/turns/{turn}/choose``: show another alternative (swipe) of the latest
  reply; it is what the next turn sees.
- ``POST /app/chats/{chat}/branches`` ``{message}``: a new chat with the conversation up to that
  message; memories are shared with the original (MEM-1, seed 004). ``PUT
  /app/chats/{chat}/branches/{branch}`` ``{title}`` renames one (``chat``: the original or any
  of its branches).
- ``POST /app/guest-chat/ticket`` (as a guest) then, once signed in or up,
  ``POST /app/guest-chat/move`` ``{ticket}``: the guest's conversation moves into the account —
  into the main room when it is empty (a new account), else into a new room "Guest chat". The
  ticket is signed with the session secret and names the guest, so only the browser that was
  that guest can claim its chat, and only for 10 minutes.
"""

from __future__ import annotations

from litestar import delete, post, put
from litestar.params import FromPath, JSONBody

from adapters.web.actions.messages import (
    branch_chat,
    choose,
    controls_of,
    guest_ticket,
    make_branch,
    move_guest_chat,
    rename_branch,
    root_chat,
)
from adapters.web.params import AccountService, Visitor, Web
from adapters.web.schemas.messages import (
    BranchBody,
    BranchMade,
    BranchOne,
    BranchRename,
    Chosen,
    EditBody,
    MessageDeleted,
    MessageOne,
    MessageView,
    MoveBody,
    Moved,
    Ticket,
)
from adapters.web.session import owned_chat, require_user
from engine.errors import Forbidden

__all__ = ["MESSAGE_ROUTES", "branch_chat", "root_chat"]


@put("/chats/{chat:str}/messages/{message:str}")
async def edit_message(
    web: Web, visitor: Visitor, chat: FromPath[str], message: FromPath[str], data: JSONBody[EditBody]
) -> MessageOne:
    """Change the text of one of your own messages or of a persona reply."""
    chat_id = owned_chat(visitor, chat)
    controls, _ = controls_of(web)
    return MessageOne(message=MessageView.of(await controls.edit(chat_id, message, visitor.user, data.text)))


@delete("/chats/{chat:str}/messages/{message:str}", status_code=200)
async def delete_message(
    web: Web, visitor: Visitor, chat: FromPath[str], message: FromPath[str]
) -> MessageDeleted:
    """Delete one of your own messages (with the reply that answered it) or a persona reply."""
    chat_id = owned_chat(visitor, chat)
    controls, _ = controls_of(web)
    removed = await controls.delete(chat_id, message, visitor.user)
    return MessageDeleted(deleted=message, also=list(removed[1:]))


@post("/chats/{chat:str}/turns/{turn:str}/choose", status_code=200)
async def choose_swipe(web: Web, visitor: Visitor, chat: FromPath[str], turn: FromPath[str]) -> Chosen:
    """Show another alternative of the latest reply; the next turn sees it (MEM-7 per swipe)."""
    return await choose(web, owned_chat(visitor, chat), turn)


@post("/chats/{chat:str}/branches", status_code=201)
async def new_branch(
    web: Web, visitor: Visitor, chat: FromPath[str], data: JSONBody[BranchBody]
) -> BranchMade:
    """A new chat with this conversation up to a message; memories stay shared with this one."""
    return await make_branch(web, owned_chat(visitor, chat), data.message, data.title)


@put("/chats/{chat:str}/branches/{branch:str}")
async def rename(
    web: Web, visitor: Visitor, chat: FromPath[str], branch: FromPath[str], data: JSONBody[BranchRename]
) -> BranchOne:
    """Rename one of this chat's branches (its messages and memories stay as they are)."""
    return await rename_branch(web, owned_chat(visitor, chat), branch, data.title)


@post("/guest-chat/ticket", status_code=200)
async def ticket(web: Web, visitor: Visitor) -> Ticket:
    """A guest's claim on its own chats, to move them into the account it signs in to next."""
    if not visitor.guest:
        raise Forbidden("Only a guest has a guest chat to move.", code="not_a_guest")
    return await guest_ticket(web, visitor)


@post("/guest-chat/move", status_code=200)
async def move(web: Web, visitor: Visitor, accounts: AccountService, data: JSONBody[MoveBody]) -> Moved:
    """Move the guest's conversations into the signed-in account (issue 16, point 4)."""
    require_user(visitor)
    return await move_guest_chat(web, accounts, visitor, data.ticket)


MESSAGE_ROUTES = [edit_message, delete_message, choose_swipe, new_branch, rename, ticket, move]
