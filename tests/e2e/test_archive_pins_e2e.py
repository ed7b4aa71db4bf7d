"""Pins, working notes and explore from outside the running web process (EPI-1, EPI-2, EPI-13;
issue 34): the operator REST API, and the persona's note tool through the fake Anthropic."""

from __future__ import annotations

import json
import secrets
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest
import redis.asyncio as aioredis
from playwright.async_api import Browser, expect

from engine.archive import ArchivePolicy, Page, evict_page, new_page
from storage.keys import KeyBuilder
from storage.redis_archive import RedisArchiveStore
from tests.e2e.api_client import HearthClient
from tests.e2e.test_web_app import new_name, open_page, shot, sign_up, tap
from tests.fakes.anthropic_server import FakeAnthropic, Reply, ToolUse
from tests.fixtures.servers import RedisServer, WebApp

pytestmark = pytest.mark.e2e

OLD = datetime.now(UTC) - timedelta(days=200)


def page(chat: str, page_id: str, abstract: str, body: str, **extra: object) -> Page:
    return new_page(
        id=page_id,
        chat=chat,
        created_at=OLD,
        policy=ArchivePolicy(),
        abstract=abstract,
        body=body,
        **extra,  # type: ignore[arg-type]
    )


@pytest.fixture
async def offline_store(redis_server: RedisServer) -> AsyncIterator[RedisArchiveStore]:
    redis = aioredis.from_url(redis_server.db(2))  # the offline app's database
    yield RedisArchiveStore(redis, KeyBuilder(prefix="hearth"))
    await redis.aclose()


async def test_epi_13_rest_pins_and_unpins_a_page_and_refuses_bad_input(
    offline_app: WebApp, offline_store: RedisArchiveStore
) -> None:
    """Issue 34: PUT pins a page (it comes first with ``pin_first``), DELETE unpins it; unknown
    pages, another chat's pages, evicted pages, bad chat ids and missing tokens are 4xx in the
    API's error shape, and nothing changes."""
    api = HearthClient(offline_app.base_url)
    name = f"pins-{secrets.token_hex(3)}"
    chat = f"web:{name}"
    keep = page(
        chat, f"pg-{secrets.token_hex(4)}", "The lighthouse key", "Mara keeps the key under the blue stone."
    )
    garden = page(chat, f"pg-{secrets.token_hex(4)}", "Garden", "Tomatoes need more sun this year.")
    gone = evict_page(
        page(chat, f"pg-{secrets.token_hex(4)}", "Old map", "The harbour map."), OLD + timedelta(days=100)
    )
    await offline_store.change(chat, lambda _: ((keep, garden, gone), (), None))
    base = f"/api/chats/{name}/archive/pages"

    pinned = await api.http.put(f"{base}/{keep.id}/pin")
    assert pinned.status_code == 200, pinned.text
    assert pinned.json()["page"]["pinned"] is True
    found = await api.http.post(
        "/api/archive/search", json={"chat": name, "query": "tomatoes", "pin_first": True}
    )
    assert [(r["id"], r["source"]) for r in found.json()["results"]] == [
        (keep.id, "pinned"),
        (garden.id, "result"),
    ]
    listed = (await api.http.get(f"/api/chats/{name}/archive")).json()["pages"]
    assert {p["id"]: p["pinned"] for p in listed} == {keep.id: True, garden.id: False, gone.id: False}

    for method, path, status, code in [
        ("PUT", f"{base}/pg-nothing/pin", 404, "page_not_found"),
        ("PUT", f"/api/chats/other-{name}/archive/pages/{keep.id}/pin", 404, "page_not_found"),
        ("PUT", f"{base}/{gone.id}/pin", 409, "page_not_pinnable"),
        ("PUT", f"/api/chats/bad%20chat/archive/pages/{keep.id}/pin", 422, "invalid_chat_id"),
        ("DELETE", f"/api/chats/xx:{name}/archive/pages/{keep.id}/pin", 422, "invalid_chat_id"),
    ]:
        refused = await api.http.request(method, path)
        assert refused.status_code == status, (path, refused.text)
        assert refused.json()["error"]["code"] == code
    async with httpx.AsyncClient(base_url=offline_app.base_url) as anonymous:
        assert (await anonymous.put(f"{base}/{keep.id}/pin")).status_code == 401
        assert (await anonymous.delete(f"{base}/{keep.id}/pin")).status_code == 401

    unpinned = await api.http.delete(f"{base}/{keep.id}/pin")
    assert unpinned.status_code == 200 and unpinned.json()["page"]["pinned"] is False
    stored = {p.id: p for p in await offline_store.pages(chat)}
    assert not stored[keep.id].pinned and stored[gone.id].status == "evicted" and not stored[gone.id].pinned
    await api.close()


