"""Request and response types of the browser's message controls (issue 16): edit, delete,
swipes, branches and the guest chat move."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import msgspec

from adapters.web.schemas.chat import Branch
from engine.model import StoredMessage
from engine.service.controls import Swipes

__all__ = [
    "BranchBody",
    "BranchMade",
    "Chosen",
    "EditBody",
    "MessageDeleted",
    "MessageOne",
    "MessageView",
    "MoveBody",
    "Moved",
    "Ticket",
]


class EditBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``PUT /app/chats/{chat}/messages/{message}``."""

    text: str


class MessageView(msgspec.Struct, frozen=True, kw_only=True):
    """A message as the page shows it after a change."""

    id: str
    role: Literal["user", "assistant"]
    name: str
    text: str
    sent_at: datetime
    turn: str | None

    @classmethod
    def of(cls, m: StoredMessage) -> MessageView:
        """The page's view of a stored message."""
        return cls(id=m.id, role=m.role, name=m.name, text=m.text, sent_at=m.sent_at, turn=m.turn)


class MessageOne(msgspec.Struct, frozen=True, kw_only=True):
    """An edited message."""

    message: MessageView


class MessageDeleted(msgspec.Struct, frozen=True, kw_only=True):
    """The id of a deleted message, and the persona reply deleted with it (``also``)."""

    deleted: str
    also: list[str] = msgspec.field(default_factory=list)


class Chosen(msgspec.Struct, frozen=True, kw_only=True):
    """The reply now shown, and its alternatives."""

    message: MessageView
    swipes: Swipes


class BranchBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /app/chats/{chat}/branches``."""

    message: str
    title: str = ""


class BranchRename(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``PUT /app/chats/{chat}/branches/{branch}``: the branch's new name."""

    title: str


class BranchOne(msgspec.Struct, frozen=True, kw_only=True):
    """A renamed branch."""

    branch: Branch


class BranchMade(msgspec.Struct, frozen=True, kw_only=True):
    """A new branch and how many messages it starts with."""

    branch: Branch
    messages: int


class Ticket(msgspec.Struct, frozen=True, kw_only=True):
    """A guest's claim on its own chats; ``has_chat``: there is something to move."""

    ticket: str
    has_chat: bool


class MoveBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /app/guest-chat/move``."""

    ticket: str


class Moved(msgspec.Struct, frozen=True, kw_only=True):
    """Where the guest's chat went (``room`` None: there was nothing to move)."""

    room: str | None
    moved: int
