"""RUN-1 / issue 32: the web process's port answers while its app is being built.

Driven over ASGI directly: ``/healthz`` answers at once, ``/readyz`` says "starting", other
requests wait for the app and are then its; a build that fails is reported, not swallowed."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import msgspec

from adapters.web.boot import BootShell


class _App:
    """A stand-in for the built app: answers every request with its path; counts its lifespan."""

    def __init__(self) -> None:
        self.started = self.stopped = 0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    self.started += 1
                    await send({"type": "lifespan.startup.complete"})
                else:
                    self.stopped += 1
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": f"app:{scope['path']}".encode()})


async def _get(shell: BootShell, path: str) -> tuple[int, bytes, dict[bytes, bytes]]:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await shell({"type": "http", "path": path, "method": "GET"}, receive, send)
    return sent[0]["status"], sent[1]["body"], dict(sent[0]["headers"])


class _Lifespan:
    """The server's side of the shell's lifespan."""

    def __init__(self, shell: BootShell) -> None:
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.task = asyncio.create_task(shell({"type": "lifespan"}, self.inbox.get, self.outbox.put))

    async def startup(self) -> None:
        await self.inbox.put({"type": "lifespan.startup"})
        assert (await self.outbox.get())["type"] == "lifespan.startup.complete"

    async def shutdown(self) -> None:
        await self.inbox.put({"type": "lifespan.shutdown"})
        assert (await self.outbox.get())["type"] == "lifespan.shutdown.complete"
        await self.task


async def _reported(failures: list[BaseException]) -> None:
    for _ in range(50):
        if failures:
            return
        await asyncio.sleep(0.05)


async def _up() -> bool:
    return True


async def test_healthz_answers_at_once_and_requests_wait_for_the_app() -> None:
    release = threading.Event()
    app = _App()

    def build() -> _App:
        release.wait(10)  # a slow build: the SDKs, the embedder
        return app

    shell = BootShell(build, ping=_up, model="offline", on_failure=lambda exc: None, wait_seconds=10)
    lifespan = _Lifespan(shell)
    await lifespan.startup()  # the server binds the port now
    status, body, _ = await _get(shell, "/healthz")
    assert status == 200 and msgspec.json.decode(body)["redis"] == "ok"
    status, body, _ = await _get(shell, "/readyz")
    assert status == 503 and msgspec.json.decode(body)["error"]["code"] == "not_ready"
    waiting = asyncio.create_task(_get(shell, "/api/personas"))
    await asyncio.sleep(0.2)
    assert not waiting.done()  # held, not refused
    release.set()
    status, body, _ = await asyncio.wait_for(waiting, 10)
    assert (status, body) == (200, b"app:/api/personas")
    assert (await _get(shell, "/readyz"))[1] == b"app:/readyz"  # the app's own from now on
    assert app.started == 1 and shell.ready_after is not None
    await lifespan.shutdown()
    assert app.stopped == 1


async def test_a_request_that_outwaits_the_boot_gets_503_with_retry_after() -> None:
    release = threading.Event()
    shell = BootShell(
        lambda: release.wait(10) and _App(), ping=_up, model="m", on_failure=lambda e: None, wait_seconds=0.2
    )
    lifespan = _Lifespan(shell)
    await lifespan.startup()
    status, body, headers = await _get(shell, "/api/personas")
    assert status == 503 and msgspec.json.decode(body)["error"]["code"] == "not_ready"
    assert headers[b"retry-after"] == b"5"
    release.set()
    await lifespan.shutdown()


async def test_healthz_says_when_redis_is_down_before_the_app_is_up() -> None:
    async def down() -> bool:
        raise ConnectionError("refused")

    shell = BootShell(lambda: _App(), ping=down, model="m", on_failure=lambda e: None)
    status, body, _ = await _get(shell, "/healthz")
    assert status == 503 and msgspec.json.decode(body)["error"]["code"] == "storage_unavailable"


async def test_a_build_that_fails_is_reported_and_never_serves() -> None:
    failures: list[BaseException] = []

    def build() -> _App:
        raise RuntimeError("Redis certificate not trusted")

    shell = BootShell(build, ping=_up, model="m", on_failure=failures.append, wait_seconds=0.3)
    lifespan = _Lifespan(shell)
    await lifespan.startup()
    await _reported(failures)
    assert [str(f) for f in failures] == ["Redis certificate not trusted"]
    assert (await _get(shell, "/api/personas"))[0] == 503
    await lifespan.shutdown()


async def test_an_app_whose_startup_fails_is_reported() -> None:
    failures: list[BaseException] = []

    async def broken(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "lifespan.startup.failed", "message": "no personas"})

    shell = BootShell(lambda: broken, ping=_up, model="m", on_failure=failures.append)
    lifespan = _Lifespan(shell)
    await lifespan.startup()
    await _reported(failures)
    assert [str(f) for f in failures] == ["no personas"]
    await lifespan.shutdown()
