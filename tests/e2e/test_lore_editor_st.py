"""The lorebook editor and the request inspector with SillyTavern's options (LORE-21, LORE-22).

Real Chromium against the web process: import a World Info file the test writes, read the
import report, edit timed effects and an inclusion group, change the book's matching default,
then find the sticky effect and the group decision in the inspector of a reply.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.async_api import Browser, expect

from tests.e2e.test_web_app import last_call, new_name, open_page, say, shot, sign_up
from tests.fakes.anthropic_server import FakeAnthropic, Reply
from tests.fixtures.servers import WebApp

pytestmark = [pytest.mark.e2e]


def book_file(tmp_path: Path) -> Path:
    entries = {
        "0": {"uid": 0, "key": ["lantern"], "comment": "Lantern", "content": "The lantern burns blue."},
        "1": {"uid": 1, "key": ["/(?<=a)b/", "owl"], "comment": "Owl", "content": "Owls hoot."},
        "2": {"uid": 2, "key": ["fog"], "comment": "Fog A", "content": "FOG-ONE", "group": "weather"},
        "3": {"uid": 3, "key": ["fog"], "comment": "Fog B", "content": "FOG-TWO", "group": "weather"},
    }
    path = tmp_path / "harbour.json"
    path.write_text(json.dumps({"entries": entries}))
    return path


async def test_lore_22_editor_shows_the_report_and_edits_timed_effects_and_groups(
    browser: Browser, claude_app: WebApp, anthropic_fake: FakeAnthropic, tmp_path: Path
) -> None:
    page = await open_page(browser, claude_app)
    await sign_up(page, new_name())
    await page.click("#open-lore")
    await page.set_input_files("#lore-file", str(book_file(tmp_path)))
    await expect(page.locator("#lore-entries .entry")).to_have_count(4)
    # LORE-21: the entry with a regex RE2 cannot run is imported and named in the report
    report = page.locator('#lore-report-list .issue[data-code="invalid_regex_key"]')
    await expect(report).to_have_count(1)
    await expect(report).to_contain_text("Owl")
    await expect(page.locator('#lore-entries .entry[data-id="1"] .tag.issue')).to_have_text("1 ignored")
    # LORE-5, LORE-18 (Issue 31): an imported book matches whole words with short endings
    await expect(page.locator("#lore-matching")).to_have_value("inflections")
    await page.select_option("#lore-matching", "whole_words")
    await expect(page.locator("#lore-matching")).to_have_value("whole_words")
    await page.select_option("#lore-matching", "inflections")
    await expect(page.locator("#lore-matching")).to_have_value("inflections")
    await page.check("#lore-case")  # the keys below are written as the messages write them

    await page.locator('#lore-entries .entry[data-id="0"] .entry-open').click()
    await expect(page.locator("#entry-sticky")).to_have_value("0")
    await page.fill("#entry-sticky", "5")
    await page.fill("#entry-cooldown", "2")
    await page.click("#entry-save")
    await expect(page.locator('#lore-entries .entry[data-id="0"] .tag.timed').first).to_have_text("sticky 5")
    await page.locator('#lore-entries .entry[data-id="2"] .entry-open').click()
    await expect(page.locator("#entry-group")).to_have_value("weather")
    await page.check("#entry-group-override")
    await page.click("#entry-save")
    # saved: the book is read again and the editor closes (a click before that would be undone)
    await expect(page.locator("#lore-entry-form")).to_be_hidden()
    await page.check("#lore-attach")
    await expect(page.locator("#lore-attach")).to_be_checked()
    await page.locator('#lore-entries .entry[data-id="2"] .entry-open').click()
    await expect(page.locator("#entry-group-override")).to_be_checked()
    await page.screenshot(path=shot("lore-st-options.png"))
    await page.locator("#lore-book-list .book-open").first.click()  # reload: the settings stuck
    await expect(page.locator("#lore-matching")).to_have_value("inflections")
    await expect(page.locator("#lore-case")).to_be_checked()
    await page.click("#lore-close")

    anthropic_fake.script(Reply(text="A quiet night."), Reply(text="Still quiet."))
    first_turn = await (await say(page, "I hold the lantern up in the fog.")).get_attribute("data-turn")
    assert "FOG-ONE" in last_call(anthropic_fake) and "FOG-TWO" not in last_call(anthropic_fake)
    await say(page, "We wait.")
    assert "The lantern burns blue." in last_call(anthropic_fake)  # sticky, no key this time
    await page.locator('.msg[data-role="assistant"]').last.locator(".inspect").click()
    sticky = page.locator('#inspector .ins-effects tr[data-kind="sticky"]')
    await expect(sticky).to_contain_text("Lantern")
    await page.click("#inspector-close")
    await page.locator(f'.msg[data-role="assistant"][data-turn="{first_turn}"] .inspect').click()
    group = page.locator('#inspector .ins-effects tr[data-kind="group"]')
    await expect(group).to_have_count(2)
    await expect(group.filter(has_text="Fog B")).to_contain_text("lost to entry 2")
    await page.screenshot(path=shot("lore-st-inspector.png"))
    await page.close()
