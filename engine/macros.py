"""Card macros (``{{char}}``, ``{{user}}``, ``{{time}}``, ...), one module for prompts and lore (LORE-17).

:func:`expand` replaces the macros SillyTavern cards commonly use; anything else between
``{{`` and ``}}`` is left exactly as written. Names are case-insensitive. The module is pure:
the time comes from :class:`MacroContext` (the turn's message time, never the clock) and every
"random" choice is a hash of the context's seeds, so the same turn renders the same text.

Supported:

* ``{{char}}`` (the persona's name), ``{{user}}`` (the speaker's name).
* ``{{time}}`` ``3:07 PM``, ``{{date}}`` ``December 1, 2026``, ``{{weekday}}`` ``Tuesday``,
  ``{{isotime}}`` ``15:07``, ``{{isodate}}`` ``2026-12-01``, ``{{time_UTC+2}}`` (the message time
  shifted to a UTC offset); left as written when the context has no time.
* ``{{random::a::b}}`` / ``{{random:a,b}}``: one of the options, rolled per turn.
* ``{{pick::a::b}}`` / ``{{pick:a,b}}``: one of the options, stable for the chat (the same macro
  at the same place in the same text always picks the same option).
* ``{{roll:d20}}`` / ``{{roll:2d6}}`` / ``{{roll::6}}``: a dice roll, per turn.
* ``{{newline}}`` (a line break), ``{{noop}}`` and ``{{// comment}}`` (nothing).
* The legacy placeholders of old cards, in any case: ``<USER>`` as ``{{user}}``, ``<BOT>`` and
  ``<CHAR>`` as ``{{char}}`` (SillyTavern replaces them the same way).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from hashlib import blake2b
from typing import Final

import msgspec

__all__ = ["MacroContext", "expand", "has_macros"]

_MACRO: Final = re.compile(r"\{\{([^{}]*)\}\}")
_LEGACY: Final = re.compile(r"<(user|bot|char)>", re.IGNORECASE)
_ANY: Final = re.compile(r"\{\{([^{}]*)\}\}|<(user|bot|char)>", re.IGNORECASE)
_DICE: Final = re.compile(r"^\s*(\d*)\s*d?\s*(\d+)\s*$", re.IGNORECASE)
_UTC: Final = re.compile(r"^time_utc([+-]\d{1,2})$")
_MONTHS: Final = (
    *("January", "February", "March", "April", "May", "June"),
    *("July", "August", "September", "October", "November", "December"),
)
_DAYS: Final = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


class MacroContext(msgspec.Struct, frozen=True, kw_only=True):
    """What macros may use.

    Attributes:
        char: The persona's (character's) name.
        user: The speaker's name.
        now: The turn's message time; ``None`` leaves the time macros as written.
        chat_seed: Seed of ``{{pick}}`` (the chat id: stable for the chat).
        turn_seed: Seed of ``{{random}}`` and ``{{roll}}`` (the turn: stable within one turn).
    """

    char: str = ""
    user: str = ""
    now: datetime | None = None
    chat_seed: str = ""
    turn_seed: str = ""


def has_macros(text: str) -> bool:
    """Whether ``text`` contains something shaped like a macro (``{{...}}`` or a legacy ``<USER>``)."""
    return ("{{" in text and _MACRO.search(text) is not None) or (
        "<" in text and _LEGACY.search(text) is not None
    )


def expand(text: str, ctx: MacroContext) -> str:
    """Replace the known macros of ``text``; unknown ones stay as written.

    Args:
        text: Any text (a prompt section, a lore key, an entry's content).
        ctx: Names, time and seeds.

    Returns:
        The text with macros replaced.
    """
    if not has_macros(text):
        return text

    def one(found: re.Match[str]) -> str:
        if found.group(2) is not None:  # one pass: a name put in is never expanded again
            return _legacy(found.group(2), ctx)
        value = _macro(found.group(1), found.start(), text, ctx)
        return found.group(0) if value is None else value

    return _ANY.sub(one, text)


def _macro(body: str, offset: int, text: str, ctx: MacroContext) -> str | None:
    name, sep, rest = _split_name(body)
    low = name.strip().lower()
    if body.lstrip().startswith("//"):
        return ""
    simple = {"char": ctx.char, "user": ctx.user, "newline": "\n", "noop": ""}
    if low in simple and not sep:
        return simple[low]
    if ctx.now is not None and not sep:
        clock = _clock(low, ctx.now)
        if clock is not None:
            return clock
    if low in ("random", "pick") and sep:
        options = _options(rest, sep)
        if not options:
            return None
        seed = ctx.turn_seed if low == "random" else ctx.chat_seed
        chosen = options[_hash(f"{low}:{seed}:{offset}:{body}:{text}") % len(options)]
        return _LEGACY.sub(lambda found: _legacy(found.group(1), ctx), chosen)
    if low == "roll" and sep:
        return _roll(rest, f"roll:{ctx.turn_seed}:{offset}:{body}")
    return None


def _legacy(name: str, ctx: MacroContext) -> str:
    """``<USER>`` is the speaker, ``<BOT>`` and ``<CHAR>`` the persona."""
    return ctx.user if name.lower() == "user" else ctx.char


def _split_name(body: str) -> tuple[str, str, str]:
    if "::" in body:
        name, _, rest = body.partition("::")
        return name, "::", rest
    name, sep, rest = body.partition(":")
    return name, sep, rest


def _options(rest: str, sep: str) -> list[str]:
    parts = rest.split("::") if sep == "::" else rest.split(",")
    return [p.strip() if sep == ":" else p for p in parts]


def _roll(rest: str, seed: str) -> str | None:
    dice = _DICE.match(rest)
    if dice is None:
        return None
    count, sides = int(dice.group(1) or 1), int(dice.group(2))
    if not 1 <= count <= 100 or sides < 1:
        return None
    return str(sum(_hash(f"{seed}:{i}") % sides + 1 for i in range(count)))


def _clock(name: str, now: datetime) -> str | None:
    shifted = _UTC.match(name)
    if shifted is not None:
        base = now if now.tzinfo is not None else now.replace(tzinfo=UTC)
        return _time(base.astimezone(timezone(timedelta(hours=int(shifted.group(1))))))
    formats = {
        "time": lambda: _time(now),
        "date": lambda: f"{_MONTHS[now.month - 1]} {now.day}, {now.year}",
        "weekday": lambda: _DAYS[now.weekday()],
        "isotime": lambda: f"{now.hour:02d}:{now.minute:02d}",
        "isodate": lambda: f"{now.year:04d}-{now.month:02d}-{now.day:02d}",
    }
    render = formats.get(name)
    return render() if render is not None else None


def _time(moment: datetime) -> str:
    hour = moment.hour % 12 or 12
    return f"{hour}:{moment.minute:02d} {'AM' if moment.hour < 12 else 'PM'}"


def _hash(text: str) -> int:
    return int.from_bytes(blake2b(text.encode(), digest_size=8).digest(), "big")
