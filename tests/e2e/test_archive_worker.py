"""EPI-1..3, 11, 13 from outside: the Procfile worker archives a session after an idle gap, the
REST API reads, searches, judges and restores its page."""

from __future__ import annotations

import asyncio
import os
import secrets
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.api_client import HearthClient
from tests.fixtures.servers import ADMIN_TOKEN, ROOT, RedisServer, WebApp, procfile_command

pytestmark = pytest.mark.e2e

SESSION = [
    "The deploy failed with ECONNREFUSED on https://api.example.com/v2/health this morning.",
    "I put the fix in /srv/hearth/deploy.toml and restarted the service.",
]


def start_worker(redis_server: RedisServer, tmp_path: Path) -> subprocess.Popen[bytes]:
    """The Procfile worker on the offline app's database, sweeping the archive every second."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "TELEGRAM_"))}
    env |= {
        "REDIS_URL": redis_server.db(2),
        "HEARTH_ADMIN_TOKEN": ADMIN_TOKEN,
        "HEARTH_ARCHIVE_SWEEP_SECS": "1",
    }
    with (tmp_path / "worker.log").open("wb") as log:
        command = procfile_command("worker")
        return subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)


@pytest.fixture
def archive_worker(redis_server: RedisServer, tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    proc = start_worker(redis_server, tmp_path)
    yield proc
    proc.terminate()
    proc.wait(timeout=20)


async def wait_for_pages(api: HearthClient, chat: str) -> list[dict[str, Any]]:
    pages: list[dict[str, Any]] = []
    for _ in range(300):  # the worker archives in the background, every HEARTH_ARCHIVE_SWEEP_SECS
        response = await api.http.get(f"/api/chats/{chat}/archive")
        assert response.status_code == 200, response.text
        pages = response.json()["pages"]
        if pages:
            return pages
        await asyncio.sleep(0.2)
    return pages


async def test_epi_1_the_worker_turns_a_finished_session_into_a_page_the_api_serves(
    offline_app: WebApp, archive_worker: subprocess.Popen[bytes]
) -> None:
    api = HearthClient(offline_app.base_url)
    chat = f"den-{secrets.token_hex(3)}"
    now = datetime.now(UTC)
    for i, text in enumerate(SESSION):  # a session two days ago ...
        sent = (now - timedelta(days=2) + timedelta(minutes=i)).isoformat()
        assert (await api.send(chat, text, user="ana", sent_at=sent, reply=False)).status_code == 200
    # ... then an idle gap, and a session still running now
    later = await api.send(
        chat, "Good morning, what's new?", user="ana", sent_at=now.isoformat(), reply=False
    )
    assert later.status_code == 200

    (page,) = await wait_for_pages(api, chat)
    assert page["layer"] == "episodic" and page["status"] == "active" and page["versions"] == 1
    assert "https://api.example.com/v2/health" in page["keep"] and "/srv/hearth/deploy.toml" in page["keep"]
    assert page["reads"] == 0 and page["low_entropy"] is False
    fresh_score = page["score"]

    opened = (await api.http.get(f"/api/archive/pages/{page['id']}")).json()["page"]
    assert opened["reads"] == 1 and opened["score"] > fresh_score  # EPI-2: a read raises the score
    assert "Good morning" not in opened["body"] and SESSION[0] in opened["body"]

    found = await api.http.post(
        "/api/archive/search", json={"chat": chat, "query": SESSION[0], "pin_first": True}
    )
    assert found.status_code == 200, found.text
    body = found.json()
    assert [r["id"] for r in body["results"]] == [page["id"]]
    assert body["results"][0]["page"]["reads"] == 2
    assert body["status"]["persona"] == "default" and body["status"]["chat"] == f"web:{chat}"

    judged = await api.http.post(f"/api/archive/pages/{page['id']}/feedback", json={"kind": "wrong"})
    assert judged.status_code == 200 and judged.json()["page"]["salience"] == 0.0
    assert judged.json()["page"]["score"] < opened["score"]

    missing = await api.http.post(f"/api/archive/pages/{page['id']}/restore", json={"version": 7})
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "no_such_version"
    bad = await api.http.post(f"/api/archive/pages/{page['id']}/feedback", json={"kind": "meh"})
    assert bad.status_code == 422
    status = await api.http.get("/api/archive/status", params={"chat": chat})
    assert status.json()["status"]["pages"] == {"active": 1}
    async with httpx.AsyncClient(base_url=offline_app.base_url) as anonymous:
        assert (await anonymous.get(f"/api/chats/{chat}/archive")).status_code == 401
    await api.close()


async def test_a_back_dated_conversation_keeps_its_timeline_and_splits_into_its_sessions(
    offline_app: WebApp, redis_server: RedisServer, tmp_path: Path
) -> None:
    """Issue 29: replies took the server's clock even when the message carried an older
    ``sent_at``, so two sessions a day apart merged into the running one and left no page.
    A reply now follows the back-dated message it answers (EPI-1 sessions by the chat's times)."""
    api = HearthClient(offline_app.base_url)
    chat = f"import-{secrets.token_hex(3)}"
    now = datetime.now(UTC)
    days = {
        3: ["Ana: we planted the apple trees by the north wall.", "Ana: the soil there is sandy."],
        2: ["Ana: the lighthouse keeper Tomas came for tea.", "Ana: he counted gulls until dusk."],
    }
    for ago, texts in days.items():
        for i, text in enumerate(texts):
            sent = now - timedelta(days=ago) + timedelta(minutes=i)
            answered = await api.send(chat, text, user="ana", sent_at=sent.isoformat())
            assert answered.status_code == 200, answered.text
    latest = await api.send(chat, "Good morning!", user="ana", sent_at=now.isoformat(), reply=False)
    assert latest.status_code == 200

    history = sorted(await api.history(chat), key=lambda m: m["position"])
    by_id = {m["id"]: m for m in history}
    replies = [m for m in history if m["role"] == "assistant" and m.get("reply_to")]
    assert len(replies) == 4
    for reply in replies:
        asked = datetime.fromisoformat(by_id[reply["reply_to"]]["sent_at"])
        answered_at = datetime.fromisoformat(reply["sent_at"])
        assert asked <= answered_at < asked + timedelta(minutes=5), (reply, asked)

    worker = start_worker(redis_server, tmp_path)  # after the import: no session is cut half-way
    try:
        pages: list[dict[str, Any]] = []
        for _ in range(300):
            pages = (await api.http.get(f"/api/chats/{chat}/archive")).json()["pages"]
            if len(pages) >= 2:
                break
            await asyncio.sleep(0.2)
        assert len(pages) == 2, pages  # two closed sessions; this morning's is still running
        bodies = [(await api.http.get(f"/api/archive/pages/{p['id']}")).json()["page"]["body"] for p in pages]
        apple = [b for b in bodies if "apple trees" in b]
        tea = [b for b in bodies if "Tomas" in b]
        assert len(apple) == len(tea) == 1 and apple != tea
        assert "Tomas" not in apple[0] and "apple trees" not in tea[0]
        assert "Good morning" not in "".join(bodies)
    finally:
        worker.terminate()
        worker.wait(timeout=20)
        await api.close()
