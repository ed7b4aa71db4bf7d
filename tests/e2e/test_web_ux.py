"""Issue 16 in real Chromium, on a phone (390×844) and a desktop (1366×900).

Personas from a character card (made here, in the test) and from the editor; Markdown that
cannot run script; edit, delete, stop, swipes and branches; errors visible inside dialogs on a
phone; a guest's chat kept at sign-up and, when asked, at sign-in. The web process, real Redis
and the fake Anthropic server are the session's (tests/fixtures/servers.py). Screenshots land in
``artifacts/screenshots/ux-*.png``.
"""

from __future__ import annotations

import base64
import json
import re
import secrets
import struct
import zlib

import pytest
from playwright.async_api import Browser, Locator, Page, expect

from adapters.cards import decode_card
from tests.e2e.test_web_app import (
    PASSWORD,
    TIMEOUT,
    in_menu,
    last_call,
    new_name,
    pick,
    say,
    shot,
    sign_up,
    tap,
)
from tests.fakes.anthropic_server import FakeAnthropic, Reply
from tests.fixtures.servers import WebApp

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

SIZES = {"phone": (390, 844), "desktop": (1366, 900)}


def address() -> str:
    """A client address of its own (the test apps trust loopback proxies), so the sign-up
    limit per address counts each test's people apart, as it would real visitors."""
    return f"10.{secrets.randbelow(256)}.{secrets.randbelow(256)}.{secrets.randbelow(254) + 1}"


async def open_page(chromium: Browser, app: WebApp, *, width: int, height: int) -> Page:
    page = await chromium.new_page(
        viewport={"width": width, "height": height}, extra_http_headers={"X-Forwarded-For": address()}
    )
    page.set_default_timeout(TIMEOUT)
    await page.goto(app.base_url + "/")
    await expect(page.locator("#send")).to_be_enabled()
    return page


