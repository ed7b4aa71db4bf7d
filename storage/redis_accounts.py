"""Browser accounts on Redis: users, sign-in failure counters, rooms, owned lorebooks, link codes.

- ``account:{name}``            JSON ``Account`` (password hash, session generation).
- ``account:{name}:rooms``      HASH room slug → JSON ``Room``.
- ``account:{name}:lorebooks``  SET of lorebook ids the user imported (and may edit).
- ``account:{name}:known``      SET of address buckets the account signed in from (at most a few,
  expiring ``days`` after the last successful sign-in): not limited by the shared sign-in buckets.
- ``account:{name}:revoked``    ZSET session id → its cookie's expiry (Unix s): signed-out cookies.
- ``signin:user:{name}``        failed sign-ins of one username (any address) in the current window.
- ``signin:bucket:ip:{ip}``, ``signin:bucket:all``  token buckets (HASH ``tokens``, ``at`` ms) that
  admit sign-in attempts before any password hash is computed.
- ``signup:ip:{ip}``            sign-ups from one address in the current window.
- ``signouts``                  STREAM of sign-outs (``user``, ``sid``; ``*`` = every session), read
  by every web process to close the signed-out sessions' WebSockets; capped near 10,000 entries.
- ``link:{code}``               ``web:<name>`` for a ``/link`` code, with a TTL; redeemed once.

Usernames arrive validated (``adapters.web.accounts.check_username``); the store only stores.
"""

from __future__ import annotations

from typing import Any

import msgspec
import redis.asyncio as aioredis

from engine.ports.accounts import Account, Room
from storage.errors import map_redis_errors
from storage.keys import KeyBuilder
from storage.scripts import lua

__all__ = ["Account", "RedisAccountStore", "Room"]


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


_ACCOUNT = msgspec.json.Decoder(Account)
_ROOM = msgspec.json.Decoder(Room)


