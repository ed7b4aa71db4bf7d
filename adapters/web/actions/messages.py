"""What the browser's message controls do (issue 16): edit, delete, swipes, branches, and the
guest chat move.

The functions take the ``web`` state and a chat the visitor owns (the routes check it). A guest
chat moves with a ticket signed with the session secret that names the guest, so only the
browser that was that guest can claim its chat, and only for ``TICKET_SECONDS``.
"""

from __future__ import annotations

import hmac
import secrets

import msgspec

from adapters.web.accounts import Accounts
from adapters.web.schemas.chat import Branch
from adapters.web.schemas.messages import BranchMade, BranchOne, Chosen, MessageView, Moved, Ticket
from adapters.web.session import MAIN_ROOM, BrowserSession, chat_for
from adapters.web.state import WebState
from engine.errors import ConfigError, InvalidInput, NotFound
from engine.model import StoredMessage
from engine.service.controls import BRANCH_MARK, MessageControls
from storage.redis_chat_controls import Branch as BranchRecord
from storage.redis_chat_controls import RedisChatControls

__all__ = [
    "TICKET_SECONDS",
    "branch_chat",
    "choose",
    "controls_of",
    "guest_of",
    "guest_ticket",
    "make_branch",
    "move_guest_chat",
    "rename_branch",
    "root_chat",
]

TICKET_SECONDS = 600
TITLE_CHARS = 80


def controls_of(web: WebState) -> tuple[MessageControls, RedisChatControls]:
    """The message controls and their store, or 500 ``controls_unavailable``."""
    if web.controls is None or web.chat_controls is None:
        raise ConfigError("Message controls are not configured.", code="controls_unavailable")
    return web.controls, web.chat_controls


def root_chat(chat: str) -> str:
    """The chat a branch was made from (a chat that is no branch is its own root)."""
    return chat.split(BRANCH_MARK)[0]


def branch_chat(chat: str, branch: str) -> str:
    """The chat id of one branch of ``chat``."""
    return f"{root_chat(chat)}{BRANCH_MARK}{branch}"


async def choose(web: WebState, chat: str, turn: str) -> Chosen:
    """Show another alternative of the latest reply; the next turn sees it (MEM-7 per swipe)."""
    controls, _ = controls_of(web)
    chosen, message = await controls.choose(chat, turn)
    return Chosen(message=MessageView.of(message), swipes=await controls.swipes_of(chat, chosen))


async def make_branch(web: WebState, chat: str, message: str, title: str) -> BranchMade:
    """A new chat with this conversation up to ``message``; memories stay shared with this one.

    Without a ``title`` the branch is called "Branch N" (N: this chat's branches so far, plus one).
    """
    controls, store = controls_of(web)
    branch_id = secrets.token_hex(4)
    target = branch_chat(chat, branch_id)
    copied = await controls.branch(chat, message, target)
    title = (title.strip() or f"Branch {len(await store.branches(root_chat(chat))) + 1}")[:TITLE_CHARS]
    record = BranchRecord(
        id=branch_id,
        chat=target,
        title=title,
        source=chat,
        message=message,
        created_at=web.clock.now().timestamp(),
    )
    await store.add_branch(root_chat(chat), record)
    return BranchMade(branch=Branch(id=branch_id, chat=target, title=title), messages=copied)


async def rename_branch(web: WebState, chat: str, branch: str, title: str) -> BranchOne:
    """Give one of this chat's branches a new name.

    Raises:
        NotFound: ``branch_not_found``. InvalidInput: ``title_empty``, ``title_too_long``.
    """
    _, store = controls_of(web)
    name = " ".join(title.split())
    if not name:
        raise InvalidInput("A branch needs a name.", code="title_empty")
    if len(name) > TITLE_CHARS:
        raise InvalidInput(f"A branch name has at most {TITLE_CHARS} characters.", code="title_too_long")
    root = root_chat(chat)
    found = next((b for b in await store.branches(root) if b.id == branch), None)
    if found is None:
        raise NotFound(f"There is no branch {branch!r}.", code="branch_not_found")
    renamed = msgspec.structs.replace(found, title=name)
    await store.add_branch(root, renamed)
    return BranchOne(branch=Branch(id=renamed.id, chat=renamed.chat, title=renamed.title))


def _ticket_mac(web: WebState, payload: str) -> str:
    return web.signer._mac("guest-chat", payload)


async def guest_ticket(web: WebState, guest: BrowserSession) -> Ticket:
    """A guest's claim on its own chats, to move them into the account it signs in to next."""
    _, store = controls_of(web)
    chats = [chat_for(guest, p.id) for p in await web.service.personas.all()]
    messages = sum([0 if await store.is_empty(c) else 1 for c in chats])
    payload = f"{guest.slug}~{int(web.clock.now().timestamp()) + TICKET_SECONDS}"
    return Ticket(ticket=f"{payload}.{_ticket_mac(web, payload)}", has_chat=messages > 0)


def guest_of(web: WebState, ticket: str) -> BrowserSession:
    """The guest a ticket names, or 422 ``invalid_ticket`` (forged, malformed or too old)."""
    payload, _, mac = ticket.rpartition(".")
    slug, _, expires = payload.partition("~")
    valid = hmac.compare_digest(mac.encode(), _ticket_mac(web, payload).encode()) and expires.isdigit()
    if not valid or int(expires) < web.clock.now().timestamp() or not slug.startswith("guest-"):
        raise InvalidInput("The guest chat ticket is not valid (or too old).", code="invalid_ticket")
    return BrowserSession(slug=slug)


async def move_guest_chat(web: WebState, accounts: Accounts, user: BrowserSession, ticket: str) -> Moved:
    """Move the guest's conversations into ``user``'s account: into the main room when it is
    empty (a new account), else into a new room "Guest chat" (issue 16, point 4)."""
    guest = guest_of(web, ticket)
    _, store = controls_of(web)
    personas = await web.service.personas.all()
    sources = [(p.id, chat_for(guest, p.id)) for p in personas]
    sources = [(p, c) for p, c in sources if not await store.is_empty(c)]
    if not sources:
        return Moved(room=None, moved=0)
    main_free = all([await store.is_empty(chat_for(user, p)) for p, _ in sources])
    room = MAIN_ROOM
    if not main_free:
        made = await accounts.add_room(user.slug, "Guest chat", now=web.clock.now())
        room = made.slug

    def adopt(m: StoredMessage) -> StoredMessage:
        if m.role != "user" or m.user != guest.user:
            return m
        return msgspec.structs.replace(m, user=user.user, name=user.slug, guest=False)

    moved = 0
    for persona, source in sources:
        target = chat_for(user, persona, room)
        if not await store.is_empty(target):
            continue
        moved += await store.copy(source, target, upto=float("inf"), rewrite=adopt)
        await store.clear(source)
    return Moved(room=room, moved=moved)
