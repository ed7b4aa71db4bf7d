"""Two persona-bound bots through the Procfile's processes (issue 33; PLT-1, RUN-1; STYLE T6).

- ``worker`` with ``TELEGRAM_BOT_TOKENS`` long-polls both bots of the fake Bot API; a group
  message both receive is stored once and answered once, by the persona it names, through
  that persona's bot. Neither token appears in the log.
- ``web`` in webhook mode registers one webhook per bot (``/telegram/webhook/<bot id>``) and
  processes each update as the bot it was sent to; an id that is not one of ours is a 404.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e import test_telegram_processes as single
from tests.e2e.test_telegram_cast import BRAM, LYRA, persona_folder
from tests.e2e.test_telegram_processes import Worker
from tests.fakes.anthropic_server import FakeAnthropic, Reply
from tests.fakes.telegram_server import FakeTelegram
from tests.fixtures.servers import ADMIN_TOKEN, API_KEY, RedisServer, WebApp

pytestmark = pytest.mark.e2e

SECRET = "cast-hook-secret_0123456789"
WEBHOOK_URL = "https://hearth.example/telegram/webhook"
HEADERS = {"X-Telegram-Bot-Api-Secret-Token": SECRET}


@pytest.fixture(scope="module")
def telegram() -> Iterator[FakeTelegram]:
    with FakeTelegram(token=LYRA, username="lyra_bot", first_name="Lyra") as fake:
        fake.bot().reads_all = True
        fake.add_bot(BRAM, "bram_bot", "Bram", reads_all=True)
        yield fake


def _env(redis_url: str, anthropic: FakeAnthropic, telegram: FakeTelegram, personas: Path) -> dict[str, str]:
    return {
        "REDIS_URL": redis_url,
        "HEARTH_ADMIN_TOKEN": ADMIN_TOKEN,
        "ANTHROPIC_API_KEY": API_KEY,
        "ANTHROPIC_BASE_URL": anthropic.base_url,
        "HEARTH_EMBEDDER": "hash",
        "HEARTH_PERSONAS": str(personas),
        "TELEGRAM_BOT_TOKENS": f"lyra={LYRA},bram={BRAM}",
        "TELEGRAM_API_BASE": telegram.base_url,
    }


@pytest.fixture(scope="module")
def personas(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return persona_folder(tmp_path_factory.mktemp("cast-procs"))


@pytest.fixture(scope="module")
def worker(
    redis_server: RedisServer,
    fake_anthropic: FakeAnthropic,
    telegram: FakeTelegram,
    personas: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Worker]:
    env = _env(redis_server.db(11), fake_anthropic, telegram, personas)
    process = Worker(env, tmp_path_factory.mktemp("cast-worker") / "worker.log", telegram)
    telegram.wait(lambda: all(telegram.commands(token=t) for t in (LYRA, BRAM)), timeout=60)
    yield process
    assert process.stop() == 0, process.log.read_text()


@pytest.fixture(scope="module")
def hook_telegram() -> Iterator[FakeTelegram]:
    with FakeTelegram(token="700601:hook-lyra-XYZZY", username="lyra_bot", first_name="Lyra") as fake:
        fake.bot().reads_all = True
        fake.add_bot("700602:hook-bram-XYZZY", "bram_bot", "Bram", reads_all=True)
        yield fake


@pytest.fixture(scope="module")
def hook_app(
    redis_server: RedisServer,
    fake_anthropic: FakeAnthropic,
    hook_telegram: FakeTelegram,
    personas: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[WebApp]:
    env = _env(redis_server.db(11), fake_anthropic, hook_telegram, personas)
    env |= {
        "TELEGRAM_BOT_TOKENS": "lyra=700601:hook-lyra-XYZZY,bram=700602:hook-bram-XYZZY",
        "TELEGRAM_WEBHOOK_URL": WEBHOOK_URL,
        "TELEGRAM_WEBHOOK_SECRET": SECRET,
    }
    app = WebApp(env, tmp_path_factory.mktemp("cast-web") / "web.log")
    yield app
    app.stop()


hook = single.hook  # an HTTP client of this module's ``hook_app``
person = single.person


def group(fake: FakeTelegram) -> dict[str, Any]:
    return fake.group(-(10**12) - secrets.randbelow(10**9))


def finished(fake: FakeTelegram, chat_id: int, token: str) -> list[dict[str, Any]]:
    """A bot's messages once its reply carries the ↻ button (the final edit)."""
    messages = fake.bot_messages(chat_id, token)
    return messages if any(m.get("reply_markup") for m in messages) else []


