"""The memory panel's "Deep memory: Active" badge and the chat menu's memory switch (issue 34;
DEEP-1..4, MEM-8), over the browser's own API and in real Chromium, against the web process
talking to the fake Anthropic server (the deep pass applies to web chats by default)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Browser, expect

from tests.e2e.test_web_app import Visitor, new_name, sign_up, tap
from tests.e2e.test_web_ux import open_page
from tests.e2e.test_web_ux_api import signed_up, visitor_of
from tests.fixtures.servers import WebApp

pytestmark = [pytest.mark.e2e]


async def panel(visitor: Visitor, chat: str) -> dict[str, Any]:
    response = await visitor.http.get(f"/app/chats/{chat}/memories")
    assert response.status_code == 200, response.text
    return dict(response.json())


async def switch(visitor: Visitor, chat: str, memory: str) -> dict[str, Any]:
    response = await visitor.http.put(
        f"/app/chats/{chat}/settings", json={"memory": memory}, headers=visitor.headers()
    )
    assert response.status_code == 200, response.text
    return dict(response.json())


async def test_deep_4_the_badge_shows_for_a_web_chat_with_the_pass_on_and_not_when_memory_is_off(
    claude_app: WebApp,
) -> None:
    """DEEP-4, MEM-8 (issue 34): a signed-in person's web chat shows "Deep memory: Active" with
    its line; switched to memory off it does not, and says why; back on, it shows again. A
    Telegram chat has no web panel; the pass's platforms leave Telegram out (unit-tested in
    tests/unit/engine/memory/test_mode.py); a guest cannot switch memory; nobody else's chat."""
    alice = await signed_up(claude_app)
    chat = alice.session["chat"]
    shown = await panel(alice, chat)
    assert shown["memory"] == "on"
    assert shown["deep_memory"]["active"] is True
    assert "re-reads them in the background" in shown["deep_memory"]["note"]

    assert await switch(alice, chat, "off") == {"chat": chat, "memory": "off"}
    off = await panel(alice, chat)
    assert off["memory"] == "off" and off["deep_memory"] == {
        "active": False,
        "note": "memory is off in this chat (MEM-8, DEEP-4)",
    }
    assert (await alice.http.get(f"/app/chats/{chat}/settings")).json()["memory"] == "off"
    await switch(alice, chat, "on")
    assert (await panel(alice, chat))["deep_memory"]["active"] is True

    telegram = await alice.http.get("/app/chats/tg:4242/memories")
    assert telegram.status_code == 403  # not a web chat of hers: no panel, no badge
    bob = await signed_up(claude_app)
    refused = await bob.http.put(f"/app/chats/{chat}/settings", json={"memory": "off"}, headers=bob.headers())
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "not_your_chat"
    guest = visitor_of(claude_app)
    await guest.open()
    as_guest = await guest.http.put(
        f"/app/chats/{guest.session['chat']}/settings", json={"memory": "off"}, headers=guest.headers()
    )
    assert as_guest.status_code == 403 and as_guest.json()["error"]["code"] == "sign_in_required"
    no_csrf = await alice.http.put(f"/app/chats/{chat}/settings", json={"memory": "off"})
    assert no_csrf.status_code == 403
    assert (await panel(alice, chat))["memory"] == "on"
    for visitor in (alice, bob, guest):
        await visitor.close()


@pytest.mark.browser
async def test_deep_4_chromium_shows_the_badge_and_the_menu_switches_memory_off(
    browser: Browser, claude_app: WebApp
) -> None:
    """DEEP-4, MEM-8 (issue 34): in Chromium the memory panel shows "Deep memory: Active"; the
    menu's Memory switch turns memory off (the header says so, the badge goes) and back on."""
    page = await open_page(browser, claude_app, width=1280, height=800)
    await sign_up(page, new_name())
    await tap(page, "#open-memories")
    await expect(page.locator("#deep-memory")).to_be_visible()
    await expect(page.locator("#deep-memory")).to_contain_text("Deep memory: Active")
    await expect(page.locator("#deep-memory-note")).to_contain_text("re-reads them in the background")
    toggle = page.locator("#memory-toggle")
    await expect(toggle).to_have_text("Memory: on")
    await tap(page, "#memory-toggle")
    await expect(toggle).to_have_text("Memory: off")
    await expect(page.locator("#memory-off-badge")).to_be_visible()
    await expect(page.locator("#deep-memory")).to_be_hidden()
    await expect(page.locator("#memory-off-note")).to_be_visible()
    await page.reload()
    await expect(page.locator("#memory-off-badge")).to_be_visible()  # kept with the chat
    await tap(page, "#memory-toggle")
    await expect(page.locator("#memory-toggle")).to_have_text("Memory: on")
    await expect(page.locator("#memory-off-badge")).to_be_hidden()
    await page.close()
