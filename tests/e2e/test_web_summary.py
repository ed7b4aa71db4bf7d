"""SUM-4 in the browser: the conversation-memory view reads, edits and rebuilds a chat's summaries.

Real Chromium against the Procfile's ``web`` process (offline model) and its ``worker`` process
on the same Redis database, which writes the tiers in the background (SUM-1, SUM-5). Over plain
HTTP: another person's chat summary is 403, and state changes need the session's CSRF token.
The screenshot lands in ``artifacts/screenshots/`` (not committed).
"""

from __future__ import annotations

import asyncio
import subprocess
from typing import Any

import pytest
from playwright.async_api import Browser, Page, expect

from tests.e2e.api_client import HearthClient
from tests.e2e.test_summaries_worker import worker  # noqa: F401  (the worker on the offline app's db)
from tests.e2e.test_web_app import (  # noqa: F401  (fixtures)
    Visitor,
    alice,
    new_name,
    open_page,
    say,
    shot,
    sign_up,
)
from tests.fixtures.servers import WebApp

pytestmark = [pytest.mark.e2e]


async def wait_for_summary(api: HearthClient, chat: str, *, unlike: str | None = None) -> dict[str, Any]:
    """Poll the operator API until the chat has a recent tier (other than ``unlike``)."""
    summary: dict[str, Any] = {}
    for _ in range(150):
        summary = (await api.http.get(f"/api/chats/{chat}/summary")).json()
        if summary.get("recent") and summary["recent"][0]["id"] != unlike:
            return summary
        await asyncio.sleep(0.2)
    raise AssertionError(f"the worker wrote no summary for {chat}: {summary}")


async def open_summary(page: Page) -> None:
    await page.click("#open-summary")
    await expect(page.locator("#summary-dialog")).to_have_attribute("data-loaded", "true")


async def test_sum_4_read_edit_and_rebuild_the_tiers_in_the_browser(
    browser: Browser,
    offline_app: WebApp,
    worker: subprocess.Popen[bytes],  # noqa: F811
) -> None:
    name = new_name()
    chat = f"web:u-{name}"
    page = await open_page(browser, offline_app)
    await sign_up(page, name)

    await open_summary(page)  # nothing summarized yet
    await expect(page.locator(".sum-tier")).to_have_count(0)
    await expect(page.locator("#summary-unsummarized")).to_have_attribute("data-count", "0")
    await expect(page.locator('.sum-level[data-level="recent"] .empty')).to_have_text("None yet.")
    await page.click("#summary-close")

    api = HearthClient(offline_app.base_url)
    for i in range(69):
        stored = await api.send(
            chat, f"Day {i}: we crossed the hills. It was cold.", user=f"web:{name}", reply=False
        )
        assert stored.status_code == 200, stored.text
    await page.reload()
    await expect(page.locator("#send")).to_be_enabled()
    await say(page, "Where are we now?")  # the turn queues the summary job; the worker runs it
    summary = await wait_for_summary(api, chat)
    # 72 messages (greeting, 70 from the person, the reply); the 50-message window steps at
    # position 30 (issue 12), so 42 stay in it; 30 out = 20 summarized (one job) + 10 waiting
    (tier,) = summary["recent"]
    assert (tier["messages"], summary["unsummarized"]) == (20, 10), summary

    await open_summary(page)
    shown = page.locator('.sum-level[data-level="recent"] .sum-tier')
    await expect(shown).to_have_count(1)
    await expect(shown).to_have_attribute("data-id", tier["id"])
    await expect(shown.locator(".sum-text")).to_have_text(tier["text"])
    await expect(shown.locator(".sum-text")).to_contain_text("Day 0: we crossed the hills.")
    await expect(shown.locator(".tag.covers")).to_have_text("covers 20 messages")
    await expect(shown.locator(".tag.offline")).to_have_text("extractive (no LLM)")  # SUM-5
    await expect(shown.locator(".tag.edited")).to_have_count(0)
    await expect(page.locator('.sum-level[data-level="merged"] .sum-tier')).to_have_count(0)
    await expect(page.locator('.sum-level[data-level="long_term"] .sum-tier')).to_have_count(0)
    waiting = page.locator("#summary-unsummarized")
    await expect(waiting).to_have_attribute("data-count", "10")
    await expect(waiting).to_have_text(  # issue 31: says why they wait
        "10 messages have left the live window and are not summarized yet: summaries cover 20"
        " messages each, so the next one is written when 10 more have left the window."
    )
    await page.screenshot(path=shot("15-conversation-memory.png"))

    # edit in place: saved through the desk, marked edited (seen by the operator API too)
    await shown.locator(".sum-edit").click()
    await shown.locator(".sum-edit-text").fill("  We crossed the cold hills, <b>day</b> after day.  ")
    await shown.locator(".sum-save").click()
    await expect(shown.locator(".sum-text")).to_have_text("We crossed the cold hills, <b>day</b> after day.")
    await expect(shown.locator("b")).to_have_count(0)  # text, never HTML
    await expect(shown.locator(".tag.edited")).to_have_text("edited")
    await expect(shown).to_have_attribute("data-edited", "true")
    stored_tier = (await api.http.get(f"/api/chats/{chat}/summary")).json()["recent"][0]
    assert (stored_tier["id"], stored_tier["text"], stored_tier["edited"]) == (
        tier["id"],
        "We crossed the cold hills, <b>day</b> after day.",
        True,
    )
    await page.screenshot(path=shot("16-conversation-memory-edited.png"))

    # rebuild: cancelling keeps everything; confirming drops the tiers and the worker writes them anew
    await page.click("#summary-rebuild")
    await expect(page.locator("#confirm-title")).to_have_text("Rebuild the summaries?")
    await page.click("#confirm-cancel")
    await expect(shown.locator(".tag.edited")).to_be_visible()
    await page.click("#summary-rebuild")
    await page.click("#confirm-ok")
    await expect(page.locator(".toast-ok").last).to_contain_text("Rebuilding the summaries")
    rebuilt = await wait_for_summary(api, chat, unlike=tier["id"])
    (fresh,) = rebuilt["recent"]
    assert (fresh["edited"], fresh["messages"], fresh["text"]) == (False, 20, tier["text"])
    await page.click("#summary-refresh")
    await expect(shown).to_have_attribute("data-id", fresh["id"])
    await expect(shown.locator(".tag.edited")).to_have_count(0)
    await expect(shown.locator(".sum-text")).to_contain_text("Day 0: we crossed the hills.")
    await api.close()
    await page.close()


