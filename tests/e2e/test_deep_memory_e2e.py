"""DEEP-1..3 from outside: the Procfile ``web`` and ``worker`` both talk to the fake Anthropic
server; the summary job's deep memory pass saves valid JSON facts as unpinned memories, rejects
schema-invalid output with a report and no change, and never touches pinned memories.

The fake's script is a queue, one item per ``/v1/messages`` request in arrival order
(``count_tokens`` consumes none). Per chat: 69 messages without replies queue nothing (a job is
queued only after a reply, SUM-1), then one message with a reply: request 1 is the reply; the
reply leaves 22 messages out of the 50-message window, one chunk of 20, so the worker makes
request 2 (the chunk's summary) and request 3 (the deep pass, "Answer only JSON"). The deep
pass shows each speaker under a label (``[P1] Ana: ...``) and files a fact by its label (MEM-4).
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.api_client import HearthClient
from tests.fakes.anthropic_server import FakeAnthropic, Reply
from tests.fixtures.servers import ADMIN_TOKEN, API_KEY, ROOT, RedisServer, WebApp, procfile_command

pytestmark = pytest.mark.e2e

DB = 14
FACT = "Ana is allergic to peanuts."
PINNED = "Ana's cat is called Miso."
UNCHANGED = ("id", "text", "pinned", "protected", "source", "scope", "updated_at")


def _llm_env(redis_server: RedisServer, fake: FakeAnthropic) -> dict[str, str]:
    return {
        "REDIS_URL": redis_server.db(DB),
        "HEARTH_ADMIN_TOKEN": ADMIN_TOKEN,
        "HEARTH_LOG_LEVEL": "info",
        "ANTHROPIC_API_KEY": API_KEY,
        "ANTHROPIC_BASE_URL": fake.base_url,
        "HEARTH_LLM_MAX_RETRIES": "0",
    }


def start_worker(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """The Procfile ``worker`` with ``env`` (no Anthropic or Telegram setting of this process's
    own), returned once its log says it is ready: a test's polling then waits for its jobs only,
    not for the worker to load its model on a busy machine."""
    full = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "TELEGRAM_"))} | env
    with log.open("wb") as out:
        proc = subprocess.Popen(
            procfile_command("worker"), cwd=ROOT, env=full, stdout=out, stderr=subprocess.STDOUT
        )
    deadline = time.monotonic() + float(os.environ.get("HEARTH_TEST_START_SECS", "120"))
    while "Hearth worker ready" not in log.read_text(errors="replace"):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            proc.wait(timeout=20)
            raise RuntimeError(f"the worker did not get ready:\n{log.read_text(errors='replace')}")
        time.sleep(0.2)
    return proc


@pytest.fixture(scope="module")
def llm_pair(
    redis_server: RedisServer, fake_anthropic: FakeAnthropic, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[WebApp, subprocess.Popen[bytes]]]:
    """A web process and a worker on one Redis database, both pointed at the fake Anthropic,
    shared by the module's tests: each test talks in chats of its own (random names) and resets
    the fake (``anthropic_fake``); the worker has nothing left to do between tests, as each test
    waits for its chat's deep pass report."""
    env = _llm_env(redis_server, fake_anthropic)
    logs = tmp_path_factory.mktemp("deep-pair")
    app = WebApp(env, logs / "web.log")
    try:
        worker = start_worker(env, logs / "worker.log")
    except BaseException:
        app.stop()
        raise
    yield app, worker
    worker.terminate()
    worker.wait(timeout=20)
    app.stop()


async def _chat_until_summarized(api: HearthClient, chat: str) -> None:
    for i in range(69):
        stored = await api.send(
            chat, f"Day {i}: we walked along the river. It rained.", user="ana", reply=False
        )
        assert stored.status_code == 200, stored.text
    answered = await api.send(chat, "Where are we now?", user="ana")
    assert answered.status_code == 200, answered.text


async def _reports(api: HearthClient, chat: str) -> list[dict[str, Any]]:
    reports: list[dict[str, Any]] = []
    for _ in range(200):  # the worker runs the job in the background
        response = await api.http.get(f"/api/chats/{chat}/deep-reports")
        assert response.status_code == 200, response.text
        reports = response.json()["reports"]
        if reports:
            return reports
        await asyncio.sleep(0.2)
    return reports


async def _memories(api: HearthClient, chat: str) -> list[dict[str, Any]]:
    response = await api.http.get(
        "/api/memories", params={"scope": "personal", "owner": "ana", "space": chat}
    )
    assert response.status_code == 200, response.text
    return list(response.json()["memories"])


def _messages_requests(fake: FakeAnthropic) -> list[Any]:
    return [r for r in fake.requests if r.path == "/v1/messages"]


def _system_text(body: dict[str, Any]) -> str:
    system = body.get("system") or ""
    return system if isinstance(system, str) else " ".join(b.get("text", "") for b in system)


