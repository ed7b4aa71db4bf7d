"""SUM-1, SUM-4, SUM-5 from outside: the web and worker processes of the Procfile share one Redis."""

from __future__ import annotations

import asyncio
import os
import secrets
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e import backends
from tests.e2e.api_client import HearthClient
from tests.fixtures.servers import ADMIN_TOKEN, ROOT, WebApp, procfile_command

pytestmark = pytest.mark.e2e
offline_app = backends.offline_app  # every test here runs on a single Redis and on a Redis Cluster


@pytest.fixture
def worker(offline_app: WebApp, tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "TELEGRAM_"))}
    assert offline_app.redis is not None
    env |= {**offline_app.redis.env(2), "HEARTH_ADMIN_TOKEN": ADMIN_TOKEN}  # the app's Redis
    with (tmp_path / "worker.log").open("wb") as log:
        proc = subprocess.Popen(
            procfile_command("worker"), cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
        )
    yield proc
    proc.terminate()
    proc.wait(timeout=20)


async def test_sum_1_the_worker_summarizes_what_left_the_window(
    offline_app: WebApp, worker: subprocess.Popen[bytes]
) -> None:
    api = HearthClient(offline_app.base_url)
    chat = f"saga-{secrets.token_hex(3)}"
    for i in range(69):
        stored = await api.send(chat, f"Day {i}: we crossed the hills. It was cold.", user="ana", reply=False)
        assert stored.status_code == 200
    answered = await api.send(chat, "Where are we now?", user="ana")
    assert answered.status_code == 200
    summary: dict[str, object] = {}
    for _ in range(150):  # the worker picks the job up in the background (SUM-1: never blocking the reply)
        summary = (await api.http.get(f"/api/chats/{chat}/summary")).json()
        if summary["recent"]:
            break
        await asyncio.sleep(0.2)
    recent = summary["recent"]
    # 72 messages (greeting, 70 from Ana, the reply); the window steps at position 30 (issue 12):
    # 30 out = 1 chunk of 20 + 10
    assert isinstance(recent, list) and len(recent) == 1, summary
    assert recent[0]["text"].startswith("[extractive summary, no LLM]")  # SUM-5: labelled
    assert "Day 0: we crossed the hills." in recent[0]["text"]
    assert summary["unsummarized"] == 10  # SUM-4: out of the window, less than a chunk
    tier = recent[0]["id"]
    edited = await api.http.put(f"/api/chats/{chat}/summary/{tier}", json={"text": "They crossed the hills."})
    assert edited.status_code == 200 and edited.json()["tier"]["edited"] is True
    later = await api.send(chat, "Remind me of our journey", user="ana")
    log = await api.turn(chat, later.json()["turn"])
    summaries = [m["text"] for m in log["request"]["prompt"] if m["slot"] == "summaries"]
    assert summaries and "They crossed the hills." in summaries[0]  # SUM-3
    assert log["request"]["summaries"] == 1
    await api.close()
