"""The browser account ports (``storage.redis_accounts.RedisAccountStore``): accounts and their
sessions, sign-in counters, the sign-out feed, rooms and owned lorebooks, ``/link`` codes.

The web adapter's ``Accounts`` (sign-up, sign-in, sessions) and the Telegram ``/link`` command
reach the accounts only through these; ``AccountStore`` names them together.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

import msgspec

__all__ = [
    "Account",
    "AccountRecords",
    "AccountRooms",
    "AccountStore",
    "KnownAddresses",
    "LinkCodes",
    "RateCounters",
    "Room",
    "SignOutStream",
]


class Account(msgspec.Struct, frozen=True, kw_only=True):
    """A signed-up browser user (``web:<username>``).

    Attributes:
        username: the name, lowercase.
        password_hash: an argon2id PHC string.
        created_at: when the account was made.
        generation: bumped to invalidate every session cookie issued before ("sign out everywhere").
    """

    username: str
    password_hash: str
    created_at: datetime
    generation: int = 0


class Room(msgspec.Struct, frozen=True, kw_only=True):
    """A web room a user made (its chat ids embed the slug, so ownership is structural)."""

    slug: str
    title: str
    created_at: datetime


class AccountRecords(Protocol):
    """The accounts themselves and whether a session was signed out."""

    async def create(self, account: Account) -> bool:
        """Store a new account; False when the name is taken (atomic)."""
        ...

    async def get(self, username: str) -> Account | None:
        """The account, or None."""
        ...

    async def replace(self, account: Account) -> None:
        """Overwrite an existing account (a rehashed password, a new generation)."""
        ...

    async def session_state(self, username: str, sid: str) -> tuple[Account | None, bool]:
        """The account and whether the session ``sid`` was signed out (one round trip)."""
        ...

    async def revoke_session(self, username: str, sid: str, expires: int, now: int) -> None:
        """Remember a signed-out session until its cookie would have expired anyway."""
        ...


class KnownAddresses(Protocol):
    """The address buckets an account signed in from lately (not limited by the shared buckets)."""

    async def is_known_address(self, username: str, address: str) -> bool:
        """Whether the account signed in successfully from ``address`` (a bucket) lately."""
        ...

    async def remember_address(self, username: str, address: str, *, keep: int, days: int) -> None:
        """Add ``address`` to the account's known ones (one random older one leaves beyond ``keep``)."""
        ...


class SignOutStream(Protocol):
    """Sign-outs announced to every web process (their sockets close)."""

    async def announce_sign_out(self, username: str, sid: str) -> None:
        """Tell every web process that session ``sid`` (``*``: every session) of a user ended."""
        ...

    async def sign_out_cursor(self) -> str:
        """A position just before now: reading after it gives the sign-outs from now on."""
        ...

    async def sign_outs(self, after: str, *, block_ms: int) -> tuple[str, list[tuple[str, str]]]:
        """The sign-outs (user, sid) announced after ``after``, waiting up to ``block_ms`` for
        one; returns the new position too."""
        ...


class RateCounters(Protocol):
    """Fixed-window counters and token buckets shared by every process (sign-in, sign-up, chat)."""

    async def hit(self, key: str, window_seconds: int) -> tuple[int, int]:
        """Count one hit in a fixed window; returns (hits so far, seconds until the window ends)."""
        ...

    async def hits(self, key: str) -> tuple[int, int]:
        """Hits in the current window and the seconds it has left (0, 0 when none)."""
        ...

    async def take(self, key: str, capacity: int, per_second: float) -> float:
        """Take one token from a bucket; 0 when admitted, else the seconds until one is back."""
        ...

    async def give_back(self, key: str, capacity: int) -> None:
        """Return a token taken by an attempt that turned out legitimate (a successful sign-in)."""
        ...

    async def reset(self, key: str) -> None:
        """Forget a counter (a successful sign-in clears its failures)."""
        ...


class AccountRooms(Protocol):
    """What an account owns: its rooms and the lorebooks it imported."""

    async def add_room(self, username: str, room: Room, limit: int) -> bool:
        """Add a room unless the user already has ``limit`` rooms; True when stored (or existing)."""
        ...

    async def rooms(self, username: str) -> list[Room]:
        """The user's rooms, oldest first."""
        ...

    async def own_lorebook(self, username: str, book: str) -> None:
        """Record that the user imported (and so may edit) a lorebook."""
        ...

    async def lorebooks(self, username: str) -> set[str]:
        """Ids of the lorebooks the user imported."""
        ...


class LinkCodes(Protocol):
    """One-time codes that link a Telegram user to a browser account (``/link``)."""

    async def put_link_code(self, code: str, user: str, ttl_seconds: int) -> bool:
        """Store a fresh code for ``user``; False if the code is already in use."""
        ...

    async def redeem_link_code(self, code: str) -> str | None:
        """The web user (``web:<name>``) a code names, once; None if unknown or expired."""
        ...


class AccountStore(
    AccountRecords, KnownAddresses, SignOutStream, RateCounters, AccountRooms, LinkCodes, Protocol
):
    """Every account port together (the web adapter's ``Accounts``)."""
