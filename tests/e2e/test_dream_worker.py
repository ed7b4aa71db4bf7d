"""EPI-10 from outside: the Procfile worker, with Claude pointed at the fake Anthropic server,
merges cold near-duplicate pages in its archive pass and rejects schema-invalid output."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import subprocess
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis

from engine.archive import ArchivePolicy, new_page
from storage.keys import KeyBuilder
from storage.redis_archive import RedisArchiveStore
from tests.e2e.api_client import HearthClient
from tests.fakes.anthropic_server import FakeAnthropic, Reply
from tests.fixtures.servers import ADMIN_TOKEN, API_KEY, ROOT, RedisServer, WebApp, procfile_command

pytestmark = pytest.mark.e2e

DB = 2  # the offline_app's database: its REST API shows what the worker did
DEPLOY = (
    "Ana: The deploy failed with ECONNREFUSED on https://api.example.com/v2/health this morning. "
    "The fix went into /srv/hearth/deploy.toml.",
    "Ana: The deploy failed again with ECONNREFUSED on https://api.example.com/v2/health. "
    "The fix went into /srv/hearth/deploy.toml.",
)
GARDEN = (
    "Ana: Tomatoes need more sun this year, so we move the basil next to the kitchen window on Sunday.",
    "Ana: Tomatoes need more sun this year; we move the basil next to the kitchen window on Sunday.",
)


def start_dream_worker(
    redis_server: RedisServer, fake: FakeAnthropic, tmp_path: Path, **extra: str
) -> subprocess.Popen[bytes]:
    """The Procfile worker dreaming with Claude (the fake) every second on the offline app's data."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "TELEGRAM_"))}
    env |= {
        "REDIS_URL": redis_server.db(DB),
        "HEARTH_ADMIN_TOKEN": ADMIN_TOKEN,
        "ANTHROPIC_API_KEY": API_KEY,
        "ANTHROPIC_BASE_URL": fake.base_url,
        "HEARTH_LLM_MAX_RETRIES": "0",
        "HEARTH_EMBEDDER": "hash",
        "HEARTH_ARCHIVE_SWEEP_SECS": "1",
        "HEARTH_DREAM_ENABLED": "true",
        "HEARTH_DREAM_IDLE_SECS": "0",
        **extra,
    }
    with (tmp_path / "worker.log").open("wb") as out:
        command = procfile_command("worker")
        return subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)


@pytest.fixture
def dream_worker(
    redis_server: RedisServer, anthropic_fake: FakeAnthropic, tmp_path: Path
) -> Iterator[subprocess.Popen[bytes]]:
    proc = start_dream_worker(redis_server, anthropic_fake, tmp_path)
    yield proc
    proc.terminate()
    proc.wait(timeout=20)


@pytest.fixture
async def store(redis_server: RedisServer) -> AsyncIterator[RedisArchiveStore]:
    client = aioredis.from_url(redis_server.db(DB))
    yield RedisArchiveStore(client, KeyBuilder(prefix="hearth"))
    await client.aclose()


async def seed(store: RedisArchiveStore, chat: str, ids: tuple[str, str], texts: tuple[str, str]) -> None:
    """Two cold near-duplicate pages (200 and 199 days old); the newer one survives a merge."""
    old = datetime.now(UTC) - timedelta(days=200)
    pages = [
        new_page(id=i, chat=chat, created_at=old + timedelta(days=n), policy=ArchivePolicy(), body=text)
        for n, (i, text) in enumerate(zip(ids, texts, strict=True))
    ]
    await store.change(chat, lambda _: (pages, (), None))


def answer(ids: tuple[str, ...]) -> str:
    return json.dumps(
        {
            "abstract": "Deploy failure fixed",
            "summary": "The deploy failed with ECONNREFUSED; the fix is in /srv/hearth/deploy.toml.",
            "body": "The deploy failed with ECONNREFUSED on https://api.example.com/v2/health.",
            "evidence": [{"page": i, "line": "The deploy failed with ECONNREFUSED"} for i in ids],
        }
    )


async def poll(read: Any, done: Any, what: str) -> Any:
    value = None
    for _ in range(150):  # the worker passes every second
        value = await read()
        if done(value):
            return value
        await asyncio.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}: {value!r}")


async def passes(store: RedisArchiveStore, count: int) -> None:
    """Wait until the worker ran ``count`` more archive passes (each leaves a dream report)."""
    since = datetime.now(UTC)
    await poll(store.dream_reports, lambda r: sum(x.started_at > since for x in r) >= count, "more passes")


