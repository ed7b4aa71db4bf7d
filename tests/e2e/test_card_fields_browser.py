"""A card's fields in real Chromium (issue 31, LORE-13, PRM-1), phone and desktop: the greeting's
alternates are its swipes, the one chosen opens the chat and reaches the model; personality,
scenario and example dialogue are in the editor and in the prompt."""

from __future__ import annotations

import base64
import json

import pytest
from playwright.async_api import Browser, expect

from tests.e2e.test_web_app import last_call, say, shot, tap
from tests.e2e.test_web_ux import SIZES, png, signed_in_page
from tests.fakes.anthropic_server import FakeAnthropic, Reply
from tests.fixtures.servers import WebApp

pytestmark = [pytest.mark.e2e, pytest.mark.browser]


def card() -> bytes:
    data = {
        "name": "Nyx",
        "description": "Nyx keeps the lighthouse.",
        "personality": "dry, watchful",
        "scenario": "A storm over the northern cape.",
        "first_mes": "The lamp turns. Evening, {{user}}.",
        "alternate_greetings": ["*Nyx looks up from the logbook.* You're late, {{user}}.", "Third hello."],
        "mes_example": "<START>\n{{user}}: Any ships?\n{{char}}: One. Sinking.",
        "system_prompt": "",
        "post_history_instructions": "",
        "tags": [],
        "creator": "hearth tests",
        "character_version": "1",
        "extensions": {},
    }
    chara = {"spec": "chara_card_v2", "spec_version": "2.0", "data": data}
    return png((30, 40, 90), texts={"chara": base64.b64encode(json.dumps(chara).encode()).decode("ascii")})


@pytest.fixture(params=list(SIZES))
def size(request: pytest.FixtureRequest) -> tuple[str, int, int]:
    width, height = SIZES[request.param]
    return request.param, width, height


async def test_a_cards_alternate_greetings_are_swipes_and_the_chosen_one_opens_the_chat(
    browser: Browser, claude_app: WebApp, anthropic_fake: FakeAnthropic, size: tuple[str, int, int]
) -> None:
    page, name = await signed_in_page(browser, claude_app, size)
    await tap(page, "#open-personas")
    await expect(page.locator("#persona-list .persona-item")).not_to_have_count(0)
    await page.set_input_files(
        "#persona-file", files=[{"name": "nyx.png", "mimeType": "image/png", "buffer": card()}]
    )
    await expect(page.locator("#persona-name")).to_have_text("Nyx")
    greeting = page.locator('.msg[data-greeting="true"]')
    await expect(greeting.locator(".msg-text")).to_have_text(f"The lamp turns. Evening, {name}.")
    await expect(greeting.locator(".swipe-count")).to_have_text("1/3")
    await expect(greeting.locator(".swipe-prev")).to_be_disabled()
    await greeting.locator(".swipe-next").click()
    await expect(greeting.locator(".swipe-count")).to_have_text("2/3")
    await expect(greeting.locator(".msg-text")).to_have_text(
        f"Nyx looks up from the logbook. You're late, {name}."
    )
    await page.screenshot(path=shot(f"cards-{size[0]}-greeting-swipe.png"))

    anthropic_fake.script(Reply(text="Sit. The kettle is on."))
    await say(page, "Sorry, the road flooded.")
    sent = last_call(anthropic_fake)
    assert f"You're late, {name}." in sent and "Evening," not in sent  # the chosen greeting only
    assert "dry, watchful" in sent and "A storm over the northern cape." in sent
    assert f"{name}: Any ships?\\nNyx: One. Sinking." in sent  # the example dialogue, filled
    await expect(greeting.locator(".swipes")).to_have_count(0)  # the chat has begun

    # reloaded, the stored greeting is the chosen one
    await page.reload()
    await expect(page.locator('.msg[data-greeting="true"] .msg-text')).to_have_text(
        f"Nyx looks up from the logbook. You're late, {name}."
    )
    # the editor shows the card's fields
    await tap(page, "#open-personas")
    await page.locator(".persona-item", has_text="Nyx").locator(".persona-edit").click()
    await expect(page.locator("#pf-personality")).to_have_value("dry, watchful")
    await expect(page.locator("#pf-scenario")).to_have_value("A storm over the northern cape.")
    await expect(page.locator("#pf-examples")).to_have_value(
        "<START>\n{{user}}: Any ships?\n{{char}}: One. Sinking."
    )
    await expect(page.locator("#pf-alt-greetings")).to_have_value(
        "*Nyx looks up from the logbook.* You're late, {{user}}.\n---\nThird hello."
    )
    await page.close()
