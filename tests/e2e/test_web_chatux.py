"""Issue 31 in real Chromium, on a phone (390×844) and a desktop (1366×900): a chat that never sticks,
persona replies edited and deleted, message actions by keyboard, Escape, Markdown tables, lorebook
order as SillyTavern shows it, the persona's own book shown attached.

The web processes, real Redis and the fake Anthropic server are the session's
(tests/fixtures/servers.py); the restart test runs two web processes of its own on the same Redis.
Screenshots land in ``artifacts/screenshots/chatux-*.png``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, expect

from tests.e2e.test_web_app import last_call, say, shot, tap
from tests.e2e.test_web_ux import SIZES, card_png, signed_in_page
from tests.fakes.anthropic_server import Error, FakeAnthropic, Reply
from tests.fixtures.servers import RedisServer, WebApp, _claude_env

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

SLOW = 45_000  # a crashed process's chat lock expires (10 s) before the chat is answered again


async def persona_id(page: Page) -> str:
    return str(await page.evaluate("window.Hearth.state.session.persona.id"))


async def chat_id(page: Page) -> str:
    return str(await page.evaluate("window.Hearth.state.session.chat"))


@pytest.fixture(params=list(SIZES))
def size(request: pytest.FixtureRequest) -> tuple[str, int, int]:
    width, height = SIZES[request.param]
    return request.param, width, height


async def test_issue_31_a_chat_stopped_by_a_restart_is_answered_when_opened_again(
    browser: Browser,
    redis_server: RedisServer,
    anthropic_fake: FakeAnthropic,
    tmp_path: Path,
    size: tuple[str, int, int],
) -> None:
    """Issue 31, point 1: the web process dies mid-reply; the person's message is kept and, once
    the chat is opened on the restarted process, it is answered (no new message needed)."""
    env = _claude_env(redis_server, anthropic_fake)
    first = WebApp(env, tmp_path / "first.log", redis=redis_server)
    second: WebApp | None = None
    try:
        page, _ = await signed_in_page(browser, first, size)
        long = " ".join(f"word{i}" for i in range(400))
        anthropic_fake.script(
            Reply(text=long, chunk_size=6, delay=0.1), Reply(text="Back after the restart.")
        )
        await page.fill("#composer", "Tell me about the harbour")
        await page.click("#send")
        await expect(page.locator('.msg[data-streaming="true"] .msg-text')).to_contain_text("word2")
        first.proc.kill()  # the process dies mid-reply
        first.stop()
        second = WebApp(env, tmp_path / "second.log", redis=redis_server)
        await page.goto(second.base_url + "/")  # same host: the session cookie comes along
        reply = page.locator('.msg[data-role="assistant"]').last
        await expect(reply.locator(".msg-text")).to_have_text("Back after the restart.", timeout=SLOW)
        await expect(reply).to_have_attribute(
            "data-id", "r-" + (await reply.get_attribute("data-turn") or "")
        )
        user_texts = await page.locator('.msg[data-role="user"] .msg-text').all_inner_texts()
        assert user_texts == ["Tell me about the harbour"]
        await page.screenshot(path=shot(f"chatux-{size[0]}-restarted.png"))
        await page.reload()  # answered for good: stored, and not asked for again
        await expect(page.locator(".msg .msg-text").last).to_have_text("Back after the restart.")
        await expect(page.locator(".regen[data-answer]")).to_have_count(0)
        await page.close()
    finally:
        if second is not None:
            second.stop()
        if first.proc.poll() is None:
            first.stop()


async def test_issue_31_a_message_whose_turn_failed_gets_answer_and_is_answered(
    browser: Browser, claude_app: WebApp, anthropic_fake: FakeAnthropic, size: tuple[str, int, int]
) -> None:
    """Issue 31, point 1: a failed turn leaves the person's message without a reply; ↻ is offered
    on it (also after a reload) and answers it."""
    page, _ = await signed_in_page(browser, claude_app, size)
    anthropic_fake.script(Error(status=400), Reply(text="No sugar, thank you."))
    await page.fill("#composer", "Sugar?")
    await page.click("#send")
    await expect(page.locator(".msg-error")).to_have_count(1)
    await page.reload()
    await expect(page.locator("#send")).to_be_enabled()
    answer = page.locator('.msg[data-role="user"]').last.locator(".regen[data-answer]")
    await expect(answer).to_be_enabled()
    await page.screenshot(path=shot(f"chatux-{size[0]}-unanswered.png"))
    await answer.click()
    reply = page.locator('.msg[data-role="assistant"]').last
    await expect(reply.locator(".msg-text")).to_have_text("No sugar, thank you.")
    await expect(reply).not_to_have_attribute("data-streaming", "true")
    await expect(page.locator(".regen[data-answer]")).to_have_count(0)
    await expect(reply.locator(".regen")).to_have_count(1)  # now the reply's own ↻ (regenerate)
    await page.close()


async def test_issue_31_persona_replies_are_edited_and_deleted_and_actions_reached_by_keyboard(
    browser: Browser, claude_app: WebApp, anthropic_fake: FakeAnthropic, size: tuple[str, int, int]
) -> None:
    """Issue 31, points 2 and 7: Tab reaches a reply's actions (shown on focus), Enter edits it,
    the next request carries the edit; a reply is deleted alone; deleting one's own message says
    its reply goes too and deletes both."""
    page, _ = await signed_in_page(browser, claude_app, size)
    anthropic_fake.script(Reply(text="Tea is ready."), Reply(text="With milk, then."))
    reply = await say(page, "Tea please")

    # keyboard only: Tab from the message list to the reply's Edit, Enter opens the editor
    await page.focus("#messages")
    edit = reply.locator(".act-edit")
    for _ in range(40):
        await page.keyboard.press("Tab")
        if await edit.evaluate("el => el === document.activeElement"):
            break
    assert await edit.evaluate("el => el === document.activeElement"), "Tab never reached Edit"
    opacity = await reply.locator(".msg-actions").evaluate("el => getComputedStyle(el).opacity")
    assert opacity == "1"  # focus shows the actions
    await page.screenshot(path=shot(f"chatux-{size[0]}-keyboard-actions.png"))
    await page.keyboard.press("Enter")
    box = reply.locator(".msg-edit-text")
    await expect(box).to_be_focused()
    await page.keyboard.press("ControlOrMeta+a")
    await page.keyboard.type("Oolong is ready.")
    await page.keyboard.press("Tab")  # Cancel
    await page.keyboard.press("Tab")  # Save
    await page.keyboard.press("Enter")
    await expect(reply.locator(".msg-text")).to_have_text("Oolong is ready.")
    await say(page, "Milk?")
    sent = last_call(anthropic_fake)
    assert "Oolong is ready." in sent and "Tea is ready." not in sent

    # delete the persona's last reply: gone (also after a reload), and "Milk?" can be answered again
    milk_reply = page.locator('.msg[data-role="assistant"]').last
    await milk_reply.locator(".msg-text").click()
    await milk_reply.locator(".act-delete").click()
    await expect(page.locator("#confirm-title")).to_have_text("Delete this reply?")
    await page.click("#confirm-ok")
    await expect(page.locator(".msg", has_text="With milk, then.")).to_have_count(0)
    await page.reload()
    await expect(page.locator("#send")).to_be_enabled()
    await expect(page.locator(".msg", has_text="With milk, then.")).to_have_count(0)
    await expect(page.locator('.msg[data-role="user"]').last.locator(".regen[data-answer]")).to_have_count(1)

    # delete my first message: the confirmation says its reply goes too; both leave the chat
    tea = page.locator('.msg[data-role="user"]', has_text="Tea please")
    await tea.locator(".msg-text").click()
    await tea.locator(".act-delete").click()
    await expect(page.locator("#confirm-title")).to_have_text("Delete this message and its reply?")
    await page.screenshot(path=shot(f"chatux-{size[0]}-delete-both.png"))
    await page.click("#confirm-ok")
    await expect(tea).to_have_count(0)
    await expect(page.locator(".msg", has_text="Oolong is ready.")).to_have_count(0)
    await page.reload()
    await expect(page.locator("#send")).to_be_enabled()
    texts = await page.locator(".msg .msg-text").all_inner_texts()
    assert "Tea please" not in texts and "Oolong is ready." not in texts and texts[-1] == "Milk?"
    await page.close()


async def test_issue_31_escape_tables_lorebook_order_and_the_persona_book(
    browser: Browser,
    claude_app: WebApp,
    anthropic_fake: FakeAnthropic,
    size: tuple[str, int, int],
    tmp_path: Path,
) -> None:
    """Issue 31, points 7 and 8: Escape closes the memory panel; a Markdown table renders as a
    table; an imported entry with SillyTavern order 100 shows Order 100; the persona's own book
    shows Attached ticked; a branch is named by number and time, not by a message's words."""
    page, _ = await signed_in_page(browser, claude_app, size)
    table = "Tides:\n\n| Day | High |\n|:----|-----:|\n| Mon | 06:10 |\n| Tue | **07:02** |"
    anthropic_fake.script(Reply(text=table))
    reply = await say(page, "When is high tide?")
    await expect(reply.locator(".msg-text table")).to_have_count(1)
    await expect(reply.locator(".msg-text th")).to_have_text(["Day", "High"])
    await expect(reply.locator(".msg-text td strong")).to_have_text("07:02")
    assert "|" not in await reply.locator(".msg-text").inner_text()
    await page.screenshot(path=shot(f"chatux-{size[0]}-table.png"))

    await tap(page, "#open-memories")
    await expect(page.locator("#memory-panel")).to_be_visible()
    await page.keyboard.press("Escape")
    await expect(page.locator("#memory-panel")).to_be_hidden()

    # a branch: "Branch 1 · HH:MM", not the message's first words
    await reply.locator(".msg-text").click()
    await reply.locator(".act-branch").click()
    await expect(page.locator("#branch-badge")).to_be_visible()
    chosen = await page.locator("#branch-select option:checked").text_content() or ""
    assert chosen.startswith("↳ Branch 1 · ") and "Tides" not in chosen
    await tap(page, "#branch-rename")
    await page.fill("#branch-name", "Tide tables")
    await page.locator('#branch-form button[type="submit"]').click()
    await expect(page.locator("#branch-select option:checked")).to_have_text("↳ Tide tables")

    # order 100 in SillyTavern's file is Order 100 in the editor (lower goes earlier, as in ST)
    path = tmp_path / "tides.json"
    entry = {"uid": 0, "key": ["tide"], "comment": "Tide", "content": "The tide turns.", "order": 100}
    path.write_text(json.dumps({"entries": {"0": entry}}))
    await tap(page, "#open-lore")
    await page.set_input_files("#lore-file", str(path))
    await page.locator('#lore-entries .entry[data-id="0"] .entry-open').click()
    await expect(page.locator("#entry-order")).to_have_value("100")
    await page.click("#entry-save")  # saved unchanged: it stays 100 in the file SillyTavern reads
    await expect(page.locator("#lore-entry-form")).to_be_hidden()  # the save is done
    book = await page.locator("#lore-book-list .book[data-current='true']").get_attribute("data-id")
    exported = await page.request.get(f"{claude_app.base_url}/app/lorebooks/{book}/export?format=sillytavern")
    assert [e["order"] for e in (await exported.json())["entries"].values()] == [100]
    await page.click("#lore-close")

    # a card's book is the persona's own: read in its chats, so shown attached (and ticked)
    await tap(page, "#open-personas")
    await page.set_input_files(
        "#persona-file", files=[{"name": "seraphina.png", "mimeType": "image/png", "buffer": card_png()}]
    )
    await expect(page.locator("#persona-name")).to_have_text("Seraphina")
    await tap(page, "#open-lore")
    listed = await page.request.get(
        f"{claude_app.base_url}/app/lorebooks?persona={await persona_id(page)}&chat={await chat_id(page)}"
    )
    (own,) = [b["id"] for b in (await listed.json())["lorebooks"] if b["read_by_persona"]]
    row = page.locator(f'#lore-book-list .book[data-id="{own}"]')
    await expect(row.locator(".tag.attached")).to_have_count(1)
    await row.locator(".book-open").click()
    await expect(page.locator("#lore-attach")).to_be_checked()
    await expect(page.locator("#lore-attach")).to_be_disabled()  # read anyway: nothing to untick
    missing = await page.request.get(f"{claude_app.base_url}/app/lorebooks?persona=nobody-{own}")
    assert missing.status == 404 and (await missing.json())["error"]["code"] == "persona_not_found"
    await page.close()
