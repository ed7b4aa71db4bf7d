"""EPI-13 as a model tool: Claude searches the chat's archive mid-reply (through the fake Anthropic)."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest
import redis.asyncio as aioredis

from engine.archive import ArchivePolicy, new_page
from storage.keys import KeyBuilder
from storage.redis_archive import RedisArchiveStore
from tests.e2e.api_client import HearthClient
from tests.fakes.anthropic_server import FakeAnthropic, Reply, ToolUse
from tests.fixtures.servers import RedisServer, WebApp

pytestmark = pytest.mark.e2e


@pytest.fixture
async def api(claude_app: WebApp) -> AsyncIterator[HearthClient]:
    client = HearthClient(claude_app.base_url)
    yield client
    await client.close()


async def test_epi_13_the_model_searches_the_archive_and_the_read_counts(
    api: HearthClient, anthropic_fake: FakeAnthropic, redis_server: RedisServer
) -> None:
    chat = f"web:arc-{secrets.token_hex(3)}"
    redis = aioredis.from_url(redis_server.db(1))  # the claude_app's database
    store = RedisArchiveStore(redis, KeyBuilder(prefix="hearth"))
    page = new_page(
        id=f"pg-{secrets.token_hex(3)}",
        chat=chat,
        created_at=datetime(2026, 10, 1, tzinfo=UTC),
        policy=ArchivePolicy(),
        abstract="The lighthouse trip",
        body="We sailed to the old lighthouse on the cape. Mara kept the key in /home/mara/keys.txt.",
    )
    await store.change(chat, lambda _: ((page,), (), None))
    anthropic_fake.script(
        Reply(
            text="Let me look. ",
            tool_uses=(ToolUse(name="search_archive", input={"query": "lighthouse trip"}),),
        ),
        Reply(text="Yes — the lighthouse on the cape, with Mara."),
    )
    response = await api.send(chat.removeprefix("web:"), "Do you remember our lighthouse trip?", user="mara")
    assert response.status_code == 200, response.text
    assert response.json()["reply"] == "Let me look. Yes — the lighthouse on the cape, with Mara."
    second = [r for r in anthropic_fake.requests if r.path == "/v1/messages"][-1]
    result = second.body["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and f"[{page.id}] The lighthouse trip" in result["content"]
    (stored,) = await store.pages(chat)
    assert stored.read_count == 1  # a search result counts as a read (EPI-2)
    await redis.aclose()
