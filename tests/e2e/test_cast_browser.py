"""A cast in real Chromium (issue 33): the Cast dialog adds, removes, reorders and mutes members;
each reply shows its persona's name and picture; "Who answers" picks a member for the next
message and "Speak next" lets one speak without a message; the history keeps who wrote what."""

from __future__ import annotations

import re
import secrets

import pytest
from playwright.async_api import Browser, expect

from tests.e2e.api_client import HearthClient
from tests.e2e.test_web_app import say, tap
from tests.e2e.test_web_ux import signed_in_page
from tests.fixtures.servers import WebApp

pytestmark = [pytest.mark.e2e, pytest.mark.browser]


async def _shared_personas(app: WebApp, *names: str) -> dict[str, str]:
    """Shared personas (the operator's), a fresh id each run: name → id."""
    api = HearthClient(app.base_url)
    tag = secrets.token_hex(3)
    made = {}
    for name in names:
        persona = f"{name.lower()}-{tag}"
        created = await api.http.post(
            "/api/personas", json={"id": persona, "name": name, "system_prompt": f"You are {name}."}
        )
        assert created.status_code == 201, created.text
        made[name] = persona
    await api.close()
    return made


async def test_cast_1_the_page_builds_a_cast_and_shows_who_answers(
    browser: Browser, offline_app: WebApp
) -> None:
    """Issue 33 (CAST-1, CAST-2, CAST-4): build a cast of Lyra and Bram in the Cast dialog (add,
    reorder, remove the page's own persona, mute), then "Bram, …" is answered by Bram with his
    name and picture, "Who answers" makes Lyra answer, "Speak next" makes Bram speak, and a
    reload keeps each reply's writer."""
    ids = await _shared_personas(offline_app, "Lyra", "Bram")
    page, _ = await signed_in_page(browser, offline_app, ("desktop", 1366, 900))
    await expect(page.locator("#speaker-select")).to_be_hidden()

    await tap(page, "#open-cast")
    dialog = page.locator("#cast-dialog")
    await expect(dialog.locator(".cast-member")).to_have_count(1)  # the page's own persona
    for name in ("Lyra", "Bram"):
        await dialog.locator("#cast-add").select_option(ids[name])
        await dialog.locator("#cast-add-button").click()
    await dialog.locator(f'.cast-member[data-persona="{ids["Bram"]}"] .cast-up').click()
    await expect(dialog.locator(".cast-member").nth(1)).to_have_attribute("data-persona", ids["Bram"])
    await dialog.locator(".cast-member").first.locator(".cast-remove").click()
    await expect(dialog.locator(".cast-member")).to_have_count(2)
    await dialog.locator("#cast-save").click()
    await expect(dialog).to_be_hidden()
    await expect(page.locator("#speaker-select")).to_be_visible()

    reply = await say(page, "Bram, what do you think?")
    await expect(reply).to_have_attribute("data-persona", ids["Bram"])
    await expect(reply.locator(".msg-author")).to_have_text("Bram")
    await expect(reply.locator(".msg-avatar")).to_have_text("B")
    await expect(reply.locator(".msg-text")).to_contain_text("This is Bram's offline stand-in")

    await page.locator("#speaker-select").select_option(ids["Lyra"])
    reply = await say(page, "And what about you?")
    await expect(reply).to_have_attribute("data-persona", ids["Lyra"])
    await expect(reply.locator(".msg-author")).to_have_text("Lyra")

    before = await page.locator('.msg[data-role="assistant"]').count()
    await page.locator("#speaker-select").select_option(ids["Bram"])
    await page.click("#speak-next")
    await expect(page.locator('.msg[data-role="assistant"]')).to_have_count(before + 1)
    spoke = page.locator('.msg[data-role="assistant"]').last
    await expect(spoke).to_have_attribute("data-persona", ids["Bram"])
    await expect(spoke).to_have_attribute("data-turn", re.compile(r".+"))
    await expect(spoke.locator(".msg-author")).to_have_text("Bram")

    await tap(page, "#open-cast")
    await dialog.locator(f'.cast-member[data-persona="{ids["Lyra"]}"] .cast-mute').click()
    await dialog.locator("#cast-save").click()
    await expect(page.locator(f'#speaker-select option[value="{ids["Lyra"]}"]')).to_have_text("Lyra (muted)")

    await page.reload()
    await expect(page.locator("#send")).to_be_enabled()
    writers = page.locator('.msg[data-role="assistant"][data-persona]:not([data-greeting])')
    await expect(writers).to_have_count(3)
    await expect(writers.nth(0).locator(".msg-author")).to_have_text("Bram")
    await expect(writers.nth(1).locator(".msg-author")).to_have_text("Lyra")
    await expect(writers.nth(2).locator(".msg-author")).to_have_text("Bram")
    await page.close()
