"""A private redis-server for benchmarks: a free port, no persistence, removed on ``stop()``."""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import tempfile

import redis.asyncio as aioredis
import redis.exceptions

__all__ = ["RedisProcess"]


class RedisProcess:
    """A private redis-server on a free port, without persistence."""

    def __init__(self, *extra: str) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        self.dir = tempfile.mkdtemp(prefix="hearth-bench-redis-")
        binary = shutil.which("redis-server") or "redis-server"
        args = ["--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir, "--save", ""]
        self.proc = subprocess.Popen([binary, *args, "--appendonly", "no", *extra], stdout=subprocess.DEVNULL)

    async def client(self) -> aioredis.Redis:
        """A client once the server answers."""
        client = aioredis.from_url(f"redis://127.0.0.1:{self.port}/0")
        for _ in range(200):
            try:
                await client.ping()
                return client
            except (OSError, redis.exceptions.ConnectionError):
                await asyncio.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        """Stop the server and remove its directory."""
        self.proc.terminate()
        self.proc.wait(timeout=10)
        shutil.rmtree(self.dir, ignore_errors=True)
