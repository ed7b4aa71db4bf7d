"""Which memory lists a browser user sees and may change (MEM-1, MEM-4, MEM-8)."""

from __future__ import annotations

import pytest

from adapters.web.app_memory import list_of, may_touch
from adapters.web.session import BrowserSession
from engine.memory import global_list, global_personal_list, personal_list, space_list

ALICE = BrowserSession(slug="alice", guest=False, expires=2**40)
BOB = BrowserSession(slug="bob", guest=False, expires=2**40)
GUEST = BrowserSession(slug="guest-0123456789abcdef")


def test_the_panels_four_lists_for_a_users_room() -> None:
    chat = "web:u-alice+trip.bard"
    assert list_of("space", "bard", "web:alice", chat) == space_list("bard", chat)
    assert list_of("personal", "bard", "web:alice", chat) == personal_list("bard", "web:alice", chat)
    assert list_of("personal_global", "bard", "web:alice", chat) == global_personal_list("bard", "web:alice")
    assert list_of("global", "bard", "web:alice", chat) == global_list("web:alice")


@pytest.mark.parametrize(
    ("scope", "alice", "bob"),
    [
        (space_list("default", "web:u-alice"), True, False),
        (space_list("default", "web:u-alice+trip"), True, False),
        (space_list("default", "tg:-100123"), False, False),  # a Telegram group: operators only
        (personal_list("default", "web:alice", "web:u-alice"), True, False),
        (personal_list("default", "web:alice", "tg:-100123"), True, False),  # hers, wherever it is
        (global_personal_list("default", "web:alice"), True, False),
        (global_list("web:alice"), True, False),
        (global_list("web:bob"), False, True),
    ],
)
def test_users_touch_only_their_own_lists_and_their_rooms(scope: object, alice: bool, bob: bool) -> None:
    assert may_touch(ALICE, scope) is alice  # type: ignore[arg-type]
    assert may_touch(BOB, scope) is bob  # type: ignore[arg-type]
    assert may_touch(GUEST, scope) is False  # type: ignore[arg-type]  # MEM-8


def test_a_guest_never_touches_even_its_own_rooms_space() -> None:
    assert may_touch(GUEST, space_list("default", "web:g-0123456789abcdef")) is False
