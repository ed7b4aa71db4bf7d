"""Renaming and deleting a lorebook and a room in real Chromium (issue 31), on a phone and a
desktop: the confirmation says plainly what happens to the entries, the chats and the memories;
a rename keeps the room's messages; after the deletion the book and the room are gone and the
memory about the person is kept (in their Global list)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.async_api import Browser, expect

from tests.e2e.test_web_app import memory_list, open_memories, pick, say, shot, tap
from tests.e2e.test_web_ux import SIZES, signed_in_page
from tests.fakes.anthropic_server import FakeAnthropic, Reply
from tests.fixtures.servers import WebApp

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

BOOK = {
    "entries": {"0": {"uid": 0, "key": ["harbor"], "content": "The harbor freezes.", "comment": "Harbor"}}
}


@pytest.mark.parametrize("size", list(SIZES))
async def test_issue_31_a_book_and_a_room_are_renamed_and_deleted_with_a_plain_confirmation(
    browser: Browser, claude_app: WebApp, anthropic_fake: FakeAnthropic, size: str, tmp_path: Path
) -> None:
    width, height = SIZES[size]
    page, _ = await signed_in_page(browser, claude_app, (size, width, height))

    # a lorebook: rename, then delete after a confirmation that names what goes and what stays
    book = tmp_path / "harbor.json"
    book.write_text(json.dumps(BOOK))
    await tap(page, "#open-lore")
    await page.set_input_files("#lore-file", str(book))
    await expect(page.locator("#lore-book-name")).to_have_text("harbor")  # an import opens the book
    await expect(page.locator("#lore-entries .entry")).to_have_count(1)
    await page.click("#lore-rename")
    await page.fill("#book-rename-name", "   ")
    await page.click("#book-rename-save")
    await expect(page.locator("#book-rename-error")).to_contain_text("cannot be empty")
    await page.fill("#book-rename-name", "Port lore")
    await page.click("#book-rename-save")
    await expect(page.locator("#lore-book-name")).to_have_text("Port lore")
    # the visitor's own books (shared personas' books from other accounts may be listed too)
    own = page.locator('#lore-book-list .book[data-editable="true"] .book-open')
    await expect(own).to_have_text(["Port lore"])
    await page.click("#lore-delete")
    confirm = page.locator("#confirm-dialog")
    await expect(confirm.locator("#confirm-title")).to_have_text("Delete the lorebook “Port lore”?")
    await expect(confirm.locator("#confirm-text")).to_contain_text("Its 1 entry is deleted for good")
    await expect(confirm.locator("#confirm-text")).to_contain_text("No memory is touched")
    await page.screenshot(path=shot(f"delete-book-{size}.png"))
    await confirm.locator("#confirm-ok").click()
    await expect(own).to_have_count(0)
    await expect(page.locator("#lore-book-list .book-open", has_text="Port lore")).to_have_count(0)
    await page.click("#lore-close")

    # a room: a message and a memory about the person, a rename that keeps them, then deletion
    await pick(page, "#room-select", "__new__")
    await page.fill("#room-name", "Kitchen")
    await page.click("#room-form button[type=submit]")
    await expect(page.locator("#room-select")).to_have_value("kitchen")
    anthropic_fake.script(Reply(text="The stew is on."))
    await say(page, "Is the stew on?")
    await open_memories(page)
    await page.fill("#memory-text", "Likes her stew spicy")
    await page.click("#memory-add-button")
    await expect(memory_list(page, "personal")).to_have_count(1)
    await page.keyboard.press("Escape")

    await tap(page, "#room-edit")
    await page.fill("#room-edit-name", "Big kitchen")
    await page.click("#room-edit-save")
    await expect(page.locator("#room-select option:checked")).to_have_text("Big kitchen")
    await expect(page.locator('.msg[data-role="user"] .msg-text')).to_have_text("Is the stew on?")

    await tap(page, "#room-edit")
    await page.click("#room-delete")
    await expect(confirm.locator("#confirm-title")).to_have_text("Delete the room “Big kitchen”?")
    text = confirm.locator("#confirm-text")
    await expect(text).to_contain_text("messages, branches, summaries and archive pages — are deleted")
    await expect(text).to_contain_text("Memories about you saved in this room are kept")
    await expect(text).to_contain_text("The room’s own memories (facts about the room) are deleted")
    await page.screenshot(path=shot(f"delete-room-{size}.png"))
    await confirm.locator("#confirm-cancel").click()
    await expect(page.locator("#room-select")).to_have_value("kitchen")  # kept: nothing happened

    await tap(page, "#room-edit")
    await page.click("#room-delete")
    await confirm.locator("#confirm-ok").click()
    await expect(page.locator("#room-select")).to_have_value("main")
    await expect(page.locator("#room-select option")).to_have_count(2)  # main and "+ New room…"
    await expect(page.locator(".toast").last).to_contain_text("1 memory about you kept")
    await open_memories(page)
    await expect(memory_list(page, "personal_global")).to_contain_text(["Likes her stew spicy"])
    await page.close()
