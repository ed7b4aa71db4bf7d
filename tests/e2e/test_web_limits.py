"""One user cannot hurt the others, and sockets are bound to their session (issue 29, findings 4, 5).

Two real web processes (``python -m adapters.web`` under uvicorn) share one Redis database and a
fake Anthropic server of their own that takes a moment per answer (a model does). The tests
speak WebSocket and HTTP like the chat page and the operator do, from loopback; the processes
trust loopback as a reverse proxy, so each browser gives itself its own ``X-Forwarded-For``.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import statistics
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from tests.fakes.anthropic_server import FakeAnthropic
from tests.fixtures.servers import ADMIN_TOKEN, API_KEY, RedisServer, WebApp

pytestmark = pytest.mark.e2e

PASSWORD = "correct horse battery"
PER_MINUTE = 12  # HEARTH_CHAT_PER_MINUTE and HEARTH_API_PER_MINUTE of these processes (defaults 30, 600)
LIMITED = {"too_many_replies", "too_many_messages"}


@pytest.fixture(scope="module")
def slow_model() -> Iterator[FakeAnthropic]:
    """A fake Anthropic server whose every answer takes 0.3 s to begin."""
    with FakeAnthropic(latency=0.3) as fake:
        yield fake


def _env(redis_server: RedisServer, fake: FakeAnthropic) -> dict[str, str]:
    return {
        **redis_server.env(14),
        "HEARTH_ADMIN_TOKEN": ADMIN_TOKEN,
        "ANTHROPIC_API_KEY": API_KEY,
        "ANTHROPIC_BASE_URL": fake.base_url,
        "HEARTH_LLM_MAX_RETRIES": "0",
        "HEARTH_EMBEDDER": "hash",
        "HEARTH_TRUSTED_PROXIES": "127.0.0.1",
        "HEARTH_CHAT_PER_MINUTE": str(PER_MINUTE),
        "HEARTH_API_CONCURRENT": "2",
        "HEARTH_API_PER_MINUTE": str(PER_MINUTE),
    }


@pytest.fixture(scope="module")
def apps(
    redis_server: RedisServer, slow_model: FakeAnthropic, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[WebApp, WebApp]]:
    """Two web processes on one Redis (as behind a load balancer)."""
    first = WebApp(_env(redis_server, slow_model), tmp_path_factory.mktemp("limits-a") / "web.log")
    try:
        second = WebApp(_env(redis_server, slow_model), tmp_path_factory.mktemp("limits-b") / "web.log")
    except Exception:
        first.stop()
        raise
    yield first, second
    first.stop()
    second.stop()


class Page:
    """A browser on one web process: its cookie, CSRF token and client address."""

    def __init__(self, app: WebApp) -> None:
        self.app = app
        self.address = f"198.18.{secrets.randbelow(250)}.{secrets.randbelow(250) + 1}"
        self.http = httpx.AsyncClient(
            base_url=app.base_url, timeout=60, headers={"X-Forwarded-For": self.address}
        )
        self.session: dict[str, Any] = {}

    async def open(self) -> dict[str, Any]:
        response = await self.http.get("/app/session")
        response.raise_for_status()
        self.session = response.json()
        return self.session

    async def post(self, path: str, body: dict[str, Any]) -> httpx.Response:
        return await self.http.post(path, json=body, headers={"X-CSRF-Token": self.session["csrf"]})

    def socket(self) -> Any:
        url = self.app.base_url.replace("http", "ws", 1) + f"/ws/chats/{self.session['chat']}"
        cookie = "; ".join(f"{k}={v}" for k, v in self.http.cookies.items())
        return websockets.connect(url, additional_headers={"Cookie": cookie}, max_queue=None)

    async def close(self) -> None:
        await self.http.aclose()


@pytest.fixture
async def pages(apps: tuple[WebApp, WebApp]) -> AsyncIterator[list[Page]]:
    made: list[Page] = []
    yield made
    for page in made:
        await page.close()


async def _page(pages: list[Page], app: WebApp) -> Page:
    page = Page(app)
    pages.append(page)
    await page.open()
    return page


async def _say(ws: Any, text: str) -> tuple[list[dict[str, Any]], float]:
    """Send one message; the frames up to ``done``/``error`` and the seconds it took."""
    started = time.monotonic()
    await ws.send(json.dumps({"type": "message", "text": text}))
    frames = []
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), 60))
        frames.append(frame)
        if frame["type"] in ("done", "error"):
            return frames, time.monotonic() - started


def _heard(fake: FakeAnthropic, marker: str) -> int:
    return sum(1 for r in fake.requests if r.path == "/v1/messages" and marker in json.dumps(r.body))


async def test_a_guest_socket_sending_400_frames_is_limited_and_another_user_keeps_answering(
    apps: tuple[WebApp, WebApp], pages: list[Page], slow_model: FakeAnthropic
) -> None:
    """Issue 29, finding 4 (PLT-4): 400 message frames at once from one guest socket start at
    most a couple of replies; the rest are refused with ``too_many_replies`` error frames that
    say when to retry. Meanwhile another user on the same process is answered, never with an
    error, in a time comparable to its quiet one."""
    app = apps[0]
    flooder, other = await _page(pages, app), await _page(pages, app)
    async with other.socket() as quiet_ws:
        quiet = [(await _say(quiet_ws, f"quiet hello {n}"))[1] for n in range(3)]
        async with flooder.socket() as flood_ws:
            marker = f"FLOOD-{secrets.token_hex(3)}"
            await flood_ws.send(json.dumps({"type": "message", "text": marker}))
            await asyncio.sleep(0.05)  # the first reply is under way: what follows is the backlog
            await asyncio.gather(
                *(flood_ws.send(json.dumps({"type": "message", "text": f"{marker} {n}"})) for n in range(399))
            )
            during = []
            for n in range(3):
                frames, took = await _say(quiet_ws, f"busy hello {n}")
                assert frames[-1]["type"] == "done", frames[-1]  # no storage_unavailable, no 503
                during.append(took)
            answers: list[dict[str, Any]] = []
            while len(answers) < 400:  # every frame is answered: a reply or a refusal
                frame = json.loads(await asyncio.wait_for(flood_ws.recv(), 60))
                if frame["type"] in ("done", "error"):
                    answers.append(frame)
    refused = [a for a in answers if a["type"] == "error" and a["code"] in LIMITED]
    replied = [a for a in answers if a["type"] == "done"]
    assert len(refused) >= 400 - PER_MINUTE, [a for a in answers if a not in refused][:3]
    assert all(a["retry_after"] >= 1 and a["message"] for a in refused)
    assert 1 <= len(replied) <= PER_MINUTE
    assert _heard(slow_model, marker) <= PER_MINUTE  # the refused frames cost no model call
    # the second user's replies during the flood: a generous bound against its quiet ones
    assert statistics.median(during) <= 3 * statistics.median(quiet) + 1.0, (quiet, during)


async def test_messages_a_minute_are_limited_per_session_on_the_socket_and_per_user_on_rest(
    apps: tuple[WebApp, WebApp], pages: list[Page]
) -> None:
    """Issue 29, finding 4: ``HEARTH_CHAT_PER_MINUTE`` messages a minute per session, then an
    error frame with ``retry_after``; the operator's REST chat answers 429 with ``Retry-After``
    in the API's error shape once a user has too many replies running, and nothing is stored."""
    page = await _page(pages, apps[0])
    async with page.socket() as ws:
        for n in range(PER_MINUTE):
            frames, _ = await _say(ws, f"message {n}")
            assert frames[-1]["type"] == "done", frames[-1]
        frames, _ = await _say(ws, "one too many")
    assert frames[-1]["type"] == "error" and frames[-1]["code"] == "too_many_messages"
    assert 1 <= frames[-1]["retry_after"] <= 60
    texts = [m["text"] for m in (await page.open())["messages"]]
    assert "one too many" not in texts and "message 0" in texts

    chat = f"limits-{secrets.token_hex(3)}"
    async with httpx.AsyncClient(
        base_url=apps[1].base_url, timeout=60, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}
    ) as api:
        user = f"rest-{secrets.token_hex(3)}"
        sends = [
            api.post(f"/api/chats/{chat}-{n}/messages", json={"user": user, "text": f"hi {n}"})
            for n in range(6)
        ]
        other = api.post(f"/api/chats/{chat}-o/messages", json={"user": "someone-else", "text": "hello"})
        *results, others = await asyncio.gather(*sends, other)
        assert others.status_code == 200  # another user is not limited
        statuses = sorted(r.status_code for r in results)
        assert statuses.count(200) >= 2 and 429 in statuses, statuses
        limited = next(r for r in results if r.status_code == 429)
        assert limited.json()["error"]["code"] == "too_many_replies"
        assert int(limited.headers["Retry-After"]) >= 1 and limited.json()["error"]["retry_after"] >= 1
        chats = [f"{chat}-{n}" for n, r in enumerate(results) if r.status_code == 429]
        for refused_chat in chats:  # nothing of a refused message was stored
            history = await api.get(f"/api/chats/{refused_chat}/messages")
            assert history.json()["messages"] == []


