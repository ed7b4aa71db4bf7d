"""The memory panel's search, "why" and Undo end to end (issue 31): the web process, real Redis
(single and Cluster), the fake Anthropic; over HTTP as the browser calls it, then in Chromium."""

from __future__ import annotations

import re
import secrets
from collections.abc import AsyncIterator
from typing import Any

import pytest
from playwright.async_api import Browser, expect

from tests.e2e import backends
from tests.e2e.api_client import HearthClient
from tests.e2e.test_web_app import (
    Visitor,
    add_memory,
    memory_list,
    new_name,
    open_memories,
    open_page,
    say,
    sign_up,
)
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fixtures.servers import WebApp

pytestmark = pytest.mark.e2e
claude_app = backends.claude_app  # every test here runs on a single Redis and on a Redis Cluster


@pytest.fixture
async def alice(claude_app: WebApp) -> AsyncIterator[Visitor]:
    visitor = Visitor(claude_app.base_url)
    await visitor.sign_up(new_name())
    yield visitor
    await visitor.close()


@pytest.fixture
async def bob(claude_app: WebApp) -> AsyncIterator[Visitor]:
    visitor = Visitor(claude_app.base_url)
    await visitor.sign_up(new_name())
    yield visitor
    await visitor.close()


async def panel_texts(visitor: Visitor, q: str | None = None) -> list[str]:
    params = {"q": q} if q is not None else {}
    response = await visitor.http.get(f"/app/chats/{visitor.session['chat']}/memories", params=params)
    assert response.status_code == 200, response.text
    return [m["text"] for lst in response.json()["lists"] for m in lst["memories"]]


async def test_search_finds_a_word_in_the_persons_own_lists_only(alice: Visitor, bob: Visitor) -> None:
    """Issue 31: ``?q=`` keeps the memories holding every word, case and accents ignored; another
    person's memory with the same word never shows (DEC-10 privacy)."""
    await add_memory(alice, "Alice keeps Bées in the garden")
    await add_memory(alice, "Alice drinks green tea")
    await add_memory(bob, "Bob keeps bees too")
    assert sorted(await panel_texts(alice)) == ["Alice drinks green tea", "Alice keeps Bées in the garden"]
    assert await panel_texts(alice, "BEES") == ["Alice keeps Bées in the garden"]
    assert await panel_texts(alice, "garden bees") == ["Alice keeps Bées in the garden"]
    assert await panel_texts(alice, "bob") == []
    assert await panel_texts(bob, "bees") == ["Bob keeps bees too"]
    assert await panel_texts(alice, "  ") == await panel_texts(alice)


async def test_forget_then_restore_brings_the_memory_back_once(alice: Visitor, bob: Visitor) -> None:
    """Issue 31 (Undo): a forgotten memory comes back with the same id, text, pin and list; only
    its owner may restore it, and only once."""
    memory = await add_memory(alice, "Alice is afraid of bats")
    pinned = await alice.http.patch(
        f"/app/memories/{memory['id']}", json={"pinned": True}, headers=alice.headers()
    )
    assert pinned.status_code == 200, pinned.text
    forgot = await alice.http.delete(f"/app/memories/{memory['id']}", headers=alice.headers())
    assert forgot.status_code == 200, forgot.text
    assert await panel_texts(alice) == []
    stolen = await bob.post(f"/app/memories/{memory['id']}/restore", {})
    assert stolen.status_code == 403 and stolen.json()["error"]["code"] == "not_your_memory"
    restored = await alice.post(f"/app/memories/{memory['id']}/restore", {})
    assert restored.status_code == 200, restored.text
    back = restored.json()["memory"]
    assert (back["id"], back["text"], back["pinned"], back["scope"], back["owner"]) == (
        memory["id"],
        "Alice is afraid of bats",
        True,
        memory["scope"],
        memory["owner"],
    )
    assert await panel_texts(alice) == ["Alice is afraid of bats"]
    again = await alice.post(f"/app/memories/{memory['id']}/restore", {})
    assert again.status_code == 404 and again.json()["error"]["code"] == "memory_not_restorable"


async def test_why_shows_the_turn_and_message_that_last_used_a_memory(claude_app: WebApp) -> None:
    """Issue 31: after a reply used a memory, the list shows that turn, its time and the message."""
    api = HearthClient(claude_app.base_url)
    try:
        chat = f"why-{secrets.token_hex(4)}"
        created = await api.http.post(
            "/api/memories", json={"scope": "space", "space": chat, "text": "The tavern opens at dusk"}
        )
        assert created.status_code == 201, created.text
        listed = await api.http.get("/api/memories", params={"scope": "space", "space": chat})
        assert listed.json()["memories"][0]["last_used"] is None
        sent = await api.send(chat, "When does the tavern open tonight?", user="juno")
        assert sent.status_code == 200, sent.text
        listed = await api.http.get("/api/memories", params={"scope": "space", "space": chat, "q": "tavern"})
        (memory,) = listed.json()["memories"]
        use: dict[str, Any] = memory["last_used"]
        assert use["message"] == "When does the tavern open tonight?"
        assert use["turn"] == sent.json()["turn"] and use["chat"] == f"web:{chat}"
    finally:
        await api.close()


async def test_the_panel_searches_shows_why_and_undoes_forget(
    browser: Browser, claude_app: WebApp, anthropic_fake: FakeAnthropic
) -> None:
    """Issue 31 in Chromium: typing in the search box filters the lists; each memory says when a
    reply last used it and for which message; Forget offers Undo, which brings the memory back."""
    page = await open_page(browser, claude_app)
    await sign_up(page, new_name())
    await open_memories(page)
    for text in ("Bees live in the garden", "Green tea every morning"):
        await page.fill("#memory-text", text)
        await page.click("#memory-add-button")
        await expect(page.locator(".mem-text", has_text=text)).to_have_count(1)
    await say(page, "Tell me about my bees")
    await open_memories(page)
    mine = memory_list(page, "personal")
    await expect(mine).to_have_count(2)
    await expect(mine.first.locator(".mem-why")).to_contain_text("answering: “Tell me about my bees”")
    await page.fill("#memory-search", "BEES")
    await expect(mine).to_have_count(1)
    await expect(mine.locator(".mem-text")).to_have_text("Bees live in the garden")
    await page.fill("#memory-search", "")
    await expect(mine).to_have_count(2)
    tea = mine.filter(has_text="green tea")
    await tea.locator(".mem-forget").click()
    await expect(mine).to_have_count(1)
    await page.locator(".toast .toast-undo").click()
    await expect(mine.filter(has_text="green tea")).to_have_count(1)
    await expect(page.locator(".toast-memory", has_text="Restored")).to_have_count(1)
    await expect(mine.filter(has_text="green tea").locator(".mem-why")).to_contain_text(
        re.compile("Tell me about my bees")
    )
