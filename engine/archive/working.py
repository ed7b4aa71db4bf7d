"""Pinning, working notes and the turn's archive briefing (EPI-1, EPI-13 ``pin_first``).

*Pinned pages* are exempt from every sweep in every layer (``sweep.sweepable``); up to ten of
them come first in a search with ``pin_first`` (``query.pinned_first``) and in every turn's
briefing.

*Working notes* are the ``working`` layer: notes for the session running now, written by the
persona (its ``add_working_note`` tool) or a person. A note is stored as a working page of the
chat. It belongs to the session that was running when it was written — or, written during an
idle gap, to the session that starts next — and it is in the prompt while that session lasts.
Sessions are cut at idle gaps between messages (``sessions.split_sessions``): a note written at
``t`` is current for a turn answering a message at ``at`` when no gap of ``gap`` or more lies
between ``t`` and ``at`` (:func:`notes_since`). When the archive pass has archived the session a
note belongs to, :func:`end_notes` moves the note into that session page's ``notes`` (its
history: shown with the page, never searched, recalled or put in a prompt again) and deletes the
working page. A pinned note is a pinned page and stays.

The *briefing* is what the archive adds to a turn's prompt by itself (:func:`briefing`): the
chat's pinned pages (up to ten, newest first, within ``BRIEFING_PINNED_TOKENS``) and the current
session's working notes (oldest first; the newest that fit within ``BRIEFING_NOTES_TOKENS``).
Showing a pinned page in the briefing is not a read (a pinned page is never swept anyway).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta

import msgspec

from engine.archive.model import ArchivePolicy, Page, WorkingNote, require_aware
from engine.archive.query import MAX_PINNED_FIRST, pinned_first
from engine.archive.sessions import new_page
from engine.errors import Conflict, InvalidInput

__all__ = [
    "BRIEFING_NOTES_TOKENS",
    "BRIEFING_PINNED_TOKENS",
    "MAX_NOTE_CHARS",
    "MAX_SESSION_NOTES",
    "Briefing",
    "approx_tokens",
    "briefing",
    "check_note",
    "current_notes",
    "end_notes",
    "in_briefing",
    "is_note",
    "note_page",
    "notes_since",
    "pin_page",
]

MAX_NOTE_CHARS = 500
"""The longest working note, in characters."""
MAX_SESSION_NOTES = 20
"""The most working notes one session may hold (a further one is ``409 too_many_notes``)."""
BRIEFING_PINNED_TOKENS = 600
"""Token budget of the pinned pages in a turn's briefing (about 2,400 characters)."""
BRIEFING_NOTES_TOKENS = 400
"""Token budget of the working notes in a turn's briefing (about 1,600 characters)."""
_ABSTRACT_CHARS = 160


def approx_tokens(text: str) -> int:
    """A conservative token estimate without a tokenizer: one token per four characters."""
    return math.ceil(len(text) / 4)


def pin_page(page: Page, pinned: bool) -> Page:
    """``page`` pinned (exempt from every sweep, listed first) or unpinned (EPI-1, EPI-13).

    Raises:
        Conflict: ``page_not_pinnable`` when pinning a page that is evicted, superseded or
            deleted (out of search: there is nothing to keep in view). Unpinning always works.
    """
    if pinned and not page.pinned and page.status not in ("active", "cold"):
        raise Conflict(
            f"The page {page.id} is {page.status}; only active or cold pages can be pinned.",
            code="page_not_pinnable",
        )
    return page if page.pinned == pinned else msgspec.structs.replace(page, pinned=pinned)


def is_note(page: Page) -> bool:
    """Whether ``page`` is an open working note (a working page, not pinned, not ended)."""
    return page.layer == "working" and not page.pinned and page.status == "active"


def in_briefing(page: Page) -> bool:
    """Whether a turn's briefing may show ``page``: pinned and in search, or an open note."""
    return (page.pinned and page.status in ("active", "cold")) or is_note(page)


def check_note(text: str) -> str:
    """The note's text, stripped.

    Raises:
        InvalidInput: ``empty_note`` for a blank text; ``note_too_long`` past ``MAX_NOTE_CHARS``.
    """
    stripped = text.strip()
    if not stripped:
        raise InvalidInput("A working note needs some text.", code="empty_note")
    if len(stripped) > MAX_NOTE_CHARS:
        raise InvalidInput(
            f"A working note holds at most {MAX_NOTE_CHARS} characters, not {len(stripped)}.",
            code="note_too_long",
        )
    return stripped


def note_page(
    *,
    id: str,
    chat: str,
    text: str,
    at: datetime,
    author: str | None,
    policy: ArchivePolicy,
    current: Sequence[Page] = (),
) -> Page:
    """A new working note as a working page of ``chat``.

    Args:
        id: the new page's id.
        chat: the chat the note is for.
        text: what the note says (checked by :func:`check_note`).
        at: when it is written (its session is decided from this time).
        author: ``persona:<id>`` or the person's id.
        policy: the archive policy.
        current: the session's notes so far (:func:`current_notes`), for ``MAX_SESSION_NOTES``.

    Raises:
        InvalidInput: ``empty_note``, ``note_too_long``.
        Conflict: ``too_many_notes`` when the session already holds ``MAX_SESSION_NOTES``.
    """
    body = check_note(text)
    if len(current) >= MAX_SESSION_NOTES:
        raise Conflict(
            f"This session already has {MAX_SESSION_NOTES} working notes; they end with the session.",
            code="too_many_notes",
        )
    first = body.splitlines()[0]
    abstract = first if len(first) <= _ABSTRACT_CHARS else first[: _ABSTRACT_CHARS - 1].rstrip() + "…"
    page = new_page(
        id=id, chat=chat, created_at=at, policy=policy, layer="working", abstract=abstract, body=body
    )
    return msgspec.structs.replace(page, summary=body, author=author)


