"""EPI-1: sessions end after an idle gap; every session leaves one page."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from engine.archive import (
    ArchivePolicy,
    first_paragraph,
    is_closed,
    new_page,
    session_gap,
    session_page,
    split_sessions,
)
from engine.errors import InvalidInput

from .helpers import BODY, POLICY, T0

H = timedelta(hours=1)
GAP = 6 * H


def _at(hours: float) -> datetime:
    return T0 + hours * H


def test_epi_1_an_idle_gap_ends_a_session() -> None:
    messages = [(1.0, _at(0)), (1.5, _at(1)), (2.0, _at(6.99)), (3.0, _at(13)), (3.5, _at(13.1))]
    sessions = split_sessions(messages, GAP)
    assert [(s.first_position, s.last_position, s.count) for s in sessions] == [(1.0, 2.0, 3), (3.0, 3.5, 2)]
    assert sessions[0].started_at == _at(0)
    assert sessions[0].ended_at == _at(6.99)


def test_epi_1_a_gap_of_exactly_the_setting_ends_the_session() -> None:
    assert len(split_sessions([(1.0, _at(0)), (2.0, _at(6))], GAP)) == 2


def test_epi_1_messages_are_ordered_by_position() -> None:
    sessions = split_sessions([(3.0, _at(20)), (1.0, _at(0)), (2.0, _at(1))], GAP)
    assert [(s.first_position, s.last_position) for s in sessions] == [(1.0, 2.0), (3.0, 3.0)]


def test_epi_1_no_messages_no_sessions() -> None:
    assert split_sessions([], GAP) == ()


def test_epi_1_gap_is_configurable_and_defaults_to_six_hours() -> None:
    assert session_gap(POLICY) == GAP
    assert session_gap(ArchivePolicy(session_gap_secs=60)) == timedelta(minutes=1)
    messages = [(1.0, _at(0)), (2.0, _at(0.5))]
    assert len(split_sessions(messages, session_gap(ArchivePolicy(session_gap_secs=600)))) == 2


@pytest.mark.parametrize("gap", [timedelta(0), -H])
def test_epi_1_gap_must_be_positive(gap: timedelta) -> None:
    with pytest.raises(InvalidInput) as err:
        split_sessions([(1.0, _at(0))], gap)
    assert err.value.code == "invalid_session_gap"


def test_epi_1_naive_times_are_refused() -> None:
    with pytest.raises(InvalidInput) as err:
        split_sessions([(1.0, datetime(2026, 1, 1))], GAP)  # noqa: DTZ001
    assert err.value.code == "naive_datetime"


def test_epi_1_the_last_session_runs_until_the_gap_passes() -> None:
    (session,) = split_sessions([(1.0, _at(0)), (2.0, _at(2))], GAP)
    assert not is_closed(session, _at(7.9), GAP)
    assert is_closed(session, _at(8), GAP)


def test_epi_1_first_paragraph() -> None:
    assert first_paragraph("\n\n  One line\ncontinues.\n\nSecond.") == "One line continues."
    assert first_paragraph("") == ""


def test_epi_1_session_page_holds_abstract_summary_body_and_tokens() -> None:
    (session,) = split_sessions([(4.0, _at(0)), (9.5, _at(3))], GAP)
    page = session_page(
        id="p1", chat="web:c", session=session, policy=POLICY, abstract="Deploy", summary="", body=BODY
    )
    assert page.layer == "episodic"
    assert page.created_at == _at(3)
    assert (page.first_position, page.last_position) == (4.0, 9.5)
    assert page.summary == "We fixed the deploy of the bot together."
    assert page.body == BODY
    assert "/srv/hearth/config/settings.toml" in page.keep
    assert "`make run`" in page.keep
    assert (page.version, page.versions, page.status, page.salience) == (1, (), "active", 1.0)


def test_epi_1_new_page_needs_an_id_and_an_aware_time() -> None:
    with pytest.raises(InvalidInput) as err:
        new_page(id=" ", chat="c", created_at=T0, policy=POLICY)
    assert err.value.code == "empty_page_id"
    with pytest.raises(InvalidInput):
        new_page(id="p", chat="c", created_at=datetime(2026, 1, 1), policy=POLICY)  # noqa: DTZ001


def test_epi_1_new_page_in_another_layer_keeps_the_given_summary() -> None:
    page = new_page(
        id="r",
        chat="c",
        created_at=datetime(2026, 1, 2, tzinfo=UTC),
        policy=POLICY,
        layer="procedural",
        summary="Always answer in Vietnamese.",
        body="long\n\ntext",
        links=("m1", "m1", "p2"),
    )
    assert (page.layer, page.summary, page.links) == (
        "procedural",
        "Always answer in Vietnamese.",
        ("m1", "p2"),
    )
