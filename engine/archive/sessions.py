"""Sessions and the pages they leave (EPI-1).

A session is a run of messages with no idle gap of ``gap`` or more between consecutive ones;
the first message after such a gap starts a new session. The last session of a chat is still
running until ``gap`` has passed since its last message (:func:`is_closed`). Every closed session
leaves one episodic page (:func:`session_page`); the service writes its abstract, summary and body
(LLM or extractive summarizer) and this module adds the keep-worthy tokens.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

import msgspec

from engine.archive.model import ArchivePolicy, Layer, Page, require_aware
from engine.archive.tokens import keep_worthy
from engine.errors import InvalidInput

__all__ = [
    "Session",
    "first_paragraph",
    "is_closed",
    "new_page",
    "session_gap",
    "session_page",
    "split_sessions",
]


class Session(msgspec.Struct, frozen=True, kw_only=True):
    """One session: the positions and times of its first and last messages."""

    first_position: float
    last_position: float
    started_at: datetime
    ended_at: datetime
    count: int


def session_gap(policy: ArchivePolicy) -> timedelta:
    """The idle gap that ends a session under ``policy``."""
    return timedelta(seconds=policy.session_gap_secs)


def split_sessions(messages: Iterable[tuple[float, datetime]], gap: timedelta) -> tuple[Session, ...]:
    """Cut a chat's messages into sessions at every idle gap of ``gap`` or more.

    Args:
        messages: ``(position, sent_at)`` pairs in any order; ``sent_at`` tz-aware.
        gap: the idle gap that ends a session (positive).

    Returns:
        The sessions in position order; empty when there are no messages.

    Raises:
        InvalidInput: ``invalid_session_gap`` when ``gap`` is not positive; ``naive_datetime``
            when a message time has no time zone.
    """
    if gap <= timedelta(0):
        raise InvalidInput(f"The session gap must be positive, not {gap}.", code="invalid_session_gap")
    ordered = sorted(messages, key=lambda m: m[0])
    sessions: list[Session] = []
    current: Session | None = None
    for position, sent_at in ordered:
        require_aware(sent_at, "message time")
        if current is not None and sent_at - current.ended_at < gap:
            current = msgspec.structs.replace(
                current,
                last_position=position,
                ended_at=max(current.ended_at, sent_at),
                count=current.count + 1,
            )
            continue
        if current is not None:
            sessions.append(current)
        current = Session(
            first_position=position, last_position=position, started_at=sent_at, ended_at=sent_at, count=1
        )
    if current is not None:
        sessions.append(current)
    return tuple(sessions)


def is_closed(session: Session, now: datetime, gap: timedelta) -> bool:
    """Whether ``session`` has ended: ``gap`` or more has passed since its last message."""
    return require_aware(now, "now") - session.ended_at >= gap


def first_paragraph(text: str) -> str:
    """The first non-empty paragraph of ``text`` (paragraphs are separated by blank lines)."""
    paragraph: list[str] = []
    for line in text.splitlines():
        if line.strip():
            paragraph.append(line.strip())
        elif paragraph:
            break
    return " ".join(paragraph)


def new_page(
    *,
    id: str,
    chat: str,
    created_at: datetime,
    policy: ArchivePolicy,
    layer: Layer = "episodic",
    abstract: str = "",
    summary: str = "",
    body: str = "",
    links: Sequence[str] = (),
    pinned: bool = False,
) -> Page:
    """A new page at version 1 with its keep-worthy tokens and the default salience.

    An empty ``summary`` becomes the first paragraph of ``body``.

    Raises:
        InvalidInput: ``empty_page_id`` without an id; ``naive_datetime`` for a naive time.
    """
    if not id.strip():
        raise InvalidInput("A page needs a non-empty id.", code="empty_page_id")
    require_aware(created_at, "page time")
    summary = summary or first_paragraph(body)
    return Page(
        id=id,
        chat=chat,
        layer=layer,
        created_at=created_at,
        abstract=abstract,
        summary=summary,
        body=body,
        keep=keep_worthy("\n\n".join((abstract, summary, body))),
        salience=policy.default_salience,
        pinned=pinned,
        links=tuple(dict.fromkeys(links)),
        version_at=created_at,
    )


def session_page(
    *, id: str, chat: str, session: Session, policy: ArchivePolicy, abstract: str, summary: str, body: str
) -> Page:
    """The episodic page a closed ``session`` leaves; its age counts from the session's end."""
    page = new_page(
        id=id,
        chat=chat,
        created_at=session.ended_at,
        policy=policy,
        abstract=abstract,
        summary=summary,
        body=body,
    )
    return msgspec.structs.replace(
        page, first_position=session.first_position, last_position=session.last_position
    )