async def test_issue_33_the_worker_polls_both_bots_and_one_message_gets_one_reply(
    worker: Worker, telegram: FakeTelegram, anthropic_fake: FakeAnthropic
) -> None:
    """PLT-1, CAST-2 (issue 33): both bots poll; "Lyra, ..." is answered once, by Lyra's bot."""
    anthropic_fake.script(Reply(text="A song for you."))
    room, alice = group(telegram), person(telegram)
    for token, copy in telegram.copies(
        telegram.message(room, alice, "Lyra, sing for us?"), LYRA, BRAM
    ).items():
        telegram.enqueue(copy, token=token)
    (reply,) = await telegram.until(lambda: finished(telegram, room["id"], LYRA), timeout=30)
    assert reply["text"] == "A song for you."
    await asyncio.sleep(1.0)  # Bram's copy has long been polled too
    assert telegram.bot_messages(room["id"], BRAM) == []
    assert len([r for r in anthropic_fake.requests if r.path == "/v1/messages"]) == 1
    log = worker.log.read_text(errors="replace")
    assert "Telegram polling as @lyra_bot, @bram_bot" in log
    for token in (LYRA, BRAM):  # each bot's menu offers /as where the single bot has /persona
        commands = [c["command"] for c in telegram.commands(token=token)]
        assert "as" in commands and "persona" not in commands
        assert [c["command"] for c in telegram.commands("ru", token=token)] == commands
    assert LYRA not in log and BRAM not in log and "XYZZY" not in log


async def test_issue_33_each_bot_registers_its_own_webhook(
    hook_app: WebApp, hook_telegram: FakeTelegram
) -> None:
    """PLT-1 (issue 33): the webhook URL plus each bot's id, with the secret, for each bot."""
    for token in ("700601:hook-lyra-XYZZY", "700602:hook-bram-XYZZY"):
        registered = hook_telegram.bot(token).webhook
        assert registered["url"] == f"{WEBHOOK_URL}/{token.split(':')[0]}"
        assert registered["secret_token"] == SECRET


async def test_issue_33_a_webhook_update_is_processed_as_the_bot_it_was_sent_to(
    hook: httpx.AsyncClient, hook_app: WebApp, hook_telegram: FakeTelegram, anthropic_fake: FakeAnthropic
) -> None:
    """PLT-1, PLT-2 (issue 33): Bram's copy and Lyra's copy of one message; stored once; the
    mention picks Bram; an unknown bot id is a 404 and the wrong secret a 401."""
    anthropic_fake.script(Reply(text="Bram, by webhook."))
    room, alice = group(hook_telegram), person(hook_telegram)
    update = hook_telegram.message(room, alice, "@bram_bot are you there?")
    copies = hook_telegram.copies(update, "700601:hook-lyra-XYZZY", "700602:hook-bram-XYZZY")
    first, second = await asyncio.gather(
        *(
            hook.post(f"/telegram/webhook/{t.split(':')[0]}", json=c, headers=HEADERS)
            for t, c in copies.items()
        )
    )
    assert first.status_code == second.status_code == 200
    (reply,) = await hook_telegram.until(
        lambda: finished(hook_telegram, room["id"], "700602:hook-bram-XYZZY")
    )
    assert reply["text"] == "Bram, by webhook."
    assert hook_telegram.bot_messages(room["id"]) == []  # Lyra's bot said nothing
    unknown = await hook.post("/telegram/webhook/999", json=update, headers=HEADERS)
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "unknown_bot"
    wrong = await hook.post("/telegram/webhook/700601", json=update, headers={})
    assert wrong.status_code == 401
    assert "XYZZY" not in hook_app.output()
