"""A Redis Cluster master killed mid-chat (3 masters + 3 replicas): the chats whose keys live on
the other masters keep answering while its replica takes over, every chat answers again after
the failover, nothing acknowledged is lost, and the worker runs a job after the failover."""

from __future__ import annotations

import asyncio
import itertools
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from redis.crc import key_slot

from engine.memory import global_list, global_personal_list, personal_list, space_list
from storage.keys import KeyBuilder
from storage.redis_memory import MemoryKeys
from tests.e2e.api_client import HearthClient
from tests.faults.conftest import Processes, wait_until
from tests.fixtures.servers import ADMIN_TOKEN, RedisClusterServer

pytestmark = [pytest.mark.e2e, pytest.mark.faults]

NAMESPACE = "fo"
PERSONA = "default"


@pytest.fixture
def replicated_cluster(tmp_path: Path) -> Iterator[RedisClusterServer]:
    """3 masters, each with a replica that takes over 1-2 s after its master dies; the other
    masters serve their slots meanwhile (``cluster-require-full-coverage no``, as the README asks)."""
    cluster = RedisClusterServer(tmp_path / "cluster", replicas=1, node_timeout=1000, full_coverage=False)
    yield cluster
    cluster.stop()


def slots_of(chat: str, user: str) -> set[int]:
    """Every slot a turn of ``user`` in ``chat`` keeps its own data in: the chat's keys and the
    memory lists of the chat and of its person (deployment-wide keys left out)."""
    keys = KeyBuilder(prefix=NAMESPACE)
    lists = MemoryKeys(keys=keys)
    scopes = [
        space_list(PERSONA, chat),
        personal_list(PERSONA, user, chat),
        global_personal_list(PERSONA, user),
        global_list(user),
    ]
    names = [keys.chat(chat, "log"), *(lists.part(s, "recs") for s in scopes)]
    return {key_slot(name.encode()) for name in names}


def chats_on(cluster: RedisClusterServer, master: int, count: int, tag: str) -> list[tuple[str, str]]:
    """``count`` (chat, user) pairs whose own slots all live on ``master``."""
    ranges = [(low, high) for low, high, port in cluster.slot_ranges() if port == master]
    found: list[tuple[str, str]] = []
    rng = random.Random(tag)
    while len(found) < count:
        # names of several lengths: CRC16 is linear, so keys that embed one name at one length
        # keep fixed slot distances, and some masters could never hold all of them
        chat = f"web:{tag}{rng.randrange(10 ** rng.randrange(2, 7))}"
        user = f"web:{tag}p{rng.randrange(10 ** rng.randrange(2, 7))}"
        if all(any(low <= s <= high for low, high in ranges) for s in slots_of(chat, user)):
            found.append((chat, user))
    return found


class Load:
    """Messages sent one after another to each chat, every answer recorded."""

    def __init__(self, api: HearthClient) -> None:
        self.api = api
        self.sent: list[dict[str, Any]] = []
        self.stop = asyncio.Event()

    async def chat(self, chat: str, user: str) -> None:
        for n in itertools.count():
            if self.stop.is_set():
                return
            text = f"{user} says line {n} in {chat}"
            started = time.monotonic()
            try:
                response = await self.api.send(chat.split(":", 1)[1], text, user=user.split(":", 1)[1])
                status = response.status_code
            except Exception as exc:  # a hung request is a failure too
                status = repr(exc)
            self.sent.append(
                {"chat": chat, "text": text, "status": status, "started": started, "ended": time.monotonic()}
            )
            if status != 200:
                await asyncio.sleep(0.2)


