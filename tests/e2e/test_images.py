"""End to end (issue 30): pictures sent over REST and the WebSocket reach Claude (the real SDK
against the fake Messages API) as image blocks with the same bytes; bad pictures get clear 4xx
answers and nothing is stored; a regenerate sends the picture again; a chat of many pictures
sends only the newest ones. Runs on a single Redis and on a Redis Cluster.
"""

from __future__ import annotations

import base64
import secrets
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.e2e import backends
from tests.e2e.api_client import BrowserClient, HearthClient
from tests.fakes.anthropic_server import FakeAnthropic, Reply
from tests.fixtures.pictures import b64, jpeg, png
from tests.fixtures.servers import WebApp

pytestmark = pytest.mark.e2e
claude_app = backends.claude_app
offline_app = backends.offline_app


def room() -> str:
    return f"pics-{secrets.token_hex(4)}"


def calls(fake: FakeAnthropic) -> list[Any]:
    return [r for r in fake.requests if r.path == "/v1/messages"]


def images_sent(body: dict[str, Any]) -> list[tuple[str, bytes]]:
    """(media type, bytes) of every image block of a Messages request, in order."""
    return [
        (b["source"]["media_type"], base64.b64decode(b["source"]["data"]))
        for m in body["messages"]
        for b in (m["content"] if isinstance(m["content"], list) else [])
        if b["type"] == "image"
    ]


def texts_sent(body: dict[str, Any]) -> list[str]:
    return [
        b["text"]
        for m in body["messages"]
        for b in (m["content"] if isinstance(m["content"], list) else [])
        if b["type"] == "text"
    ]


def picture(data: bytes, media_type: str = "image/png") -> dict[str, str]:
    return {"media_type": media_type, "data": b64(data)}


@pytest.fixture
async def api(claude_app: WebApp) -> AsyncIterator[HearthClient]:
    client = HearthClient(claude_app.base_url)
    yield client
    await client.close()


async def test_issue_30_a_picture_sent_over_rest_reaches_claude_as_an_image_block(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    anthropic_fake.script(Reply(text="A small striped picture."))
    data = png(40, 30, seed=7)
    chat = room()
    response = await api.send(chat, "What do you see?", images=[picture(data)])
    assert response.status_code == 200, response.text
    assert response.json()["reply"] == "A small striped picture."
    (request,) = calls(anthropic_fake)
    assert images_sent(request.body) == [("image/png", data)]
    last = request.body["messages"][-1]["content"]
    assert [b["type"] for b in last][-2:] == ["image", "text"] and last[-1]["text"] == "What do you see?"
    (message,) = [m for m in await api.history(chat) if m["role"] == "user"]
    assert message["images"][0]["media_type"] == "image/png"
    assert (message["images"][0]["width"], message["images"][0]["height"]) == (40, 30)


async def test_issue_30_bad_pictures_get_clear_4xx_and_nothing_is_stored(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    chat = room()
    big = png(pad=11 * 1024 * 1024)  # an 11 MB picture
    cases = [
        ([picture(big)], 413, "image_too_large"),
        ([picture(b"%PDF-1.7 not a picture at all")], 415, "image_type"),
        ([picture(jpeg(), "image/png")], 415, "image_type"),
        ([picture(png(seed=n)) for n in range(5)], 422, "too_many_images"),
        ([{"media_type": "image/png", "data": "not base64!!"}], 422, "image_invalid"),
    ]
    for images, status, code in cases:
        response = await api.send(chat, "look", images=images)
        assert response.status_code == status, (code, response.text)
        error = response.json()["error"]
        assert error["code"] == code and error["message"]
    assert await api.history(chat) == []
    assert calls(anthropic_fake) == []


async def test_issue_30_regenerate_sends_the_picture_again(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    anthropic_fake.script(Reply(text="A cat."), Reply(text="A striped cat."))
    data = jpeg(1024, 768) + b"\x00" * 64
    chat = room()
    first = await api.send(chat, "", images=[picture(data, "image/jpeg")])
    assert first.status_code == 200, first.text
    again = await api.http.post(f"/api/chats/{chat}/turns/{first.json()['turn']}/regenerate")
    assert again.status_code == 200, again.text
    assert again.json()["reply"] == "A striped cat."
    one, two = calls(anthropic_fake)
    assert images_sent(one.body) == images_sent(two.body) == [("image/jpeg", data)]


async def test_issue_30_a_chat_of_many_pictures_sends_only_the_newest_three(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    chat = room()
    sent = [png(8, 6, seed=n) for n in range(32)]
    for n, data in enumerate(sent):
        stored = await api.send(chat, f"picture {n}", images=[picture(data)], reply=False)
        assert stored.status_code == 200, stored.text
    anthropic_fake.script(Reply(text="So many pictures."))
    response = await api.send(chat, "Which ones do you see?")
    assert response.status_code == 200, response.text
    (request,) = calls(anthropic_fake)
    assert [d for _, d in images_sent(request.body)] == sent[-3:]
    placeholders = [t for t in texts_sent(request.body) if t.startswith("[image: photo, 8×6]")]
    assert len(placeholders) == 29
    assert request.cache_prefix is not None  # the breakpoints stay valid (at most 4)


async def test_issue_30_a_picture_sent_over_the_websocket_reaches_claude(
    claude_app: WebApp, anthropic_fake: FakeAnthropic
) -> None:
    browser = BrowserClient(claude_app.base_url)
    await browser.open()
    try:
        anthropic_fake.script(Reply(text="Nice colours."))
        data = png(120, 90, seed=2)
        frames = await browser.chat("Look at this", images=[picture(data)])
        assert frames[-1]["type"] == "done", frames[-1]
        assert frames[-1]["reply"] == "Nice colours."
        (request,) = calls(anthropic_fake)
        assert images_sent(request.body) == [("image/png", data)]
        refused = await browser.chat("and this", images=[picture(png(pad=11 * 1024 * 1024))])
        assert refused[-1]["type"] == "error" and refused[-1]["code"] == "image_too_large"
        fifth = await browser.chat("and these", images=[picture(png(seed=n)) for n in range(5)])
        assert fifth[-1]["code"] == "too_many_images"
        assert len(calls(anthropic_fake)) == 1
    finally:
        await browser.close()


async def test_issue_30_the_offline_model_says_it_cannot_see_and_the_notice_comes_once(
    offline_app: WebApp,
) -> None:
    client = HearthClient(offline_app.base_url)
    try:
        chat = room()
        first = await client.send(chat, "What is this?", images=[picture(png(64, 48))])
        assert first.status_code == 200, first.text
        body = first.json()
        assert "Offline model" in body["reply"] and "cannot see pictures" in body["reply"]
        assert any("cannot see pictures" in n for n in body["notices"])
        second = await client.send(chat, "And this?", images=[picture(png(64, 48, seed=1))])
        assert not any("cannot see pictures" in n for n in second.json()["notices"])
    finally:
        await client.close()
