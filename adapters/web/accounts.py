"""Browser accounts: sign-up, sign-in with argon2id, rate limits, rooms and ``/link`` codes.

Rules (checked by the pure functions below, tested without Redis):

- A username is 3-32 characters ``a-z 0-9 _ -`` starting with a letter, stored lowercase;
  names that look like system or guest ids are reserved. A user is ``web:<username>``.
- A password is 8-256 characters and not the username (NIST SP 800-63B: length, no
  composition rules). It is hashed with argon2id (``argon2-cffi`` defaults, RFC 9106 low-memory
  profile) in a worker thread; old parameters are rehashed on the next sign-in.
- Sign-in is guarded before any hash is computed, in this order:
  1. a per-address token bucket (``ip_burst`` attempts, refilled at ``ip_per_minute``; IPv6
     addresses count per /64): an empty bucket answers ``SignInLimited`` (429
     ``too_many_attempts`` with ``Retry-After``);
  2. unless the address is *known* for the account (it signed in to it successfully within the
     last ``known_days``, at most ``known_addresses`` of them kept), a bucket shared by every web
     process: one for an address's first ``first_attempts`` attempts in ``failure_window``
     (``first_burst``, ``first_per_second``) and another for the rest (``global_burst``,
     ``global_per_second``). So a flood from addresses that keep trying empties its own bucket,
     not the one a person signing in from a new address draws from, and a known address is
     never limited by a shared bucket. A successful sign-in gives its tokens back, so people who
     know their password are never counted;
  3. a per-username *delay*, never a lock (not for a known address nor an address's first
     attempts, which are few per address): after ``free_failures`` failures of one name (from
     any address) within ``failure_window``, each further attempt for it waits
     ``2^(n - free)`` s, at most ``max_delay`` s, before it is checked;
  4. at most ``max_hashes`` argon2 computations at once per process, on their own threads
     (``adapters.web.hashing``): attempts of a known address or among an address's first ones
     wait in the first line (``max_first_waiting``), the rest in the other (``max_waiting``);
     beyond either cap 429 ``sign_in_busy``. So hashing never takes more than that share of the
     CPU away from chat turns, and a flood's repeated guesses never queue ahead of a person.
  Unknown usernames pass the same gates and cost the same (capped) hash against a dummy, so
  timing and answers do not tell which names exist. Sign-ups are capped per IP.
- ``/link`` codes: 8 characters without look-alikes, single use, expiring (default 10 min).
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import secrets
import unicodedata
from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import TypeVar

import msgspec
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from adapters.web.hashing import Busy, HashGate
from adapters.web.session import USERNAME, BrowserSession, SessionSigner
from engine.errors import Conflict, HearthError, InvalidInput, Unauthorized
from engine.ports.accounts import Account, AccountStore, Room

__all__ = [
    "LINK_ALPHABET",
    "AccountPolicy",
    "Accounts",
    "SignInLimited",
    "address_bucket",
    "check_password",
    "check_username",
    "room_slug",
    "room_title",
]

PASSWORD_MIN = 8
PASSWORD_MAX = 256
RESERVED = frozenset(
    {"admin", "administrator", "root", "system", "operator", "hearth", "persona", "support",
     "moderator", "api", "app", "static", "anonymous", "nobody", "you", "me"}
)  # fmt: skip
LINK_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L
_ROOM_CHARS = re.compile(r"[^a-z0-9]+")
T = TypeVar("T")


class SignInLimited(HearthError):
    """Too many sign-in attempts (from this address, or everywhere); ``retry_after`` seconds."""

    default_code = "too_many_attempts"

    def __init__(self, retry_after: int, *, busy: bool = False) -> None:
        if busy:
            super().__init__("Too many sign-ins are being checked right now; try again in a moment.",
                             code="sign_in_busy")  # fmt: skip
        elif retry_after < 60:
            super().__init__(f"Too many sign-in attempts. Try again in {max(retry_after, 1)} s.")
        else:
            minutes = round(retry_after / 60)
            super().__init__(
                f"Too many attempts. Try again in about {minutes} minute{'s' if minutes > 1 else ''}."
            )
        self.retry_after = max(retry_after, 1)


class AccountPolicy(msgspec.Struct, frozen=True, kw_only=True):
    """Limits of the account system (the sign-in gates are described in the module docstring)."""

    ip_burst: int = 10
    ip_per_minute: float = 10.0
    first_attempts: int = 2
    first_burst: int = 100
    first_per_second: float = 10.0
    global_burst: int = 30
    global_per_second: float = 5.0
    known_addresses: int = 20
    known_days: int = 90
    free_failures: int = 3
    max_delay: float = 8.0
    failure_window: int = 900
    max_hashes: int = 1
    max_waiting: int = 4
    max_first_waiting: int = 16
    signups_per_ip: int = 30
    signup_window: int = 3600
    session_days: int = 30
    link_ttl: int = 600
    max_rooms: int = 30


def check_username(raw: str) -> str:
    """The normalized username, or ``InvalidInput``.

    Raises:
        InvalidInput: ``username_invalid`` (shape) or ``username_reserved``.
    """
    name = raw.strip().lower()
    if not USERNAME.fullmatch(name):
        raise InvalidInput(
            "A username is 3 to 32 characters: letters a-z, digits, '_' or '-', starting with a letter.",
            code="username_invalid",
        )
    if name in RESERVED or name.startswith("guest"):
        raise InvalidInput(f"The username {name!r} is reserved; pick another.", code="username_reserved")
    return name


def check_password(password: str, username: str) -> None:
    """Refuse passwords that are too short, too long or equal to the username.

    Raises:
        InvalidInput: ``password_too_short``, ``password_too_long`` or ``password_is_username``.
    """
    if len(password) < PASSWORD_MIN:
        raise InvalidInput(
            f"The password needs at least {PASSWORD_MIN} characters.", code="password_too_short"
        )
    if len(password) > PASSWORD_MAX:
        raise InvalidInput(
            f"The password is longer than {PASSWORD_MAX} characters.", code="password_too_long"
        )
    if password.strip().lower() == username:
        raise InvalidInput("The password cannot be your username.", code="password_is_username")


def address_bucket(ip: str) -> str:
    """The rate-limit bucket of an address: IPv4 as is, IPv6 per /64 (one subscriber's block)."""
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return ip[:64]
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def room_slug(name: str) -> str:
    """A room's id from its name: lowercase ASCII letters, digits and '-', at most 24.

    Raises:
        InvalidInput: ``room_name_invalid`` when nothing usable is left, or the name is "main".
    """
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    slug = _ROOM_CHARS.sub("-", ascii_name).strip("-")[:24].strip("-")
    if not slug:
        slug = f"room-{secrets.token_hex(3)}" if name.strip() else ""
    if not slug or slug == "main":
        raise InvalidInput("Give the room a name (not 'main').", code="room_name_invalid")
    return slug


def room_title(name: str) -> str:
    """A room's display title: 1-60 characters.

    Raises:
        InvalidInput: ``room_name_invalid``.
    """
    title = " ".join(name.split())
    if not 1 <= len(title) <= 60:
        raise InvalidInput("A room name is 1 to 60 characters.", code="room_name_invalid")
    return title


class Accounts:
    """Sign-up, sign-in, sessions, rooms and link codes over a ``AccountStore``."""

    def __init__(
        self,
        store: AccountStore,
        *,
        hasher: PasswordHasher,
        policy: AccountPolicy,
    ) -> None:
        self.store = store
        self.policy = policy
        self._hasher = hasher
        self._dummy: str | None = None
        self._dummy_lock = asyncio.Lock()
        self._gate = HashGate(
            policy.max_hashes, first_waiting=policy.max_first_waiting, other_waiting=policy.max_waiting
        )

    async def _hashed(self, work: Callable[[], T], *, rank: int | None) -> T:
        """``work`` on a hashing thread; ``sign_in_busy`` when its waiting line is full."""
        try:
            return await self._gate.run(work, rank=rank)
        except Busy:
            raise SignInLimited(1, busy=True) from None

    async def _hash(self, password: str) -> str:
        return await self._hashed(partial(self._hasher.hash, password), rank=1)  # like a first attempt

    async def _verify(self, hashed: str, password: str, *, rank: int | None) -> bool:
        def verify() -> bool:
            try:
                return self._hasher.verify(hashed, password)
            except (VerificationError, InvalidHashError):
                return False

        return await self._hashed(verify, rank=rank)

    async def sign_up(self, username: str, password: str, *, ip: str, now: datetime) -> Account:
        """Create an account.

        Raises:
            InvalidInput: a bad username or password.
            Conflict: ``username_taken``.
            SignInLimited: too many sign-ups from this address.
        """
        name = check_username(username)
        check_password(password, name)
        count, ttl = await self.store.hit(f"signup:ip:{ip}", self.policy.signup_window)
        if count > self.policy.signups_per_ip:
            raise SignInLimited(ttl)
        account = Account(username=name, password_hash=await self._hash(password), created_at=now)
        if not await self.store.create(account):
            raise Conflict(f"The username {name!r} is taken.", code="username_taken")
        return account

    async def sign_in(self, username: str, password: str, *, ip: str) -> Account:
        """Check a password behind the buckets, the per-username delay and the hash cap.

        Raises:
            SignInLimited: ``too_many_attempts`` (a bucket is empty) or ``sign_in_busy``.
            Unauthorized: ``wrong_credentials`` (unknown name or wrong password alike).
        """
        name = username.strip().lower()
        if not USERNAME.fullmatch(name) or len(password) > PASSWORD_MAX:
            raise Unauthorized("The username or password is wrong.", code="wrong_credentials")
        where = address_bucket(ip)
        known = await self.store.is_known_address(name, where)
        buckets, rank = await self._admit(where, known=known)
        user_key = f"signin:user:{name}"
        failures, _ = await self.store.hits(user_key)
        if failures >= self.policy.free_failures and rank is None:
            await asyncio.sleep(min(2.0 ** (failures - self.policy.free_failures), self.policy.max_delay))
        account = await self.store.get(name)
        if account is None:
            await self._verify(await self._dummy_hash(), password, rank=rank)
        elif await self._verify(account.password_hash, password, rank=rank):
            await self.store.reset(user_key)
            for key, capacity in buckets:
                await self.store.give_back(key, capacity)
            await self.store.remember_address(
                name, where, keep=self.policy.known_addresses, days=self.policy.known_days
            )
            return await self._rehashed(account, password)
        await self.store.hit(user_key, self.policy.failure_window)
        raise Unauthorized("The username or password is wrong.", code="wrong_credentials")

    async def _admit(self, where: str, *, known: bool) -> tuple[list[tuple[str, int]], int | None]:
        """Take a token from the address's bucket and (unless ``known``) a shared one.

        Returns:
            The buckets taken from, and the attempt's rank in the first hashing line (0: a known
            address, 1, 2...: the address's first attempts), None for the other line.

        Raises:
            SignInLimited: ``too_many_attempts``.
        """
        policy = self.policy
        tries, _ = await self.store.hit(f"signin:tries:ip:{where}", policy.failure_window)
        rank = 0 if known else tries if tries <= policy.first_attempts else None
        first = rank is not None
        buckets = [(f"signin:bucket:ip:{where}", policy.ip_burst, policy.ip_per_minute / 60)]
        if not known and first:
            buckets.append(("signin:bucket:first", policy.first_burst, policy.first_per_second))
        elif not known:
            buckets.append(("signin:bucket:all", policy.global_burst, policy.global_per_second))
        taken: list[tuple[str, int]] = []
        for key, capacity, rate in buckets:
            wait = await self.store.take(key, capacity, rate)
            if wait:
                for done, cap in taken:
                    await self.store.give_back(done, cap)
                raise SignInLimited(int(wait + 0.999))
            taken.append((key, capacity))
        return taken, rank

    async def _dummy_hash(self) -> str:
        # made once (a burst of first guesses must not run one hash each), outside the hash slot:
        # the caller's verify takes the slot
        async with self._dummy_lock:
            if self._dummy is None:
                self._dummy = await self._gate.run_now(partial(self._hasher.hash, secrets.token_urlsafe(16)))
        return self._dummy

    async def _rehashed(self, account: Account, password: str) -> Account:
        if not self._hasher.check_needs_rehash(account.password_hash):
            return account
        updated = msgspec.structs.replace(account, password_hash=await self._hash(password))
        await self.store.replace(updated)
        return updated

    def session(self, signer: SessionSigner, account: Account, *, now: float) -> BrowserSession:
        """A fresh signed-in session for ``account``."""
        expires = int(now) + self.policy.session_days * 86_400
        return signer.user(account.username, generation=account.generation, expires=expires)

    async def is_current(self, session: BrowserSession) -> bool:
        """Whether a signed-in session names an account at the same generation, not signed out."""
        if session.guest:
            return True
        account, revoked = await self.store.session_state(session.slug, session.sid)
        return account is not None and account.generation == session.generation and not revoked

    async def sign_out(self, session: BrowserSession, *, now: float) -> None:
        """Revoke this one session's cookie on the server (it stops working at once)."""
        if not session.guest:
            await self.store.revoke_session(session.slug, session.sid, session.expires, int(now))
            await self.store.announce_sign_out(session.slug, session.sid)

    async def sign_out_everywhere(self, username: str) -> None:
        """Invalidate every session cookie of the account."""
        account = await self.store.get(username)
        if account is not None:
            await self.store.replace(msgspec.structs.replace(account, generation=account.generation + 1))
            await self.store.announce_sign_out(username, "*")

    async def link_code(self, user: str) -> str:
        """A fresh single-use ``/link`` code for ``user`` (``web:<name>``)."""
        for _ in range(5):
            code = "".join(secrets.choice(LINK_ALPHABET) for _ in range(8))
            if await self.store.put_link_code(code, user, self.policy.link_ttl):
                return code
        raise Conflict("Could not make a link code; try again.", code="link_code_busy")

    async def add_room(self, username: str, name: str, *, now: datetime) -> Room:
        """Create a room (or return the existing one with the same slug).

        Raises:
            InvalidInput: ``room_name_invalid``.
            Conflict: ``too_many_rooms``.
        """
        room = Room(slug=room_slug(name), title=room_title(name), created_at=now)
        if not await self.store.add_room(username, room, self.policy.max_rooms):
            raise Conflict(f"You already have {self.policy.max_rooms} rooms.", code="too_many_rooms")
        return next((r for r in await self.store.rooms(username) if r.slug == room.slug), room)
