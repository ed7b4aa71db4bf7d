"""Issue 31, chat files over HTTP: export a chat as SillyTavern ``.jsonl`` or Hearth JSON and
import it into a new chat — the same messages, roles, texts, swipes and send dates — through the
operator REST API and the browser's ``/app`` routes; bad files are refused whole with a 4xx
naming the problem. The web process, real Redis and the fake Anthropic server are the session's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import Browser, expect

from tests.e2e.api_client import HearthClient
from tests.e2e.test_web_app import say, shot, tap
from tests.e2e.test_web_ux import SIZES, signed_in_page
from tests.e2e.test_web_ux_api import converse, error_of, signed_up
from tests.fakes.anthropic_server import FakeAnthropic, Reply
from tests.fixtures.servers import WebApp

pytestmark = [pytest.mark.e2e]

ST_FILE = "\n".join(
    json.dumps(row, ensure_ascii=False)
    for row in (
        {
            "user_name": "Ann",
            "character_name": "Mira",
            "create_date": "2025-03-01@12h00m05s",
            "chat_metadata": {},
        },
        {
            "name": "Mira",
            "is_user": False,
            "send_date": "March 1, 2025 12:00pm",
            "mes": "Welcome, traveller.",
        },
        {"name": "Ann", "is_user": True, "send_date": "2025-03-01T12:01:07Z", "mes": "Где мы?"},
        {"name": "Note", "is_user": False, "is_system": True, "send_date": 1740830470000, "mes": "(hidden)"},
        {
            "name": "Mira",
            "is_user": False,
            "send_date": "2025-03-01T12:01:09.5Z",
            "mes": "In the hearth-hall.",
            "swipes": ["At the inn.", "In the hearth-hall.", "On the road 🙂"],
            "swipe_id": 1,
        },
    )
).encode()


def _rows(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.decode().splitlines() if line.strip()]


def _messages(data: bytes) -> list[tuple[Any, ...]]:
    """What a SillyTavern file says about each message, in order."""
    return [
        (r["name"], r["is_user"], r["mes"], r["send_date"], r.get("swipes"), r.get("swipe_id"))
        for r in _rows(data)[1:]
    ]


async def _import(api: HearthClient, chat: str, data: bytes, fmt: str = "st") -> httpx.Response:
    return await api.http.post(
        f"/api/chats/{chat}/import", params={"format": fmt, "user": "web:ann"}, content=data
    )


async def test_issue_31_rest_export_then_import_gives_the_same_chat(
    claude_app: WebApp, anthropic_fake: FakeAnthropic
) -> None:
    """A SillyTavern chat with swipes and send dates imported, exported in both formats and
    imported again is the same chat; the chosen swipe is what the next turn sees."""
    api = HearthClient(claude_app.base_url)
    try:
        made = await _import(api, "web:files-a", ST_FILE)
        assert made.status_code == 201, made.text
        assert made.json() == {"chat": "web:files-a", "messages": 3, "swipes": 2, "skipped": 1, "room": None}
        exported = await api.http.get("/api/chats/web:files-a/export", params={"format": "st"})
        assert (
            exported.status_code == 200
            and 'filename="web_files-a.jsonl"' in exported.headers["content-disposition"]
        )
        assert _messages(exported.content) == [
            ("Mira", False, "Welcome, traveller.", "2025-03-01T12:00:00Z", ["Welcome, traveller."], 0),
            ("Ann", True, "Где мы?", "2025-03-01T12:01:07Z", None, None),
            (
                "Mira",
                False,
                "In the hearth-hall.",
                "2025-03-01T12:01:09.500000Z",
                ["At the inn.", "In the hearth-hall.", "On the road 🙂"],
                1,
            ),
        ]
        hearth = await api.http.get("/api/chats/web:files-a/export", params={"format": "hearth"})
        assert hearth.status_code == 200 and hearth.json()["format"] == "hearth.chat"
        for fmt, data, chat in (
            ("st", exported.content, "web:files-b"),
            ("hearth", hearth.content, "web:files-c"),
        ):
            again = await _import(api, chat, data, fmt)
            assert again.status_code == 201, again.text
            back = await api.http.get(f"/api/chats/{chat}/export", params={"format": "st"})
            assert _messages(back.content) == _messages(exported.content), fmt
        anthropic_fake.script(Reply(text="Shall we sit by the fire?"))
        sent = await api.send("web:files-a", "And now?", user="web:ann")
        assert sent.status_code == 200 and sent.json()["reply"] == "Shall we sit by the fire?"
        prompt = json.dumps([r for r in anthropic_fake.requests if r.path == "/v1/messages"][-1].body)
        assert "In the hearth-hall." in prompt and "At the inn." not in prompt
    finally:
        await api.close()


TOO_FAR = '{"name": "A", "is_user": true, "send_date": "2999-01-01T00:00:00Z", "mes": "hi"}'


@pytest.mark.parametrize(
    ("data", "fmt", "status", "code"),
    [
        (b'{"user_name": "A"}\n{"name": "A", "mes": "hi"', "st", 400, "invalid_json"),
        (b'{"user_name": "A"}\n[1, 2]', "st", 422, "invalid_chat_file"),
        (b'{"user_name": "A"}\n' + TOO_FAR.encode(), "st", 422, "invalid_date"),
        (b'{"format": "hearth.chat"}', "hearth", 422, "invalid_chat_file"),
        (b"x" * (9 * 1024 * 1024), "st", 413, "file_too_large"),
        (ST_FILE, "tavern", 422, "invalid_format"),
    ],
)
async def test_issue_31_bad_chat_files_are_refused_and_nothing_is_written(
    claude_app: WebApp, data: bytes, fmt: str, status: int, code: str
) -> None:
    """Malformed lines, wrong shapes, far-future dates, huge files: a 4xx naming the problem, and
    the chat stays empty (a good file can still be imported into it)."""
    api = HearthClient(claude_app.base_url)
    try:
        chat = f"web:bad-{code}-{fmt}"
        refused = await _import(api, chat, data, fmt)
        assert refused.status_code == status and error_of(refused) == code
        assert await api.history(chat) == []
        assert (await _import(api, chat, ST_FILE)).status_code == 201
        again = await _import(api, chat, ST_FILE)  # a chat with messages takes no file
        assert again.status_code == 409 and error_of(again) == "chat_not_empty"
        assert len(await api.history(chat)) == 3
    finally:
        await api.close()


async def test_issue_31_browser_export_then_import_into_a_new_room_keeps_swipes(
    claude_app: WebApp, anthropic_fake: FakeAnthropic
) -> None:
    """A chat with a regenerated reply (two swipes) exported from the browser and imported into a
    new room: the same messages and swipes, the other swipe can be chosen there; another
    account can neither export it nor import without the CSRF token."""
    alice = await signed_up(claude_app)
    bob = await signed_up(claude_app)
    try:
        chat = alice.session["chat"]
        anthropic_fake.script(Reply(text="First answer."), Reply(text="Second answer."))
        (first,) = await converse(claude_app, alice, chat, {"type": "message", "text": "Tell me a tale"})
        (second,) = await converse(claude_app, alice, chat, {"type": "regenerate", "turn": first["turn"]})
        assert second["swipes"]["turns"] == [first["turn"], second["turn"]]
        exported = await alice.http.get(f"/app/chats/{chat}/export", params={"format": "st"})
        assert exported.status_code == 200
        assert (await bob.http.get(f"/app/chats/{chat}/export")).status_code == 403
        no_csrf = await alice.http.post(
            "/app/chats/import", params={"room": "Tales"}, content=exported.content
        )
        assert no_csrf.status_code == 403
        made = await alice.http.post(
            "/app/chats/import", params={"room": "Tales"}, content=exported.content, headers=alice.headers()
        )
        assert made.status_code == 201, made.text
        room = made.json()["room"]["slug"]
        view = await alice.open(room=room)
        assert view["chat"] == made.json()["chat"]
        again = await alice.http.get(f"/app/chats/{view['chat']}/export", params={"format": "st"})
        assert _messages(again.content) == _messages(exported.content)
        reply = view["messages"][-1]
        assert reply["text"] == "Second answer." and len(reply["swipes"]) == 2
        other = next(t for t in reply["swipes"] if t != reply["turn"])
        chosen = await alice.post(f"/app/chats/{view['chat']}/turns/{other}/choose", None)
        assert chosen.status_code == 200 and chosen.json()["message"]["text"] == "First answer."
    finally:
        await alice.close()
        await bob.close()


@pytest.mark.browser
@pytest.mark.parametrize("size", list(SIZES))
async def test_issue_31_chromium_export_then_import_gives_the_same_chat(
    browser: Browser, claude_app: WebApp, anthropic_fake: FakeAnthropic, tmp_path: Path, size: str
) -> None:
    """Issue 31 in Chromium: Export chat downloads the chat with its swipes; Import chat puts the
    file into a new room showing the same messages, the same reply and 2/2 swipes, and ‹ shows
    the other alternative there."""
    page, _ = await signed_in_page(browser, claude_app, (size, *SIZES[size]))
    anthropic_fake.script(Reply(text="A fox, long ago."), Reply(text="A bear, one winter."))
    reply = await say(page, "Tell me a tale")
    await reply.locator(".regen").click()
    await expect(reply.locator(".msg-text")).to_have_text("A bear, one winter.")
    await expect(reply).not_to_have_attribute("data-streaming", "true")
    before = await page.locator(".msg .msg-text").all_inner_texts()
    async with page.expect_download() as waiting:
        await tap(page, "#export-chat")
    saved = tmp_path / "Tale night.jsonl"
    await (await waiting.value).save_as(saved)
    rows = _rows(saved.read_bytes())
    assert rows[-1]["swipes"] == ["A fox, long ago.", "A bear, one winter."] and rows[-1]["swipe_id"] == 1
    await page.set_input_files("#import-input", str(saved))
    await expect(page.locator("#toasts")).to_contain_text("Imported")
    await expect(page.locator("#room-select")).to_have_value("tale-night")
    await expect(page.locator(".msg .msg-text")).to_have_count(len(before))
    assert await page.locator(".msg .msg-text").all_inner_texts() == before
    last = page.locator('.msg[data-role="assistant"]').last
    await expect(last.locator(".swipe-count")).to_have_text("2/2")
    await last.locator(".swipe-prev").click()
    await expect(page.locator('.msg[data-role="assistant"]').last.locator(".msg-text")).to_have_text(
        "A fox, long ago."
    )
    await page.screenshot(path=shot(f"chatfiles-{size}-imported.png"))
    await page.close()
