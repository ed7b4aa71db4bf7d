"""Real Chromium (Playwright) sends pictures (issue 30): the attach button shows a thumbnail in
the composer and in the sent message, and Claude (the fake Messages API) receives the same bytes;
a file that is not a picture is refused in the page, before anything is sent."""

from __future__ import annotations

import base64

import pytest
from playwright.async_api import Browser, expect

from tests.e2e.test_browser import open_chat
from tests.fakes.anthropic_server import FakeAnthropic, Reply
from tests.fixtures.pictures import png
from tests.fixtures.servers import WebApp

pytestmark = [pytest.mark.e2e, pytest.mark.browser]


async def test_issue_30_a_picture_attached_with_the_button_shows_a_thumbnail_and_reaches_claude(
    browser: Browser, claude_app: WebApp, anthropic_fake: FakeAnthropic
) -> None:
    anthropic_fake.script(Reply(text="A tiny striped picture."))
    page = await open_chat(browser, claude_app)
    data = png(48, 32, seed=6)
    async with page.expect_file_chooser() as chooser:
        await page.click("#attach")
    await (await chooser.value).set_files([{"name": "stripes.png", "mimeType": "image/png", "buffer": data}])
    tray = page.locator("#attachments img")
    await expect(tray).to_have_count(1)
    await page.fill("#composer", "What is in this picture?")
    await page.click("#send")
    sent = page.locator('.msg[data-role="user"]').last
    await expect(sent.locator(".msg-images img")).to_have_count(1)
    width = await sent.locator(".msg-images img").evaluate("img => img.complete && img.naturalWidth")
    assert width == 48  # the thumbnail shows the picture itself
    await expect(page.locator("#attachments")).to_be_hidden()
    reply = page.locator('.msg[data-role="assistant"]').last
    await expect(reply.locator(".msg-text")).to_have_text("A tiny striped picture.", timeout=20_000)
    (request,) = [r for r in anthropic_fake.requests if r.path == "/v1/messages"]
    images = [
        base64.b64decode(b["source"]["data"])
        for m in request.body["messages"]
        for b in m["content"]
        if b["type"] == "image"
    ]
    assert images == [data]


async def test_issue_30_the_page_refuses_a_file_that_is_not_a_picture(
    browser: Browser, claude_app: WebApp, anthropic_fake: FakeAnthropic
) -> None:
    page = await open_chat(browser, claude_app)
    await page.set_input_files(
        "#attach-input",
        files=[{"name": "notes.png", "mimeType": "image/png", "buffer": b"just text, really"}],
    )
    await expect(page.locator("#attach-error")).to_contain_text("not a PNG, JPEG, GIF or WebP")
    await expect(page.locator("#attachments")).to_be_hidden()
    assert [r for r in anthropic_fake.requests if r.path == "/v1/messages"] == []