async def test_epi_2_rest_explore_reads_count_and_notes_refuse_bad_input(
    offline_app: WebApp, offline_store: RedisArchiveStore
) -> None:
    """Issue 34, EPI-2 and EPI-13 ``reasoning``: explore over REST reads the found page and the
    page it links to (their reads go up); notes are added and listed; bad bodies are 4xx."""
    api = HearthClient(offline_app.base_url)
    name = f"explore-{secrets.token_hex(3)}"
    chat = f"web:{name}"
    linked = page(chat, f"pg-{secrets.token_hex(4)}", "The storm after", "A storm kept us on the island.")
    seed = page(
        chat,
        f"pg-{secrets.token_hex(4)}",
        "The lighthouse trip",
        "We sailed to the lighthouse.",
        links=(linked.id,),
    )
    await offline_store.change(chat, lambda _: ((seed, linked), (), None))

    explored = await api.http.post(
        "/api/archive/explore", json={"chat": name, "query": "lighthouse trip", "reasoning": "low"}
    )
    assert explored.status_code == 200, explored.text
    body = explored.json()
    assert [(p["id"], p["hops"]) for p in body["pages"]] == [(seed.id, 0), (linked.id, 1)]
    assert body["budget_tokens"] == 512 and 0 < body["spent_tokens"] <= 512
    assert {p.id: p.read_count for p in await offline_store.pages(chat)} == {seed.id: 1, linked.id: 1}
    for bad in (
        {"chat": name, "query": " "},
        {"chat": name, "query": "x", "reasoning": "huge"},
        {"chat": name},
    ):
        refused = await api.http.post("/api/archive/explore", json=bad)
        assert 400 <= refused.status_code < 500 and "error" in refused.json(), refused.text

    added = await api.http.post(f"/api/chats/{name}/archive/notes", json={"text": "Ask about the ferry."})
    assert added.status_code == 201, added.text
    assert added.json()["page"]["layer"] == "working"
    notes = (await api.http.get(f"/api/chats/{name}/archive/notes")).json()["notes"]
    assert [n["summary"] for n in notes] == ["Ask about the ferry."]
    for bad, code in (({"text": ""}, "empty_note"), ({"text": "x" * 501}, "note_too_long")):
        refused = await api.http.post(f"/api/chats/{name}/archive/notes", json=bad)
        assert refused.status_code == 422 and refused.json()["error"]["code"] == code
    unknown = await api.http.post(f"/api/chats/{name}/archive/notes", json={"text": "a", "pinned": True})
    assert 400 <= unknown.status_code < 500
    assert len((await api.http.get(f"/api/chats/{name}/archive/notes")).json()["notes"]) == 1
    await api.close()


@pytest.fixture
async def api(claude_app: WebApp) -> AsyncIterator[HearthClient]:
    client = HearthClient(claude_app.base_url)
    yield client
    await client.close()


def sent_text(fake: FakeAnthropic) -> str:
    """Everything the last request to the fake Anthropic sent (system and messages)."""
    last = [r for r in fake.requests if r.path == "/v1/messages"][-1]
    return json.dumps(
        {"system": last.body.get("system"), "messages": last.body["messages"]}, ensure_ascii=False
    )


async def test_epi_1_the_personas_working_note_is_in_the_prompt_during_its_session_and_gone_after_the_gap(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    """Issue 34, EPI-1 through the running process: the persona notes something with its tool;
    the next turn of the same session sends the note to Claude; a message after the idle gap
    (6 h; the conversation's own times, back-dated) starts a new session without it."""
    name = f"notes-{secrets.token_hex(3)}"
    start = datetime.now(UTC) - timedelta(days=2)
    note = "Mara wants to revisit the cape before winter."
    anthropic_fake.script(
        Reply(text="Noted. ", tool_uses=(ToolUse(name="add_working_note", input={"text": note}),)),
        Reply(text="I will keep it in mind."),
        Reply(text="The cape, yes."),
        Reply(text="Good morning!"),
    )
    first = await api.send(name, "Let's plan the cape trip.", user="mara", sent_at=start.isoformat())
    assert first.status_code == 200, first.text
    tool_round = sent_text(anthropic_fake)
    assert "Noted for this session" in tool_round

    second = await api.send(
        name, "What were we planning?", user="mara", sent_at=(start + timedelta(minutes=3)).isoformat()
    )
    assert second.status_code == 200, second.text
    assert note in sent_text(anthropic_fake)
    listed = (await api.http.get(f"/api/chats/{name}/archive")).json()["pages"]
    assert [(p["layer"], p["summary"], p["author"]) for p in listed] == [("working", note, "persona:default")]

    third = await api.send(name, "Hello again!", user="mara")  # now: two days later
    assert third.status_code == 200, third.text
    assert note not in sent_text(anthropic_fake)


async def test_epi_1_the_browsers_pin_control_pins_a_page_and_a_note_is_added(
    browser: Browser, offline_app: WebApp, offline_store: RedisArchiveStore
) -> None:
    """Issue 34, EPI-1 and EPI-13 in real Chromium: the archive view lists the chat's session
    page; its Pin button pins it (stored, and the button turns to Unpin); Unpin unpins it; a
    working note typed in the view is listed for this session."""
    page = await open_page(browser, offline_app)
    name = new_name()
    await sign_up(page, name)
    chat = f"web:u-{name}"
    stored = new_page(
        id=f"pg-{secrets.token_hex(4)}",
        chat=chat,
        created_at=datetime.now(UTC) - timedelta(days=3),
        policy=ArchivePolicy(),
        abstract="The lighthouse trip",
        body="We sailed to the old lighthouse on the cape.",
    )
    await offline_store.change(chat, lambda _: ((stored,), (), None))

    await tap(page, "#open-archive")
    await expect(page.locator("#archive-dialog")).to_have_attribute("data-loaded", "true")
    item = page.locator(f'.arc-page[data-id="{stored.id}"]')
    await expect(item).to_have_attribute("data-pinned", "false")
    await item.locator(".arc-pin").click()
    await expect(item).to_have_attribute("data-pinned", "true")
    await expect(item.locator(".arc-pin")).to_have_text("Unpin")
    assert [p.pinned for p in await offline_store.pages(chat)] == [True]

    await page.fill("#archive-note-text", "Ask Mara about the ferry.")
    await page.click("#archive-note-add")
    await expect(page.locator(".arc-note .sum-text")).to_have_text(["Ask Mara about the ferry."])
    await page.screenshot(path=shot("archive-pins.png"))

    await item.locator(".arc-pin").click()
    await expect(item).to_have_attribute("data-pinned", "false")
    assert [p.pinned for p in await offline_store.pages(chat) if p.layer == "episodic"] == [False]
    await page.close()