async def test_deep_1_valid_json_is_saved_and_pinned_memories_stay(
    llm_pair: tuple[WebApp, subprocess.Popen[bytes]], anthropic_fake: FakeAnthropic
) -> None:
    app, _ = llm_pair
    api = HearthClient(app.base_url)
    chat = f"river-{secrets.token_hex(3)}"
    pinned = await api.http.post(
        "/api/memories",
        json={"scope": "personal", "owner": "ana", "space": chat, "text": PINNED, "pinned": True},
    )
    assert pinned.status_code == 201, pinned.text
    before = pinned.json()["memory"]
    deep_json = f'{{"facts": [{{"text": "{FACT}", "scope": "personal", "about": "P1"}}]}}'
    anthropic_fake.script(
        Reply(text="We are by the river, Ana."),
        Reply(text="Ana walked along the river for many rainy days."),
        Reply(text=deep_json),
    )
    await _chat_until_summarized(api, chat)

    reports = await _reports(api, chat)
    assert [r["status"] for r in reports] == ["saved"], reports
    assert reports[0]["saved"] == [FACT]
    memories = await _memories(api, chat)
    deep = [m for m in memories if m["source"] == "deep"]
    assert [m["text"] for m in deep] == [FACT] and deep[0]["pinned"] is False  # DEEP-3: never pinned
    kept = next(m for m in memories if m["id"] == before["id"])
    assert {k: kept[k] for k in UNCHANGED} == {k: before[k] for k in UNCHANGED}  # pinned: untouched

    requests = _messages_requests(anthropic_fake)
    assert len(requests) == 3  # reply, summary, deep pass: the script was consumed in that order
    assert "Answer only JSON" in _system_text(requests[2].body)
    summary = (await api.http.get(f"/api/chats/{chat}/summary")).json()
    assert summary["recent"][0]["text"] == "Ana walked along the river for many rainy days."
    await api.close()


async def test_deep_3_schema_invalid_output_is_rejected_and_changes_nothing(
    llm_pair: tuple[WebApp, subprocess.Popen[bytes]], anthropic_fake: FakeAnthropic
) -> None:
    app, _ = llm_pair
    api = HearthClient(app.base_url)
    chat = f"marsh-{secrets.token_hex(3)}"
    pinned = await api.http.post(
        "/api/memories",
        json={"scope": "personal", "owner": "ana", "space": chat, "text": PINNED, "pinned": True},
    )
    assert pinned.status_code == 201, pinned.text
    anthropic_fake.script(
        Reply(text="We are in the marsh, Ana."),
        Reply(text="Ana walked through the marsh."),
        Reply(text='{"facts": [{"txt": "Ana is allergic to peanuts", "scope": "everyone"}]}'),
    )
    await _chat_until_summarized(api, chat)

    reports = await _reports(api, chat)
    assert [r["status"] for r in reports] == ["rejected"], reports
    assert reports[0]["reason"].startswith("invalid JSON output") and reports[0]["saved"] == []
    (kept,) = await _memories(api, chat)  # nothing added
    before = pinned.json()["memory"]
    assert {k: kept[k] for k in UNCHANGED} == {k: before[k] for k in UNCHANGED}
    space = await api.http.get("/api/memories", params={"scope": "space", "space": chat})
    assert space.status_code == 200 and space.json()["memories"] == []
    assert "Answer only JSON" in _system_text(_messages_requests(anthropic_fake)[2].body)
    await api.close()


WARFARIN = "Sam has a heart condition and takes warfarin."


async def _personal(api: HearthClient, owner: str, chat: str) -> list[str]:
    response = await api.http.get(
        "/api/memories", params={"scope": "personal", "owner": owner, "space": chat}
    )
    assert response.status_code == 200, response.text
    return [m["text"] for m in response.json()["memories"]]


async def test_deep_pass_tells_two_people_called_sam_apart_by_id(
    llm_pair: tuple[WebApp, subprocess.Popen[bytes]], anthropic_fake: FakeAnthropic
) -> None:
    """MEM-4, issue 29 item 3: sam-a says she takes warfarin; the fact is saved for sam-a only,
    never for sam-b, who has the same display name, and stays out of sam-b's next prompt."""
    app, _ = llm_pair
    api = HearthClient(app.base_url)
    chat = f"ward-{secrets.token_hex(3)}"
    sam_a, sam_b = (f"sam-{x}-{secrets.token_hex(2)}" for x in "ab")
    facts = [  # sam-a is P1; "about": "Sam" (a name two people share) is never resolved
        {"text": WARFARIN, "scope": "personal", "about": "P1"},
        {"text": "Sam lives in Leeds.", "scope": "personal", "about": "Sam"},
    ]
    anthropic_fake.script(
        Reply(text="Take care, both of you."),
        Reply(text="Two people called Sam talked about their week."),
        Reply(text=json.dumps({"facts": facts})),
    )
    first = await api.send(
        chat, "I have a heart condition and take warfarin.", user=sam_a, name="Sam", reply=False
    )
    assert first.status_code == 200, first.text
    for i in range(68):  # sam-a a little more, then sam-b: the chunk's last Sam is sam-b
        author = sam_a if i < 3 else sam_b
        stored = await api.send(chat, f"Day {i}: a quiet day at home.", user=author, name="Sam", reply=False)
        assert stored.status_code == 200, stored.text
    answered = await api.send(chat, "Good night!", user=sam_b, name="Sam")
    assert answered.status_code == 200, answered.text

    reports = await _reports(api, chat)
    assert await _personal(api, sam_b, chat) == []
    assert await _personal(api, sam_a, chat) == [WARFARIN]
    assert [(r["status"], r["saved"]) for r in reports] == [("saved", [WARFARIN])], reports
    deep = _messages_requests(anthropic_fake)[2].body
    assert "Answer only JSON" in _system_text(deep)
    excerpt = json.dumps(deep["messages"])
    assert "[P1] Sam: I have a heart condition and take warfarin." in excerpt  # sam-a is P1
    assert "[P1] Sam: Day 2: a quiet day at home." in excerpt
    assert "[P2] Sam: Day 3: a quiet day at home." in excerpt  # sam-b is P2, the same name

    anthropic_fake.script(Reply(text="Sleep well, Sam."))
    again = await api.send(chat, "Anything I should remember about my health?", user=sam_b, name="Sam")
    assert again.status_code == 200, again.text
    (mine,) = [
        r for r in _messages_requests(anthropic_fake) if "Anything I should remember" in json.dumps(r.body)
    ]
    assert "warfarin" not in json.dumps(mine.body)
    await api.close()
