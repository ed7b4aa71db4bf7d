"""Browser accounts: sign-up, sign-in with argon2id, rate limits, rooms and ``/link`` codes.

Rules (checked by the pure functions below, tested without Redis):

- A username is 3-32 characters ``a-z 0-9 _ -`` starting with a letter, stored lowercase;
  names that look like system or guest ids are reserved. A user is ``web:<username>``.
- A password is 8-256 characters and not the username (NIST SP 800-63B: length, no
  composition rules). It is hashed with argon2id (``argon2-cffi`` defaults, RFC 9106 low-memory
  profile) in a worker thread; old parameters are rehashed on the next sign-in.
- Sign-in failures are counted per (username, IP) in a fixed window in Redis: after
  ``max_failures`` failures the pair gets ``SignInLimited`` (HTTP 429 with ``Retry-After``)
  until the window ends. Unknown usernames cost the same hash check and count the same, so
  timing and answers do not tell which names exist. Sign-ups are capped per IP.
- ``/link`` codes: 8 characters without look-alikes, single use, expiring (default 10 min).
"""

from __future__ import annotations

import asyncio
import re
import secrets
import unicodedata
from datetime import datetime

import msgspec
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from adapters.web.session import USERNAME, BrowserSession, SessionSigner
from engine.errors import Conflict, InvalidInput, PersonaBotError, Unauthorized
from storage.redis_accounts import Account, RedisAccountStore, Room

__all__ = [
    "LINK_ALPHABET",
    "AccountPolicy",
    "Accounts",
    "SignInLimited",
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


class SignInLimited(PersonaBotError):
    """Too many failed sign-ins for this name from this address; ``retry_after`` seconds."""

    default_code = "too_many_attempts"

    def __init__(self, retry_after: int) -> None:
        minutes = max(1, round(retry_after / 60))
        super().__init__(
            f"Too many failed sign-ins. Try again in about {minutes} minute{'s' if minutes > 1 else ''}."
        )
        self.retry_after = retry_after


class AccountPolicy(msgspec.Struct, frozen=True, kw_only=True):
    """Limits of the account system."""

    max_failures: int = 5
    failure_window: int = 300
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
    """Sign-up, sign-in, sessions, rooms and link codes over a ``RedisAccountStore``."""

    def __init__(
        self,
        store: RedisAccountStore,
        *,
        hasher: PasswordHasher | None = None,
        policy: AccountPolicy | None = None,
    ) -> None:
        self.store = store
        self.policy = policy or AccountPolicy()
        self._hasher = hasher or PasswordHasher()
        self._dummy: str | None = None

    async def _hash(self, password: str) -> str:
        return await asyncio.to_thread(self._hasher.hash, password)

    async def _verify(self, hashed: str, password: str) -> bool:
        try:
            return await asyncio.to_thread(self._hasher.verify, hashed, password)
        except (VerificationError, InvalidHashError):
            return False

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
        """Check a password, counting failures per (username, IP).

        Raises:
            SignInLimited: the pair failed ``max_failures`` times in the current window.
            Unauthorized: ``wrong_credentials`` (unknown name or wrong password alike).
        """
        name = username.strip().lower()
        if not USERNAME.fullmatch(name) or len(password) > PASSWORD_MAX:
            raise Unauthorized("The username or password is wrong.", code="wrong_credentials")
        key = f"signin:fail:{name}:{ip}"
        failures, ttl = await self.store.hits(key)
        if failures >= self.policy.max_failures:
            raise SignInLimited(ttl)
        account = await self.store.get(name)
        if account is None:
            await self._verify(await self._dummy_hash(), password)
        elif await self._verify(account.password_hash, password):
            await self.store.reset(key)
            return await self._rehashed(account, password)
        failures, _ = await self.store.hit(key, self.policy.failure_window)
        left = self.policy.max_failures - failures
        hint = f" {left} attempt{'s' if left != 1 else ''} left." if 0 < left <= 2 else ""
        if left <= 0:
            hint = " Sign-in for this name is paused for a few minutes."
        raise Unauthorized(f"The username or password is wrong.{hint}", code="wrong_credentials")

    async def _dummy_hash(self) -> str:
        if self._dummy is None:
            self._dummy = await self._hash(secrets.token_urlsafe(16))
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
        """Whether a signed-in session still names an account at the same generation."""
        if session.guest:
            return True
        account = await self.store.get(session.slug)
        return account is not None and account.generation == session.generation

    async def sign_out_everywhere(self, username: str) -> None:
        """Invalidate every session cookie of the account."""
        account = await self.store.get(username)
        if account is not None:
            await self.store.replace(msgspec.structs.replace(account, generation=account.generation + 1))

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
