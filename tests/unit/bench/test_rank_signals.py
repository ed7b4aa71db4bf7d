"""The candidate ranking signals of bench/rank_signals.py (issue 28, RECALL-1): the periods a
message names and whether a memory ends with a question, as the measurement reads them."""

from __future__ import annotations

import datetime as dt

import pytest

from bench.rank_signals import asks, periods

NOW = dt.datetime(2024, 1, 20, 15, 30, tzinfo=dt.UTC)


def _day(y: int, m: int, d: int) -> dt.datetime:
    return dt.datetime(y, m, d, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("text", "start", "days"),
    [
        ("Where was Emily on 31 Dec 2023?", _day(2023, 12, 31), 1),
        ("Where is Vanessa planning to go on 16.01.2024?", _day(2024, 1, 16), 1),
        ("What happened on 2024-01-05?", _day(2024, 1, 5), 1),
        ("What baseball game did Akib watch on December 28 2023?", _day(2023, 12, 28), 1),
        ("Where is Vanessa going on the 10th of February 2024?", _day(2024, 2, 10), 1),
        ("Which place did Emily visit in the first week of 2024?", _day(2024, 1, 1), 7),
        ("What books did Fahim start to read in January?", _day(2024, 1, 1), 31),
        ("What did we talk about in December?", _day(2023, 12, 1), 31),
        ("What did I cook yesterday?", _day(2024, 1, 19), 1),
        ("Anything planned for today?", _day(2024, 1, 20), 1),
        ("What did I read last week?", _day(2024, 1, 13), 7),
    ],
)
def test_periods_reads_a_named_day_or_period(text: str, start: dt.datetime, days: int) -> None:
    """A day, a month (the latest one not after the clock), a week or a relative word gives
    that span, ``[start, start + days)``."""
    assert periods(text, NOW) == [(start, start + dt.timedelta(days=days))]


@pytest.mark.parametrize("text", ["What may Kate like?", "How old are Deborah's cats?", "Call me at 5"])
def test_periods_finds_none_without_a_date(text: str) -> None:
    """ "may" the verb, an age or a time of day names no period."""
    assert periods(text, NOW) == []


@pytest.mark.parametrize(
    ("text", "question"),
    [
        ("Hello Emily! How did the basketball game go yesterday?", True),
        ("Did you get to do that cooking class? 😊", True),
        ("Ты придёшь завтра？", True),
        ("هل أنت بخير؟", True),
        ("Is it a question? No, it is a fact.", False),
        ("Kate loves skiing", False),
    ],
)
def test_asks_reads_the_last_sentence(text: str, question: bool) -> None:
    """A memory whose text ends with a question mark (any script's, trailing emoji ignored)
    asks; one whose last sentence states something does not."""
    assert asks(text) is question
