"""The browser app end to end: real Chromium, the web process, real Redis, the fake Anthropic.

Issue 7: accounts, the memory panel (MEM-3..9, DEC-11/12), the lorebook editor (LORE-6, LORE-13),
the request inspector (PRM-3, LORE-12), regenerate (MEM-7), rooms; plus the security checks over
plain HTTP (another user's memories, forged cookies, CSRF, the sign-in rate limit, link codes).
Screenshots of every screen land in ``artifacts/screenshots/`` (not committed).
"""

from __future__ import annotations

import json
import re
import secrets
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from playwright.async_api import Browser, Locator, Page, expect
from websockets.exceptions import WebSocketException

from tests.e2e.api_client import HearthClient
from tests.e2e.test_browser import ARTIFACTS
from tests.fakes.anthropic_server import FakeAnthropic, Reply, ToolUse
from tests.fixtures.cards import own_file
from tests.fixtures.servers import WebApp

pytestmark = [pytest.mark.e2e]

PASSWORD = "a fire by the hearth"
TIMEOUT = 15_000


def new_name() -> str:
    return f"u{secrets.token_hex(4)}"


def shot(name: str) -> str:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return str(ARTIFACTS / name)


async def open_page(browser: Browser, app: WebApp, *, width: int = 1280, height: int = 860) -> Page:
    page = await browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(TIMEOUT)
    await page.goto(app.base_url + "/")
    await expect(page.locator("#send")).to_be_enabled()
    return page


async def in_menu(page: Page, selector: str) -> Locator:
    """A header control; on a phone it sits behind the ☰ menu, which is opened first."""
    target = page.locator(selector)
    if not await target.is_visible() and await page.locator("#menu-button").is_visible():
        await page.click("#menu-button")
    await expect(target).to_be_visible()
    return target


async def tap(page: Page, selector: str) -> None:
    await (await in_menu(page, selector)).click()


async def pick(page: Page, selector: str, value: str) -> None:
    await (await in_menu(page, selector)).select_option(value)


async def sign_up(page: Page, name: str, *, screenshot: str | None = None) -> None:
    await tap(page, "#account-button")
    await page.click("#auth-tab-signup")
    await page.fill("#auth-username", name)
    await page.fill("#auth-password", PASSWORD)
    if screenshot:
        await page.screenshot(path=shot(screenshot))
    await page.click("#auth-submit")
    await expect(page.locator("#account-button")).to_have_text(name)
    await expect(page.locator("#send")).to_be_enabled()


async def say(page: Page, text: str) -> Locator:
    await page.fill("#composer", text)
    await page.click("#send")
    reply = page.locator('.msg[data-role="assistant"]').last
    await expect(reply).to_have_attribute("data-turn", re.compile(r".+"))
    await expect(reply).not_to_have_attribute("data-streaming", "true")
    return reply


def memory_list(page: Page, name: str) -> Locator:
    return page.locator(f'.mem-list[data-list="{name}"] .mem')


async def open_memories(page: Page) -> None:
    if await page.locator("#memory-panel").is_hidden():
        await tap(page, "#open-memories")
    await expect(page.locator("#memory-panel")).to_have_attribute("data-loaded", "true")


def last_call(fake: FakeAnthropic) -> str:
    """The body of the last Messages request (token counting aside), as text."""
    return json.dumps([r for r in fake.requests if r.path == "/v1/messages"][-1].body)


def save_memory(text: str) -> ToolUse:
    return ToolUse(name="save_memory", input={"text": text})


# --- in the browser -------------------------------------------------------------------------


