"""A person's own persona in real Chromium (issue 31, SillyTavern's "user persona"), on a phone
and a desktop: set in the account dialog, it is ``{{user}}`` and its description is in the next
request the model receives; a bad name is shown in the dialog and changes nothing."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, expect

from tests.e2e.test_web_app import last_call, say, shot, tap
from tests.e2e.test_web_ux import SIZES, signed_in_page
from tests.fakes.anthropic_server import FakeAnthropic, Reply
from tests.fixtures.servers import WebApp

pytestmark = [pytest.mark.e2e, pytest.mark.browser]


@pytest.mark.parametrize("size", list(SIZES))
async def test_issue_31_a_user_persona_set_in_the_page_reaches_the_next_request(
    browser: Browser, claude_app: WebApp, anthropic_fake: FakeAnthropic, size: str
) -> None:
    width, height = SIZES[size]
    page, name = await signed_in_page(browser, claude_app, (size, width, height))
    await tap(page, "#account-button")
    dialog = page.locator("#account-dialog")
    await expect(dialog.locator("#me-name")).to_have_value(name)  # none set: the username
    await dialog.locator("#me-name").fill("   ")
    await dialog.locator("#me-save").click()
    await expect(dialog.locator("#me-error")).to_contain_text("Give yourself a name")

    await dialog.locator("#me-name").fill("Captain Mira")
    await dialog.locator("#me-description").fill("{{user}} sails the northern sea and fears no storm.")
    await dialog.locator("#me-save").click()
    await expect(dialog.locator("#me-error")).to_be_hidden()
    await expect(page.locator(".toast").last).to_contain_text("call you Captain Mira")
    await page.screenshot(path=shot(f"user-persona-{size}.png"))
    await dialog.locator("#account-close").click()
    await expect(dialog).to_be_hidden()

    anthropic_fake.script(Reply(text="Aye, captain."))
    await say(page, "Ahoy!")
    sent = last_call(anthropic_fake)
    assert "About Captain Mira, the person you are talking with:" in sent
    assert "Captain Mira sails the northern sea and fears no storm." in sent

    await page.reload()  # the dialog shows what was stored
    await tap(page, "#account-button")
    await expect(dialog.locator("#me-name")).to_have_value("Captain Mira")
    await expect(dialog.locator("#me-description")).to_have_value(
        "{{user}} sails the northern sea and fears no storm."
    )
    await page.close()
