"""Hostile and careless input against the real web process (issue 13, findings 2, 8 and 9).

Every case was probed from outside before the fix: far-off ``sent_at`` → 500 and a chat stuck
for ever, 5,000-deep JSON → ``RecursionError`` 500, ``PATCH {}`` → 500, NUL in a memory
accepted, Litestar-shaped 500s with no traceback in the log, sign-out leaving the cookie valid.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis
import websockets

from tests.e2e.api_client import HearthClient
from tests.fixtures.servers import RedisServer, WebApp

pytestmark = pytest.mark.e2e

DEEP = "[" * 5000 + "]" * 5000
DEEP_OBJECT = '{"a":' * 5000 + "1" + "}" * 5000
PASSWORD = "correct horse battery"


@pytest.fixture
async def api(offline_app: WebApp) -> AsyncIterator[HearthClient]:
    client = HearthClient(offline_app.base_url)
    yield client
    await client.close()


def chat_id() -> str:
    return f"room-{secrets.token_hex(4)}"


def error_of(response: httpx.Response) -> str:
    body = response.json()
    assert set(body) == {"error"} and {"code", "message"} <= set(body["error"]), body
    assert body["error"]["message"], body
    return str(body["error"]["code"])


async def test_plt_6_far_off_sent_at_is_refused_and_the_chat_keeps_answering(api: HearthClient) -> None:
    chat = chat_id()
    for sent_at in ("0001-01-01T12:00:00Z", "9999-12-31T23:59:59Z", "1990-01-01T00:00:00+02:00"):
        refused = await api.send(chat, "Hi Ember, it's Alice", sent_at=sent_at)
        assert refused.status_code == 422 and error_of(refused) == "bad_sent_at", refused.text
        assert "10 years" in refused.json()["error"]["message"]
    naive = await api.send(chat, "Hi Ember", sent_at="2026-01-01T10:00:00")
    assert naive.status_code == 422 and error_of(naive) == "invalid_sent_at"
    assert await api.history(chat) == []  # nothing refused was stored, so nothing is left pending
    # control: a real past time inside the window is fine, and the chat answers right after
    ok = await api.send(chat, "Hi Ember, it's Alice", sent_at="2024-03-01T09:30:00Z")
    assert ok.status_code == 200 and ok.json()["reply"], ok.text
    again = await api.send(chat, "How are you today?")
    assert again.status_code == 200 and again.json()["reply"]


async def test_plt_6_deeply_nested_json_is_a_clear_4xx_everywhere(
    offline_app: WebApp, api: HearthClient
) -> None:
    headers = {"content-type": "application/json"}
    posts = [
        f"/api/chats/{chat_id()}/messages",
        "/api/personas",
        "/api/lorebooks",
        "/api/memories",
        "/api/memories/compose",
        "/api/archive/search",
        f"/api/chats/{chat_id()}/lorebooks",
    ]
    for url in posts:
        for body in (DEEP, DEEP_OBJECT):
            method = "PUT" if url.endswith("/lorebooks") and "chats" in url else "POST"
            response = await api.http.request(method, url, content=body, headers=headers)
            assert response.status_code == 422 and error_of(response) == "json_too_deep", (url, response.text)
    patch = await api.http.patch("/api/memories/m-anything", content=DEEP, headers=headers)
    assert patch.status_code == 422 and error_of(patch) == "json_too_deep"
    # control: a normal body on the same endpoint still works
    fine = await api.send(chat_id(), "Hello there")
    assert fine.status_code == 200
    # the browser side: sign-in and WebSocket frames
    async with httpx.AsyncClient(base_url=offline_app.base_url, timeout=30) as browser:
        session = (await browser.get("/app/session")).json()
        signin = await browser.post(
            "/app/signin", content=DEEP_OBJECT, headers={**headers, "X-CSRF-Token": session["csrf"]}
        )
        assert signin.status_code == 422 and error_of(signin) == "json_too_deep"
        url = offline_app.base_url.replace("http", "ws", 1) + f"/ws/chats/{session['chat']}"
        cookie = "; ".join(f"{k}={v}" for k, v in browser.cookies.items())
        async with websockets.connect(url, additional_headers={"Cookie": cookie}) as ws:
            await ws.send(DEEP)
            frame = json.loads(await ws.recv())
            assert frame["type"] == "error" and frame["code"] == "json_too_deep"
            await ws.send(json.dumps({"type": "message", "text": "Hi Ember, still there?"}))
            while (frame := json.loads(await ws.recv()))["type"] == "delta":
                pass
            assert frame["type"] == "done" and frame["reply"]  # the socket survived the bomb


async def new_memory(api: HearthClient, text: str) -> dict[str, Any]:
    body = {"persona": "default", "scope": "space", "space": chat_id(), "text": text}
    response = await api.http.post("/api/memories", json=body)
    assert response.status_code == 201, response.text
    return dict(response.json()["memory"])


async def test_plt_6_memory_and_message_text_refuse_control_characters(api: HearthClient) -> None:
    space = chat_id()
    for text in ("Alice likes tea\x00", "Bob's \x1b[31mred\x1b[0m note", "bell\x07"):
        body = {"persona": "default", "scope": "space", "space": space, "text": text}
        refused = await api.http.post("/api/memories", json=body)
        assert refused.status_code == 422 and error_of(refused) == "memory_invalid", refused.text
        said = await api.send(space, text)
        assert said.status_code == 422 and error_of(said) == "text_invalid"
    memory = await new_memory(api, "Alice likes tea\n\twith lemon")  # control: newline and tab are text
    edit = await api.http.patch(f"/api/memories/{memory['id']}", json={"text": "Alice likes\x00 coffee"})
    assert edit.status_code == 422 and error_of(edit) == "memory_invalid"
    listed = await api.http.get("/api/memories", params={"scope": "space", "space": space})
    assert [m["text"] for m in listed.json()["memories"]] == []


async def test_plt_6_an_empty_patch_names_the_problem_and_a_no_op_patch_is_fine(api: HearthClient) -> None:
    memory = await new_memory(api, "Alice's cat is called Miso")
    empty = await api.http.patch(f"/api/memories/{memory['id']}", json={})
    assert empty.status_code == 422 and error_of(empty) == "empty_patch"
    assert "text" in empty.json()["error"]["message"] and "pinned" in empty.json()["error"]["message"]
    same = await api.http.patch(f"/api/memories/{memory['id']}", json={"text": "Alice's cat is called Miso"})
    assert same.status_code == 200 and same.json()["memory"]["text"] == "Alice's cat is called Miso"
    pinned = await api.http.patch(f"/api/memories/{memory['id']}", json={"pinned": True})
    assert pinned.status_code == 200 and pinned.json()["memory"]["pinned"] is True


async def test_plt_6_an_unexpected_error_is_a_contract_500_and_logged_with_its_traceback(
    offline_app: WebApp, api: HearthClient, redis_server: RedisServer
) -> None:
    persona = f"broken-{secrets.token_hex(3)}"
    redis = aioredis.from_url(redis_server.db(2))
    await redis.hset("hearth:personas", persona, b'{"id": "half a record')  # corrupt data, not bad input
    try:
        response = await api.http.post(f"/api/personas/{persona}/documents", content=b"Some notes")
    finally:
        await redis.hdel("hearth:personas", persona)
        await redis.aclose()
    assert response.status_code == 500
    assert error_of(response) == "internal_error"
    log = offline_app.output()
    assert f"request failed: POST /api/personas/{persona}/documents" in log
    assert "Traceback (most recent call last)" in log and "codec.PERSONA.decode" in log


async def test_signing_out_revokes_that_cookie_at_once(offline_app: WebApp) -> None:
    name = f"u{secrets.token_hex(5)}"
    async with httpx.AsyncClient(base_url=offline_app.base_url, timeout=30) as laptop:
        csrf = (await laptop.get("/app/session")).json()["csrf"]
        signed = await laptop.post(
            "/app/signup", json={"username": name, "password": PASSWORD}, headers={"X-CSRF-Token": csrf}
        )
        assert signed.status_code == 201
        old_cookie = laptop.cookies["hearth_session"]
        session = (await laptop.get("/app/session")).json()
        assert session["guest"] is False
        async with httpx.AsyncClient(base_url=offline_app.base_url, timeout=30) as phone:
            csrf_phone = (await phone.get("/app/session")).json()["csrf"]
            other = await phone.post(
                "/app/signin",
                json={"username": name, "password": PASSWORD},
                headers={"X-CSRF-Token": csrf_phone},
            )
            assert other.status_code == 200
            out = await laptop.post("/app/signout", json={}, headers={"X-CSRF-Token": session["csrf"]})
            assert out.status_code == 200 and out.json()["guest"] is True
            # someone who kept the old cookie (a copied header, a shared machine) is a stranger now
            stolen = await laptop.get("/app/session", headers={"Cookie": f"hearth_session={old_cookie}"})
            assert stolen.json()["guest"] is True and stolen.json()["user"] != f"web:{name}"
            # control: the phone's own session was not touched
            assert (await phone.get("/app/session")).json()["user"] == f"web:{name}"


async def test_plt_6_no_endpoint_answers_a_nesting_bomb_with_a_500(
    offline_app: WebApp, api: HearthClient
) -> None:
    schema = (await api.http.get("/schema/openapi.json")).json()
    async with httpx.AsyncClient(base_url=offline_app.base_url, timeout=30) as browser:
        session = (await browser.get("/app/session")).json()
        tried = []
        for path, operations in schema["paths"].items():
            for method in ("post", "put", "patch"):
                if method not in operations:
                    continue
                url = re.sub(r"\{[^}]+\}", "web:probe-1", path)
                client = browser if url.startswith("/app") else api.http
                headers = {"content-type": "application/json", "X-CSRF-Token": session["csrf"]}
                response = await client.request(method.upper(), url, content=DEEP_OBJECT, headers=headers)
                tried.append((method, path, response.status_code))
                assert response.status_code < 500, (method, path, response.text)
                assert set(response.json()) == {"error"} or response.status_code < 400, (path, response.text)
    assert len(tried) >= 30, tried  # the schema lists every state-changing endpoint
