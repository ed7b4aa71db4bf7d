"""EPI-1 pins and working notes, EPI-13 the briefing and explore's budget (issue 34), pure part."""

from __future__ import annotations

from datetime import timedelta

import msgspec
import pytest

from engine.archive import (
    BRIEFING_PINNED_TOKENS,
    Page,
    approx_tokens,
    briefing,
    current_notes,
    end_notes,
    note_page,
    notes_since,
    pin_page,
    plan_sweep,
)
from engine.archive.answer import ReasoningBudget
from engine.archive.explore import explore
from engine.errors import Conflict

from .helpers import POLICY, day, page

GAP = timedelta(hours=6)


def note(note_id: str, at: float, text: str = "a note") -> Page:
    return note_page(id=note_id, chat="web:c", text=text, at=day(at), author="web:ana", policy=POLICY)


def test_epi_1_a_pinned_page_is_never_swept_and_pinning_refuses_evicted_pages() -> None:
    """Issue 34: equally cold pages, one pinned — the sweep evicts only the other."""
    kept, lost = pin_page(page("kept", 0), True), page("lost", 0)
    plan = plan_sweep([kept, lost], day(300), POLICY)
    assert [p.id for p in plan.updates] == ["lost"] and plan.updates[0].status == "evicted"
    with pytest.raises(Conflict):
        pin_page(plan.updates[0], True)
    assert not pin_page(pin_page(plan.updates[0], False), False).pinned  # unpinning always works


def test_epi_1_a_note_belongs_to_the_session_running_when_it_was_written() -> None:
    """Issue 34: the session starts after the last idle gap; a note written in the gap belongs
    to the session that follows."""
    times = [day(0), day(0) + timedelta(hours=1), day(1), day(1) + timedelta(minutes=5)]
    since = notes_since(times, day(1) + timedelta(minutes=5), GAP)
    assert since == day(0) + timedelta(hours=7)  # the last message before the gap + the gap
    assert notes_since(times[:2], day(0) + timedelta(hours=1), GAP) is None  # one session only
    old, gap_note, new = note("n1", 0.01), note("n2", 0.5), note("n3", 1.001)
    assert [n.id for n in current_notes([old, gap_note, new], since)] == ["n2", "n3"]


def test_epi_1_ended_notes_move_into_their_session_pages_history() -> None:
    """Issue 34: notes of archived sessions join their page's ``notes``; a later one stays."""
    first = msgspec.structs.replace(page("s1", 0), first_position=1.0, last_position=3.0)
    second = msgspec.structs.replace(page("s2", 1), first_position=4.0, last_position=6.0)
    a, b, c = note("a", -0.1), note("b", 0.9), note("c", 1.5)
    updates, gone = end_notes([first, second, a, b, c], GAP)
    assert gone == ("a", "b")
    assert {p.id: [n.id for n in p.notes] for p in updates} == {"s1": ["a"], "s2": ["b"]}


def test_epi_13_the_briefing_keeps_to_its_token_budgets() -> None:
    """Issue 34: at most ten pinned pages, newest first, within the budget; the newest notes."""
    pinned = [pin_page(page(f"p{n:02}", n), True) for n in range(12)]
    shown = briefing(pinned, None)
    assert len(shown.pinned_ids) <= 10 and shown.pinned_ids[0] == "p11"
    assert sum(approx_tokens(line) for line in shown.pinned) <= BRIEFING_PINNED_TOKENS
    huge = pin_page(page("huge", 0, abstract="x" * 10_000, summary=""), True)
    (line,) = briefing([huge], None, pinned_tokens=50).pinned
    assert approx_tokens(line) <= 50 and line.endswith("…")
    notes = [note(f"n{i}", 0.001 * i, text=f"note {i} " + "y" * 90) for i in range(10)]
    kept = briefing(notes, None, notes_tokens=60)
    assert kept.note_ids == ("n8", "n9")


def test_epi_13_explore_stops_at_the_reasoning_budget() -> None:
    """Issue 34: explore reads seeds then linked pages, until the next would pass the budget."""
    a = page("a", 0, links=("b",), abstract="A", summary="x" * 400)
    b = page("b", 0, links=("c",), abstract="B", summary="y" * 400)
    c = page("c", 0, abstract="C", summary="z" * 400)
    wide = explore(["a"], [a, b, c], ReasoningBudget(max_tokens=1000, results=3, hops=2))
    assert [s.id for s in wide.steps] == ["a", "b", "c"] and wide.stopped == "exhausted"
    tight = explore(["a"], [a, b, c], ReasoningBudget(max_tokens=250, results=3, hops=2))
    assert tight.reads == ("a", "b") and tight.stopped == "budget" and tight.spent <= 250
