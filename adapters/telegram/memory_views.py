"""How memories look in Telegram: pages of entries with pin/unpin and forget buttons (MEM-1, MEM-5).

A list message shows ``PER_PAGE`` entries, pinned first, then the most recently updated; each
entry is numbered across pages, marked 📌 (pinned) or 💤 (dormant, DEC-6), cut to ``SNIPPET``
characters (so a page always fits one message) and followed by its id in monospace (a tap
copies it, for ``/forget <id>``). Each entry has a row of buttons, and ◀ ▶ turn the page.

Button data (``MemoryButton``) names the view — ``s``, the space's list, or ``p``, the
presser's own lists — and the space by its Telegram chat id (a group's, when a personal list
was sent privately), so a press re-reads the lists; the id of a memory (``mem-`` + 10 hex
digits) keeps the data far under Telegram's 64 bytes. Everything here is pure.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import msgspec
from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from adapters.telegram.render import Chunk, Styled
from engine.memory import MemoryPolicy, MemoryRecord, SavePlan, memory_state

__all__ = [
    "PER_PAGE",
    "SNIPPET",
    "Listing",
    "MemoryButton",
    "forgot_text",
    "listing_chunk",
    "listing_keyboard",
    "ordered",
    "page_count",
    "plural",
    "saved_text",
    "snippet",
]

PER_PAGE = 8
SNIPPET = 280
LEGEND = "📌 pinned: always in mind · 💤 dormant: comes back when mentioned"


class MemoryButton(CallbackData, prefix="mem"):
    """A button under a memory list: ``pin``, ``unpin``, ``forget`` one entry, or ``page``."""

    action: str
    view: str
    space: int
    page: int = 0
    memory: str = ""


class Listing(msgspec.Struct, frozen=True, kw_only=True):
    """One page of a memory list, ready to render.

    Attributes:
        view: ``s`` (the space's list) or ``p`` (the caller's personal lists).
        space: the Telegram chat id of the space.
        title: the first line (bold).
        records: the whole list, in display order (see ``ordered``).
        page: the page shown, already within range.
        empty: what to say when there is nothing.
        note: an optional line under the title.
    """

    view: str
    space: int
    title: str
    records: tuple[MemoryRecord, ...]
    page: int = 0
    empty: str = "Nothing yet."
    note: str = ""

    @property
    def shown(self) -> tuple[MemoryRecord, ...]:
        """The entries of this page."""
        start = self.page * PER_PAGE
        return self.records[start : start + PER_PAGE]


def ordered(records: Sequence[MemoryRecord]) -> tuple[MemoryRecord, ...]:
    """Pinned first, then the most recently updated (the web list's order)."""
    return tuple(sorted(records, key=lambda r: (not r.pinned, -r.updated_at.timestamp(), r.id)))


def page_count(total: int) -> int:
    """Pages needed for ``total`` entries (at least one)."""
    return max(1, math.ceil(total / PER_PAGE))


def plural(count: int, word: str = "memory") -> str:
    """``1 memory``, ``2 memories``."""
    if count == 1:
        return f"1 {word}"
    return f"{count} {word[:-1]}ies" if word.endswith("y") else f"{count} {word}s"


def snippet(text: str, limit: int = SNIPPET) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _where(record: MemoryRecord, view: str) -> str:
    if view != "p":
        return ""
    if record.scope == "global":
        return " (all personas)"
    return " (Global)" if record.is_global else " (here)"


def listing_chunk(listing: Listing, policy: MemoryPolicy) -> Chunk:
    """The text of one page: title, counts, numbered entries with ids, a legend."""
    text = Styled().add(listing.title, "bold")
    if listing.note:
        text.add(f"\n{listing.note}")
    if not listing.records:
        return text.add(f"\n\n{listing.empty}").chunk()
    total, pinned = len(listing.records), sum(1 for r in listing.records if r.pinned)
    pages = page_count(total)
    counts = plural(total) + (f" · {pinned} pinned" if pinned else "")
    text.add(f"\n{counts}" + (f" · page {listing.page + 1} of {pages}" if pages > 1 else ""))
    marked = False
    for number, record in enumerate(listing.shown, start=listing.page * PER_PAGE + 1):
        dormant = not record.pinned and memory_state(record, policy) == "dormant"
        mark = "📌 " if record.pinned else "💤 " if dormant else ""
        marked = marked or bool(mark)
        text.add(f"\n\n{number}. {mark}{snippet(record.text)}{_where(record, listing.view)} ")
        text.add(record.id, "code")
    if marked:
        text.add(f"\n\n{LEGEND}", "italic")
    return text.chunk()


def listing_keyboard(listing: Listing) -> InlineKeyboardMarkup | None:
    """Pin/unpin and forget buttons for each entry of the page, and ◀ ▶ to turn pages."""
    if not listing.records:
        return None

    def button(label: str, action: str, page: int, memory: str = "") -> InlineKeyboardButton:
        data = MemoryButton(action=action, view=listing.view, space=listing.space, page=page, memory=memory)
        return InlineKeyboardButton(text=label, callback_data=data.pack())

    rows = []
    for number, record in enumerate(listing.shown, start=listing.page * PER_PAGE + 1):
        pin = button(f"Unpin {number}", "unpin", listing.page, record.id)
        if not record.pinned:
            pin = button(f"📌 Pin {number}", "pin", listing.page, record.id)
        rows.append([pin, button(f"🗑 Forget {number}", "forget", listing.page, record.id)])
    last = page_count(len(listing.records)) - 1
    turns = []
    if listing.page > 0:
        turns.append(button(f"◀ {listing.page}", "page", listing.page - 1))
    if listing.page < last:
        turns.append(button(f"{listing.page + 2} ▶", "page", listing.page + 1))
    if turns:
        rows.append(turns)
    return InlineKeyboardMarkup(inline_keyboard=rows)


def saved_text(plan: SavePlan, level: str, where: str) -> str:
    """The ``/remember`` confirmation, as visible as the space's notice level wants (DEC-11).

    ``full`` shows what was saved and what was forgotten to make room; ``brief`` says so
    without the texts; ``off`` only acknowledges the command.
    """
    if level == "full":
        text = f"🧠 Saved ({where}): “{snippet(plan.record.text)}”"
        if plan.forgotten is not None:
            text += f"\nForgot to make room: “{snippet(plan.forgotten.text)}”"
        return text
    text = f"🧠 Saved ({where})."
    if level == "brief" and plan.forgotten is not None:
        text += " To make room I forgot 1 older memory that had gone dormant."
    return text


def forgot_text(records: Sequence[MemoryRecord], level: str) -> str:
    """What ``/forget`` (or a forget button) says it did, as visible as the notice level wants."""
    if level == "full" and len(records) == 1:
        return f"🧠 Forgot: “{snippet(records[0].text)}”"
    return f"🧠 Forgot {plural(len(records))}."