async def test_sign_up_chat_and_manage_a_memory_the_model_saved(
    browser: Browser, claude_app: WebApp, anthropic_fake: FakeAnthropic
) -> None:
    name = new_name()
    fact = f"{name}'s sister is called Ana"
    anthropic_fake.script(
        Reply(text="Oh, a sister! ", tool_uses=(save_memory(fact),)), Reply(text="I'll remember Ana.")
    )
    page = await open_page(browser, claude_app)
    await expect(page.locator('.msg[data-greeting="true"]')).to_have_count(1)  # the greeting
    await page.screenshot(path=shot("01-chat-guest.png"))
    await page.click("#open-memories")
    await expect(page.locator("#memory-guest")).to_be_visible()  # MEM-8: nothing kept for guests
    await expect(page.locator("#memory-body")).to_be_hidden()
    await page.click("#memory-close")
    await sign_up(page, name, screenshot="02-sign-up.png")
    reply = await say(page, "My sister is called Ana")
    await expect(reply.locator(".msg-text")).to_have_text("Oh, a sister! I'll remember Ana.")
    await expect(reply.locator(".msg-time")).to_have_attribute("datetime", re.compile(r"\d{4}-\d\d-\d\dT.+"))
    await expect(page.locator(".toast-memory").first).to_contain_text("Saved 1 memory")  # DEC-11
    await page.screenshot(path=shot("03-chat-signed-in.png"))

    await open_memories(page)
    saved = memory_list(page, "personal")
    await expect(saved).to_have_count(1)
    await expect(saved.locator(".mem-text")).to_have_text(fact)
    await expect(saved.locator(".tag.source")).to_be_visible()
    await expect(saved.locator(".tag.protected")).to_have_count(0)  # the model's: not protected
    await expect(saved.locator(".tag.active")).to_contain_text("used today")
    await expect(saved.locator(".tag.recent")).to_be_visible()
    await page.screenshot(path=shot("04-memory-panel.png"))

    await saved.locator(".mem-pin").click()
    await expect(saved).to_have_attribute("data-pinned", "true")
    await saved.locator(".mem-edit").click()
    await saved.locator(".mem-edit-text").fill(f"{name}'s younger sister is called Ana")
    await saved.locator(".mem-save").click()
    await expect(saved.locator(".mem-text")).to_have_text(f"{name}'s younger sister is called Ana")
    await expect(saved.locator(".tag.protected")).to_be_visible()  # DEC-12: edited by a person
    await expect(saved.locator(".tag.pinned")).to_be_visible()

    await page.fill("#memory-text", "Drinks green tea")
    await page.select_option("#memory-list", "personal")
    await page.click("#memory-add-button")
    await expect(saved).to_have_count(2)
    await expect(saved.nth(0)).to_have_attribute("data-pinned", "true")  # pinned first
    await page.screenshot(path=shot("05-memory-edited-pinned.png"))

    # MEM-9: Clear all deletes the unpinned entry; the pinned one needs a second confirmation
    await page.locator('.mem-list[data-list="personal"] .mem-clear').click()
    await expect(page.locator("#confirm-dialog")).to_be_visible()
    await page.click("#confirm-ok")
    await expect(page.locator("#confirm-title")).to_have_text("Delete the pinned memories too?")
    await expect(page.locator("#confirm-cancel")).to_have_text("Keep pinned")
    await page.screenshot(path=shot("06-clear-all-second-confirmation.png"))
    await page.click("#confirm-cancel")
    await expect(saved).to_have_count(1)
    await expect(saved).to_have_attribute("data-pinned", "true")

    api = HearthClient(claude_app.base_url)
    listed = await api.http.get(
        "/api/memories", params={"scope": "personal", "owner": name, "space": f"u-{name}"}
    )
    await api.close()
    (kept,) = listed.json()["memories"]
    assert (kept["pinned"], kept["protected"]) == (True, True)
    await page.close()


