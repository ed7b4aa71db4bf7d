"""Telegram through the Procfile's processes (PLT-1, RUN-1; STYLE T6).

- ``worker`` long-polls the fake Bot API (``TELEGRAM_API_BASE``) and streams replies; the chat
  is then read back through the ``web`` process's REST API (same Redis, same persona).
- ``web`` with ``TELEGRAM_WEBHOOK_URL``/``TELEGRAM_WEBHOOK_SECRET`` registers its webhook and
  serves ``POST /telegram/webhook``: right secret processed, wrong secret 401, duplicates once.
"""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from adapters.telegram.texts import COMMANDS
from tests.e2e.api_client import HearthClient
from tests.fakes.anthropic_server import FakeAnthropic, Reply
from tests.fakes.telegram_server import FakeTelegram
from tests.fixtures.servers import ADMIN_TOKEN, API_KEY, ROOT, RedisServer, WebApp, procfile_command

pytestmark = pytest.mark.e2e

SECRET = "hook-secret_0123456789"
WEBHOOK_URL = "https://hearth.example/telegram/webhook"


def _env(redis_url: str, anthropic: FakeAnthropic, telegram: FakeTelegram) -> dict[str, str]:
    return {
        "REDIS_URL": redis_url,
        "HEARTH_ADMIN_TOKEN": ADMIN_TOKEN,
        "ANTHROPIC_API_KEY": API_KEY,
        "ANTHROPIC_BASE_URL": anthropic.base_url,
        "HEARTH_EMBEDDER": "hash",
        "TELEGRAM_BOT_TOKEN": telegram.token,
        "TELEGRAM_API_BASE": telegram.base_url,
    }


class Worker:
    """The Procfile's ``worker`` process, polling the fake Bot API."""

    def __init__(self, env: dict[str, str], log: Path, telegram: FakeTelegram) -> None:
        full = {**os.environ, **env}
        for key in ("TELEGRAM_WEBHOOK_URL", "TELEGRAM_WEBHOOK_SECRET"):
            full.pop(key, None)
        self.log = log
        self._out = log.open("wb")
        self.proc = subprocess.Popen(
            procfile_command("worker"), cwd=ROOT, env=full, stdout=self._out, stderr=subprocess.STDOUT
        )
        try:
            telegram.wait(lambda: self.proc.poll() is not None or telegram.arrived("getUpdates"), timeout=60)
        except TimeoutError:
            self.stop()
            raise
        if self.proc.poll() is not None:
            raise RuntimeError(f"worker exited:\n{log.read_text()}")

    def stop(self) -> int:
        """SIGTERM, as a PaaS stops it; returns the exit code."""
        self.proc.terminate()
        try:
            code = self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = -9
        self._out.close()
        return code


@pytest.fixture(scope="module")
def worker_telegram() -> Iterator[FakeTelegram]:
    with FakeTelegram(token="700201:worker-token") as fake:
        yield fake


@pytest.fixture(scope="module")
def worker(
    redis_server: RedisServer,
    fake_anthropic: FakeAnthropic,
    worker_telegram: FakeTelegram,
    claude_app: WebApp,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Worker]:
    """The worker on the web app's Redis database (``claude_app`` serves the same chats)."""
    env = _env(redis_server.db(1), fake_anthropic, worker_telegram)
    process = Worker(env, tmp_path_factory.mktemp("tg-worker") / "worker.log", worker_telegram)
    yield process
    assert process.stop() == 0, process.log.read_text()


@pytest.fixture(scope="module")
def hook_telegram() -> Iterator[FakeTelegram]:
    with FakeTelegram(token="700301:webhook-token") as fake:
        yield fake


