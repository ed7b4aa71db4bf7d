"""``/metrics`` and ``/readyz`` of the real web process (API.md Operations, issue 32).

Two web processes on database 15: one talking to the fake Anthropic server with
``HEARTH_ADMIN_TOKEN`` set, one offline without a token (loopback only) logging JSON lines.
Both trust a reverse proxy on 127.0.0.1, so a request with ``X-Forwarded-For`` stands for a
client elsewhere.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
import redis.asyncio as aioredis
from prometheus_client.parser import text_string_to_metric_families

from tests.e2e.api_client import HearthClient
from tests.fakes.anthropic_server import FakeAnthropic, Reply
from tests.fixtures.servers import (
    ADMIN_TOKEN,
    API_KEY,
    ROOT,
    RedisServer,
    WebApp,
    free_port,
    procfile_command,
)

pytestmark = pytest.mark.e2e

DB = 15
OUTSIDE = {"X-Forwarded-For": "203.0.113.9"}  # a client beyond the trusted proxy on loopback


def _env(redis_server: RedisServer, **extra: str) -> dict[str, str]:
    return {
        **redis_server.env(DB),
        "HEARTH_EMBEDDER": "hash",
        "HEARTH_OFFLINE_DELAY_MS": "5",
        "HEARTH_TRUSTED_PROXIES": "127.0.0.1",
        **extra,
    }


@pytest.fixture(scope="module")
def metrics_app(
    redis_server: RedisServer, fake_anthropic: FakeAnthropic, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[WebApp]:
    env = _env(
        redis_server,
        HEARTH_ADMIN_TOKEN=ADMIN_TOKEN,
        ANTHROPIC_API_KEY=API_KEY,
        ANTHROPIC_BASE_URL=fake_anthropic.base_url,
    )
    app = WebApp(env, tmp_path_factory.mktemp("metrics-app") / "web.log")
    yield app
    app.stop()


@pytest.fixture(scope="module")
def open_app(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebApp]:
    env = _env(redis_server, HEARTH_ADMIN_TOKEN="", HEARTH_LOG_FORMAT="json")
    app = WebApp(env, tmp_path_factory.mktemp("open-app") / "web.log")
    yield app
    app.stop()


@pytest.fixture
async def jobs(redis_server: RedisServer) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.from_url(redis_server.db(DB))
    await client.delete("hearth:jobs")
    yield client
    await client.delete("hearth:jobs")
    await client.aclose()


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of a Prometheus text answer, by name and labels."""
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(found: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str) -> float:
    return found.get((name, frozenset(labels.items())), 0.0)


async def test_metrics_count_two_turns_and_the_providers_tokens(
    metrics_app: WebApp, anthropic_fake: FakeAnthropic
) -> None:
    """Issue 32: after two answered turns ``/metrics`` (with the admin token) shows the turn
    histogram's count 2 for the provider, time to first token, the four token counters and
    the memory decisions."""
    anthropic_fake.script(Reply(text="Hello there, friend."), Reply(text="Nice to see you again."))
    api = HearthClient(metrics_app.base_url)
    try:
        for text in ("Hi!", "How are you?"):
            response = await api.send("web:metrics", text)
            assert response.status_code == 200, response.text
        answer = await api.http.get("/metrics")
    finally:
        await api.close()
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain")
    found = samples(answer.text)
    assert value(found, "hearth_turn_seconds_count", provider="anthropic", outcome="ok") == 2
    assert value(found, "hearth_first_token_seconds_count", provider="anthropic") == 2
    assert value(found, "hearth_tokens_total", provider="anthropic", kind="input") > 0
    assert value(found, "hearth_tokens_total", provider="anthropic", kind="output") > 0
    kinds = {dict(labels)["kind"] for name, labels in found if name == "hearth_tokens_total"}
    assert kinds == {"input", "cache_read", "cache_write", "output"}
    decisions = sum(v for (name, _), v in found.items() if name == "hearth_memory_decisions_total")
    assert decisions == 2
    assert ("hearth_job_queue_depth", frozenset()) in found


async def test_metrics_need_the_token_from_outside_loopback(metrics_app: WebApp) -> None:
    """Issue 32: ``/metrics`` is guarded like the operator API: without the token (or with a wrong
    one) a client beyond the proxy gets 401 in the API's error shape; with it, the metrics."""
    async with httpx.AsyncClient(base_url=metrics_app.base_url, timeout=30) as http:
        bare = await http.get("/metrics", headers=OUTSIDE)
        wrong = await http.get("/metrics", headers={**OUTSIDE, "Authorization": "Bearer nope"})
        right = await http.get("/metrics", headers={**OUTSIDE, "Authorization": f"Bearer {ADMIN_TOKEN}"})
    assert bare.status_code == 401
    assert bare.json()["error"]["code"] == "unauthorized"
    assert wrong.status_code == 401
    assert "hearth_turn_seconds" not in bare.text + wrong.text
    assert right.status_code == 200
    assert "hearth_turn_seconds" in right.text