async def test_lore_6_import_a_card_edit_an_entry_and_find_it_in_the_inspector(
    browser: Browser, claude_app: WebApp, anthropic_fake: FakeAnthropic, tmp_path: Path
) -> None:
    card = tmp_path / "wren.png"
    card.write_bytes(own_file("own_wren_v2.png"))
    page = await open_page(browser, claude_app)
    await sign_up(page, new_name())
    await page.click("#open-lore")
    await page.set_input_files("#lore-file", str(card))
    entries = page.locator("#lore-entries .entry")
    await expect(entries).to_have_count(9)
    await expect(page.locator("#lore-book-name")).to_have_text("Lanternfall")
    names = await page.locator("#lore-entries .entry-open").all_inner_texts()
    assert names == sorted(names, key=str.casefold) and "Wickmoor, the marsh" in names
    await expect(page.locator("#lore-book-tokens")).to_contain_text("tokens")

    # LORE-6: a display name only sorts the list; renaming moves "A marsh of lights" first
    await page.locator('#lore-entries .entry[data-id="7"] .entry-open').click()
    await expect(page.locator("#entry-keys")).to_have_value("Wickmoor, marsh")
    await page.fill("#entry-comment", "A marsh of lights")
    await page.fill("#entry-priority", "50")
    await page.click("#entry-save")
    await expect(page.locator("#lore-entries .entry-open").first).to_have_text("A marsh of lights")
    await page.check("#lore-attach")
    await expect(page.locator(".book .tag.attached")).to_have_count(1)
    await page.locator('#lore-entries .entry[data-id="7"] .entry-open').click()
    await page.screenshot(path=shot("07-lorebook-editor.png"))
    await page.click("#lore-close")

    anthropic_fake.script(Reply(text="Stay off the marsh after dark."))
    await say(page, "Is the marsh safe after dark?")
    body = last_call(anthropic_fake)
    assert "Marsh lights" in body and "A marsh of lights" not in body  # the comment is never sent
    await page.locator('.msg[data-role="assistant"]').last.locator(".inspect").click()
    row = page.locator('#inspector .ins-lore tr[data-entry="7"]')
    await expect(row).to_have_attribute("data-included", "true")
    await expect(row).to_contain_text("A marsh of lights")
    await expect(row).to_contain_text("Lanternfall")
    await expect(row).to_contain_text("marsh")  # the reason names the key that matched
    await expect(page.locator('#inspector .ins-slots tr[data-slot="lore"] td').nth(2)).not_to_have_text("0")
    # plain words, not slot ids (issue 16, point 5)
    await expect(page.locator('#inspector .ins-slots tr[data-slot="lore"] td').first).to_have_text(
        "Lorebook entries"
    )
    await expect(page.locator("#inspector .ins-slots")).not_to_contain_text("post_history")
    await expect(page.locator("#inspector .ins-usage")).to_contain_text("Cache read")
    await page.screenshot(path=shot("08-request-inspector.png"))
    await page.close()


async def test_mem_7_regenerate_rolls_back_the_memory_the_reply_saved(
    browser: Browser, claude_app: WebApp, anthropic_fake: FakeAnthropic
) -> None:
    name = new_name()
    anthropic_fake.script(
        Reply(text="Teal, noted. ", tool_uses=(save_memory(f"{name}'s favourite colour is teal"),)),
        Reply(text="Lovely colour."),
        Reply(text="Tell me more about colours."),
    )
    page = await open_page(browser, claude_app)
    await sign_up(page, name)
    await open_memories(page)
    reply = await say(page, "My favourite colour is teal")
    saved = memory_list(page, "personal")
    await expect(saved).to_have_count(1)
    await reply.locator(".regen").click()
    await expect(reply.locator(".msg-text")).to_have_text("Tell me more about colours.")
    await expect(reply).not_to_have_attribute("data-streaming", "true")
    await expect(saved).to_have_count(0)  # MEM-7: the turn's write is undone
    await reply.locator(".inspect").click()
    await expect(page.locator("#inspector .ins-writes")).to_contain_text("None.")
    await page.click("#inspector-close")
    await page.screenshot(path=shot("09-regenerated.png"))
    await page.close()