@pytest.fixture(scope="module")
def hook_app(
    redis_server: RedisServer,
    fake_anthropic: FakeAnthropic,
    hook_telegram: FakeTelegram,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[WebApp]:
    """The web process in webhook mode."""
    env = _env(redis_server.db(12), fake_anthropic, hook_telegram)
    env |= {"TELEGRAM_WEBHOOK_URL": WEBHOOK_URL, "TELEGRAM_WEBHOOK_SECRET": SECRET}
    app = WebApp(env, tmp_path_factory.mktemp("tg-web") / "web.log")
    yield app
    app.stop()


@pytest.fixture
async def hook(hook_app: WebApp) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=hook_app.base_url, timeout=30) as client:
        yield client


async def history(base_url: str, chat: str) -> list[tuple[str, str]]:
    api = HearthClient(base_url)
    try:
        return [(m["role"], m["text"]) for m in await api.history(chat)]
    finally:
        await api.close()


def person(fake: FakeTelegram) -> dict[str, Any]:
    return fake.user(secrets.randbelow(10**9) + 1000, "Alice")


def finished(fake: FakeTelegram, chat_id: int) -> list[dict[str, Any]]:
    """The bot's messages once a reply carries its ↻ button (the final edit)."""
    messages = fake.bot_messages(chat_id)
    return messages if any(m.get("reply_markup") for m in messages) else []


async def test_plt_1_the_worker_polls_streams_a_reply_and_the_web_api_sees_the_chat(
    worker: Worker, worker_telegram: FakeTelegram, anthropic_fake: FakeAnthropic, claude_app: WebApp
) -> None:
    fake = worker_telegram
    reply = "Welcome in from the cold, Alice. The kettle is on and the fire is crackling away nicely."
    anthropic_fake.script(Reply(text=reply, chunk_size=4, delay=0.08))  # ~1.8 s: a mid-stream edit at 1 s
    alice = person(fake)
    fake.enqueue(fake.message(fake.private(alice), alice, "Hello from Telegram!"))
    (final,) = await fake.until(lambda: finished(fake, alice["id"]), timeout=30)
    assert final["text"] == reply
    calls = [c for c in fake.calls("sendMessage", "editMessageText") if c.params["chat_id"] == alice["id"]]
    assert [c.method for c in calls] == ["sendMessage"]  # a private reply streams as a draft (Issue 31)
    drafts = fake.drafts(alice["id"])
    assert drafts and drafts[0]["text"] != reply  # a partial text was shown while streaming
    assert await history(claude_app.base_url, f"tg:{alice['id']}") == [
        ("assistant", "Hi, I'm Ember. Pull up a chair by the fire — what's on your mind today?"),
        ("user", "Hello from Telegram!"),
        ("assistant", reply),
    ]
    assert [c["command"] for c in fake.commands()] == list(COMMANDS)
    assert fake.calls("deleteWebhook") and fake.webhook == {}


async def test_issue_14_the_worker_builds_its_graph_once_for_jobs_and_polling(worker: Worker) -> None:
    """One build per process: polling, the jobs and the heartbeat share one graph and one Redis client.

    The worker used to build the graph a second time for Telegram polling (a second Redis pool,
    ChatService and migration run, and the personas installed twice) plus a heartbeat client.
    """
    log = worker.log.read_text(errors="replace")
    assert "Telegram polling: on" in log
    assert log.count("built the Hearth graph") == 1
    loaded = re.findall(r"persona '([^']+)' \(.*\) loaded", log)
    assert loaded and len(loaded) == len(set(loaded))  # each persona installed once


async def test_plt_1_the_web_process_registers_its_webhook_with_the_secret(
    hook_app: WebApp, hook_telegram: FakeTelegram
) -> None:
    registered = hook_telegram.webhook
    assert (registered["url"], registered["secret_token"]) == (WEBHOOK_URL, SECRET)
    assert sorted(registered["allowed_updates"]) == ["callback_query", "message"]
    assert [c["command"] for c in hook_telegram.commands()] == list(COMMANDS)