async def test_metrics_without_a_token_answer_loopback_only(open_app: WebApp) -> None:
    """Issue 32: with ``HEARTH_ADMIN_TOKEN`` unset, a loopback client reads ``/metrics`` and a client
    forwarded from elsewhere gets 401."""
    async with httpx.AsyncClient(base_url=open_app.base_url, timeout=30) as http:
        local = await http.get("/metrics")
        outside = await http.get("/metrics", headers=OUTSIDE)
    assert local.status_code == 200
    assert "hearth_redis_errors" in local.text
    assert outside.status_code == 401
    assert outside.json()["error"]["code"] == "unauthorized"


async def test_job_queue_gauges_read_the_stream_at_scrape(open_app: WebApp, jobs: aioredis.Redis) -> None:
    """Issue 32: the queue depth counts jobs no worker acknowledged yet, and the oldest job's age
    comes from its stream id, read when ``/metrics`` is scraped."""
    old_ms = int((await jobs.time())[0]) * 1000 - 90_000  # queued 90 s ago
    await jobs.xadd("hearth:jobs", {"kind": "summarize", "chat": "web:a"}, id=f"{old_ms}-0")
    await jobs.xadd("hearth:jobs", {"kind": "summarize", "chat": "web:b"})
    async with httpx.AsyncClient(base_url=open_app.base_url, timeout=30) as http:
        found = samples((await http.get("/metrics")).text)
    assert value(found, "hearth_job_queue_depth") == 2
    assert 60 < value(found, "hearth_job_oldest_age_seconds") < 3600


async def test_readyz_answers_200_once_ready_and_healthz_stays(metrics_app: WebApp, open_app: WebApp) -> None:
    """Issue 32: once the process has loaded its models and indexes ``/readyz`` answers 200 (no token
    needed, as ``/healthz``)."""
    for app in (metrics_app, open_app):
        async with httpx.AsyncClient(base_url=app.base_url, timeout=30) as http:
            ready = await http.get("/readyz", headers=OUTSIDE)
            health = await http.get("/healthz")
        assert (ready.status_code, ready.json()) == (200, {"status": "ready"})
        assert health.status_code == 200


async def test_the_worker_serves_its_registry_on_loopback(redis_server: RedisServer, tmp_path: Path) -> None:
    """Issue 32: with ``HEARTH_WORKER_METRICS_PORT`` the worker serves its own registry (turns of
    Telegram polling, Redis errors, the job queue gauges) on 127.0.0.1."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "TELEGRAM_"))}
    env |= {
        **_env(redis_server),
        "HEARTH_NAMESPACE": "worker-metrics",
        "HEARTH_WORKER_METRICS_PORT": str(port),
    }
    with (tmp_path / "worker.log").open("wb") as log:
        proc = subprocess.Popen(
            procfile_command("worker"), cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
        )
    try:
        text = ""
        async with httpx.AsyncClient(timeout=5) as http:
            for _ in range(600):  # the worker loads its models first (up to a minute on a busy machine)
                assert proc.poll() is None, (tmp_path / "worker.log").read_text()
                try:
                    answer = await http.get(f"http://127.0.0.1:{port}/metrics")
                except httpx.HTTPError:
                    await asyncio.sleep(0.1)
                    continue
                text = answer.text
                break
        assert "# TYPE hearth_turn_seconds histogram" in text
        assert "# TYPE hearth_redis_errors_total counter" in text
        assert value(samples(text), "hearth_job_queue_depth") == 0  # read from Redis: nothing queued
    finally:
        proc.terminate()
        proc.wait(timeout=20)


async def test_json_log_lines_name_the_chat_and_the_turn(open_app: WebApp) -> None:
    """Issue 32: with ``HEARTH_LOG_FORMAT=json`` the web process logs one JSON object a line, uvicorn's
    lines included, and each turn logs a ``hearth.turns`` line with its chat and turn id."""
    api = HearthClient(open_app.base_url, token=None)  # loopback, no token set
    try:
        answer = await api.send("web:logs", "Hello, logs!")
    finally:
        await api.close()
    assert answer.status_code == 200, answer.text
    turn = answer.json()["turn"]
    lines: list[dict[str, object]] = []
    for _ in range(50):
        lines = [json.loads(x) for x in open_app.output().splitlines() if x.startswith("{")]
        if any(line.get("turn") == turn for line in lines):
            break
        await asyncio.sleep(0.1)
    (logged,) = [line for line in lines if line.get("turn") == turn]
    assert logged["logger"] == "hearth.turns"
    assert (logged["chat"], logged["outcome"], logged["level"]) == ("web:logs", "ok", "INFO")
    assert any(
        line["logger"] == "uvicorn.error" and "Uvicorn running" in str(line["message"]) for line in lines
    )
    assert not [x for x in open_app.output().splitlines() if " INFO " in x and not x.startswith("{")]