async def test_a_killed_master_leaves_the_chats_on_the_other_masters_answering(
    replicated_cluster: RedisClusterServer, procs: Processes
) -> None:
    """Issue 29 (cluster): kill -9 of the master that holds the personas' versions, which every
    turn reads (besides the token ratio, document versions, opt-outs and job stream that other
    masters may hold). Before the fix every chat answered 503 until the replica took over
    (35 of 35 replies on the surviving masters failed), because every turn read or wrote
    deployment-wide keys; the surviving chats must answer throughout, within 5 s each."""
    cluster = replicated_cluster
    keys = KeyBuilder(prefix=NAMESPACE)
    victim = cluster.master_of(key_slot(keys.persona_versions().encode()))
    assert victim is not None
    others = [m for m in cluster.masters() if m != victim]
    assert len(others) == 2, cluster.masters()
    env = {
        "REDIS_URL": f"redis://127.0.0.1:{victim}/0",  # the node that dies is the one they know
        "HEARTH_REDIS_CLUSTER": "true",
        "HEARTH_NAMESPACE": NAMESPACE,
        "HEARTH_ADMIN_TOKEN": ADMIN_TOKEN,
        "HEARTH_EMBEDDER": "hash",
        "HEARTH_OFFLINE_DELAY_MS": "5",
        "HEARTH_JOB_RECLAIM_SECS": "5",
    }
    web = procs.web(env)
    procs.worker(env)
    api = HearthClient(web.base_url)
    ready = lambda: "Hearth worker ready" in procs.log("worker0.log")  # noqa: E731
    await asyncio.to_thread(wait_until, ready, 60, "the worker to start")
    survivors = [c for m in others for c in chats_on(cluster, m, 2, f"s{m}-")]
    doomed = chats_on(cluster, victim, 2, "d")
    for chat, user in [*survivors, *doomed]:  # each chat and persona is known to the process
        warm = await api.send(chat.split(":", 1)[1], "hello there", user=user.split(":", 1)[1])
        assert warm.status_code == 200, warm.text

    load = Load(api)
    tasks = [asyncio.create_task(load.chat(c, u)) for c, u in [*survivors, *doomed]]
    await asyncio.sleep(1.0)
    killed_at = time.monotonic()
    cluster.kill(victim)
    await asyncio.to_thread(wait_until, cluster.healed, 30, "a replica to take over")
    healed_at = time.monotonic()
    await asyncio.sleep(1.0)
    load.stop.set()
    await asyncio.gather(*tasks)

    # the chats on the surviving masters answered every message during the failover, promptly
    mine = {c for c, _ in survivors}
    kept = [s for s in load.sent if s["chat"] in mine and killed_at < s["started"] < healed_at]
    timeline = [
        (s["chat"], s["status"], round(s["started"] - killed_at, 2), round(s["ended"] - killed_at, 2))
        for s in load.sent
        if s["ended"] > killed_at
    ]
    failed = [(s["chat"], s["status"]) for s in kept if s["status"] != 200]
    assert not failed, f"{len(failed)} of {len(kept)} failed on surviving masters: {timeline}"
    within = [s for s in kept if s["ended"] < healed_at]
    assert {s["chat"] for s in within} == mine, (
        f"a surviving chat got no answer during the failover ({healed_at - killed_at:.1f} s): {timeline}"
    )
    slow = [s for s in kept if s["ended"] - s["started"] > 5]
    assert not slow, f"replies on surviving masters waited for the failover: {timeline}"

    # after the failover every chat answers again, the killed master's chats too
    for chat, user in [*survivors, *doomed]:
        status: Any = None
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            response = await api.send(chat.split(":", 1)[1], "still there?", user=user.split(":", 1)[1])
            status = response.status_code
            if status == 200:
                break
            await asyncio.sleep(0.5)
        assert status == 200, f"{chat} does not answer after the failover: {status}"

    # nothing acknowledged is lost
    for chat, _ in [*survivors, *doomed]:
        history = {m["text"] for m in await api.history(chat.split(":", 1)[1])}
        acked = [s["text"] for s in load.sent if s["chat"] == chat and s["status"] == 200]
        assert acked and not [t for t in acked if t not in history], chat

    # the worker runs a job after the failover: a chat of the promoted replica spills its window
    chat, user = doomed[0]
    name, who = chat.split(":", 1)[1], user.split(":", 1)[1]
    for i in range(70):
        stored = await api.send(name, f"Day {i}: the hills were cold.", user=who, reply=False)
        assert stored.status_code == 200, stored.text
    assert (await api.send(name, "Where are we now?", user=who)).status_code == 200
    summary: dict[str, Any] = {}
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline:
        summary = (await api.http.get(f"/api/chats/{name}/summary")).json()
        if summary.get("recent"):
            break
        await asyncio.sleep(0.5)
    assert summary.get("recent"), f"the worker ran no summary job after the failover: {summary}"
    assert time.monotonic() - killed_at < 90
    await api.close()
