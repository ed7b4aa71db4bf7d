"""The time match of recall (RECALL-1, issue 28): the periods a message names against the turn's
time, and whether a memory was created in one."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest

from engine.memory.periods import periods, time_match

NOW = datetime(2024, 1, 20, 15, 30, tzinfo=UTC)


def _day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "start", "days"),
    [
        ("Where was Emily on 31 Dec 2023?", _day(2023, 12, 31), 1),
        ("Where is Vanessa planning to go on 16.01.2024?", _day(2024, 1, 16), 1),
        ("What happened on 2024-01-05?", _day(2024, 1, 5), 1),
        ("What game did Akib watch on December 28, 2023?", _day(2023, 12, 28), 1),
        ("Where is Vanessa going on the 10th of February 2024?", _day(2024, 2, 10), 1),
        ("Which place did Emily visit in the first week of 2024?", _day(2024, 1, 1), 7),
        ("And the second week of March 2024?", _day(2024, 3, 8), 7),
        ("What books did Fahim start to read in January?", _day(2024, 1, 1), 31),
        ("What did we talk about in December?", _day(2023, 12, 1), 31),
        ("What did I cook yesterday?", _day(2024, 1, 19), 1),
        ("Anything planned for today?", _day(2024, 1, 20), 1),
        ("What did I read last week?", _day(2024, 1, 13), 7),
    ],
)
def test_a_named_day_or_period_is_read(text: str, start: datetime, days: int) -> None:
    """A day, a week, a month (without a year: the latest one not after the turn) or a relative
    word gives that span, ``[start, start + days)``."""
    assert periods(text, NOW) == [(start, start + timedelta(days=days))]


@pytest.mark.parametrize(
    "text",
    [
        "What may Kate like?",
        "How old are Deborah's cats?",
        "Call me at 5",
        "Что ты делал вчера?",  # Russian "yesterday": only English words are read
        "",
    ],
)
def test_no_period_named_matches_every_memory(text: str) -> None:
    """'may' the verb, an age, a time of day or another language name no period, and then
    every memory matches."""
    assert periods(text, NOW) == []
    assert time_match(periods(text, NOW), _day(1999, 5, 1)) == 1.0


def test_a_memory_matches_its_day_with_a_day_of_slack() -> None:
    """A memory created on the named day, or up to one day either side, matches; two days
    off it does not."""
    spans = periods("What did Emily do on 31 Dec 2023?", NOW)
    assert time_match(spans, datetime(2023, 12, 31, 13, tzinfo=UTC)) == 1.0
    assert time_match(spans, datetime(2024, 1, 1, 20, tzinfo=UTC)) == 1.0  # after midnight
    assert time_match(spans, datetime(2023, 12, 30, 2, tzinfo=UTC)) == 1.0
    assert time_match(spans, datetime(2024, 1, 2, 0, 1, tzinfo=UTC)) == 0.0
    assert time_match(spans, datetime(2023, 12, 29, 23, tzinfo=UTC)) == 0.0


@pytest.mark.parametrize(
    "text",
    ["on 01.01.0001", "on 31.12.9999", "the first week of 0001", "in December 9999", "on 0000-01-01"],
)
def test_far_past_and_far_future_dates_never_overflow(text: str) -> None:
    """A date at the calendar's ends is not read (no span would fit), and matching never raises."""
    assert periods(text, NOW) == []


@pytest.mark.parametrize("now", [datetime(1, 1, 1, tzinfo=UTC), datetime(9999, 12, 31, 23, tzinfo=UTC)])
def test_relative_words_at_the_calendars_ends_never_overflow(now: datetime) -> None:
    """'yesterday' or 'in January' with a turn time at the calendar's ends reads nothing."""
    spans = periods("what did I do yesterday and in January, last week?", now)
    assert time_match(spans, now) in (0.0, 1.0)


def test_an_impossible_date_is_not_read() -> None:
    """31.02 and month 13 are no day."""
    assert periods("on 31.02.2024 or 12.13.2024", NOW) == []


def test_hostile_input_reads_in_linear_time() -> None:
    """Long runs of near-dates cost time proportional to the read length: a message 100 times
    longer than the read limit takes about as long as one at the limit."""
    piece = "1 of dec 12 december 1st, 2024-0 first week of mar 1.1.1 "

    def took(text: str) -> float:
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            periods(text, NOW)
            best = min(best, time.perf_counter() - start)
        return best

    short = piece * (1_500 // len(piece))
    assert took(piece * 100_000) < 50 * took(short) + 0.05
    assert took(piece * 100_000) < 1.0
