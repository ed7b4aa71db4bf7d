"""MEM-1 scope lists, MEM-2 policy limits, UTC days."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from typing import Any

import pytest

from engine.errors import ConfigError, InvalidInput
from engine.memory import (
    MemoryPolicy,
    ScopeList,
    global_list,
    global_personal_list,
    personal_list,
    scope_list_of,
    space_list,
    utc_day,
)

from .helpers import ALICE, P, S, mem


@pytest.mark.parametrize(
    "key",
    [
        space_list(P, S),
        personal_list(P, ALICE, S),
        global_personal_list(P, ALICE),
        global_list(ALICE),
    ],
)
def test_mem_1_record_belongs_to_the_list_it_was_built_for(key: ScopeList) -> None:
    assert scope_list_of(mem("m", key)) == key


def test_mem_1_global_list_is_shared_by_every_persona() -> None:
    saved_by_a = mem("a", global_list(ALICE), persona="persona-a")
    saved_by_b = mem("b", global_list(ALICE), persona="persona-b")
    assert scope_list_of(saved_by_a) == scope_list_of(saved_by_b) == global_list(ALICE)


def test_mem_1_local_and_global_personal_lists_differ() -> None:
    assert personal_list(P, ALICE, S) != global_personal_list(P, ALICE)
    assert personal_list(P, ALICE, S) != personal_list("other", ALICE, S)


@pytest.mark.parametrize(
    "fields",
    [
        {"scope": "space", "persona": P},
        {"scope": "space", "persona": P, "space": S, "owner": ALICE},
        {"scope": "personal", "persona": P, "owner": ALICE},
        {"scope": "personal", "persona": P, "owner": ALICE, "space": S, "is_global": True},
        {"scope": "global", "persona": P, "owner": ALICE},
        {"scope": "global"},
    ],
)
def test_mem_1_inconsistent_scope_list_is_refused(fields: dict[str, Any]) -> None:
    with pytest.raises(InvalidInput) as caught:
        ScopeList(**fields)
    assert caught.value.code == "invalid_scope_list"


def test_mem_2_default_limits() -> None:
    policy = MemoryPolicy()
    assert (policy.max_unpinned, policy.max_pinned, policy.max_chars) == (100, 20, 500)
    assert (policy.carry_limit, policy.recent_days, policy.dormant_after) == (100, 7, 7)
    assert policy.used_matches == 3


@pytest.mark.parametrize(
    "fields", [{"max_unpinned": -1}, {"max_chars": 0}, {"dormant_after": 0}, {"used_matches": -2}]
)
def test_mem_2_policy_rejects_impossible_limits(fields: dict[str, Any]) -> None:
    with pytest.raises(ConfigError) as caught:
        MemoryPolicy(**fields)
    assert caught.value.code == "invalid_policy"
    assert next(iter(fields)) in caught.value.message


def test_utc_day_uses_the_utc_calendar() -> None:
    evening_in_new_york = datetime(2025, 3, 3, 21, 30, tzinfo=timezone(timedelta(hours=-5)))
    assert utc_day(evening_in_new_york) == date(2025, 3, 4)


def test_utc_day_refuses_a_naive_time() -> None:
    with pytest.raises(InvalidInput) as caught:
        utc_day(datetime(2025, 3, 3, 12))  # noqa: DTZ001 - the naive time is the point
    assert caught.value.code == "naive_datetime"