def notes_since(times: Iterable[datetime], at: datetime, gap: timedelta) -> datetime | None:
    """The earliest time a working note may have been written and still belong to the session
    running at ``at``: the end of the previous session (its last message) plus ``gap``.

    Args:
        times: send times of the chat's messages up to ``at`` (any order; later ones ignored).
        at: the time of the message the turn answers (or now, for a person's view).
        gap: the idle gap that ends a session.

    Returns:
        That time, or ``None`` when the messages show no earlier session (every open note counts).
    """
    require_aware(at, "time")
    later = at
    for sent in sorted((t for t in times if t <= at), reverse=True):
        if later - sent >= gap:
            return sent + gap
        later = sent
    return None


def current_notes(pages: Iterable[Page], since: datetime | None) -> tuple[Page, ...]:
    """The open working notes written at or after ``since`` (all when ``None``), oldest first."""
    notes = [p for p in pages if is_note(p) and (since is None or p.created_at >= since)]
    return tuple(sorted(notes, key=lambda p: (p.created_at, p.id)))


def end_notes(pages: Sequence[Page], gap: timedelta) -> tuple[tuple[Page, ...], tuple[str, ...]]:
    """Move the working notes of archived sessions into their session pages (EPI-1).

    A note belongs to the first session page (by end time) whose session ended less than
    ``gap`` before the note was written (or after it); notes written ``gap`` or more after the
    newest archived session belong to a session not archived yet and stay.

    Returns:
        The session pages to store (with the notes appended to ``notes``) and the note ids to
        delete; both empty when there is nothing to end.
    """
    sessions = sorted(
        (p for p in pages if p.layer == "episodic" and p.first_position is not None),
        key=lambda p: (p.created_at, p.id),
    )
    if not sessions:
        return (), ()
    cutoff = sessions[-1].created_at + gap
    ended = sorted((p for p in pages if is_note(p) and p.created_at < cutoff), key=lambda p: p.created_at)
    kept: dict[str, list[WorkingNote]] = {}
    for note in ended:
        owner = next((s for s in sessions if s.created_at + gap > note.created_at), sessions[-1])
        kept.setdefault(owner.id, []).append(
            WorkingNote(id=note.id, text=note.body, at=note.created_at, author=note.author)
        )
    updates = tuple(
        msgspec.structs.replace(s, notes=(*s.notes, *kept[s.id])) for s in sessions if s.id in kept
    )
    return updates, tuple(note.id for note in ended)


class Briefing(msgspec.Struct, frozen=True, kw_only=True):
    """What the archive puts in a turn's prompt by itself: pinned page lines and note lines."""

    pinned: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    pinned_ids: tuple[str, ...] = ()
    note_ids: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        """Whether there is nothing to show."""
        return not (self.pinned or self.notes)


def _pinned_line(page: Page) -> str:
    parts = [page.abstract] if page.abstract else []
    if page.summary and page.summary != page.abstract:
        parts.append(page.summary)
    return f"[{page.id}] {' — '.join(parts) or page.body}"


def _cut(line: str, tokens: int, estimate: Callable[[str], int]) -> str:
    kept = line[: max(0, tokens * 4 - 1)]
    while kept and estimate(kept + "…") > tokens:
        kept = kept[: len(kept) * 9 // 10]
    return kept.rstrip() + "…"


def briefing(
    pages: Sequence[Page],
    since: datetime | None,
    *,
    pinned_tokens: int = BRIEFING_PINNED_TOKENS,
    notes_tokens: int = BRIEFING_NOTES_TOKENS,
    estimate: Callable[[str], int] = approx_tokens,
) -> Briefing:
    """The turn's briefing over a chat's pinned pages and working notes (see the module docstring).

    Args:
        pages: the chat's pinned pages and working notes (other pages are ignored).
        since: from :func:`notes_since` for the answered message.
        pinned_tokens: the budget of the pinned pages; a page that does not fit is left out,
            except the first, which is cut to fit.
        notes_tokens: the budget of the notes; the oldest are left out first.
        estimate: the token estimate of a line.
    """
    by_id = {p.id: p for p in pages}
    pinned: list[tuple[str, str]] = []
    spent = 0
    for page_id in pinned_first((), pages, MAX_PINNED_FIRST):
        line = _pinned_line(by_id[page_id])
        cost = estimate(line)
        if spent + cost > pinned_tokens:
            if not pinned:
                pinned.append((page_id, _cut(line, pinned_tokens, estimate)))
            break
        pinned.append((page_id, line))
        spent += cost
    notes: list[tuple[str, str]] = []
    spent = 0
    for note in reversed(current_notes(pages, since)):
        line = note.body
        cost = estimate(line)
        if spent + cost > notes_tokens:
            break
        notes.insert(0, (note.id, line))
        spent += cost
    return Briefing(
        pinned=tuple(line for _, line in pinned),
        notes=tuple(line for _, line in notes),
        pinned_ids=tuple(i for i, _ in pinned),
        note_ids=tuple(i for i, _ in notes),
    )
