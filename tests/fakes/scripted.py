"""What the fake model servers share: recorded requests, scripted behaviours, hanging requests.

A fake (``FakeAnthropic``, ``FakeOpenAI``) records every API request, answers each valid one
with the next scripted behaviour (or its default reply), and can hang requests: one scripted
``Hang``, or every request whose newest message holds a marker (``hang_on``). ``reset()`` forgets
everything and lets hung requests go (their connections are closed). Out-of-process tests use
``GET /_fake/requests``, ``POST /_fake/script``, ``POST /_fake/hang`` and ``POST /_fake/reset``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import threading
from collections import deque
from typing import Any

import msgspec
from aiohttp import web

from tests.fakes.threaded import ThreadedServer

__all__ = ["Hang", "HangRule", "RecordedRequest", "ScriptedServer", "chunks", "serve_until_stopped"]


class Hang(msgspec.Struct, frozen=True, tag_field="kind", tag="hang"):
    """A request that never finishes: with ``after_chunks=None`` no response at all (not even
    headers); else a stream that sends that many text deltas, then nothing, and stays open."""

    after_chunks: int | None = None
    text: str | None = None
    chunk_size: int = 8


class HangRule(msgspec.Struct, frozen=True):
    """``POST /_fake/hang``: hang every request whose newest message contains ``marker``."""

    marker: str
    after_chunks: int | None = None


class RecordedRequest(msgspec.Struct, frozen=True):
    """One API request received; ``body`` is ``{}`` when it was not a JSON object.

    ``cache_prefix`` (the Anthropic fake) is the canonical JSON (sorted keys, ``cache_control``
    removed) of every block up to the last cache breakpoint, or ``None`` without one or when invalid.
    """

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    stream: bool
    cache_prefix: str | None = None


def chunks(text: str, size: int) -> list[str]:
    """``text`` cut into pieces of ``size`` characters (the streamed deltas)."""
    return [text[k : k + max(1, size)] for k in range(0, len(text), max(1, size))]


class ScriptedServer(ThreadedServer):
    """The request log, the script and the hang rules of a fake; the API lives in subclasses."""

    def __init__(self, port: int, *, latency: float, decoder: msgspec.json.Decoder[Any]) -> None:
        super().__init__(port)
        self.latency = latency
        self._decoder = decoder
        self._lock = threading.Lock()
        self._requests: list[Any] = []
        self._script: deque[Any] = deque()
        self._hang_rules: list[HangRule] = []
        self._released = 0  # reset() bumps it: hung requests of an older generation end

    @property
    def requests(self) -> list[Any]:
        """A snapshot of the API requests received so far, oldest first."""
        with self._lock:
            return list(self._requests)

    def script(self, *behaviours: Any) -> None:
        """Queues behaviours, one per valid API request; then the default reply."""
        with self._lock:
            self._script.extend(behaviours)

    def hang_on(self, marker: str, after_chunks: int | None = None) -> None:
        """Hangs every request whose newest message contains ``marker`` (as :class:`Hang`)."""
        with self._lock:
            self._hang_rules.append(HangRule(marker, after_chunks))

    def reset(self) -> None:
        """Forgets requests, queued behaviours, hang rules and the subclass's state (``_forget``);
        lets hung requests go (their connections are closed)."""
        with self._lock:
            self._requests.clear()
            self._script.clear()
            self._hang_rules.clear()
            self._released += 1
            self._forget()

    async def _record(self, request: web.Request) -> dict[str, Any] | None:
        """Reads and records an API request; returns its body, ``None`` when not a JSON object."""
        try:
            body = json.loads(await request.read())
        except ValueError:
            body = None
        found = body if isinstance(body, dict) else None
        with self._lock:
            self._requests.append(
                RecordedRequest(
                    request.path,
                    {k.lower(): v for k, v in request.headers.items()},
                    found or {},
                    found is not None and found.get("stream") is True,
                )
            )
        return found

    def _forget(self) -> None:
        """What else ``reset()`` clears (called with the lock held)."""

    def _next(self, newest: str, default: Any) -> Any:
        """The behaviour for a request (call with the lock held): a hang rule's, else the script's."""
        rule = next((r for r in self._hang_rules if r.marker in newest), None)
        if rule is not None:
            return Hang(after_chunks=rule.after_chunks)
        return self._script.popleft() if self._script else default

    async def _hang(self, request: web.Request) -> None:
        """Waits until ``reset()`` (or the server's shutdown), then drops the connection."""
        with self._lock:
            generation = self._released
        while True:
            with self._lock:
                if self._released != generation:
                    break
            await asyncio.sleep(0.05)
        if request.transport is not None:
            request.transport.close()

    def _add_fake_routes(self, app: web.Application) -> None:
        app.router.add_get("/_fake/requests", self._on_list)
        app.router.add_post("/_fake/script", self._on_script)
        app.router.add_post("/_fake/reset", self._on_reset)
        app.router.add_post("/_fake/hang", self._on_hang)

    def _bad_script(self, message: str) -> Exception:
        """The exception a malformed ``/_fake/*`` body raises (the subclass's 400)."""
        return web.HTTPBadRequest(reason=message)

    async def _on_list(self, request: web.Request) -> web.Response:
        return web.Response(body=msgspec.json.encode(self.requests), content_type="application/json")

    async def _on_script(self, request: web.Request) -> web.Response:
        try:
            behaviours = self._decoder.decode(await request.read())
        except msgspec.DecodeError as error:
            raise self._bad_script(f"script: {error}") from error
        self.script(*behaviours)
        return web.json_response({"queued": len(behaviours)})

    async def _on_hang(self, request: web.Request) -> web.Response:
        try:
            rule = msgspec.json.decode(await request.read(), type=HangRule)
        except msgspec.DecodeError as error:
            raise self._bad_script(f"hang: {error}") from error
        self.hang_on(rule.marker, rule.after_chunks)
        return web.json_response({"ok": True})

    async def _on_reset(self, request: web.Request) -> web.Response:
        self.reset()
        return web.json_response({"ok": True})


def serve_until_stopped(make: Any, description: str, argv: list[str] | None) -> None:
    """The ``python -m tests.fakes.…`` entry: serves until SIGINT/SIGTERM; the first line of
    stdout is the base URL. ``make(port, api_key)`` builds the fake."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--api-key", default=None)
    args = parser.parse_args(argv)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    with make(args.port, args.api_key) as fake:
        print(fake.base_url, flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            done.wait()
