"""End to end: the Procfile's web process + real Redis + the fake Anthropic server.

Covers PLT-4..6, PRM-2/PRM-3, RUN-1/RUN-2 and the web half of API.md.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator

import httpx
import pytest
import websockets

from tests.e2e import backends
from tests.e2e.api_client import BrowserClient, HearthClient
from tests.fakes.anthropic_server import Error, FakeAnthropic, Reply
from tests.fixtures.servers import ADMIN_TOKEN, API_KEY, WebApp

pytestmark = pytest.mark.e2e
claude_app = backends.claude_app  # every test here runs on a single Redis and on a Redis Cluster
offline_app = backends.offline_app  # every test here runs on a single Redis and on a Redis Cluster


def calls(fake: FakeAnthropic) -> list:  # type: ignore[type-arg]
    """The Messages requests the fake received (token counting aside)."""
    return [r for r in fake.requests if r.path == "/v1/messages"]


def room() -> str:
    return f"room-{secrets.token_hex(4)}"


@pytest.fixture
async def api(claude_app: WebApp) -> AsyncIterator[HearthClient]:
    client = HearthClient(claude_app.base_url)
    yield client
    await client.close()


@pytest.fixture
async def browser(claude_app: WebApp) -> AsyncIterator[BrowserClient]:
    client = BrowserClient(claude_app.base_url)
    await client.open()
    yield client
    await client.close()


def persona_prompt() -> str:
    from config.load import load_personas

    return load_personas("config/personas")[0].system_prompt.strip()


async def test_plt_4_websocket_reply_streams_token_by_token(
    browser: BrowserClient, anthropic_fake: FakeAnthropic
) -> None:
    anthropic_fake.script(Reply(text="The fire is warm tonight, friend. Sit down.", chunk_size=6))
    frames = await browser.chat("Hello Ember!")
    deltas = [f["text"] for f in frames if f["type"] == "delta"]
    done = frames[-1]
    assert done["type"] == "done" and len(deltas) >= 5
    assert "".join(deltas) == done["reply"] == "The fire is warm tonight, friend. Sit down."
    assert done["context"]["window"]["messages"] == 2  # the greeting and the message
    (request,) = calls(anthropic_fake)
    body = request.body
    assert body["stream"] is True
    assert body["system"][0]["text"] == persona_prompt()
    assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
    assert request.headers["authorization"] == f"Bearer {API_KEY}"
    assert body["messages"][-1]["content"][-1]["text"] == "Hello Ember!"


async def test_prm_2_two_turns_send_byte_identical_prefixes_and_log_cache_use(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    chat = room()
    first = await api.send(chat, "What's for dinner?")
    second = await api.send(chat, "And for dessert?")
    assert first.status_code == second.status_code == 200
    one, two = calls(anthropic_fake)
    assert one.cache_prefix is not None and two.cache_prefix is not None
    # issue 12: the second turn's cached part continues the first's (the older window joins it)
    assert two.cache_prefix.startswith(one.cache_prefix[:-1])
    assert len(two.cache_prefix) > len(one.cache_prefix)
    log = await api.turn(chat, second.json()["turn"])
    usage = log["request"]["usage"]
    assert usage["cache_read_input_tokens"] > 0 and usage["output_tokens"] > 0
    assert [s["name"] for s in log["request"]["slots"]][:1] == ["persona"]
    assert second.json()["context"]["tokens"]["persona"] > 0


async def test_529_then_success_is_retried(api: HearthClient, anthropic_fake: FakeAnthropic) -> None:
    anthropic_fake.script(Error(status=529), Reply(text="Sorry, I dozed off. I'm here."))
    response = await api.send(room(), "Wake up!")
    assert response.status_code == 200
    assert response.json()["reply"] == "Sorry, I dozed off. I'm here."
    assert len(calls(anthropic_fake)) == 2
    log = await api.turn(response.request.url.path.split("/")[3], response.json()["turn"])
    assert log["request"]["attempts"] == 2


async def test_plt_6_persistent_failure_is_a_clear_error_and_the_message_stays(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    anthropic_fake.script(Error(status=529), Error(status=529), Error(status=529))
    chat = room()
    response = await api.send(chat, "Anyone home?")
    assert response.status_code == 502
    error = response.json()["error"]
    assert error["code"] == "llm_overloaded" and "saved" in error["message"]
    assert [m["text"] for m in await api.history(chat)][-1] == "Anyone home?"
    log = await api.turn(chat, error["turn"])
    assert log["status"] == "failed" and "529" in log["request"]["error"]


async def test_plt_6_websocket_failure_is_an_error_frame(
    browser: BrowserClient, anthropic_fake: FakeAnthropic
) -> None:
    anthropic_fake.script(Error(status=401, message="invalid x-api-key"))
    frames = await browser.chat("Hello?")
    assert frames[-1]["type"] == "error" and frames[-1]["code"] == "llm_auth_failed"


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"user": "alice", "text": ""}, 422, "text_empty"),
        ({"user": "alice", "text": "x" * 100_000}, 422, "text_too_long"),
        ({"user": "alice", "text": 42}, 422, "invalid_body"),
        ({"text": "hi"}, 422, "invalid_body"),
        ({"user": "alice", "text": "hi", "persona": "ghost"}, 404, "persona_not_found"),
        ({"user": "bad user", "text": "hi"}, 422, "invalid_user_id"),
        ({"user": "alice", "text": "hi", "sent_at": "2026-01-01T10:00:00"}, 422, "invalid_sent_at"),
    ],
)
async def test_plt_6_bad_input_gets_a_clear_4xx_and_nothing_is_written(
    api: HearthClient, anthropic_fake: FakeAnthropic, body: dict[str, object], status: int, code: str
) -> None:
    chat = room()
    response = await api.http.post(f"/api/chats/{chat}/messages", json=body)
    assert response.status_code == status
    assert response.json()["error"]["code"] == code
    assert response.json()["error"]["message"]
    assert await api.history(chat) == []
    assert calls(anthropic_fake) == []


@pytest.mark.parametrize("raw", [b'{"user": "alice", "text": ', b"\xff\xfe not utf-8", b"[1, 2", b""])
async def test_plt_6_malformed_json_is_400(api: HearthClient, raw: bytes) -> None:
    chat = room()
    response = await api.http.post(
        f"/api/chats/{chat}/messages", content=raw, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_json"
    assert await api.history(chat) == []


@pytest.mark.parametrize("token", [None, "wrong-token"])
async def test_admin_token_is_required(claude_app: WebApp, token: str | None) -> None:
    client = HearthClient(claude_app.base_url, token=token)
    chat = room()
    response = await client.send(chat, "hi")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"
    assert (await client.http.get("/api/personas")).status_code == 401
    await client.close()
    admin = HearthClient(claude_app.base_url)
    assert await admin.history(chat) == []
    await admin.close()


async def test_reply_false_stores_only(api: HearthClient, anthropic_fake: FakeAnthropic) -> None:
    chat = room()
    response = await api.send(chat, "just listening", reply=False, sent_at="2026-11-02T10:00:00Z")
    assert response.status_code == 200 and response.json()["turn"] is None
    assert calls(anthropic_fake) == []
    (stored,) = [m for m in await api.history(chat) if m["role"] == "user"]
    assert stored["sent_at"] == "2026-11-02T10:00:00Z"


async def test_regenerate_gives_a_new_reply(api: HearthClient, anthropic_fake: FakeAnthropic) -> None:
    anthropic_fake.script(Reply(text="First try."), Reply(text="Second try."))
    chat = room()
    turn = (await api.send(chat, "Tell me a story")).json()["turn"]
    again = await api.http.post(f"/api/chats/{chat}/turns/{turn}/regenerate")
    assert again.status_code == 200 and again.json()["reply"] == "Second try."
    assert [m["text"] for m in await api.history(chat)][-2:] == ["Tell me a story", "Second try."]
    stale = await api.http.post(f"/api/chats/{chat}/turns/{turn}/regenerate")
    assert stale.status_code == 409 and stale.json()["error"]["code"] == "not_latest_turn"


async def test_personas_openapi_and_health(api: HearthClient) -> None:
    personas = (await api.http.get("/api/personas")).json()["personas"]
    assert "default" in [p["id"] for p in personas]
    created = await api.http.post(
        "/api/personas", json={"id": "bard", "name": "Bard", "system_prompt": "You sing."}
    )
    assert created.status_code == 201
    schema = (await api.http.get("/schema/openapi.json")).json()
    assert "/api/chats/{chat}/messages" in schema["paths"]
    health = (await api.http.get("/healthz")).json()
    assert health["status"] == "ok" and health["redis"] == "ok"
    bad = await api.http.post("/api/personas", json={"id": "x", "name": "X"})
    assert bad.status_code == 422


async def test_a_browser_cannot_open_another_browsers_chat_or_forge_a_cookie(
    browser: BrowserClient, claude_app: WebApp
) -> None:
    stranger = BrowserClient(claude_app.base_url)
    await stranger.open()
    with pytest.raises(websockets.exceptions.WebSocketException):
        await stranger.chat("let me in", chat=browser.session["chat"])
    forged = browser.session["user"].removeprefix("web:") + ".0000000000000000000000000000000"
    with pytest.raises(websockets.exceptions.WebSocketException):
        await browser.chat("hi", cookie=f"hearth_session={forged}")
    await stranger.close()


async def test_secrets_never_reach_the_logs(claude_app: WebApp, api: HearthClient) -> None:
    await api.send(room(), "one more for the logs")
    output = claude_app.output()
    assert "Application startup complete" in output
    assert API_KEY not in output and ADMIN_TOKEN not in output


async def test_run_2_offline_model_answers_labelled_without_any_key(
    offline_app: WebApp, anthropic_fake: FakeAnthropic
) -> None:
    api = HearthClient(offline_app.base_url)
    response = await api.send(room(), "Is anybody there?")
    await api.close()
    assert response.status_code == 200
    reply = response.json()["reply"]
    assert reply.startswith("[Offline model (no Claude key)]") and "Is anybody there?" in reply
    assert calls(anthropic_fake) == []
    browser = BrowserClient(offline_app.base_url)
    session = await browser.open()
    assert session["model"]["offline"] is True and session["guest"] is True
    frames = await browser.chat("Streaming, please")
    assert len([f for f in frames if f["type"] == "delta"]) > 3
    await browser.close()


async def test_healthz_reports_redis_down(
    redis_server: object, tmp_path_factory: pytest.TempPathFactory
) -> None:
    from tests.fixtures.servers import RedisServer

    server = RedisServer(tmp_path_factory.mktemp("doomed"))
    app = WebApp(
        {"REDIS_URL": server.db(0), "HEARTH_ADMIN_TOKEN": ADMIN_TOKEN}, tmp_path_factory.mktemp("h") / "w.log"
    )
    try:
        server.stop()
        response = httpx.get(f"{app.base_url}/healthz", timeout=10)
        assert response.status_code == 503
        assert response.json()["error"]["code"] == "storage_unavailable"
    finally:
        app.stop()