async def test_plt_1_an_update_with_the_right_secret_is_answered(
    hook: httpx.AsyncClient, hook_app: WebApp, hook_telegram: FakeTelegram, anthropic_fake: FakeAnthropic
) -> None:
    anthropic_fake.script(Reply(text="Webhooks are cozy too."))
    alice = person(hook_telegram)
    update = hook_telegram.message(hook_telegram.private(alice), alice, "Knock knock")
    response = await hook.post(
        "/telegram/webhook", json=update, headers={"X-Telegram-Bot-Api-Secret-Token": SECRET}
    )
    assert response.status_code == 200
    (final,) = await hook_telegram.until(lambda: finished(hook_telegram, alice["id"]))
    assert final["text"] == "Webhooks are cozy too."
    assert (await history(hook_app.base_url, f"tg:{alice['id']}"))[-2:] == [
        ("user", "Knock knock"),
        ("assistant", "Webhooks are cozy too."),
    ]


@pytest.mark.parametrize("secret", [None, "wrong-secret", SECRET + "x", ""])
async def test_plt_1_a_wrong_or_missing_secret_is_401_and_nothing_is_processed(
    hook: httpx.AsyncClient, hook_app: WebApp, hook_telegram: FakeTelegram, secret: str | None
) -> None:
    alice = person(hook_telegram)
    update = hook_telegram.message(hook_telegram.private(alice), alice, "Let me in")
    headers = {} if secret is None else {"X-Telegram-Bot-Api-Secret-Token": secret}
    response = await hook.post("/telegram/webhook", json=update, headers=headers)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_webhook_secret"
    await asyncio.sleep(0.3)
    assert await history(hook_app.base_url, f"tg:{alice['id']}") == []
    assert [c for c in hook_telegram.calls() if c.params.get("chat_id") == alice["id"]] == []


async def test_plt_1_a_duplicate_delivery_is_processed_once(
    hook: httpx.AsyncClient, hook_app: WebApp, hook_telegram: FakeTelegram, anthropic_fake: FakeAnthropic
) -> None:
    alice = person(hook_telegram)
    update = hook_telegram.message(hook_telegram.private(alice), alice, "Echo, echo")
    headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
    first, second = await asyncio.gather(
        hook.post("/telegram/webhook", json=update, headers=headers),
        hook.post("/telegram/webhook", json=update, headers=headers),
    )
    assert first.status_code == second.status_code == 200
    await hook_telegram.until(lambda: finished(hook_telegram, alice["id"]))
    await asyncio.sleep(0.5)
    assert len(hook_telegram.bot_messages(alice["id"])) == 1
    users = [t for r, t in await history(hook_app.base_url, f"tg:{alice['id']}") if r == "user"]
    assert users == ["Echo, echo"]
    assert len([r for r in anthropic_fake.requests if r.path == "/v1/messages"]) == 1


async def test_plt_6_a_body_that_is_not_an_update_is_400(hook: httpx.AsyncClient) -> None:
    headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET, "Content-Type": "application/json"}
    for body in (b"{not json", b"[1, 2]", b'{"update_id": "x"}'):
        response = await hook.post("/telegram/webhook", content=body, headers=headers)
        assert response.status_code == 400 and response.json()["error"]["code"] == "invalid_update"


async def test_secrets_never_reach_the_worker_or_web_logs(
    worker: Worker, hook_app: WebApp, hook: httpx.AsyncClient, worker_telegram: FakeTelegram
) -> None:
    # both processes have done real work by now (polling, replies, webhook updates, 401s)
    wrong = await hook.post(
        "/telegram/webhook", json={"update_id": 1}, headers={"X-Telegram-Bot-Api-Secret-Token": "x"}
    )
    assert wrong.status_code == 401
    worker_log = worker.log.read_text(errors="replace")
    web_log = hook_app.output()
    assert "Hearth worker ready" in worker_log and "Application startup complete" in web_log
    for secret in (worker_telegram.token, "700301:webhook-token", SECRET, API_KEY):
        assert secret not in worker_log and secret not in web_log
