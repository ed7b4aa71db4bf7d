"""Accounts on a real Redis: sign-up, argon2 sign-in, the sign-in gates, sessions, codes.

Marked ``integration``: it uses the session's real ``redis-server`` (database 13, flushed).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest
import redis.asyncio as aioredis
from argon2 import PasswordHasher

from adapters.web.accounts import LINK_ALPHABET, AccountPolicy, Accounts, SignInLimited
from adapters.web.session import SessionSigner
from engine.errors import Conflict, InvalidInput, Unauthorized
from storage.keys import KeyBuilder
from storage.redis_accounts import RedisAccountStore
from tests.fixtures.servers import RedisServer

pytestmark = pytest.mark.integration

NOW = datetime(2026, 5, 1, 12, tzinfo=UTC)
CHEAP = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
PASSWORD = "correct horse battery"


@pytest.fixture
async def store(redis_server: RedisServer) -> AsyncIterator[RedisAccountStore]:
    client = aioredis.from_url(redis_server.db(13))
    yield RedisAccountStore(client, KeyBuilder(prefix="t"))
    await client.flushdb()
    await client.aclose()


@pytest.fixture
def accounts(store: RedisAccountStore) -> Accounts:
    return Accounts(store, hasher=CHEAP, policy=AccountPolicy(free_failures=3, max_delay=0.3))


class CountingHasher(PasswordHasher):
    """argon2 with cheap parameters that records how many hashes ran and how many at once."""

    def __init__(self) -> None:
        super().__init__(time_cost=1, memory_cost=1024, parallelism=1)
        self.calls = 0
        self.running = 0
        self.most_at_once = 0
        self._lock = threading.Lock()

    def _track(self, work: Any) -> Any:
        with self._lock:
            self.calls += 1
            self.running += 1
            self.most_at_once = max(self.most_at_once, self.running)
        try:
            time.sleep(0.02)  # a real hash takes ~0.1 s of CPU; overlap must be visible
            return work()
        finally:
            with self._lock:
                self.running -= 1

    def verify(self, hash: str | bytes, password: str | bytes) -> bool:
        return bool(self._track(lambda: super(CountingHasher, self).verify(hash, password)))

    def hash(self, password: str | bytes, *, salt: bytes | None = None) -> str:
        return str(self._track(lambda: super(CountingHasher, self).hash(password, salt=salt)))


async def test_sign_up_stores_an_argon2id_hash_never_the_password(
    accounts: Accounts, store: RedisAccountStore
) -> None:
    account = await accounts.sign_up("Alice", PASSWORD, ip="10.0.0.1", now=NOW)
    stored = await store.get("alice")
    assert stored == account and stored.username == "alice"
    assert stored.password_hash.startswith("$argon2id$") and PASSWORD not in stored.password_hash
    with pytest.raises(Conflict) as taken:
        await accounts.sign_up("alice", "another password", ip="10.0.0.2", now=NOW)
    assert taken.value.code == "username_taken"
    with pytest.raises(InvalidInput):
        await accounts.sign_up("x", PASSWORD, ip="10.0.0.1", now=NOW)


async def test_sign_in_checks_the_password_and_names_no_existing_user(accounts: Accounts) -> None:
    await accounts.sign_up("alice", PASSWORD, ip="10.0.0.1", now=NOW)
    assert (await accounts.sign_in(" ALICE ", PASSWORD, ip="10.0.0.1")).username == "alice"
    with pytest.raises(Unauthorized) as wrong:
        await accounts.sign_in("alice", "not the password", ip="10.0.0.1")
    with pytest.raises(Unauthorized) as unknown:
        await accounts.sign_in("nobody", PASSWORD, ip="10.0.0.1")
    assert wrong.value.code == unknown.value.code == "wrong_credentials"


async def test_an_address_out_of_tokens_is_refused_before_any_hash(store: RedisAccountStore) -> None:
    hasher = CountingHasher()
    policy = AccountPolicy(ip_burst=4, ip_per_minute=1, free_failures=100)
    accounts = Accounts(store, hasher=hasher, policy=policy)
    await accounts.sign_up("alice", PASSWORD, ip="10.0.0.1", now=NOW)
    await accounts._dummy_hash()  # made once per process: unknown names are then checked against it
    before = hasher.calls
    outcomes = []
    for n in range(10):  # new random-looking names each time, like the attack of issue 13
        try:
            await accounts.sign_in(f"guess{n}name", "guess guess", ip="10.6.6.6")
        except SignInLimited as exc:
            outcomes.append((exc.code, exc.retry_after))
        except Unauthorized as exc:
            outcomes.append((exc.code, 0))
    assert [c for c, _ in outcomes] == ["wrong_credentials"] * 4 + ["too_many_attempts"] * 6
    assert all(0 < wait <= 60 for c, wait in outcomes if c == "too_many_attempts")
    assert hasher.calls - before == 4  # the six refusals cost no hash
    # another address is not affected, and a right password gives its token back
    for _ in range(6):
        assert (await accounts.sign_in("alice", PASSWORD, ip="10.0.0.1")).username == "alice"


async def test_ipv6_addresses_share_one_bucket_per_64(store: RedisAccountStore) -> None:
    accounts = Accounts(store, hasher=CHEAP, policy=AccountPolicy(ip_burst=2, ip_per_minute=1))
    for host in ("2001:db8:1:2::1", "2001:db8:1:2::2"):
        with pytest.raises(Unauthorized):
            await accounts.sign_in("somebody", "guess guess", ip=host)
    with pytest.raises(SignInLimited):
        await accounts.sign_in("somebody", "guess guess", ip="2001:db8:1:2:ffff::9")
    with pytest.raises(Unauthorized):  # the neighbouring /64 is someone else
        await accounts.sign_in("somebody", "guess guess", ip="2001:db8:1:3::1")


async def test_failures_delay_a_username_but_never_lock_its_owner_out(store: RedisAccountStore) -> None:
    # a delay far above a loaded machine's hashing time, so "delayed" and "not delayed" stay apart
    accounts = Accounts(store, hasher=CHEAP, policy=AccountPolicy(free_failures=3, max_delay=1.5))
    await accounts.sign_up("alice", PASSWORD, ip="10.0.0.1", now=NOW)
    # an attacker's eight failures from four addresses: each address's first two attempts, which
    # are not delayed themselves (so setting up the failures costs no waiting)
    for n in range(8):
        with pytest.raises(Unauthorized):
            await accounts.sign_in("alice", "guess guess", ip=f"10.6.6.{n % 4}")
    started = time.monotonic()
    with pytest.raises(Unauthorized):  # a new address's first attempts are not delayed (issue 29)
        await accounts.sign_in("alice", "guess again", ip="10.7.7.7")
    assert time.monotonic() - started < 1.0
    started = time.monotonic()
    # the owner from one of those addresses, past its first attempts
    assert (await accounts.sign_in("alice", PASSWORD, ip="10.6.6.1")).username == "alice"
    waited = time.monotonic() - started
    assert 1.4 <= waited < 5  # slowed by the per-name delay (max 1.5 s here), not refused
    started = time.monotonic()
    await accounts.sign_in("alice", PASSWORD, ip="10.6.6.0")  # the success cleared the failures
    assert time.monotonic() - started < 1.0
    with pytest.raises(Unauthorized):  # control: an unknown name is answered exactly like a wrong one
        await accounts.sign_in("bobby", PASSWORD, ip="10.0.0.1")


async def test_concurrent_sign_ins_never_run_more_hashes_than_the_cap(store: RedisAccountStore) -> None:
    hasher = CountingHasher()
    policy = AccountPolicy(
        ip_burst=100, global_burst=100, first_burst=100, max_hashes=1, max_waiting=3, max_first_waiting=3
    )
    accounts = Accounts(store, hasher=hasher, policy=policy)
    await accounts._dummy_hash()  # made once per process, outside the cap
    results = await asyncio.gather(
        *(accounts.sign_in(f"random{n}user", "guess guess", ip=f"10.1.{n}.1") for n in range(16)),
        return_exceptions=True,
    )
    codes = [getattr(r, "code", "ok") for r in results]
    assert hasher.most_at_once == 1
    assert set(codes) == {"wrong_credentials", "sign_in_busy"}
    assert codes.count("wrong_credentials") <= 1 + 3 + 2  # running + queued (+ some that came later)


async def test_old_hash_parameters_are_upgraded_on_sign_in(store: RedisAccountStore) -> None:
    weaker = Accounts(store, hasher=CHEAP, policy=AccountPolicy())
    await weaker.sign_up("alice", PASSWORD, ip="10.0.0.1", now=NOW)
    stronger = PasswordHasher(time_cost=2, memory_cost=2048, parallelism=1)
    await Accounts(store, hasher=stronger, policy=AccountPolicy()).sign_in("alice", PASSWORD, ip="10.0.0.1")
    stored = await store.get("alice")
    assert stored is not None and not stronger.check_needs_rehash(stored.password_hash)


async def test_sign_ups_are_capped_per_address(store: RedisAccountStore) -> None:
    accounts = Accounts(store, hasher=CHEAP, policy=AccountPolicy(signups_per_ip=2))
    await accounts.sign_up("alice", PASSWORD, ip="10.0.0.9", now=NOW)
    await accounts.sign_up("bobby", PASSWORD, ip="10.0.0.9", now=NOW)
    with pytest.raises(SignInLimited):
        await accounts.sign_up("carol", PASSWORD, ip="10.0.0.9", now=NOW)


async def test_signing_out_revokes_exactly_that_session(accounts: Accounts) -> None:
    account = await accounts.sign_up("alice", PASSWORD, ip="10.0.0.1", now=NOW)
    signer = SessionSigner("s")
    laptop = accounts.session(signer, account, now=time.time())
    phone = accounts.session(signer, account, now=time.time())
    assert laptop.sid != phone.sid and signer.load(signer.dump(laptop)) == laptop
    await accounts.sign_out(laptop, now=time.time())
    assert not await accounts.is_current(laptop)
    assert await accounts.is_current(phone)  # control: the other device stays signed in


async def test_sign_out_everywhere_makes_older_sessions_stale(accounts: Accounts) -> None:
    account = await accounts.sign_up("alice", PASSWORD, ip="10.0.0.1", now=NOW)
    session = accounts.session(SessionSigner("s"), account, now=NOW.timestamp())
    assert not session.guest and await accounts.is_current(session)
    await accounts.sign_out_everywhere("alice")
    assert not await accounts.is_current(session)
    fresh = accounts.session(SessionSigner("s"), await accounts.sign_in("alice", PASSWORD, ip="1"), now=0)
    assert await accounts.is_current(fresh)


async def test_link_codes_are_single_use_and_case_insensitive(
    accounts: Accounts, store: RedisAccountStore
) -> None:
    code = await accounts.link_code("web:alice")
    assert len(code) == 8 and set(code) <= set(LINK_ALPHABET)
    assert await store.redeem_link_code("nonsense!") is None
    assert await store.redeem_link_code(f" {code.lower()}\n") == "web:alice"
    assert await store.redeem_link_code(code) is None


async def test_rooms_are_kept_per_user_and_capped(store: RedisAccountStore) -> None:
    accounts = Accounts(store, hasher=CHEAP, policy=AccountPolicy(max_rooms=2))
    first = await accounts.add_room("alice", "Book club", now=NOW)
    again = await accounts.add_room("alice", "book CLUB", now=NOW)
    assert first == again and first.slug == "book-club"
    await accounts.add_room("alice", "Trip", now=NOW)
    with pytest.raises(Conflict):
        await accounts.add_room("alice", "Third", now=NOW)
    assert [r.slug for r in await store.rooms("alice")] == ["book-club", "trip"]
    assert await store.rooms("bob") == []


async def test_a_burst_of_first_guesses_makes_the_dummy_hash_once(store: RedisAccountStore) -> None:
    hasher = CountingHasher()
    accounts = Accounts(
        store, hasher=hasher, policy=AccountPolicy(max_hashes=1, max_waiting=20, max_first_waiting=20)
    )
    await asyncio.gather(
        *(accounts.sign_in(f"first{n}guess", "guess guess", ip=f"10.2.{n}.1") for n in range(8)),
        return_exceptions=True,
    )
    assert hasher.calls == 1 + 8  # one dummy, then one verify per guess
    assert hasher.most_at_once == 1


async def test_a_flood_of_repeated_guesses_leaves_a_new_address_and_a_known_one_in(
    store: RedisAccountStore,
) -> None:
    """Issue 29, finding 6: the flood's repeated guesses empty their own shared bucket; a person
    from a new address (its first attempts) and from an address the account used before (never
    limited by a shared bucket) still get in with the right password."""
    policy = AccountPolicy(
        ip_burst=50, global_burst=3, global_per_second=0.01, first_burst=30, free_failures=100
    )
    accounts = Accounts(store, hasher=CHEAP, policy=policy)
    await accounts.sign_up("alice", PASSWORD, ip="10.0.0.1", now=NOW)
    await accounts.sign_in("alice", PASSWORD, ip="192.0.2.7")  # alice's laptop, known from now on
    codes = []
    for n in range(4):  # four addresses, each guessing on after its first two attempts
        for _ in range(4):
            try:
                await accounts.sign_in("alice", "guess guess", ip=f"10.6.6.{n}")
            except (SignInLimited, Unauthorized) as exc:
                codes.append(exc.code)
    # each address's first two guesses came through their own bucket; of the other 8, the shared
    # bucket of repeated guesses admitted 3
    assert codes.count("wrong_credentials") == 8 + 3 and codes.count("too_many_attempts") == 5
    with pytest.raises(SignInLimited):  # the repeated-guess bucket is empty for everybody...
        await accounts.sign_in("alice", "guess guess", ip="10.6.6.1")
    # ...but not for a person from a new address, nor from the laptop
    assert (await accounts.sign_in("alice", PASSWORD, ip="198.51.100.5")).username == "alice"
    for _ in range(3):
        assert (await accounts.sign_in("alice", PASSWORD, ip="192.0.2.7")).username == "alice"


async def test_known_addresses_are_per_account_and_capped(store: RedisAccountStore) -> None:
    for n in range(5):
        await store.remember_address("alice", f"10.0.0.{n}", keep=3, days=1)
    known = [await store.is_known_address("alice", f"10.0.0.{n}") for n in range(5)]
    assert sum(known) == 3 and known[4]  # the newest is always kept
    assert not await store.is_known_address("bobby", "10.0.0.4")


async def test_signing_out_is_announced_to_every_web_process(accounts: Accounts) -> None:
    """Issue 29, finding 5: each sign-out is on the stream the web processes follow."""
    account = await accounts.sign_up("alice", PASSWORD, ip="10.0.0.1", now=NOW)
    laptop = accounts.session(SessionSigner("s"), account, now=time.time())
    cursor = await accounts.store.sign_out_cursor()
    await accounts.sign_out(laptop, now=time.time())
    await accounts.sign_out_everywhere("alice")
    after, found = await accounts.store.sign_outs(cursor, block_ms=10)
    assert found == [("alice", laptop.sid), ("alice", "*")]
    assert (await accounts.store.sign_outs(after, block_ms=10))[1] == []
