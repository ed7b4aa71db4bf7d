"""Signed-in sockets are bound to their session (issue 29, finding 5): signing out one session
closes its sockets only, signing out everywhere closes every socket of the account."""

from __future__ import annotations

from adapters.web.session import BrowserSession
from adapters.web.sockets import EVERY_SESSION, OpenSockets


def session(slug: str, sid: str) -> BrowserSession:
    return BrowserSession(slug=slug, guest=False, expires=2_000_000_000, sid=sid)


async def test_sign_out_closes_that_sessions_sockets_and_everywhere_all_of_them() -> None:
    sockets = OpenSockets()
    closed: list[str] = []

    def closer(name: str):  # type: ignore[no-untyped-def]
        async def close() -> None:
            closed.append(name)

        return close

    with (
        sockets.bound(session("alice", "a" * 16), closer("laptop")),
        sockets.bound(session("alice", "b" * 16), closer("phone")),
        sockets.bound(session("bobby", "a" * 16), closer("bob")),
        sockets.bound(BrowserSession(slug="guest-0123456789abcdef"), closer("guest")),
    ):
        assert await sockets.close("alice", "a" * 16) == 1 and closed == ["laptop"]
        assert await sockets.close("alice", "a" * 16) == 0  # closed once
        assert await sockets.close("alice", EVERY_SESSION) == 1 and closed == ["laptop", "phone"]
        assert sockets.count("bobby") == 1 and sockets.count("alice") == 0
    assert sockets.count("bobby") == 0 and closed == ["laptop", "phone"]
