"""Pipelines that mix a chat's own keys with deployment-wide ones, and the last values read of
the deployment-wide keys (so a lost Cluster master is not an outage).

A turn reads a few keys that every chat shares: the persona's version, the learned token ratio,
the persona's document version, lorebook versions, the privacy opt-outs. On a Redis Cluster they
live in other slots than the chat's keys, often on another master. ``run_split`` runs the
chat's own calls and the shared ones together: on one server in one pipelined round trip, on a
cluster as two concurrent pipelines, so a node that holds only shared keys fails only the shared
results, which come back as exceptions for the caller to replace; the chat's own errors raise.
``LastKnown`` keeps the last value each shared key gave, so a turn can go on with it while the
node that holds the key is unreachable (a failover takes seconds).
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from typing import Any, Generic, TypeVar

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.commands.core import AsyncScript
from redis.exceptions import NoScriptError

from engine.errors import StorageUnavailable
from storage.errors import map_redis_errors

__all__ = ["Call", "Cooldown", "LastKnown", "is_cluster", "run_pipeline", "run_split"]

log = logging.getLogger("hearth.storage")

Call = tuple[str | AsyncScript, Sequence[Any]]
"""A command name and its arguments, or a registered script with its numkeys, keys and args."""

COOLDOWN_SECONDS = 2.0
"""Seconds a deployment-wide key that was unreachable is not asked for (its last value stands in)."""
SHARED_GRACE = 0.5
"""Seconds a turn waits for deployment-wide reads after its own ones answered, before it goes on
with the last values read (their node is then taken as unreachable for a while)."""
_COOLING = StorageUnavailable("unreachable a moment ago; not asked again yet")
_SLOW = StorageUnavailable(f"no answer within {SHARED_GRACE:g} s of the chat's own")

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def is_cluster(client: aioredis.Redis) -> bool:
    """Whether ``client`` talks to a Redis Cluster."""
    return isinstance(client, RedisCluster)


async def run_pipeline(
    client: aioredis.Redis, calls: Sequence[Call], *, raise_upto: int | None = None
) -> list[Any]:
    """Run ``calls`` in one pipelined round trip; a script the server lost is loaded once.

    The first error among the first ``raise_upto`` results (all by default) is raised; a later
    call's error is returned in its place.
    """

    async def once() -> list[Any]:
        async with client.pipeline(transaction=False) as pipe:
            for name, args in calls:
                if isinstance(name, str):
                    pipe.execute_command(name, *args)
                else:  # EVALSHA by hand: a pipeline's own script handling costs a SCRIPT EXISTS trip
                    pipe.execute_command("EVALSHA", name.sha, *args)
            return list(await pipe.execute(raise_on_error=False))

    results = await once()
    if any(isinstance(r, NoScriptError) for r in results):
        for name, _ in calls:
            if not isinstance(name, str):
                await client.script_load(name.script)
        results = await once()
    for result in results[:raise_upto]:
        if isinstance(result, Exception):
            raise result
    return results


class Cooldown:
    """Where deployment-wide keys were unreachable lately (a Cluster node, or the server): a key
    that lives there is not asked for until ``seconds`` have passed, so the turns of a failover
    do not each wait out the dead node's retries. Once the client's topology names another node
    for the key (its replica took over), the key is asked for at once."""

    def __init__(self, client: aioredis.Redis, seconds: float = COOLDOWN_SECONDS) -> None:
        self._r = client
        self._seconds = seconds
        self._until: dict[str, float] = {}

    @classmethod
    def of(cls, client: aioredis.Redis) -> Cooldown:
        """The one cooldown of ``client``, shared by every store that uses it."""
        found = _COOLDOWNS.get(client)
        if found is None:
            found = _COOLDOWNS[client] = cls(client)
        return found

    def where(self, key: str) -> str:
        """The node that serves ``key`` now (its name), or ``key`` itself off a cluster."""
        if not isinstance(self._r, RedisCluster):
            return "server"
        try:
            node = self._r.get_node_from_key(key)
        except Exception:  # an uncovered slot: the key alone
            return key
        return node.name if node is not None else key

    def cooling(self, key: str) -> bool:
        """Whether ``key``'s node failed less than ``seconds`` ago."""
        where = self.where(key)
        until = self._until.get(where)
        if until is None:
            return False
        if time.monotonic() >= until:
            del self._until[where]
            return False
        return True

    def failed(self, where: str, error: StorageUnavailable) -> None:
        """The node ``where`` (as ``where`` named it) was unreachable just now."""
        if where not in self._until:
            log.warning("%s unreachable (%s); not asked for %g s", where, error.message, self._seconds)
        if len(self._until) >= 1_000:
            self._until.clear()
        self._until[where] = time.monotonic() + self._seconds


