"""Accounts on a real Redis: sign-up, argon2 sign-in, the per-(name, IP) limit, sessions, codes.

Marked ``integration``: it uses the session's real ``redis-server`` (database 13, flushed).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

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
    return Accounts(store, hasher=CHEAP, policy=AccountPolicy(max_failures=3, failure_window=60))


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


async def test_failures_are_limited_per_username_and_address(accounts: Accounts) -> None:
    await accounts.sign_up("alice", PASSWORD, ip="10.0.0.1", now=NOW)
    for _ in range(3):
        with pytest.raises(Unauthorized):
            await accounts.sign_in("alice", "guess guess", ip="10.6.6.6")
    with pytest.raises(SignInLimited) as limited:
        await accounts.sign_in("alice", PASSWORD, ip="10.6.6.6")  # even the right password
    assert 0 < limited.value.retry_after <= 60 and limited.value.code == "too_many_attempts"
    assert (await accounts.sign_in("alice", PASSWORD, ip="10.0.0.1")).username == "alice"  # other address


async def test_a_success_clears_the_failures(accounts: Accounts) -> None:
    await accounts.sign_up("alice", PASSWORD, ip="10.0.0.1", now=NOW)
    for _ in range(2):
        with pytest.raises(Unauthorized):
            await accounts.sign_in("alice", "guess guess", ip="10.0.0.1")
    await accounts.sign_in("alice", PASSWORD, ip="10.0.0.1")
    for _ in range(2):
        with pytest.raises(Unauthorized):
            await accounts.sign_in("alice", "guess guess", ip="10.0.0.1")
    assert (await accounts.sign_in("alice", PASSWORD, ip="10.0.0.1")).username == "alice"


async def test_old_hash_parameters_are_upgraded_on_sign_in(store: RedisAccountStore) -> None:
    await Accounts(store, hasher=CHEAP).sign_up("alice", PASSWORD, ip="10.0.0.1", now=NOW)
    stronger = PasswordHasher(time_cost=2, memory_cost=2048, parallelism=1)
    await Accounts(store, hasher=stronger).sign_in("alice", PASSWORD, ip="10.0.0.1")
    stored = await store.get("alice")
    assert stored is not None and not stronger.check_needs_rehash(stored.password_hash)


async def test_sign_ups_are_capped_per_address(store: RedisAccountStore) -> None:
    accounts = Accounts(store, hasher=CHEAP, policy=AccountPolicy(signups_per_ip=2))
    await accounts.sign_up("alice", PASSWORD, ip="10.0.0.9", now=NOW)
    await accounts.sign_up("bobby", PASSWORD, ip="10.0.0.9", now=NOW)
    with pytest.raises(SignInLimited):
        await accounts.sign_up("carol", PASSWORD, ip="10.0.0.9", now=NOW)


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