async def test_rooms_save_from_dialogue_create_memories_and_a_phone(
    browser: Browser, claude_app: WebApp, anthropic_fake: FakeAnthropic
) -> None:
    page = await open_page(browser, claude_app, width=390, height=844)
    name = new_name()
    await sign_up(page, name)
    await pick(page, "#room-select", "__new__")
    await page.fill("#room-name", "Book club")
    await page.click('#room-form button[type="submit"]')
    await expect(page.locator("#room-select")).to_have_value("book-club")
    await expect(page.locator('.msg[data-greeting="true"]')).to_have_count(1)  # a fresh room
    anthropic_fake.script(Reply(text="Le Guin, what a choice."))
    await say(page, "My favourite author is Ursula K. Le Guin")
    await page.screenshot(path=shot("10-phone-room-chat.png"))

    # MEM-6d: select messages, compose with AI, review the drafts, save them pinned
    await open_memories(page)
    await page.click("#memory-dialogue-open")
    picks = page.locator("#dialogue-messages .pick")
    await expect(picks).to_have_count(3)  # greeting, message, reply
    await picks.nth(1).locator("input").check()
    await expect(page.locator("#dialogue-count")).to_have_text("1")
    anthropic_fake.script(Reply(text=f"- {name}'s favourite author is Ursula K. Le Guin"))
    await page.click("#dialogue-compose")
    draft = page.locator("#dialogue-draft-list textarea")
    await expect(draft).to_have_value(f"{name}'s favourite author is Ursula K. Le Guin")
    await page.screenshot(path=shot("11-save-from-dialogue-drafts.png"))
    await page.click("#dialogue-save-drafts")
    kept = memory_list(page, "personal")
    await expect(kept).to_have_count(1)
    await expect(kept).to_have_attribute("data-pinned", "true")  # MEM-6d: arrives pinned

    # MEM-6c: create memories from a description, into the Global personal list
    anthropic_fake.script(Reply(text="- Reads every evening\n- Owns a cat named Pixel\n"))
    await page.click("#memory-compose-open")
    await page.fill("#compose-text", "I read every evening and my cat is called Pixel.")
    await page.select_option("#compose-list", "personal_global")
    await page.screenshot(path=shot("12-create-memories.png"))
    await page.click("#compose-submit")
    await expect(memory_list(page, "personal_global")).to_have_count(2)
    await page.screenshot(path=shot("13-phone-memory-panel.png"), full_page=True)
    await page.click("#memory-close")
    assert "What should the persona remember?" in last_call(anthropic_fake)

    # the Telegram half of linking: a single-use /link code
    await tap(page, "#account-button")
    await page.click("#link-code-button")
    await expect(page.locator("#link-code .code-value")).to_have_text(re.compile(r"/link [A-Z2-9]{8}"))
    await page.screenshot(path=shot("14-phone-account-link-code.png"))
    await page.click("#account-close")

    # the main room is a different chat; the book club is still there to switch back to
    await pick(page, "#room-select", "main")
    await expect(page.locator('.msg[data-role="user"]')).to_have_count(0)
    await pick(page, "#room-select", "book-club")
    await expect(page.locator('.msg[data-role="user"] .msg-text')).to_have_text(
        "My favourite author is Ursula K. Le Guin"
    )
    await page.close()


# --- over plain HTTP --------------------------------------------------------------------------


class Visitor:
    """A browser without a browser: the session cookie and the CSRF token."""

    def __init__(self, base_url: str) -> None:
        self.http = httpx.AsyncClient(base_url=base_url, timeout=30)
        self.session: dict[str, Any] = {}

    async def open(self, **params: str) -> dict[str, Any]:
        response = await self.http.get("/app/session", params=params)
        assert response.status_code == 200, response.text
        self.session = response.json()
        return self.session

    def headers(self) -> dict[str, str]:
        return {"X-CSRF-Token": self.session["csrf"]}

    async def sign_up(self, name: str) -> dict[str, Any]:
        await self.open()
        response = await self.http.post(
            "/app/signup", json={"username": name, "password": PASSWORD}, headers=self.headers()
        )
        assert response.status_code == 201, response.text
        return await self.open()

    async def post(self, url: str, body: Any, **headers: str) -> httpx.Response:
        return await self.http.post(url, json=body, headers={**self.headers(), **headers})

    async def close(self) -> None:
        await self.http.aclose()


@pytest.fixture
async def alice(claude_app: WebApp) -> AsyncIterator[Visitor]:
    visitor = Visitor(claude_app.base_url)
    await visitor.sign_up(new_name())
    yield visitor
    await visitor.close()


async def add_memory(visitor: Visitor, text: str) -> dict[str, Any]:
    chat = visitor.session["chat"]
    response = await visitor.post(f"/app/chats/{chat}/memories", {"list": "personal", "text": text})
    assert response.status_code == 201, response.text
    return dict(response.json()["memory"])


async def test_a_guest_cannot_open_another_users_memories(alice: Visitor, claude_app: WebApp) -> None:
    memory = await add_memory(alice, "Alice keeps bees")
    assert alice.session["guest"] is False and alice.session["chat"] == f"web:u-{alice.session['username']}"
    guest = Visitor(claude_app.base_url)
    await guest.open()
    assert guest.session["guest"] is True
    chat = alice.session["chat"]
    listed = await guest.http.get(f"/app/chats/{chat}/memories")
    assert listed.status_code == 403
    assert listed.json()["error"]["code"] == "not_your_chat" and listed.json()["error"]["message"]
    patched = await guest.http.patch(
        f"/app/memories/{memory['id']}", json={"text": "x"}, headers=guest.headers()
    )
    assert patched.status_code == 403 and patched.json()["error"]["code"] == "sign_in_required"
    inspect = await guest.http.get(f"/app/chats/{chat}/turns/t1")
    assert inspect.status_code == 403
    bob = Visitor(claude_app.base_url)
    await bob.sign_up(new_name())
    stolen = await bob.http.delete(f"/app/memories/{memory['id']}", headers=bob.headers())
    assert stolen.status_code == 403 and stolen.json()["error"]["code"] == "not_your_memory"
    mine = await guest.http.get(f"/app/chats/{guest.session['chat']}/memories")
    assert mine.status_code == 403 and mine.json()["error"]["code"] == "sign_in_required"  # MEM-8
    await guest.close()
    await bob.close()
    listed = await alice.http.get(f"/app/chats/{chat}/memories")
    texts = [m["text"] for lst in listed.json()["lists"] for m in lst["memories"]]
    assert texts == ["Alice keeps bees"]