def png(
    rgb: tuple[int, int, int] = (90, 140, 200), size: int = 48, texts: dict[str, str] | None = None
) -> bytes:
    """A small PNG, with tEXt chunks (a character card's ``chara``) when given."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    rows = (b"\x00" + bytes(rgb) * size) * size
    parts = [
        chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)),
        chunk(b"IDAT", zlib.compress(rows)),
    ]
    for key, value in (texts or {}).items():
        parts.append(chunk(b"tEXt", key.encode() + b"\x00" + value.encode("latin-1")))
    return b"\x89PNG\r\n\x1a\n" + b"".join(parts) + chunk(b"IEND", b"")


def card_png(name: str = "Seraphina") -> bytes:
    """A Character Card V2 PNG with a greeting in Markdown and a one-entry lorebook."""
    card = {
        "spec": "chara_card_v2",
        "spec_version": "2.0",
        "data": {
            "name": name,
            "description": f"{name} is the guardian of an old forest glade.",
            "personality": "gentle, wry",
            "scenario": "",
            "first_mes": f"*{name} smiles.* Welcome to the **glade**, {{{{user}}}}.",
            "mes_example": "",
            "creator_notes": "",
            "system_prompt": "",
            "post_history_instructions": "",
            "alternate_greetings": [],
            "tags": ["fantasy"],
            "creator": "hearth tests",
            "character_version": "1",
            "extensions": {},
            "character_book": {
                "name": "Glade lore",
                "entries": [
                    {
                        "id": 1,
                        "keys": ["moonwell"],
                        "content": "The moonwell heals any wound at midnight.",
                        "enabled": True,
                        "insertion_order": 10,
                        "extensions": {},
                    }
                ],
            },
        },
    }
    encoded = base64.b64encode(json.dumps(card).encode()).decode("ascii")
    return png((120, 180, 90), texts={"chara": encoded})


@pytest.fixture(params=list(SIZES))
def size(request: pytest.FixtureRequest) -> tuple[str, int, int]:
    width, height = SIZES[request.param]
    return request.param, width, height


async def signed_in_page(chromium: Browser, app: WebApp, size: tuple[str, int, int]) -> tuple[Page, str]:
    _, width, height = size
    page = await open_page(chromium, app, width=width, height=height)
    name = new_name()
    await sign_up(page, name)
    return page, name


async def within_viewport(page: Page, target: Locator) -> None:
    """The element is on screen and nothing (no dialog, no backdrop) covers its middle."""
    box = await target.bounding_box()
    viewport = page.viewport_size
    assert box is not None and viewport is not None
    assert box["x"] >= 0 and box["y"] >= 0
    assert (
        box["x"] + box["width"] <= viewport["width"] + 1
        and box["y"] + box["height"] <= viewport["height"] + 1
    )
    on_top = await target.evaluate(
        "(el) => { const r = el.getBoundingClientRect(); const was = el.style.pointerEvents;"
        " el.style.pointerEvents = 'auto';"  # toasts are click-through: hit-test them as painted
        " const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);"
        " el.style.pointerEvents = was;"
        " return hit === el || el.contains(hit) ? '' : (hit ? hit.outerHTML.slice(0, 120) : 'nothing'); }"
    )
    assert not on_top, f"something covers it: {on_top}"


# --- 1. personas ------------------------------------------------------------------------------


async def test_import_a_card_as_a_persona_and_chat_with_its_greeting(
    browser: Browser,
    claude_app: WebApp,
    anthropic_fake: FakeAnthropic,
    size: tuple[str, int, int],
) -> None:
    label = size[0]
    page, name = await signed_in_page(browser, claude_app, size)
    await tap(page, "#open-personas")
    await expect(page.locator("#persona-list .persona-item")).not_to_have_count(0)
    await page.set_input_files(
        "#persona-file", files=[{"name": "seraphina.png", "mimeType": "image/png", "buffer": card_png()}]
    )
    # the card became the room's persona: its name, its picture, its greeting rendered as Markdown
    await expect(page.locator("#persona-name")).to_have_text("Seraphina")
    await expect(page.locator("#persona-avatar img")).to_have_count(1)
    greeting = page.locator('.msg[data-greeting="true"]')
    await expect(greeting.locator(".msg-text")).to_have_text(
        f"Seraphina smiles. Welcome to the glade, {name}."
    )
    await expect(greeting.locator("strong")).to_have_text("glade")
    await expect(greeting.locator("em")).to_have_text("Seraphina smiles.")
    persona = re.search(r"persona=([\w.-]+)", page.url)
    assert persona is not None
    await page.screenshot(path=shot(f"ux-{label}-card-persona.png"))

    # its lorebook is attached at once: the entry reaches the model when its key comes up
    anthropic_fake.script(Reply(text="The moonwell glows silver tonight."))
    reply = await say(page, "Can you tell me about the moonwell?")
    await expect(reply.locator(".msg-author")).to_have_text("Seraphina")
    sent = last_call(anthropic_fake)
    assert "The moonwell heals any wound at midnight." in sent and "guardian of an old forest glade" in sent

    # a private persona: exported as a card with its book; other visitors do not see it
    exported = await page.request.get(f"{claude_app.base_url}/app/personas/{persona.group(1)}/card")
    assert exported.status == 200 and exported.headers["content-type"] == "image/png"
    card = decode_card(await exported.body(), "image/png")
    assert card.name == "Seraphina" and card.book is not None
    assert [e.content for e in card.book.entries] == ["The moonwell heals any wound at midnight."]
    other = await browser.new_page()
    listing = await other.request.get(f"{claude_app.base_url}/app/session?persona={persona.group(1)}")
    assert listing.status == 404 and (await listing.json())["error"]["code"] == "persona_not_found"
    await other.close()

    # a persona made in the editor, with its own greeting; picked for this room
    await tap(page, "#open-personas")
    await page.click("#persona-new")
    await page.fill("#pf-name", "Captain Wren")
    await page.fill("#pf-prompt", "You are Captain Wren, a retired sky-pirate who tells tall tales.")
    await page.fill("#pf-greeting", "Ahoy, {{user}}! Pull up a crate.")
    await page.fill("#pf-max-tokens", "600")
    await page.screenshot(path=shot(f"ux-{label}-persona-editor.png"))
    await page.click("#pf-save")
    wren = page.locator(".persona-item", has_text="Captain Wren")
    await expect(wren.locator(".tag.private")).to_have_text("yours")
    await wren.locator(".persona-talk").click()
    await expect(page.locator("#persona-name")).to_have_text("Captain Wren")
    await expect(page.locator('.msg[data-greeting="true"] .msg-text')).to_have_text(
        f"Ahoy, {name}! Pull up a crate."
    )
    await page.screenshot(path=shot(f"ux-{label}-editor-persona-chat.png"))
    await page.close()


# --- 2. message controls ----------------------------------------------------------------------

HOSTILE = (
    "Here is **bold**, *soft* and `inline code`.\n\n"
    "```python\nprint('hi')\n```\n\n"
    "- one\n- two\n\n"
    '<img src=x onerror="window.__pwned = 1"> <script>window.__pwned = 3</script> '
    "[tap me](javascript:window.__pwned=2) [docs](https://example.com/docs) "
    "[data](data:text/html,<script>window.__pwned=4</script>)"
)


async def test_markdown_is_rendered_and_no_script_runs_from_a_reply(
    browser: Browser,
    claude_app: WebApp,
    anthropic_fake: FakeAnthropic,
    size: tuple[str, int, int],
) -> None:
    label, width, height = size
    page = await open_page(browser, claude_app, width=width, height=height)
    anthropic_fake.script(Reply(text=HOSTILE, chunk_size=12))
    reply = await say(page, "Show me some formatting")
    for check in range(2):  # as it arrives, then as the history renders it after a reload
        text = reply.locator(".msg-text")
        await expect(text.locator("strong")).to_have_text("bold")
        await expect(text.locator("em")).to_have_text("soft")
        await expect(text.locator("p code")).to_have_text("inline code")
        await expect(text.locator("pre code")).to_have_text("print('hi')")
        await expect(text.locator("li")).to_have_count(2)
        await expect(text.locator("a")).to_have_count(1)
        await expect(text.locator("a")).to_have_attribute("href", "https://example.com/docs")
        await expect(text).to_contain_text('<img src=x onerror="window.__pwned = 1">')  # shown, not run
        await expect(text).to_contain_text("[tap me](javascript:window.__pwned=2)")
        await expect(page.locator("#messages img, #messages script, #messages [onerror]")).to_have_count(0)
        await text.get_by_text("tap me").first.click()
        assert await page.evaluate("window.__pwned") is None
        if check == 0:
            await page.screenshot(path=shot(f"ux-{label}-markdown.png"))
            await page.reload()
            await expect(page.locator("#send")).to_be_enabled()
            reply = page.locator('.msg[data-role="assistant"]').last
    assert page.url.startswith(claude_app.base_url)  # no link navigated anywhere
    await page.close()


async def test_edit_delete_stop_swipe_and_branch(
    browser: Browser,
    claude_app: WebApp,
    anthropic_fake: FakeAnthropic,
    size: tuple[str, int, int],
) -> None:
    label = size[0]
    page, _ = await signed_in_page(browser, claude_app, size)
    anthropic_fake.script(Reply(text="Green tea, a fine choice."))
    reply = await say(page, "I like green tea")
    mine = page.locator('.msg[data-role="user"]').last

    # edit my message (its actions show on hover, or a tap on a phone); the model reads the edit
    await mine.locator(".msg-text").click()
    await mine.locator(".act-edit").click()
    await mine.locator(".msg-edit-text").fill("I like jasmine tea")
    await mine.locator('.msg-edit button[type="submit"]').click()
    await expect(mine.locator(".msg-text")).to_have_text("I like jasmine tea")
    await expect(reply.locator(".act-edit")).to_have_count(1)  # issue 31: the persona's replies too

    # ↻ keeps the old reply: ‹ 1/2 › picks between them, the chosen one is what the next turn sees
    anthropic_fake.script(Reply(text="Jasmine tea, how fragrant."))
    await reply.locator(".regen").click()
    await expect(reply.locator(".msg-text")).to_have_text("Jasmine tea, how fragrant.")
    await expect(reply.locator(".swipe-count")).to_have_text("2/2")
    assert "I like jasmine tea" in last_call(anthropic_fake)
    await reply.locator(".swipe-prev").click()
    await expect(reply.locator(".msg-text")).to_have_text("Green tea, a fine choice.")
    await expect(reply.locator(".swipe-count")).to_have_text("1/2")
    await page.focus("#composer")
    await page.keyboard.press("ArrowRight")  # → on an empty composer: the next version
    await expect(reply.locator(".swipe-count")).to_have_text("2/2")
    await page.keyboard.press("ArrowLeft")
    await expect(reply.locator(".msg-text")).to_have_text("Green tea, a fine choice.")
    await page.screenshot(path=shot(f"ux-{label}-swipes.png"))
    anthropic_fake.script(Reply(text="Coffee? Never heard of it."))
    await say(page, "And coffee?")
    sent = last_call(anthropic_fake)
    assert "Green tea, a fine choice." in sent and "Jasmine tea, how fragrant." not in sent

    # delete my own message: gone, also after a reload
    coffee = page.locator('.msg[data-role="user"]', has_text="And coffee?")
    await coffee.locator(".msg-text").click()
    await coffee.locator(".act-delete").click()
    await page.click("#confirm-ok")
    await expect(coffee).to_have_count(0)
    await page.reload()
    await expect(page.locator("#send")).to_be_enabled()
    await expect(page.locator('.msg[data-role="user"]', has_text="And coffee?")).to_have_count(0)
    await expect(page.locator('.msg[data-role="user"] .msg-text').first).to_have_text("I like jasmine tea")

    # stop generating: the words so far stay, and are stored
    long = " ".join(f"word{i}" for i in range(300))
    anthropic_fake.script(Reply(text=long, chunk_size=6, delay=0.03))
    await page.fill("#composer", "Tell me a very long story")
    await page.click("#send")
    streaming = page.locator('.msg[data-role="assistant"][data-streaming="true"] .msg-text')
    await expect(streaming).to_contain_text("word3")
    await expect(page.locator("#stop")).to_be_visible()
    await page.click("#stop")
    last = page.locator('.msg[data-role="assistant"]').last
    await expect(last).not_to_have_attribute("data-streaming", "true")
    await expect(last).to_have_attribute("data-turn", re.compile(r".+"))
    await expect(page.locator("#stop")).to_be_hidden()
    kept = await last.locator(".msg-text").inner_text()
    assert kept.startswith("word0 word1") and "word299" not in kept
    await page.screenshot(path=shot(f"ux-{label}-stopped.png"))
    await page.reload()
    await expect(page.locator("#send")).to_be_enabled()
    await expect(page.locator('.msg[data-role="assistant"] .msg-text').last).to_have_text(kept)

    # branch from the first reply: a new chat with the conversation up to there
    first = page.locator('.msg[data-role="assistant"]:not([data-greeting])').first
    await first.locator(".msg-text").click()
    await first.locator(".act-branch").click()
    await expect(page).to_have_url(re.compile(r"branch=[0-9a-f]{8}"))
    await expect(page.locator(".msg")).to_have_count(3)  # greeting, my message, the reply
    await expect(page.locator('.msg[data-role="user"] .msg-text')).to_have_text(["I like jasmine tea"])
    anthropic_fake.script(Reply(text="In this branch, we speak of oolong."))
    await say(page, "Let's talk oolong instead")
    await page.screenshot(path=shot(f"ux-{label}-branch.png"))
    branch = await in_menu(page, "#branch-select")
    await expect(branch.locator("option")).to_have_count(2)
    await branch.select_option("")
    await expect(page).not_to_have_url(re.compile(r"branch="))
    await expect(page.locator('.msg[data-role="user"]', has_text="oolong")).to_have_count(0)
    await expect(page.locator('.msg[data-role="user"]', has_text="long story")).to_have_count(1)
    await page.close()


# --- 3. notices and errors above dialogs --------------------------------------------------------


async def test_a_dialog_error_is_visible_on_a_phone(
    browser: Browser,
    claude_app: WebApp,
    size: tuple[str, int, int],
) -> None:
    label = size[0]
    page, _ = await signed_in_page(browser, claude_app, size)
    await tap(page, "#open-lore")
    broken = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\x0dIHDR broken"
    await page.set_input_files(
        "#lore-file", files=[{"name": "broken.png", "mimeType": "image/png", "buffer": broken}]
    )
    error = page.locator("#lore-import-error")
    await expect(error).to_be_visible()
    await expect(error).to_contain_text("broken.png")
    await within_viewport(page, error)
    await page.screenshot(path=shot(f"ux-{label}-lore-import-error.png"))
    await page.click("#lore-close")

    await tap(page, "#open-personas")
    bad = b'{"spec": "chara_card_v2", "data": '
    await page.set_input_files(
        "#persona-file", files=[{"name": "bad.json", "mimeType": "application/json", "buffer": bad}]
    )
    error = page.locator("#personas-error")
    await expect(error).to_contain_text("bad.json")
    await within_viewport(page, error)
    # a notice raised while a dialog is open shows above it (the top layer), not under it
    await page.click("#persona-new")
    await page.fill("#pf-name", "Moss")
    await page.fill("#pf-prompt", "You are Moss, a quiet gardener.")
    await page.click("#pf-save")
    toast = page.locator(".toast", has_text="Moss saved.")
    await expect(toast).to_be_visible()
    await within_viewport(page, toast)
    await page.screenshot(path=shot(f"ux-{label}-toast-over-dialog.png"))
    await page.close()


# --- 4. the guest's chat moves into the account -------------------------------------------------


async def test_a_guest_chat_is_kept_at_sign_up_and_when_asked_at_sign_in(
    browser: Browser,
    claude_app: WebApp,
    anthropic_fake: FakeAnthropic,
    size: tuple[str, int, int],
) -> None:
    label, width, height = size
    page = await open_page(browser, claude_app, width=width, height=height)
    anthropic_fake.script(Reply(text="Nice to meet you, Rin."))
    await say(page, "Hi, I'm Rin and I collect old maps")
    name = new_name()
    await sign_up(page, name)
    mine = page.locator('.msg[data-role="user"]')
    await expect(mine.locator(".msg-text")).to_have_text(["Hi, I'm Rin and I collect old maps"])
    await expect(mine.locator(".msg-author")).to_have_text([name])
    await expect(page.locator('.msg[data-role="assistant"] .msg-text').last).to_have_text(
        "Nice to meet you, Rin."
    )
    await page.reload()
    await expect(page.locator("#send")).to_be_enabled()
    await expect(page.locator('.msg[data-role="user"] .msg-text')).to_have_text(
        ["Hi, I'm Rin and I collect old maps"]
    )
    anthropic_fake.script(Reply(text="Maps, yes."))
    await say(page, "What do I collect?")
    assert "I collect old maps" in last_call(anthropic_fake)  # the moved chat is the account's context
    await page.screenshot(path=shot(f"ux-{label}-guest-chat-kept.png"))
    await page.close()

    # another browser, a guest again, then signs in to the same account: asked, then moved
    page = await open_page(browser, claude_app, width=width, height=height)
    anthropic_fake.script(Reply(text="A compass, lovely."))
    await say(page, "I found a brass compass today")
    await tap(page, "#account-button")
    await page.fill("#auth-username", name)
    await page.fill("#auth-password", PASSWORD)
    await page.click("#auth-submit")
    await expect(page.locator("#confirm-title")).to_have_text("Bring your guest chat?")
    await page.screenshot(path=shot(f"ux-{label}-sign-in-asks.png"))
    await page.click("#confirm-ok")
    await expect(page.locator("#account-button")).to_have_text(name)
    await expect(await in_menu(page, "#room-select")).to_have_value("guest-chat")
    await expect(page.locator('.msg[data-role="user"] .msg-text')).to_have_text(
        ["I found a brass compass today"]
    )
    await pick(page, "#room-select", "main")
    await expect(page.locator('.msg[data-role="user"] .msg-text').first).to_have_text(
        "Hi, I'm Rin and I collect old maps"
    )
    await page.close()


# --- 2 and 6. the composer's Enter and the phone header ----------------------------------------


async def test_shift_enter_adds_a_line_and_a_phone_keyboards_return_too(
    browser: Browser,
    claude_app: WebApp,
    anthropic_fake: FakeAnthropic,
) -> None:
    page = await open_page(browser, claude_app, width=1366, height=900)
    await page.fill("#composer", "first line")
    await page.press("#composer", "Shift+Enter")
    await page.keyboard.type("second line")
    assert await page.input_value("#composer") == "first line\nsecond line"
    anthropic_fake.script(Reply(text="Two lines, noted."))
    await page.press("#composer", "Enter")  # a desktop's Enter sends
    mine = page.locator('.msg[data-role="user"] .msg-text').last
    await expect(mine).to_have_text("first line\nsecond line", use_inner_text=True)
    await page.close()

    phone = await browser.new_context(
        viewport={"width": 390, "height": 844},
        is_mobile=True,
        has_touch=True,
        extra_http_headers={"X-Forwarded-For": address()},
    )
    page = await phone.new_page()
    await page.goto(claude_app.base_url + "/")
    await expect(page.locator("#send")).to_be_enabled()
    assert await page.get_attribute("#composer", "enterkeyhint") == "enter"
    await page.fill("#composer", "on a phone")
    await page.press("#composer", "Enter")  # the keyboard's return: a new line, not sent
    assert await page.input_value("#composer") == "on a phone\n"
    await expect(page.locator('.msg[data-role="user"]')).to_have_count(0)
    anthropic_fake.script(Reply(text="Sent by the button."))
    await page.keyboard.type("with a button")
    await page.tap("#send")
    await expect(page.locator('.msg[data-role="user"] .msg-text').last).to_have_text(
        "on a phone\nwith a button", use_inner_text=True
    )

    # one compact header row: avatar, name, persona, status and ☰; the rest sits in the menu
    header = await page.locator("#top").bounding_box()
    assert header is not None and header["height"] <= 60, header
    await expect(page.locator("#persona-avatar")).to_be_visible()
    await expect(page.locator("#open-memories")).to_be_hidden()
    await page.tap("#menu-button")
    for tool in (
        "#open-personas",
        "#open-memories",
        "#open-lore",
        "#open-summary",
        "#open-archive",
        "#account-button",
    ):
        await expect(page.locator(tool)).to_be_visible()
    await page.screenshot(path=shot("ux-phone-menu.png"))
    await phone.close()
