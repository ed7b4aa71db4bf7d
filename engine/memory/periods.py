"""The periods a message names, and whether a memory was created in one (RECALL-1's time match).

Theory of operation. :func:`periods` reads the days and periods a message names, against the
turn's time ``now`` passed in (the engine has no clock): a day ("31 Dec 2023", "16.01.2024",
"2024-01-16", "December 28, 2023", "the 10th of February 2024"), a month ("January", "March
2024"; without a year, the latest one that starts not after ``now``), a week ("the first week
of 2024", "the second week of March 2024") and the relative words "yesterday", "today" and "last
week". Only English words and numeric dates are read: a message in another language names no
period. A named day takes precedence over a week, a week over a month or a relative word.
Years outside 2..9998 are not read (no span overflows the calendar).

:func:`time_match` is the signal: 1 when the message names no period (every memory matches),
else 1 for a memory created within a named period widened by :data:`TIME_SLACK` either side (talk
after midnight, "yesterday" said the day after), else 0.

Every pattern is a fixed sequence of bounded parts (no nested repetition), so reading a message
takes time linear in its length; only its first :data:`TEXT_CHARS` characters are read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

__all__ = ["TEXT_CHARS", "TIME_SLACK", "Period", "periods", "time_match"]

Period = tuple[datetime, datetime]
"""``[start, end)`` in UTC."""

TIME_SLACK = timedelta(days=1)
"""How far before or after a named period a memory still counts as created in it."""
TEXT_CHARS = 1_500
"""The message characters read (as much as the recall query embeds)."""

_MONTH = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_WEEKS = ("first", "second", "third", "fourth")
_DAY = timedelta(days=1)
_NUMERIC_DMY = re.compile(r"\b(\d{1,2})[./](\d{1,2})[./](\d{4})\b")
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?(?: of)? {_MONTH},? (\d{{4}})\b")
_MONTH_DAY = re.compile(rf"\b{_MONTH} (\d{{1,2}})(?:st|nd|rd|th)?,? (\d{{4}})\b")
_WEEK = re.compile(rf"\b({'|'.join(_WEEKS)}) week of (?:{_MONTH} )?(\d{{4}})\b")
_MONTH_YEAR = re.compile(rf"\b{_MONTH}(?: (\d{{4}}))?\b")
_RELATIVE = re.compile(r"\b(yesterday|today|last week)\b")


def _month(name: str) -> int:
    return _MONTHS.index(name[:3]) + 1


def _year(text: str) -> int | None:
    year = int(text)
    return year if 2 <= year <= 9998 else None


def _days(text: str) -> list[Period]:
    found: list[tuple[str, int, str]] = []
    found += [(y, int(m), d) for d, m, y in _NUMERIC_DMY.findall(text)]
    found += [(y, int(m), d) for y, m, d in _ISO.findall(text)]
    found += [(y, _month(m), d) for d, m, y in _DAY_MONTH.findall(text)]
    found += [(y, _month(m), d) for m, d, y in _MONTH_DAY.findall(text)]
    out = []
    for y, m, d in found:
        year = _year(y)
        if year is None:
            continue
        try:
            start = datetime(year, m, int(d), tzinfo=UTC)
        except ValueError:  # 31.02, month 13
            continue
        out.append((start, start + _DAY))
    return out


def _month_span(year: int, month: int) -> Period:
    start = datetime(year, month, 1, tzinfo=UTC)
    return start, start.replace(year=year + month // 12, month=month % 12 + 1)


def periods(text: str, now: datetime) -> list[Period]:
    """The days or periods ``text`` names, in UTC (see the module docstring); ``now``: the
    turn's time (aware), for the relative words and a month named without its year."""
    text = text[:TEXT_CHARS].lower()
    days = _days(text)
    if days:
        return days
    now = now.astimezone(UTC)
    out = []
    for nth, m, y in _WEEK.findall(text):
        year = _year(y)
        if year is not None:
            start = datetime(year, _month(m) if m else 1, 1, tzinfo=UTC) + 7 * _WEEKS.index(nth) * _DAY
            out.append((start, start + 7 * _DAY))
    if out:
        return out
    for m, y in _MONTH_YEAR.findall(text):
        if m == "may" and not y:
            continue  # the verb
        month = _month(m)
        year = _year(y) if y else _year(str(now.year if month <= now.month else now.year - 1))
        if year is not None:
            out.append(_month_span(year, month))
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if _year(str(now.year)) is not None:
        relative = {
            "yesterday": (today - _DAY, today),
            "today": (today, today + _DAY),
            "last week": (today - 7 * _DAY, today),
        }
        out += [relative[word] for word in dict.fromkeys(_RELATIVE.findall(text))]
    return out


def time_match(spans: Sequence[Period], created_at: datetime) -> float:
    """1.0 when ``spans`` is empty (no period named) or when ``created_at`` falls within one of
    them widened by :data:`TIME_SLACK` either side; else 0.0."""
    if not spans:
        return 1.0
    return float(any(start - TIME_SLACK <= created_at < end + TIME_SLACK for start, end in spans))
