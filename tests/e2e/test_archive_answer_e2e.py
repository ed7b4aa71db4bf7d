"""EPI-13 ``answer``/``reasoning`` and EPI-8/EPI-9 lint and explain from outside: the Procfile
``web`` and ``worker`` on one Redis database; the worker archives a finished session, then the
REST API searches it with an answer (through the fake Anthropic server, or honestly without one)
and lints and explains saved memories against it."""

from __future__ import annotations

import asyncio
import secrets
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.api_client import HearthClient
from tests.e2e.test_deep_memory_e2e import start_worker
from tests.fakes.anthropic_server import FakeAnthropic, Reply
from tests.fixtures.servers import ADMIN_TOKEN, API_KEY, RedisServer, WebApp

pytestmark = pytest.mark.e2e

DB = 15
SESSION = [
    "The deploy failed with ECONNREFUSED on https://api.example.com/v2/health this morning.",
    "Ana lives in Berlin now, she moved there last spring.",
]


def _base_env(redis_server: RedisServer) -> dict[str, str]:
    return {
        "REDIS_URL": redis_server.db(DB),
        "HEARTH_ADMIN_TOKEN": ADMIN_TOKEN,
        "HEARTH_ARCHIVE_SWEEP_SECS": "1",
        "HEARTH_OFFLINE_DELAY_MS": "5",
    }


@pytest.fixture(scope="module")
def worker(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[subprocess.Popen[bytes]]:
    """The worker that archives both tests' chats (each test's chat has a random name). It has no
    LLM: archiving a session asks none, and each test's web process brings its own setting."""
    proc = start_worker(_base_env(redis_server), tmp_path_factory.mktemp("archive-answer") / "worker.log")
    yield proc
    proc.terminate()
    proc.wait(timeout=20)


@pytest.fixture
def offline_pair(
    redis_server: RedisServer, worker: subprocess.Popen[bytes], tmp_path: Path
) -> Iterator[WebApp]:
    """A web process with no LLM, beside the module's worker."""
    app = WebApp(_base_env(redis_server), tmp_path / "web.log")
    yield app
    app.stop()


@pytest.fixture
def llm_pair(
    redis_server: RedisServer, worker: subprocess.Popen[bytes], anthropic_fake: FakeAnthropic, tmp_path: Path
) -> Iterator[WebApp]:
    """A web process talking to the fake Anthropic server, beside the module's worker."""
    env = {
        **_base_env(redis_server),
        "ANTHROPIC_API_KEY": API_KEY,
        "ANTHROPIC_BASE_URL": anthropic_fake.base_url,
        "HEARTH_LLM_MAX_RETRIES": "0",
    }
    app = WebApp(env, tmp_path / "web.log")
    yield app
    app.stop()


async def _archived_page(api: HearthClient, chat: str) -> dict[str, Any]:
    """Post a session two days ago and one now; wait for the worker to archive the first."""
    now = datetime.now(UTC)
    for i, text in enumerate(SESSION):
        sent = (now - timedelta(days=2) + timedelta(minutes=i)).isoformat()
        assert (await api.send(chat, text, user="ana", sent_at=sent, reply=False)).status_code == 200
    later = await api.send(chat, "Good morning!", user="ana", sent_at=now.isoformat(), reply=False)
    assert later.status_code == 200
    for _ in range(300):
        pages = (await api.http.get(f"/api/chats/{chat}/archive")).json()["pages"]
        if pages:
            return dict(pages[0])
        await asyncio.sleep(0.2)
    raise AssertionError("the worker archived nothing")


async def test_epi_13_answer_cites_only_returned_pages(
    llm_pair: WebApp, anthropic_fake: FakeAnthropic
) -> None:
    api = HearthClient(llm_pair.base_url)
    chat = f"ops-{secrets.token_hex(3)}"
    page = await _archived_page(api, chat)
    anthropic_fake.script(Reply(text=f"It failed with ECONNREFUSED [{page['id']}] [pg-made-up]."))
    found = await api.http.post(
        "/api/archive/search",
        json={"chat": chat, "query": "why did the deploy fail?", "answer": True, "reasoning": "minimal"},
    )
    assert found.status_code == 200, found.text
    body = found.json()
    assert [r["id"] for r in body["results"]] == [page["id"]] and body["reasoning"] == "minimal"
    assert body["answer"] == f"It failed with ECONNREFUSED [{page['id']}]."
    assert body["citations"] == [page["id"]] and body["stripped_citations"] == ["pg-made-up"]
    assert "answer_unavailable" not in body
    (request,) = [r for r in anthropic_fake.requests if r.path == "/v1/messages"]
    assert request.body["max_tokens"] == 256  # the minimal level's budget
    assert f"[{page['id']}]" in str(request.body["messages"])
    await api.close()


async def test_epi_13_without_an_llm_results_return_and_the_answer_says_why(offline_pair: WebApp) -> None:
    api = HearthClient(offline_pair.base_url)
    chat = f"ops-{secrets.token_hex(3)}"
    page = await _archived_page(api, chat)
    found = await api.http.post(
        "/api/archive/search", json={"chat": chat, "query": "deploy ECONNREFUSED", "answer": True}
    )
    assert found.status_code == 200, found.text
    body = found.json()
    assert [r["id"] for r in body["results"]] == [page["id"]]
    assert body["answer"] is None and body["answer_unavailable"].startswith("no LLM")
    bad = await api.http.post(
        "/api/archive/search", json={"chat": chat, "query": "deploy", "reasoning": "extreme"}
    )
    assert bad.status_code in (400, 422)

    # EPI-8: same topic, different fact -> one advisory pair, newer named; nothing edited
    add = {"scope": "personal", "owner": "ana", "space": chat}
    paris = (await api.http.post("/api/memories", json={**add, "text": "Ana lives in Paris."})).json()[
        "memory"
    ]
    await asyncio.sleep(0.01)
    berlin = (await api.http.post("/api/memories", json={**add, "text": "Ana lives in Berlin now."})).json()[
        "memory"
    ]
    sister = (
        await api.http.post("/api/memories", json={**add, "text": "Ana's sister is called Mira."})
    ).json()["memory"]
    linted = await api.http.get("/api/memories/lint", params=add)
    assert linted.status_code == 200, linted.text
    pairs = linted.json()["pairs"]
    assert [(p["older"]["id"], p["newer_id"]) for p in pairs] == [(paris["id"], berlin["id"])]
    listed = (await api.http.get("/api/memories", params=add)).json()["memories"]
    assert {m["id"] for m in listed} == {paris["id"], berlin["id"], sister["id"]}

    # EPI-9: the archived session supports "Berlin"; "Paris" contradicts it; Mira has no support
    explained = (await api.http.get(f"/api/memories/{berlin['id']}/explain")).json()
    assert explained["supporting_pages"] == [page["id"]] and explained["contradictions"] == 1
    assert 0 < explained["confidence"] <= 0.95 and "confidence" in explained["text"]
    assert explained["ranking"] == "unaffected"
    lonely = (await api.http.get(f"/api/memories/{sister['id']}/explain")).json()
    assert lonely["confidence"] == 0 and lonely["supporting_sessions"] == 0 and lonely["contradictions"] == 0
    missing = await api.http.get("/api/memories/mem-nope/explain")
    assert missing.status_code == 404
    await api.close()
