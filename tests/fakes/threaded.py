"""An aiohttp app served on 127.0.0.1 from a daemon thread: the lifecycle the fakes share.

A subclass builds its app in ``_app()``; ``start()`` serves it on ``port`` (0 picks a free one)
and sets ``base_url``; ``stop()`` (or leaving ``with``) shuts it down, and a second call does
nothing. The thread has its own event loop, so the fakes work with any test's loop.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Self

from aiohttp import web

__all__ = ["ThreadedServer"]


class ThreadedServer:
    """Serves ``_app()`` from a background thread."""

    def __init__(self, port: int = 0) -> None:
        self._port = port
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self.base_url = ""

    def _app(self) -> web.Application:
        """The aiohttp application to serve."""
        raise NotImplementedError

    def start(self) -> Self:
        """Serves on 127.0.0.1 from a daemon thread and sets ``base_url``."""
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        try:
            port = asyncio.run_coroutine_threadsafe(self._serve(), self._loop).result(timeout=10)
        except BaseException:
            self.stop()  # e.g. the port is taken: do not leak the thread
            raise
        self.base_url = f"http://127.0.0.1:{port}"
        return self

    def stop(self) -> None:
        """Stops the server and its thread; a second call does nothing."""
        loop, thread, runner = self._loop, self._thread, self._runner
        if loop is None or thread is None:
            return
        if runner is not None:
            asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()
        self._loop = self._thread = self._runner = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    async def _serve(self) -> int:
        self._runner = web.AppRunner(self._app(), access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self._port).start()
        return int(self._runner.addresses[0][1])
