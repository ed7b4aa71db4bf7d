"""The web process's first seconds: the port answers while the app is still being built.

Building the app imports the SDKs and loads the embedder, the recall vectors and the tokenizer;
that takes many seconds, and a PaaS that sees no answer on the port in time restarts the process.
So ``python -m adapters.web`` serves a :class:`BootShell` from its first second:

- ``GET /healthz`` (liveness) answers at once, from a small Redis client of its own: 200 when
  Redis answers, 503 ``storage_unavailable`` when not (the contract's shape).
- ``GET /readyz`` answers 503 ``not_ready`` until the app is built and its startup done.
- Every other request and every WebSocket waits for the app (at most ``wait_seconds``), then is
  the app's; a request still waiting then gets 503 ``not_ready`` with ``Retry-After`` (a socket:
  close code 1013, "try again later").

The app is built in a thread (its imports would otherwise hold the event loop) and started by
driving its ASGI lifespan; its shutdown runs when the server stops. When building or starting it
fails, the error is logged with its traceback and ``on_failure`` is called (the process then
exits non-zero, as it did when the app was built before the port was bound).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import msgspec

__all__ = ["BootShell"]

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

RETRY_AFTER_SECONDS = 5


class BootShell:
    """An ASGI app that is live at once and becomes ``build()``'s app once that has started."""

    def __init__(
        self,
        build: Callable[[], App],
        *,
        ping: Callable[[], Awaitable[bool]],
        model: str,
        on_failure: Callable[[BaseException], None],
        wait_seconds: float = 60.0,
        close: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self._build = build
        self._ping = ping
        self._model = model
        self._on_failure = on_failure
        self._wait = wait_seconds
        self._close = close
        self._app: App | None = None
        self._ready = asyncio.Event()
        self._boot: asyncio.Task[None] | None = None
        self._lifespan: asyncio.Task[None] | None = None
        self._to_app: asyncio.Queue[Message] = asyncio.Queue()
        self._from_app: asyncio.Queue[Message] = asyncio.Queue()
        self.started_at = time.monotonic()
        self.ready_after: float | None = None
        """Seconds from the shell's creation until the app took over (None before)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._serve_lifespan(receive, send)
            return
        if self._app is not None:
            await self._app(scope, receive, send)
            return
        if scope["type"] == "http" and scope.get("path") == "/healthz":
            await self._healthz(send)
            return
        if scope["type"] == "http" and scope.get("path") == "/readyz":
            await _json(send, 503, _error("starting", "not_ready", "Models and indexes are still loading."))
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._ready.wait(), self._wait)
        if self._app is not None:
            await self._app(scope, receive, send)
        elif scope["type"] == "websocket":
            if (await receive())["type"] == "websocket.connect":
                await send({"type": "websocket.accept"})
                await send({"type": "websocket.close", "code": 1013, "reason": "starting"})
        else:
            body = {"error": {"code": "not_ready", "message": "Hearth is starting; try again shortly."}}
            await _json(send, 503, body, retry_after=RETRY_AFTER_SECONDS)

    async def _healthz(self, send: Send) -> None:
        try:
            up = await self._ping()
        except Exception:
            up = False
        if up:
            await _json(send, 200, {"status": "ok", "redis": "ok", "model": self._model})
            return
        down = {"code": "storage_unavailable", "message": "Redis is unreachable."}
        await _json(
            send, 503, {"status": "unavailable", "redis": "down", "model": self._model, "error": down}
        )

    async def _serve_lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self._boot = asyncio.create_task(self._start_app())
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self._stop_app()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _start_app(self) -> None:
        try:
            app = await asyncio.to_thread(self._build)
            scope: Scope = {
                "type": "lifespan",
                "asgi": {"version": "3.0", "spec_version": "2.0"},
                "state": {},
            }

            async def lifespan() -> None:
                await app(scope, self._to_app.get, self._from_app.put)

            self._lifespan = asyncio.create_task(lifespan())
            await self._to_app.put({"type": "lifespan.startup"})
            answer = asyncio.create_task(self._from_app.get())
            await asyncio.wait({answer, self._lifespan}, return_when=asyncio.FIRST_COMPLETED)
            if not answer.done():
                answer.cancel()
                self._lifespan.result()  # raises what the app's lifespan raised
                raise RuntimeError("the app's lifespan ended before its startup completed")
            reply = answer.result()
            if reply["type"] != "lifespan.startup.complete":
                raise RuntimeError(reply.get("message") or "the app's startup failed")
        except asyncio.CancelledError:
            raise
        except BaseException as exc:
            log.exception("the web app could not start: %s", exc)
            self._on_failure(exc)
            return
        self._app = app
        self.ready_after = time.monotonic() - self.started_at
        self._ready.set()

    async def _stop_app(self) -> None:
        if self._boot is not None and not self._boot.done():
            self._boot.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._boot
        if self._lifespan is not None and not self._lifespan.done():
            await self._to_app.put({"type": "lifespan.shutdown"})
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._from_app.get(), 30)
            self._lifespan.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._lifespan
        if self._close is not None:
            with contextlib.suppress(Exception):
                await self._close()


def _error(status: str, code: str, message: str) -> dict[str, Any]:
    return {"status": status, "error": {"code": code, "message": message}}


async def _json(send: Send, status: int, body: object, *, retry_after: int | None = None) -> None:
    data = msgspec.json.encode(body)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    if retry_after is not None:
        headers.append((b"retry-after", str(retry_after).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})
