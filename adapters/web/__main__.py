"""``python -m adapters.web``: the Procfile's ``web`` process (Litestar under uvicorn)."""

from __future__ import annotations

import os

# One OpenMP thread per process for the embedder and FAISS: on a shared 2-core box two threads
# halved throughput under contention (docs/BENCHMARKS.md, memory step). Set before they load.
os.environ.setdefault("OMP_NUM_THREADS", "1")

import logging
import sys
from typing import Any

import uvicorn

from adapters.logs import configure_logging, json_logs
from config.settings import load_settings
from engine.errors import ConfigError

WS_MAX_SIZE = 30_000_000
"""The largest frame a chat socket takes: a message with four 5 MB pictures in base64 (~28 MB)."""


def main() -> None:
    """Read the environment and serve on 0.0.0.0:$PORT at once; the app is built behind the
    port (``adapters.web.boot``)."""
    json_lines = json_logs(os.environ)
    configure_logging(os.environ.get("HEARTH_LOG_LEVEL", "INFO"), json_lines=json_lines)
    for noisy in ("httpx", "httpx2", "httpcore", "httpcore2"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    try:
        settings = load_settings(os.environ)
    except ConfigError as exc:
        sys.stderr.write(f"hearth: {exc.message}\n")
        raise SystemExit(2) from None
    from adapters.web.boot import BootShell
    from storage.client import connect

    def build() -> Any:
        from adapters.bootstrap import create_web_app  # the SDKs and models load here, in a thread

        app = create_web_app(settings)
        if json_lines:  # building the app set up Litestar's own log format: JSON again
            configure_logging(os.environ.get("HEARTH_LOG_LEVEL", "INFO"), json_lines=True)
        return app

    redis = settings.redis
    probe = connect(redis.url, cluster=redis.cluster, tls_verify=redis.tls_verify, max_connections=4)
    failed: list[BaseException] = []

    def on_failure(exc: BaseException) -> None:
        failed.append(exc)
        server.should_exit = True

    async def ping() -> bool:
        return bool(await probe.ping())

    shell = BootShell(
        build,
        ping=ping,
        model="offline" if settings.offline else settings.model,
        on_failure=on_failure,
        close=probe.aclose,
    )
    config = uvicorn.Config(
        shell,
        host=os.environ.get("HEARTH_HOST", "0.0.0.0"),
        port=settings.web.port,
        log_level=os.environ.get("HEARTH_LOG_LEVEL", "info").lower(),
        log_config=None if json_lines else uvicorn.config.LOGGING_CONFIG,  # JSON: uvicorn's lines too
        proxy_headers=False,  # the app reads X-Forwarded-* itself, from HEARTH_TRUSTED_PROXIES only
        ws_max_size=WS_MAX_SIZE,
        lifespan="on",
    )
    server = uvicorn.Server(config)
    server.run()
    if failed:
        raise SystemExit(3)


if __name__ == "__main__":
    main()