async def test_a_forged_or_tampered_session_cookie_is_rejected(alice: Visitor, claude_app: WebApp) -> None:
    name = alice.session["username"]
    real = alice.http.cookies["hearth_session"]
    payload, _, signature = real.rpartition(".")
    forgeries = [
        f"u~{name}~9999999999~0.{'0' * 32}",  # a made-up signature
        f"u~{name}x~{payload.split('~', 2)[2]}.{signature}",  # another name, the same signature
        f"u~{name}~9999999999~{payload.rsplit('~', 1)[1]}.{signature}",  # a longer life
    ]
    for cookie in forgeries:
        forged = httpx.AsyncClient(base_url=claude_app.base_url, cookies={"hearth_session": cookie})
        denied = await forged.get(f"/app/chats/web:u-{name}/memories")
        assert denied.status_code == 401 and denied.json()["error"]["code"] == "session_required"
        session = (await forged.get("/app/session")).json()
        assert session["guest"] is True and session["user"] != f"web:{name}"
        await forged.aclose()
    url = claude_app.base_url.replace("http", "ws", 1) + f"/ws/chats/web:u-{name}"
    with pytest.raises(WebSocketException):
        async with websockets.connect(
            url, additional_headers={"Cookie": f"hearth_session={forgeries[0]}"}
        ) as ws:
            await ws.send('{"type": "message", "text": "let me in"}')
            await ws.recv()
    with pytest.raises(WebSocketException):  # cross-site WebSocket
        headers = {"Cookie": f"hearth_session={real}", "Origin": "https://evil.example"}
        async with websockets.connect(url, additional_headers=headers) as ws:
            await ws.recv()


async def test_sign_out_everywhere_invalidates_old_cookies(alice: Visitor, claude_app: WebApp) -> None:
    old = alice.http.cookies["hearth_session"]
    out = await alice.post("/app/signout", {"everywhere": True})
    assert out.status_code == 200 and out.json()["guest"] is True
    replay = httpx.AsyncClient(base_url=claude_app.base_url, cookies={"hearth_session": old})
    assert (await replay.get(f"/app/chats/web:u-{alice.session['username']}/memories")).status_code == 401
    await replay.aclose()


async def test_state_changes_without_the_csrf_token_are_refused(alice: Visitor, claude_app: WebApp) -> None:
    url = f"/app/chats/{alice.session['chat']}/memories"
    body = {"list": "space", "text": "The den has a piano"}
    missing = await alice.http.post(url, json=body)
    assert missing.status_code == 403 and missing.json()["error"]["code"] == "csrf_failed"
    other = Visitor(claude_app.base_url)
    await other.open()
    borrowed = await alice.http.post(url, json=body, headers=other.headers())  # another session's token
    assert borrowed.status_code == 403
    cross_site = await alice.post(url, body, Origin="https://evil.example")
    assert cross_site.status_code == 403 and cross_site.json()["error"]["code"] == "csrf_failed"
    login_csrf = await other.http.post("/app/signin", json={"username": "x", "password": "y" * 8})
    assert login_csrf.status_code == 403
    ok = await alice.post(url, body, Origin=claude_app.base_url)
    assert ok.status_code == 201
    listed = (await alice.http.get(url)).json()["lists"]
    assert [m["text"] for lst in listed for m in lst["memories"]] == ["The den has a piano"]
    await other.close()