async def _signed_in(pages: list[Page], app: WebApp, name: str, *, new: bool) -> Page:
    page = await _page(pages, app)
    response = await page.post(
        f"/app/{'signup' if new else 'signin'}", {"username": name, "password": PASSWORD}
    )
    assert response.status_code in (200, 201), response.text
    await page.open()
    assert page.session["username"] == name
    return page


async def _closed_within(ws: Any, seconds: float) -> tuple[list[dict[str, Any]], int | None]:
    """The frames a socket got until the server closed it (fails when it stays open)."""
    frames = []
    deadline = time.monotonic() + seconds
    try:
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"the socket is still open after {seconds} s: {frames}"
            frames.append(json.loads(await asyncio.wait_for(ws.recv(), left)))
    except ConnectionClosed as closed:
        return frames, closed.rcvd.code if closed.rcvd else None
    except TimeoutError:
        pytest.fail(f"the socket is still open after {seconds} s: {frames}")


async def test_signing_out_closes_that_sessions_open_socket(
    apps: tuple[WebApp, WebApp], pages: list[Page]
) -> None:
    """Issue 29, finding 5: a signed-in socket is bound to its session; signing out closes it
    at once (code 4401, after a ``signed_out`` frame), while another session's socket stays."""
    name = f"sock{secrets.token_hex(4)}"
    laptop = await _signed_in(pages, apps[0], name, new=True)
    phone = await _signed_in(pages, apps[0], name, new=False)
    async with laptop.socket() as laptop_ws, phone.socket() as phone_ws:
        frames, _ = await _say(laptop_ws, "hello from the laptop")
        assert frames[-1]["type"] == "done"
        out = await laptop.post("/app/signout", {})
        assert out.status_code == 200 and out.json()["guest"] is True
        frames, code = await _closed_within(laptop_ws, 5)
        assert code == 4401 and frames[-1]["code"] == "signed_out"
        frames, _ = await _say(phone_ws, "still here from the phone")  # control: the other session
        assert frames[-1]["type"] == "done"


async def test_signing_out_everywhere_closes_the_accounts_sockets_on_every_web_process(
    apps: tuple[WebApp, WebApp], pages: list[Page]
) -> None:
    """Issue 29, finding 5: "sign out everywhere" on one web process closes the account's open
    sockets on another within seconds, and they answer nothing more."""
    name = f"every{secrets.token_hex(4)}"
    laptop = await _signed_in(pages, apps[0], name, new=True)
    phone = await _signed_in(pages, apps[1], name, new=False)
    bystander = await _signed_in(pages, apps[0], f"by{secrets.token_hex(4)}", new=True)
    async with laptop.socket() as laptop_ws, bystander.socket() as bystander_ws:
        frames, _ = await _say(laptop_ws, "remember the piano")
        assert frames[-1]["type"] == "done"
        started = time.monotonic()
        out = await phone.post("/app/signout", {"everywhere": True})
        assert out.status_code == 200
        frames, code = await _closed_within(laptop_ws, 5)
        assert code == 4401 and [f["code"] for f in frames if f["type"] == "error"] == ["signed_out"]
        assert time.monotonic() - started < 5
        frames, _ = await _say(bystander_ws, "and me?")  # control: another account's socket
        assert frames[-1]["type"] == "done"