class RedisAccountStore:
    """Accounts and the small per-user records the browser app keeps."""

    def __init__(self, client: aioredis.Redis, keys: KeyBuilder) -> None:
        self._r = client
        self._p = keys.prefix
        self._hit = client.register_script(lua("accounts_hit"))
        self._take = client.register_script(lua("accounts_take"))
        self._give = client.register_script(lua("accounts_give"))

    @classmethod
    def from_url(cls, url: str, keys: KeyBuilder) -> RedisAccountStore:
        """A store with its own connection pool."""
        return cls(aioredis.from_url(url), keys)

    def _account(self, name: str, part: str = "") -> str:
        return f"{self._p}:account:{name}" + (f":{part}" if part else "")

    # --- accounts -----------------------------------------------------------------------

    async def create(self, account: Account) -> bool:
        """Store a new account; False when the name is taken (atomic: SET NX)."""
        with map_redis_errors():
            created = await self._r.set(
                self._account(account.username), msgspec.json.encode(account), nx=True
            )
        return bool(created)

    async def get(self, username: str) -> Account | None:
        """The account, or None."""
        with map_redis_errors():
            raw = await self._r.get(self._account(username))
        return _ACCOUNT.decode(raw) if raw is not None else None

    async def replace(self, account: Account) -> None:
        """Overwrite an existing account (a rehashed password, a new generation)."""
        with map_redis_errors():
            await self._r.set(self._account(account.username), msgspec.json.encode(account), xx=True)

    async def session_state(self, username: str, sid: str) -> tuple[Account | None, bool]:
        """The account and whether the session ``sid`` was signed out (one round trip)."""
        with map_redis_errors():
            async with self._r.pipeline(transaction=False) as pipe:
                pipe.get(self._account(username))
                pipe.zscore(self._account(username, "revoked"), sid)
                raw, revoked = await pipe.execute()
        return (_ACCOUNT.decode(raw) if raw is not None else None), revoked is not None

    async def is_known_address(self, username: str, address: str) -> bool:
        """Whether the account signed in successfully from ``address`` (a bucket) lately."""
        with map_redis_errors():
            return bool(await self._r.sismember(self._account(username, "known"), address))

    async def remember_address(self, username: str, address: str, *, keep: int, days: int) -> None:
        """Add ``address`` to the account's known ones (one random older one leaves beyond ``keep``)."""
        key = self._account(username, "known")
        with map_redis_errors():
            if not await self._r.sismember(key, address) and await self._r.scard(key) >= keep:
                await self._r.spop(key)
            async with self._r.pipeline(transaction=False) as pipe:
                pipe.sadd(key, address)
                pipe.expire(key, days * 86_400)
                await pipe.execute()

    async def revoke_session(self, username: str, sid: str, expires: int, now: int) -> None:
        """Remember a signed-out session until its cookie would have expired anyway."""
        key = self._account(username, "revoked")
        with map_redis_errors():
            async with self._r.pipeline(transaction=False) as pipe:
                pipe.zadd(key, {sid: expires})
                pipe.zremrangebyscore(key, "-inf", now)
                pipe.expireat(key, max(expires, now + 1), nx=True)  # a new key gets a TTL...
                pipe.expireat(key, max(expires, now + 1), gt=True)  # ...an older one a longer one
                await pipe.execute()

    async def announce_sign_out(self, username: str, sid: str) -> None:
        """Tell every web process that session ``sid`` (``*``: every session) of a user ended."""
        with map_redis_errors():
            await self._r.xadd(
                f"{self._p}:signouts", {"user": username, "sid": sid}, maxlen=10_000, approximate=True
            )

    async def sign_out_cursor(self) -> str:
        """A stream id just before now: reading after it gives the sign-outs from now on."""
        with map_redis_errors():
            seconds, micros = await self._r.time()
        return f"{int(seconds) * 1000 + int(micros) // 1000 - 1}-0"

    async def sign_outs(self, after: str, *, block_ms: int) -> tuple[str, list[tuple[str, str]]]:
        """The sign-outs announced after stream id ``after``, waiting up to ``block_ms`` for one.

        Returns:
            The id to read after next time, and (username, session id) pairs, oldest first.
        """
        with map_redis_errors():
            answer: Any = await self._r.xread({f"{self._p}:signouts": after}, count=500, block=block_ms)
        # RESP2: [[stream, [(id, fields), ...]]]; RESP3: {stream: [[(id, fields), ...]]}
        streams = list(answer.values()) if isinstance(answer, dict) else [s[1] for s in answer or []]
        entries = streams[0] if streams else []
        if entries and isinstance(entries[0], list):
            entries = entries[0]
        found: list[tuple[str, str]] = []
        for entry_id, fields in entries:
            after = _text(entry_id)
            values = {_text(k): _text(v) for k, v in fields.items()}
            found.append((values.get("user", ""), values.get("sid", "")))
        return after, found

    # --- attempt counters -----------------------------------------------------------------

    async def hit(self, key: str, window_seconds: int) -> tuple[int, int]:
        """Count one hit in a fixed window; returns (hits so far, seconds until the window ends)."""
        with map_redis_errors():
            count, ttl = await self._hit(keys=[f"{self._p}:{key}"], args=[window_seconds])
        return int(count), max(int(ttl), 0)

    async def hits(self, key: str) -> tuple[int, int]:
        """Hits in the current window and the seconds it has left (0, 0 when none)."""
        with map_redis_errors():
            async with self._r.pipeline(transaction=False) as pipe:
                pipe.get(f"{self._p}:{key}")
                pipe.ttl(f"{self._p}:{key}")
                raw, ttl = await pipe.execute()
        return (int(raw), max(int(ttl), 0)) if raw is not None else (0, 0)

    async def take(self, key: str, capacity: int, per_second: float) -> float:
        """Take one token from a bucket; 0 when admitted, else the seconds until one is back."""
        with map_redis_errors():
            ok, wait_ms = await self._take(keys=[f"{self._p}:{key}"], args=[capacity, per_second])
        return 0.0 if int(ok) else max(int(wait_ms), 1) / 1000

    async def give_back(self, key: str, capacity: int) -> None:
        """Return a token taken by an attempt that turned out legitimate (a successful sign-in)."""
        with map_redis_errors():
            await self._give(keys=[f"{self._p}:{key}"], args=[capacity])

    async def reset(self, key: str) -> None:
        """Forget a counter (a successful sign-in clears its failures)."""
        with map_redis_errors():
            await self._r.delete(f"{self._p}:{key}")

    # --- rooms ----------------------------------------------------------------------------

    async def add_room(self, username: str, room: Room, limit: int) -> bool:
        """Add a room unless the user already has ``limit`` rooms; True when stored (or existing)."""
        key = self._account(username, "rooms")
        with map_redis_errors():
            if await self._r.hexists(key, room.slug):
                return True
            if await self._r.hlen(key) >= limit:
                return False
            await self._r.hsetnx(key, room.slug, msgspec.json.encode(room))
        return True

    async def rooms(self, username: str) -> list[Room]:
        """The user's rooms, oldest first."""
        with map_redis_errors():
            raw = await self._r.hvals(self._account(username, "rooms"))
        return sorted((_ROOM.decode(v) for v in raw), key=lambda r: (r.created_at, r.slug))

    # --- lorebooks a user imported ----------------------------------------------------------

    async def own_lorebook(self, username: str, book: str) -> None:
        """Record that the user imported (and so may edit) a lorebook."""
        with map_redis_errors():
            await self._r.sadd(self._account(username, "lorebooks"), book)

    async def lorebooks(self, username: str) -> set[str]:
        """Ids of the lorebooks the user imported."""
        with map_redis_errors():
            raw = await self._r.smembers(self._account(username, "lorebooks"))
        return {v.decode() if isinstance(v, bytes) else str(v) for v in raw}

    # --- /link codes for Telegram ---------------------------------------------------------

    async def put_link_code(self, code: str, user: str, ttl_seconds: int) -> bool:
        """Store a fresh code for ``user``; False if the code is already in use."""
        with map_redis_errors():
            return bool(await self._r.set(f"{self._p}:link:{code}", user, nx=True, ex=ttl_seconds))

    async def redeem_link_code(self, code: str) -> str | None:
        """The web user (``web:<name>``) a ``/link`` code names, once; None if unknown or expired.

        The code is deleted as it is read (GETDEL), so it works exactly once. Letters are
        compared case-insensitively and surrounding spaces are ignored.

        Args:
            code: the code the person typed after ``/link``.

        Returns:
            ``web:<username>``, or None.
        """
        cleaned = code.strip().upper()
        if not cleaned or not cleaned.isalnum() or len(cleaned) > 16:
            return None
        with map_redis_errors():
            raw = await self._r.getdel(f"{self._p}:link:{cleaned}")
        if raw is None:
            return None
        return raw.decode() if isinstance(raw, bytes) else str(raw)
