"""Notices a reply carries: what it saved or forgot in memory (DEC-11), and that the model could
not see a picture.

A space chooses how visible they are: ``off`` (nothing), ``brief`` (counts only, the default),
or ``full`` (the texts).
"""

from __future__ import annotations

from typing import Literal

from engine.requestlog import MemoryNote

__all__ = ["NOTICE_LEVELS", "NO_VISION", "NO_VISION_NOTICE", "NoticeLevel", "notice_level", "render_notices"]

NoticeLevel = Literal["off", "brief", "full"]
NOTICE_LEVELS: tuple[str, ...] = ("off", "brief", "full")
_LEVELS: dict[str, NoticeLevel] = {"off": "off", "brief": "brief", "full": "full"}
NO_VISION = "no_vision"
NO_VISION_NOTICE = (
    "This model cannot see pictures: it was told only that you sent one (its type and size). "
    "Describe it in words if it matters."
)
"""Shown once per chat when a picture reaches a model without vision (``engine.images``)."""
_VERBS = {"saved": "Saved", "updated": "Updated", "deleted": "Deleted", "forgotten": "Forgot"}


def notice_level(stored: str) -> NoticeLevel:
    """A stored visibility setting as a level; anything unknown reads as ``brief`` (the default)."""
    return _LEVELS.get(stored, "brief")


def render_notices(notes: tuple[MemoryNote, ...], level: NoticeLevel) -> tuple[str, ...]:
    """The notices to show for a turn's memory writes.

    Args:
        notes: what the turn saved, updated, deleted or forgot.
        level: the space's visibility setting.

    Returns:
        One line per write (``full``), one summary line (``brief``), or nothing (``off``).
    """
    if level == "off" or not notes:
        return ()
    if level == "full":
        return tuple(f"{_VERBS[n.kind]} a {n.scope} memory: “{n.text}”" for n in notes)
    counts: dict[str, int] = {}
    for note in notes:
        counts[note.kind] = counts.get(note.kind, 0) + 1
    parts = [f"{_VERBS[k].lower()} {n} memor{'y' if n == 1 else 'ies'}" for k, n in counts.items()]
    text = ", ".join(parts)
    return (text[:1].upper() + text[1:] + ".",)