async def test_failed_guesses_slow_a_username_but_never_lock_its_owner_out(claude_app: WebApp) -> None:
    owner = Visitor(claude_app.base_url)
    name = new_name()
    await owner.sign_up(name)
    attacker = Visitor(claude_app.base_url)
    await attacker.open()
    for n in range(5):
        wrong = await attacker.post("/app/signin", {"username": name, "password": f"guess-{n}-guess"})
        assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "wrong_credentials"
    victim = Visitor(claude_app.base_url)  # issue 13: a hard lock here let anyone lock a user out
    await victim.open()
    started = time.monotonic()
    back_in = await victim.post("/app/signin", {"username": name, "password": PASSWORD})
    assert back_in.status_code == 200, back_in.text
    assert time.monotonic() - started >= 1  # slowed by the per-username delay, not refused
    unknown = await attacker.post("/app/signin", {"username": new_name(), "password": PASSWORD})
    assert unknown.status_code == 401 and unknown.json()["error"]["code"] == "wrong_credentials"
    await owner.close()
    await attacker.close()
    await victim.close()


async def test_sign_up_and_in_refuse_bad_input(claude_app: WebApp) -> None:
    visitor = Visitor(claude_app.base_url)
    name = new_name()
    await visitor.sign_up(name)
    guest = Visitor(claude_app.base_url)
    await guest.open()
    cases = [
        ({"username": name, "password": PASSWORD}, 409, "username_taken"),
        ({"username": "ab", "password": PASSWORD}, 422, "username_invalid"),
        ({"username": "guest-0123456789abcdef", "password": PASSWORD}, 422, "username_reserved"),
        ({"username": new_name(), "password": "short"}, 422, "password_too_short"),
    ]
    for body, status, code in cases:
        response = await guest.post("/app/signup", body)
        assert (response.status_code, response.json()["error"]["code"]) == (status, code)
    signed_in = await guest.post("/app/signin", {"username": name.upper(), "password": PASSWORD})
    assert signed_in.status_code == 200 and signed_in.json()["user"] == f"web:{name}"
    assert (await guest.open())["guest"] is False
    await visitor.close()
    await guest.close()


async def test_link_code_for_telegram_is_redeemed_once(alice: Visitor, redis_server: Any) -> None:
    import redis.asyncio as aioredis

    from storage.keys import KeyBuilder
    from storage.redis_accounts import RedisAccountStore

    made = await alice.post("/app/link-code", None)
    assert made.status_code == 201
    code = made.json()["code"]
    assert made.json()["command"] == f"/link {code}" and len(code) == 8
    client = aioredis.from_url(redis_server.db(1))  # the claude_app's database
    store = RedisAccountStore(client, KeyBuilder(prefix="hearth"))
    assert await store.redeem_link_code(f"  {code.lower()} ") == f"web:{alice.session['username']}"
    assert await store.redeem_link_code(code) is None  # single use
    await client.aclose()


async def test_signed_in_websocket_chat_is_remembered_in_the_users_room(
    alice: Visitor, claude_app: WebApp, anthropic_fake: FakeAnthropic
) -> None:
    name = alice.session["username"]
    anthropic_fake.script(
        Reply(text="Got it. ", tool_uses=(save_memory(f"{name} is allergic to peanuts"),)),
        Reply(text="Noted."),
    )
    made = await alice.post("/app/rooms", {"name": "Kitchen talk"})
    assert made.status_code == 201 and made.json()["room"]["slug"] == "kitchen-talk"
    session = await alice.open(room="kitchen-talk")
    assert session["chat"] == f"web:u-{name}+kitchen-talk"
    url = claude_app.base_url.replace("http", "ws", 1) + f"/ws/chats/{session['chat']}"
    cookie = f"hearth_session={alice.http.cookies['hearth_session']}"
    async with websockets.connect(url, additional_headers={"Cookie": cookie}) as ws:
        await ws.send('{"type": "message", "text": "I am allergic to peanuts"}')
        while (frame := json.loads(await ws.recv()))["type"] == "delta":
            pass
    assert frame["type"] == "done" and frame["notices"] == ["Saved 1 memory."]
    listed = (await alice.http.get(f"/app/chats/{session['chat']}/memories")).json()["lists"]
    personal = next(lst for lst in listed if lst["list"] == "personal")
    assert [m["text"] for m in personal["memories"]] == [f"{name} is allergic to peanuts"]
    inspected = await alice.http.get(f"/app/chats/{session['chat']}/turns/{frame['turn']}")
    assert inspected.status_code == 200
    assert [w["kind"] for w in inspected.json()["memory_writes"]] == ["saved"]
