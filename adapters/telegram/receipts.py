"""Memory receipts: a short "saved: …" message under a reply that saved a memory (DEC-11, MEM-5).

A receipt names one memory the reply saved and carries two buttons: Undo (the memory is
deleted) and Pin (it is kept in mind always). They work for the person the memory is about, or
for a group's memory for the group's admins, exactly as the buttons of ``/memories`` do
(``memory_access.check_may_change``); anyone else is refused and nothing changes.

A receipt follows the space's notice level: none when notices are off; the memory's text in a
private chat (only its person reads there) and in a group whose notices are ``full``; otherwise
only what kind of memory it was. A turn shows at most ``MAX_RECEIPTS`` of them. Everything here
is pure; ``delivery`` sends receipts and ``routers/receipts`` answers their buttons.
"""

from __future__ import annotations

from typing import Literal

from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from adapters.telegram.memory_views import snippet
from adapters.telegram.render import Chunk
from engine.notices import render_notices
from engine.requestlog import MemoryNote
from engine.service import ReplyDone

__all__ = [
    "MAX_RECEIPTS",
    "ReceiptButton",
    "receipt_after",
    "receipt_chunk",
    "receipt_keyboard",
    "receipt_notes",
    "shows_texts",
]

MAX_RECEIPTS = 3
SAVED = "🧠 saved: "
_AFTER = {"undo": "↩️ undone: ", "pin": "📌 pinned: "}
_KINDS = {"personal": "a personal memory", "space": "a memory for this chat", "global": "a global memory"}


class ReceiptButton(CallbackData, prefix="rcpt"):
    """Undo or Pin under a receipt: the memory and the chat (its space) it was saved in."""

    action: str
    memory: str
    space: int


def receipt_notes(done: ReplyDone) -> tuple[MemoryNote, ...]:
    """The saves of a finished turn that get a receipt (none when the space's notices are off)."""
    if not done.notices:
        return ()
    return tuple(n for n in done.context.memory_writes if n.kind == "saved")[:MAX_RECEIPTS]


def shows_texts(done: ReplyDone, *, private: bool) -> bool:
    """Whether receipts may quote the memory: in a private chat, or where notices are ``full``."""
    return private or done.notices == render_notices(done.context.memory_writes, "full")


def receipt_chunk(note: MemoryNote, *, texts: bool, group: bool = False) -> Chunk:
    """The receipt's message: the memory's text, or only its kind."""
    kind = (
        "a memory for this group" if group and note.scope == "space" else _KINDS.get(note.scope, "a memory")
    )
    return Chunk(text=SAVED + (f"“{snippet(note.text, 200)}”" if texts else kind))


def receipt_keyboard(note: MemoryNote, space: int, *, pinned: bool = False) -> InlineKeyboardMarkup:
    """Undo and Pin for a receipt (only Undo once it is pinned)."""
    row = [
        InlineKeyboardButton(
            text="Undo", callback_data=ReceiptButton(action="undo", memory=note.id, space=space).pack()
        )
    ]
    if not pinned:
        pin = ReceiptButton(action="pin", memory=note.id, space=space).pack()
        row.append(InlineKeyboardButton(text="Pin", callback_data=pin))
    return InlineKeyboardMarkup(inline_keyboard=[row])


def receipt_after(text: str, action: Literal["undo", "pin"]) -> Chunk:
    """The receipt's text once its button did ``action``."""
    rest = text[len(SAVED) :] if text.startswith(SAVED) else text.split(": ", 1)[-1]
    return Chunk(text=_AFTER[action] + rest)
