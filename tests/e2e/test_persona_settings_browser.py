"""A persona's settings page in real Chromium (issue 31), on a phone and a desktop: a temperature
set in the page reaches the next request to the model (an OpenAI-compatible server; Anthropic's
API refuses sampling) and the inspector shows it, the prompt order moves with the ↑ button, an
out-of-range value is shown in the dialog naming the field, and "Reset to defaults" brings the
deployment's values back."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, Page, expect

from tests.e2e.test_web_app import say, tap
from tests.e2e.test_web_ux import SIZES, signed_in_page
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.fixtures.servers import WebApp

pytestmark = [pytest.mark.e2e, pytest.mark.browser]


def last_body(fake: FakeOpenAI) -> dict[str, object]:
    body: dict[str, object] = [r for r in fake.requests if r.path == "/v1/chat/completions"][-1].body
    return body


async def make_persona(page: Page) -> None:
    await tap(page, "#open-personas")
    await page.click("#persona-new")
    await page.fill("#pf-name", "Dial")
    await page.fill("#pf-prompt", "You are Dial, who answers in one line.")
    await page.click("#pf-save")
    await expect(page.locator(".persona-item", has_text="Dial").locator(".tag.private")).to_have_text("yours")


@pytest.mark.parametrize("size", list(SIZES))
async def test_issue_31_temperature_changed_in_the_page_changes_the_next_request(
    browser: Browser, openai_app: WebApp, openai_fake: FakeOpenAI, size: str
) -> None:
    width, height = SIZES[size]
    page, _ = await signed_in_page(browser, openai_app, (size, width, height))
    await make_persona(page)
    dial = page.locator(".persona-item", has_text="Dial")
    await dial.locator(".persona-settings").click()
    dialog = page.locator("#settings-dialog")
    await expect(dialog.locator("#ps-max_tokens")).to_have_value("1024")
    await expect(dialog.locator("#ps-temperature")).to_have_value("")

    await dialog.locator("#ps-temperature").fill("5")
    await dialog.locator("#ps-save").click()
    await expect(dialog.locator("#ps-error")).to_contain_text("temperature must be between 0.0 and 2.0")

    await dialog.locator("#ps-temperature").fill("1.4")
    await dialog.locator('[data-slot="lore"] .slot-up').click()
    await expect(dialog.locator(".slot-item").nth(4)).to_have_attribute("data-slot", "lore")
    await dialog.locator("#ps-save").click()
    await expect(dialog.locator("#ps-error")).to_be_hidden()
    await page.keyboard.press("Escape")
    await expect(dialog).to_be_hidden()
    await dial.locator(".persona-talk").click()
    await expect(page.locator("#persona-name")).to_have_text("Dial")

    openai_fake.script(Reply("Warm enough."))
    reply = await say(page, "How warm is it?")
    assert last_body(openai_fake)["temperature"] == 1.4
    await reply.locator(".inspect").click()
    await expect(page.locator("#inspector .ins-summary")).to_contain_text("temperature 1.4")
    await page.keyboard.press("Escape")

    await tap(page, "#open-personas")
    await page.locator(".persona-item", has_text="Dial").locator(".persona-settings").click()
    await expect(dialog.locator("#ps-temperature")).to_have_value("1.4")
    await expect(dialog.locator(".slot-item").nth(4)).to_have_attribute("data-slot", "lore")
    await dialog.locator("#ps-reset").click()
    await expect(dialog.locator("#ps-temperature")).to_have_value("")
    await expect(dialog.locator(".slot-item").nth(5)).to_have_attribute("data-slot", "lore")
    await page.close()
