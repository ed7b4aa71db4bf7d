"""Faults with real processes (PLT-6, SUM-5): Redis killed mid-turn, a worker killed mid-summary,
a 529 storm then 429s, two web processes and two workers racing on one chat, a provider slower
than the lock's TTL. Each test starts its own Redis, fake Anthropic server and processes."""

from __future__ import annotations

import asyncio
import itertools
import time
from typing import Any

import pytest

from tests.e2e.api_client import HearthClient
from tests.fakes.anthropic_server import Error, FakeAnthropic, Reply
from tests.faults.conftest import KillableRedis, Processes, healthy, hearth_env, messages_requests, wait_until
from tests.fixtures.servers import RedisServer

pytestmark = [pytest.mark.e2e, pytest.mark.faults]

STORY = "Once, the lighthouse keeper Tomas counted gulls until the fog lifted over the bay at dawn."


def replies_by_message(history: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Message id → the texts of the replies stored for it."""
    found: dict[str, list[str]] = {}
    for m in history:
        if m["role"] == "assistant" and m.get("reply_to"):
            found.setdefault(m["reply_to"], []).append(m["text"])
    return found


def assert_answered_once_in_order(history: list[dict[str, Any]]) -> None:
    """Every user message has exactly one reply, and it sits right after the message."""
    ordered = sorted(history, key=lambda m: m["position"])
    users = [m for m in ordered if m["role"] == "user"]
    answers = replies_by_message(ordered)
    assert {m["id"]: len(answers.get(m["id"], [])) for m in users} == {m["id"]: 1 for m in users}
    for before, after in itertools.pairwise(ordered):
        if before["role"] == "user":
            assert after["role"] == "assistant" and after["reply_to"] == before["id"], (before, after)


async def test_plt6_redis_killed_mid_turn_the_next_message_is_answered_within_15s(
    killable_redis: KillableRedis, fake: FakeAnthropic, procs: Processes
) -> None:
    """Finding 1: the lock of the interrupted turn survives in the AOF; it must not block the chat
    (before: 300 s TTL, the next message waited 294 s). While Redis is down, requests get a quick
    503 ``storage_unavailable`` (before: the token cache raised an unmapped error, a 500)."""
    fake.script(Reply(text=STORY, chunk_size=4, delay=0.25))  # ~6 s of streaming
    web = procs.web(hearth_env(killable_redis.url, fake))
    api = HearthClient(web.base_url)
    first = asyncio.create_task(api.send("lighthouse", "Tell me a story, Ember.", user="ana"))
    await asyncio.to_thread(wait_until, lambda: messages_requests(fake), 20, "the turn to reach the model")
    killable_redis.kill()
    started = time.monotonic()
    down = await api.send("harbour", "Hello? Is anyone there?", user="bo")
    assert time.monotonic() - started < 8, "a request hung while Redis was down"
    assert down.status_code == 503 and down.json()["error"]["code"] == "storage_unavailable", down.text
    interrupted = await first
    assert interrupted.status_code == 503, interrupted.text
    assert interrupted.json()["error"]["code"] == "storage_unavailable"
    killable_redis.restart()
    started = time.monotonic()
    after = await api.send("lighthouse", "Are you still there, Ember?", user="ana")
    took = time.monotonic() - started
    assert after.status_code == 200, after.text
    assert took < 15, f"the next message waited {took:.1f} s for a lock left behind"
    history = await api.history("lighthouse")
    assert [m["text"] for m in history if m["role"] == "user"] == [
        "Tell me a story, Ember.",
        "Are you still there, Ember?",
    ]  # acknowledged before the kill, so still there
    assert_answered_once_in_order(history)  # the interrupted message was answered first
    assert healthy(web)
    await api.close()


async def test_sum5_a_worker_killed_mid_summary_the_job_is_reclaimed_and_summarized_once(
    redis_server: RedisServer, fake: FakeAnthropic, procs: Processes
) -> None:
    """Finding 6: kill -9 of the worker while Claude writes the summary; another worker takes
    the job over (before: it acknowledged the job undone) within 90 s, once, skipping nothing."""
    env = hearth_env(redis_server.db(5), fake, HEARTH_NAMESPACE="f6", HEARTH_JOB_RECLAIM_SECS="15")
    web = procs.web(env)
    api = HearthClient(web.base_url)
    chat = "saga"
    for i in range(69):
        text = f"Day {i}: Ana and Bo crossed the hills; it was cold."
        stored = await api.send(chat, text, user="ana", reply=False)
        assert stored.status_code == 200
    doomed = "THE KILLED WORKER'S SUMMARY " * 20
    fake.script(Reply(text="We are at the river, Ana."), Reply(text=doomed, chunk_size=2, delay=1.0))
    assert (await api.send(chat, "Where are we now?", user="ana")).status_code == 200
    first = procs.worker(env)
    await asyncio.to_thread(wait_until, lambda: len(messages_requests(fake)) >= 2, 60, "the summary call")
    first.kill()  # kill -9 in the middle of the summary
    first.wait(timeout=10)
    killed_at = time.monotonic()
    procs.worker(env)
    summary: dict[str, Any] = {}
    while time.monotonic() - killed_at < 90:
        summary = (await api.http.get(f"/api/chats/{chat}/summary")).json()
        if summary["recent"]:
            break
        await asyncio.sleep(0.5)
    assert summary["recent"], f"no summary within 90 s of the kill: {summary}"
    # 72 messages (greeting, 70 from Ana, the reply); 50 in the window; 22 out = 1 chunk of 20 + 2
    assert len(summary["recent"]) == 1 and summary["recent"][0]["messages"] == 20
    assert summary["recent"][0]["first"] == 0.0  # nothing skipped: it starts at the greeting
    assert summary["unsummarized"] == 10
    assert "KILLED WORKER" not in summary["recent"][0]["text"]
    await asyncio.sleep(2)  # a late second commit would show now
    again = (await api.http.get(f"/api/chats/{chat}/summary")).json()
    assert again["recent"] == summary["recent"]  # summarized once
    await api.close()


async def test_plt6_a_529_storm_then_429s_gives_clear_errors_and_then_answers(
    redis_server: RedisServer, fake: FakeAnthropic, procs: Processes
) -> None:
    """Overloaded, then rate limited: clear 502s in the contract shape, never a 500; each message
    is stored; once Claude is back the next message is answered, once."""
    web = procs.web(hearth_env(redis_server.db(5), fake, HEARTH_NAMESPACE="storm"))
    api = HearthClient(web.base_url)
    fake.script(
        *[Error(status=529)] * 6,
        *[Error(status=429, retry_after=0.2)] * 3,
        Reply(text="Sorry for the wait, Ana. The kettle is on."),
    )
    statuses, codes = [], []
    for text in ("Ember?", "Ember, are you there?", "Hello??"):
        response = await api.send("storm", text, user="ana")
        statuses.append(response.status_code)
        codes.append(response.json()["error"]["code"])
        assert "saved" in response.json()["error"]["message"]
    assert statuses == [502, 502, 502]
    assert codes == ["llm_overloaded", "llm_overloaded", "llm_rate_limited"]
    answered = await api.send("storm", "Shall we have tea?", user="ana")
    assert answered.status_code == 200
    assert answered.json()["reply"] == "Sorry for the wait, Ana. The kettle is on."
    history = await api.history("storm")
    assert [m["text"] for m in history if m["role"] == "user"] == [
        "Ember?", "Ember, are you there?", "Hello??", "Shall we have tea?",
    ]  # fmt: skip
    assert list(replies_by_message(history).values()) == [["Sorry for the wait, Ana. The kettle is on."]]
    assert len(messages_requests(fake)) == 10  # 3 attempts per failed turn, then one success
    assert " 500 " not in procs.log("web0.log") and healthy(web)
    await api.close()


async def test_plt6_two_web_processes_and_two_workers_racing_on_one_chat(
    redis_server: RedisServer, fake: FakeAnthropic, procs: Processes
) -> None:
    """40 messages sent at once through two web processes while two workers summarize the chat:
    every message is answered exactly once, right after itself; the summary tiers never overlap."""
    env = hearth_env(redis_server.db(5), fake, HEARTH_NAMESPACE="race", HEARTH_JOB_RECLAIM_SECS="15")
    webs = [procs.web(env), procs.web(env)]
    procs.worker(env)
    procs.worker(env)
    fake.script(*[Reply(chunk_size=6, delay=0.02) for _ in range(200)])  # echo replies, with latency
    clients = [HearthClient(w.base_url) for w in webs]
    names = ["Ana", "Bo", "Cyd", "Dee"]

    async def send(i: int) -> int:
        text = f"{names[i % 4]} says: message {i} about the harvest fair"
        response = await clients[i % 2].send("fair", text, user=names[i % 4].lower())
        return response.status_code

    assert await asyncio.gather(*(send(i) for i in range(40))) == [200] * 40
    history = await clients[0].history("fair")
    assert_answered_once_in_order(history)
    assert len([m for m in history if m["role"] == "user"]) == 40
    summary: dict[str, Any] = {}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        summary = (await clients[1].http.get("/api/chats/fair/summary")).json()
        if summary["recent"] and summary["unsummarized"] < 20:
            break
        await asyncio.sleep(0.5)
    spans = sorted((t["first"], t["last"]) for t in summary["recent"])
    assert spans, summary
    assert all(a[1] < b[0] for a, b in itertools.pairwise(spans))  # no message summarized twice
    for client in clients:
        await client.close()


async def test_plt6_a_provider_slower_than_the_lock_ttl_stores_exactly_one_reply(
    redis_server: RedisServer, fake: FakeAnthropic, procs: Processes
) -> None:
    """Finding 5 with the defaults: a 14 s reply outlives the 10 s lease, which is renewed; a
    message sent to a second web process meanwhile waits its turn instead of answering again."""
    env = hearth_env(redis_server.db(5), fake, HEARTH_NAMESPACE="slow")
    first, second = procs.web(env), procs.web(env)
    fake.script(Reply(text=STORY, chunk_size=4, delay=0.6), Reply(text="Good night, Bo."))  # ~14 s
    api1, api2 = HearthClient(first.base_url), HearthClient(second.base_url)
    slow = asyncio.create_task(api1.send("night", "A long story please, Ember.", user="ana"))
    await asyncio.sleep(11)  # past the lease's 10 s TTL
    quick = await api2.send("night", "Good night, everyone.", user="bo")
    done = await slow
    assert done.status_code == 200 and done.json()["reply"] == STORY
    assert quick.status_code == 200 and quick.json()["reply"] == "Good night, Bo."
    history = await api1.history("night")
    assert_answered_once_in_order(history)
    assert len(messages_requests(fake)) == 2  # nobody answered the slow message a second time
    for client in (api1, api2):
        await client.close()


async def test_plt6_concurrent_chats_for_a_while_answer_without_a_single_error(
    redis_server: RedisServer, fake: FakeAnthropic, procs: Processes
) -> None:
    """The bounded version of ``bench/fault_load.py`` (50 chats x 60 s, figures in BENCHMARKS.md):
    12 chats at once for 8 s through one web process, every message answered."""
    from bench.fault_load import run_load

    web = procs.web(hearth_env(redis_server.db(5), fake, HEARTH_NAMESPACE="load"))
    fake.script(*[Reply(chunk_size=8, delay=0.01) for _ in range(5_000)])
    latencies, errors, statuses = await run_load(web.base_url, 12, 8.0)
    assert errors == 0, statuses
    assert len(latencies) >= 12  # every chat got answers
    api = HearthClient(web.base_url)
    assert_answered_once_in_order(await api.history("load-3"))
    await api.close()


async def test_a_worker_started_while_redis_is_down_waits_then_runs_jobs(
    killable_redis: KillableRedis, fake: FakeAnthropic, procs: Processes
) -> None:
    """Issue 29: a worker started before Redis exited at once. It must wait (retrying, logging)
    and, once Redis is up, take and run jobs as usual: here a chat's summary."""
    killable_redis.kill()
    env = hearth_env(killable_redis.url, fake)
    worker = procs.worker(env)
    await asyncio.to_thread(
        wait_until, lambda: "Redis does not answer yet" in procs.log("worker0.log"), 60, "the worker to wait"
    )
    await asyncio.sleep(3)
    assert worker.poll() is None, procs.log("worker0.log")  # still waiting, not exited
    killable_redis.restart()
    web = procs.web(env)
    api = HearthClient(web.base_url)
    chat = "late-start"
    for i in range(69):
        stored = await api.send(chat, f"Day {i}: Ana and Bo crossed the hills.", user="ana", reply=False)
        assert stored.status_code == 200
    fake.script(Reply(text="We are at the river, Ana."), Reply(text="Ana and Bo crossed the hills for days."))
    assert (await api.send(chat, "Where are we now?", user="ana")).status_code == 200
    summary: dict[str, Any] = {}
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        summary = (await api.http.get(f"/api/chats/{chat}/summary")).json()
        if summary["recent"]:
            break
        await asyncio.sleep(0.5)
    assert summary["recent"], f"the worker ran no job within 90 s of Redis coming up: {summary}"
    assert summary["recent"][0]["text"] == "Ana and Bo crossed the hills for days."
    assert worker.poll() is None
    await api.close()