async def test_epi_10_the_worker_dreams_with_claude_merges_and_rejects_invalid_output(
    offline_app: WebApp,
    anthropic_fake: FakeAnthropic,
    dream_worker: subprocess.Popen[bytes],
    store: RedisArchiveStore,
) -> None:
    api = HearthClient(offline_app.base_url)
    chat = f"web:dream-{secrets.token_hex(3)}"

    async def archive() -> dict[str, dict[str, Any]]:
        response = await api.http.get(f"/api/chats/{chat}/archive")
        assert response.status_code == 200, response.text
        return {p["id"]: p for p in response.json()["pages"]}

    async def reports() -> list[dict[str, Any]]:
        response = await api.http.get("/api/archive/dream-reports")
        assert response.status_code == 200, response.text
        return list(response.json()["reports"])

    # 1. valid JSON: the two deploy pages become one (scripted before the pages exist)
    deploy = (f"pg-{secrets.token_hex(4)}", f"pg-{secrets.token_hex(4)}")
    anthropic_fake.script(Reply(text=answer(deploy), chunk_size=64))
    await seed(store, chat, deploy, DEPLOY)
    pages = await poll(archive, lambda p: p.get(deploy[0], {}).get("status") == "superseded", "the merge")
    stub, merged = pages[deploy[0]], pages[deploy[1]]
    assert stub["superseded_by"] == deploy[1]
    assert merged["abstract"] == "Deploy failure fixed" and merged["versions"] >= 2
    full = (await api.http.get(f"/api/archive/pages/{deploy[1]}")).json()["page"]
    assert [v["reason"] for v in full["history"]] == ["created"]  # the dream's version is current
    assert f"- from {deploy[0]}: The deploy failed with ECONNREFUSED" in full["body"]
    assert full["merged_from"] == [deploy[0]]
    (request,) = [r for r in anthropic_fake.requests if r.path == "/v1/messages"]
    assert DEPLOY[0] in json.dumps(request.body) and DEPLOY[1] in json.dumps(request.body)
    found = await poll(reports, lambda r: any(m[0] == deploy[1] for x in r for m in x["merged"]), "a report")
    assert any(x["status"] == "done" for x in found)

    # 2. schema-invalid JSON: rejected, recorded, nothing changed
    garden = (f"pg-{secrets.token_hex(4)}", f"pg-{secrets.token_hex(4)}")
    anthropic_fake.script(Reply(text='{"abstract": "no body and no evidence"}'))
    await seed(store, chat, garden, GARDEN)
    found = await poll(
        reports, lambda r: any(j[0] == garden[1] for x in r for j in x["rejected"]), "a rejection"
    )
    reason = next(j[1] for x in found for j in x["rejected"] if j[0] == garden[1])
    assert reason.startswith("invalid JSON output")
    raw = {p.id: p for p in await store.pages(chat)}
    assert all(raw[i].version_reason != "dream" and raw[i].superseded_by is None for i in garden)
    assert all("dream" not in [v.reason for v in raw[i].versions] for i in garden)

    # the web process records client activity for the idle trigger
    before = await store.last_activity()
    assert (await api.send(chat.removeprefix("web:"), "hello", user="ana", reply=False)).status_code == 200
    after = await store.last_activity()
    assert after is not None and (before is None or after >= before)
    assert abs((datetime.now(UTC) - after).total_seconds()) < 30
    await api.close()


async def test_epi_10_the_sweep_after_a_dream_keeps_the_page_it_merged(
    offline_app: WebApp,
    anthropic_fake: FakeAnthropic,
    dream_worker: subprocess.Popen[bytes],
    store: RedisArchiveStore,
) -> None:
    """Issue 29: the merged page (cold, like every page a dream merges) was evicted by the sweep
    of the same pass. It stays in search through the passes that follow."""
    api = HearthClient(offline_app.base_url)
    chat = f"web:dream-{secrets.token_hex(3)}"
    deploy = (f"pg-{secrets.token_hex(4)}", f"pg-{secrets.token_hex(4)}")
    anthropic_fake.script(Reply(text=answer(deploy), chunk_size=64))
    await seed(store, chat, deploy, DEPLOY)

    async def merged() -> Any:
        return {p.id: p for p in await store.pages(chat)}.get(deploy[1])

    await poll(merged, lambda p: p is not None and p.version_reason == "dream", "the merge")
    await passes(store, 3)
    page = await merged()
    assert page.status in ("active", "cold") and page.evicted_at is None, page
    pages = {p["id"]: p for p in (await api.http.get(f"/api/chats/{chat}/archive")).json()["pages"]}
    assert pages[deploy[1]]["status"] != "evicted" and pages[deploy[1]]["abstract"] == "Deploy failure fixed"
    found = await api.http.post("/api/archive/search", json={"chat": chat, "query": "deploy ECONNREFUSED"})
    assert deploy[1] in [r["id"] for r in found.json()["results"]]
    await api.close()


async def test_epi_10_a_rejected_cluster_is_not_sent_again_while_its_pages_stay_the_same(
    anthropic_fake: FakeAnthropic, store: RedisArchiveStore, redis_server: RedisServer, tmp_path: Path
) -> None:
    """Issue 29: a cluster whose output was rejected went to the model again on every pass.
    With compaction (rejected pages are not evicted, they stay candidates) the model sees the
    cluster once, and once more after the sweep compacted its pages (a change), then never."""
    chat = f"web:dream-{secrets.token_hex(3)}"
    garden = (f"pg-{secrets.token_hex(4)}", f"pg-{secrets.token_hex(4)}")
    worker = start_dream_worker(redis_server, anthropic_fake, tmp_path, HEARTH_ARCHIVE_COMPACT_COLD="true")
    try:
        anthropic_fake.script(*[Reply(text='{"abstract": "no body and no evidence"}')] * 20)
        await seed(store, chat, garden, GARDEN)

        def sent() -> int:
            return sum(GARDEN[1] in json.dumps(r.body) for r in anthropic_fake.requests)

        def rejected(reports: list[Any]) -> bool:
            return any(survivor in garden for x in reports for survivor, _ in x.rejected)

        await poll(store.dream_reports, rejected, "a rejection")
        assert sent() >= 1
        await passes(store, 5)
        assert sent() <= 2, f"the rejected cluster went to the model {sent()} times"
    finally:
        worker.terminate()
        worker.wait(timeout=20)