# --- over plain HTTP --------------------------------------------------------------------------


async def test_sum_4_another_persons_chat_summary_is_forbidden(
    alice: Visitor,  # noqa: F811
    claude_app: WebApp,
) -> None:
    chat = alice.session["chat"]
    own = await alice.http.get(f"/app/chats/{chat}/summary")
    assert own.status_code == 200, own.text
    body = own.json()
    assert (body["recent"], body["merged"], body["long_term"], body["unsummarized"]) == ([], [], [], 0)
    assert body["chat"] == chat and body["max_chars"] > 0
    room = await alice.http.get(f"/app/chats/{chat}+den/summary")  # any of her rooms is hers
    assert room.status_code == 200, room.text

    bob = Visitor(claude_app.base_url)
    await bob.sign_up(new_name())
    guest = Visitor(claude_app.base_url)
    await guest.open()
    for visitor in (bob, guest):
        read = await visitor.http.get(f"/app/chats/{chat}/summary")
        edit = await visitor.http.put(
            f"/app/chats/{chat}/summary/sum-0123456789", json={"text": "mine now"}, headers=visitor.headers()
        )
        rebuild = await visitor.post(f"/app/chats/{chat}/summary/rebuild", None)
        for response in (read, edit, rebuild):
            assert response.status_code == 403, response.text
            assert response.json()["error"]["code"] == "not_your_chat"
    assert (await guest.http.get(f"/app/chats/{guest.session['chat']}/summary")).status_code == 200
    stranger = Visitor(claude_app.base_url)  # no session cookie at all
    nobody = await stranger.http.get(f"/app/chats/{chat}/summary")
    assert nobody.status_code == 401 and nobody.json()["error"]["code"] == "session_required"
    await stranger.close()
    await bob.close()
    await guest.close()


async def test_sum_4_summary_changes_need_the_csrf_token(alice: Visitor, claude_app: WebApp) -> None:  # noqa: F811
    chat = alice.session["chat"]
    url = f"/app/chats/{chat}/summary/sum-0123456789"
    missing = await alice.http.put(url, json={"text": "A quiet evening."})
    assert missing.status_code == 403 and missing.json()["error"]["code"] == "csrf_failed"
    other = Visitor(claude_app.base_url)
    await other.open()
    borrowed = await alice.http.put(url, json={"text": "A quiet evening."}, headers=other.headers())
    assert borrowed.status_code == 403 and borrowed.json()["error"]["code"] == "csrf_failed"
    await other.close()
    cross_site = await alice.http.put(
        url, json={"text": "A quiet evening."}, headers={**alice.headers(), "Origin": "https://evil.example"}
    )
    assert cross_site.status_code == 403 and cross_site.json()["error"]["code"] == "csrf_failed"
    rebuild = await alice.http.post(f"/app/chats/{chat}/summary/rebuild")
    assert rebuild.status_code == 403 and rebuild.json()["error"]["code"] == "csrf_failed"

    # with the token the request reaches the desk: no such tier, an empty text, a rebuild queued
    absent = await alice.http.put(url, json={"text": "A quiet evening."}, headers=alice.headers())
    assert absent.status_code == 404 and absent.json()["error"]["code"] == "summary_not_found"
    empty = await alice.http.put(url, json={"text": "   "}, headers=alice.headers())
    assert empty.status_code == 422 and empty.json()["error"]["code"] == "summary_empty"
    queued = await alice.post(f"/app/chats/{chat}/summary/rebuild", None)
    assert queued.status_code == 202 and queued.json() == {"chat": chat, "queued": True}
