"""Signed session cookies: guests, users, forgeries, expiry, CSRF tokens (issue 7, MEM-8)."""

from __future__ import annotations

import hashlib
import hmac

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters.web.session import MAIN_ROOM, BrowserSession, SessionSigner, chat_for

SIGNER = SessionSigner("test-secret")
NOW = 1_800_000_000
usernames = st.from_regex(r"[a-z][a-z0-9_-]{2,31}", fullmatch=True).filter(
    lambda n: not n.startswith("guest")
)


def user(name: str = "alice", generation: int = 0, expires: int = NOW + 3600) -> BrowserSession:
    return SIGNER.user(name, generation=generation, expires=expires)


def test_a_guest_cookie_round_trips_and_stays_a_guest() -> None:
    guest = SIGNER.new()
    loaded = SIGNER.load(SIGNER.dump(guest), now=NOW)
    assert loaded == guest and loaded.guest and loaded.user.startswith("web:guest-")


def test_guest_cookies_keep_the_first_releases_format() -> None:
    # browsers that got a cookie before accounts existed stay the same guest
    slug = "guest-0123456789abcdef"
    old = f"{slug}." + hmac.new(b"test-secret", slug.encode(), hashlib.sha256).hexdigest()[:32]
    assert SIGNER.load(old, now=NOW) == BrowserSession(slug="guest-0123456789abcdef")


def test_a_signed_in_session_names_web_username_and_is_not_a_guest() -> None:
    loaded = SIGNER.load(SIGNER.dump(user()), now=NOW)
    assert loaded is not None
    assert (loaded.user, loaded.guest, loaded.generation) == ("web:alice", False, 0)


def test_each_sign_in_gets_its_own_session_id_and_older_cookies_still_load() -> None:
    first, second = user(), user()
    assert first.sid != second.sid  # so signing out revokes exactly one of them
    payload = f"u~alice~{NOW + 60}~0"  # a cookie issued before session ids existed
    mac = hmac.new(b"test-secret", f"session\x00{payload}".encode(), hashlib.sha256).hexdigest()[:32]
    old = f"{payload}.{mac}"
    loaded = SIGNER.load(old, now=NOW)
    assert loaded is not None and loaded.slug == "alice" and loaded.sid.startswith("legacy-")
    assert SIGNER.dump(loaded) == old  # the derived id is never written into a cookie


@given(usernames, st.integers(0, 10**6), st.integers(NOW + 1, NOW + 10**8))
def test_every_user_session_round_trips(name: str, generation: int, expires: int) -> None:
    session = user(name, generation, expires)
    assert SIGNER.load(SIGNER.dump(session), now=NOW) == session


@given(usernames, st.data())
def test_any_change_to_a_user_cookie_is_rejected(name: str, data: st.DataObject) -> None:
    cookie = SIGNER.dump(user(name))
    index = data.draw(st.integers(0, len(cookie) - 1))
    replacement = data.draw(st.sampled_from("abcdefz0189~.-_"))
    tampered = cookie[:index] + replacement + cookie[index + 1 :]
    if tampered != cookie:
        assert SIGNER.load(tampered, now=NOW) is None


@pytest.mark.parametrize(
    "cookie",
    [
        None,
        "",
        "u~alice~9999999999~0." + "0" * 32,  # a made-up signature
        "alice",
        "u~alice~1~0",
        "x" * 500,
    ],
)
def test_forged_or_malformed_cookies_name_nobody(cookie: str | None) -> None:
    assert SIGNER.load(cookie, now=NOW) is None


def test_another_servers_cookie_is_rejected() -> None:
    assert SessionSigner("other-secret").load(SIGNER.dump(user()), now=NOW) is None


def test_an_expired_session_is_rejected() -> None:
    cookie = SIGNER.dump(user(expires=NOW))
    assert SIGNER.load(cookie, now=NOW - 1) is not None
    assert SIGNER.load(cookie, now=NOW) is None


def test_a_signed_guest_looking_username_is_never_a_user() -> None:
    with pytest.raises(ValueError, match="bad username"):
        SIGNER.user("guest-0123456789abcdef", generation=0, expires=NOW + 10)
    with pytest.raises(ValueError, match="bad username"):
        SIGNER.user("Al.ice", generation=0, expires=NOW + 10)


def test_csrf_token_is_bound_to_one_session_cookie() -> None:
    alice, bob = SIGNER.dump(user("alice")), SIGNER.dump(user("bob"))
    token = SIGNER.csrf(alice)
    assert SIGNER.check_csrf(alice, token)
    assert not SIGNER.check_csrf(bob, token)
    assert not SIGNER.check_csrf(alice, None) and not SIGNER.check_csrf(None, token)
    assert not SIGNER.check_csrf(alice, token[:-1] + ("0" if token[-1] != "0" else "1"))
    assert token not in alice  # a CSRF token is not the session's signature


@pytest.mark.parametrize(
    ("persona", "room", "chat"),
    [
        ("default", MAIN_ROOM, "web:u-alice"),
        ("bard", MAIN_ROOM, "web:u-alice.bard"),
        ("default", "trip", "web:u-alice+trip"),
        ("bard", "trip", "web:u-alice+trip.bard"),
    ],
)
def test_chats_of_a_user_name_the_owner_and_the_room(persona: str, room: str, chat: str) -> None:
    alice = user("alice")
    assert chat_for(alice, persona, room) == chat
    assert alice.owns(chat)
    assert not user("alic").owns(chat) and not user("alicex").owns(chat)


def test_guests_have_only_the_main_room_and_never_own_users_chats() -> None:
    guest = BrowserSession(slug="guest-0123456789abcdef")
    assert chat_for(guest, "default", "trip") == "web:g-0123456789abcdef"
    assert guest.owns("web:g-0123456789abcdef.bard")
    assert not guest.owns("web:g-0123456789abcdef+trip")
    assert not guest.owns("web:u-alice") and not user("alice").owns("web:g-0123456789abcdef")
    assert not user("alice").owns("web:u-alicex") and not user("alice").owns("web:u-alice-x")