async def run_split(
    client: aioredis.Redis,
    own: Sequence[Call],
    shared: Sequence[Call],
    cooldown: Cooldown | None = None,
    *,
    needed: Sequence[bool] = (),
) -> tuple[list[Any], list[Any]]:
    """Run a chat's ``own`` calls and the deployment-wide ``shared`` ones; return both results.

    One round trip on a single server. On a cluster the chat's calls and the shared ones of each
    node run concurrently, so the loss of a node that holds only shared keys leaves the chat's
    calls done. A shared call that failed (Redis's error, or the unreachable node's) is returned
    as a ``StorageUnavailable``; an own call's error is raised (mapped by ``map_redis_errors``).
    With a ``cooldown``, a shared call whose key (its first argument) lives where a call failed
    lately is not sent (it answers ``StorageUnavailable``), and the shared calls still unanswered
    ``SHARED_GRACE`` seconds after the chat's are given up (their node then cools). A call
    ``needed`` (its flag true: the caller has no value to stand in) is always sent and awaited.
    """
    if not shared:
        with map_redis_errors():
            return await run_pipeline(client, own), []
    if not is_cluster(client):  # one server: it answers all of them or none
        with map_redis_errors():
            both = await run_pipeline(client, [*own, *shared], raise_upto=len(own))
        return both[: len(own)], [_unavailable(r) for r in both[len(own) :]]
    must = [bool(needed[i]) if i < len(needed) else False for i in range(len(shared))]
    groups: dict[tuple[str, bool], list[int]] = {}
    results: list[Any] = [_COOLING] * len(shared)
    for i, (_, args) in enumerate(shared):
        if cooldown is None:
            groups.setdefault(("", True), []).append(i)
        elif must[i] or not cooldown.cooling(str(args[0])):
            groups.setdefault((cooldown.where(str(args[0])), must[i]), []).append(i)
    calls = [[shared[i] for i in group] for group in groups.values()]
    theirs = [asyncio.ensure_future(_mapped(run_pipeline(client, c))) for c in calls]
    patient = [t for t, (_, wait) in zip(theirs, groups, strict=True) if wait]
    try:
        mine = await _mapped(run_pipeline(client, own))
    finally:
        if theirs:  # a node that died keeps its callers in retries: the last values stand in
            _, late = await asyncio.wait(theirs, timeout=SHARED_GRACE)
            for task in late - set(patient):
                task.cancel()
            await asyncio.gather(*theirs, return_exceptions=True)
    done = [_SLOW if t.cancelled() else t.exception() or t.result() for t in theirs]
    for ((where, _), group), found in zip(groups.items(), done, strict=True):
        if isinstance(found, StorageUnavailable):
            answers: list[Any] = [found] * len(group)
            if cooldown is not None and where:
                cooldown.failed(where, found)
        elif isinstance(found, BaseException):
            raise found
        else:
            answers = [_unavailable(r) for r in found]
        for i, answer in zip(group, answers, strict=True):
            results[i] = answer
    return mine, results


async def _mapped(work: Any) -> list[Any]:
    with map_redis_errors():
        found: list[Any] = await work
    return found


def _unavailable(result: Any) -> Any:
    """A failed shared result as ``StorageUnavailable``; any other result as it is."""
    if not isinstance(result, Exception) or isinstance(result, StorageUnavailable):
        return result
    try:
        with map_redis_errors():
            raise result
    except StorageUnavailable as exc:
        return exc
    except Exception as exc:  # an error that is no outage (a bug): the caller raises it
        return exc


_COOLDOWNS: weakref.WeakKeyDictionary[aioredis.Redis, Cooldown] = weakref.WeakKeyDictionary()


class LastKnown(Generic[K, V]):
    """The last value read of each of some deployment-wide keys, for the time they are unreachable.

    Bounded: past ``limit`` names the least recently read is forgotten.
    """

    def __init__(self, what: str, limit: int = 10_000) -> None:
        self._what = what
        self._limit = limit
        self._values: OrderedDict[K, V] = OrderedDict()

    def keep(self, name: K, value: V) -> V:
        """Remember ``value`` as the last read of ``name``; returns it."""
        self._values[name] = value
        self._values.move_to_end(name)
        while len(self._values) > self._limit:
            self._values.popitem(last=False)
        return value

    def forget(self, name: K) -> None:
        """``name`` has no value any more (deleted)."""
        self._values.pop(name, None)

    def knows(self, name: K) -> bool:
        """Whether a value of ``name`` was read (a stand-in exists)."""
        return name in self._values

    def get(self, name: K) -> V | None:
        """The last value read of ``name``, or None."""
        return self._values.get(name)

    def result(self, name: K, result: Any) -> Any:
        """``result`` when it is a value (remembered), else the last value read of ``name``.

        Raises:
            StorageUnavailable: ``result`` is an outage and nothing was read of ``name`` before.
            Exception: ``result`` is another error (raised as it is).
        """
        if not isinstance(result, Exception):
            return self.keep(name, result)
        if not isinstance(result, StorageUnavailable):
            raise result
        if name not in self._values:
            raise StorageUnavailable(f"{self._what} of {name!r} is unreachable ({result.message})")
        return self._values[name]
