"""Account rules without Redis: usernames, passwords, room names, the Origin check."""

from __future__ import annotations

import pytest

from adapters.web.accounts import check_password, check_username, room_slug, room_title
from adapters.web.app_auth import origin_ok
from engine.errors import InvalidInput


@pytest.mark.parametrize(("raw", "name"), [("Alice", "alice"), ("  bob_99 ", "bob_99"), ("k-9", "k-9")])
def test_usernames_are_normalized_to_lowercase(raw: str, name: str) -> None:
    assert check_username(raw) == name


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("ab", "username_invalid"),
        ("a" * 33, "username_invalid"),
        ("9lives", "username_invalid"),
        ("al ice", "username_invalid"),
        ("al.ice", "username_invalid"),  # '.' and '+' would blur chat ownership
        ("al+ice", "username_invalid"),
        ("ålice", "username_invalid"),
        ("admin", "username_reserved"),
        ("guest-0123456789abcdef", "username_reserved"),  # would be a guest's user id
        ("guestbook", "username_reserved"),
    ],
)
def test_bad_usernames_are_refused_with_a_code(raw: str, code: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        check_username(raw)
    assert caught.value.code == code


@pytest.mark.parametrize(
    ("password", "code"),
    [("short", "password_too_short"), ("x" * 257, "password_too_long"), ("Alice_ok", "password_is_username")],
)
def test_bad_passwords_are_refused(password: str, code: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        check_password(password, "alice_ok")
    assert caught.value.code == code


def test_a_long_passphrase_without_symbols_is_fine() -> None:
    check_password("correct horse battery staple", "alice")


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("Book club", "book-club"),
        ("  Trip to Rome!! ", "trip-to-rome"),
        ("Café ☕ talk", "cafe-talk"),
        ("x" * 40, "x" * 24),
    ],
)
def test_room_slugs(name: str, slug: str) -> None:
    assert room_slug(name) == slug


def test_a_room_named_only_in_another_script_still_gets_a_slug() -> None:
    assert room_slug("Сад").startswith("room-")


@pytest.mark.parametrize("name", ["", "   ", "main", "Main"])
def test_empty_or_main_room_names_are_refused(name: str) -> None:
    with pytest.raises(InvalidInput):
        room_slug(name)


def test_room_titles_collapse_spaces_and_are_limited() -> None:
    assert room_title("  Book   club ") == "Book club"
    with pytest.raises(InvalidInput):
        room_title("x" * 61)


@pytest.mark.parametrize(
    ("origin", "host", "ok"),
    [
        (None, "hearth.example", True),  # no Origin: the CSRF token still has to match
        ("https://hearth.example", "hearth.example", True),
        ("http://127.0.0.1:8000", "127.0.0.1:8000", True),
        ("https://HEARTH.example", "hearth.example", True),
        ("https://evil.example", "hearth.example", False),
        ("https://hearth.example.evil.example", "hearth.example", False),
        ("http://127.0.0.1:8001", "127.0.0.1:8000", False),
        ("null", "hearth.example", False),
        ("https://hearth.example", None, False),
    ],
)
def test_origin_check(origin: str | None, host: str | None, ok: bool) -> None:
    assert origin_ok(origin, host) is ok
