"""``python -m adapters.web``: the Procfile's ``web`` process (Litestar under uvicorn)."""

from __future__ import annotations

import os

# One OpenMP thread per process for the embedder and FAISS: on a shared 2-core box two threads
# halved throughput under contention (docs/BENCHMARKS.md, memory step). Set before they load.
os.environ.setdefault("OMP_NUM_THREADS", "1")

import logging
import sys

import uvicorn

from adapters.logs import configure_logging, json_logs
from config.settings import load_settings
from engine.errors import ConfigError

WS_MAX_SIZE = 30_000_000
"""The largest frame a chat socket takes: a message with four 5 MB pictures in base64 (~28 MB)."""


def main() -> None:
    """Read the environment, build the app and serve it on 0.0.0.0:$PORT."""
    json_lines = json_logs(os.environ)
    configure_logging(os.environ.get("HEARTH_LOG_LEVEL", "INFO"), json_lines=json_lines)
    for noisy in ("httpx", "httpx2", "httpcore", "httpcore2"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    try:
        settings = load_settings(os.environ)
    except ConfigError as exc:
        sys.stderr.write(f"hearth: {exc.message}\n")
        raise SystemExit(2) from None
    from adapters.bootstrap import create_web_app

    app = create_web_app(settings)
    if json_lines:  # building the app set up Litestar's own log format: JSON again
        configure_logging(os.environ.get("HEARTH_LOG_LEVEL", "INFO"), json_lines=True)
    uvicorn.run(
        app,
        host=os.environ.get("HEARTH_HOST", "0.0.0.0"),
        port=settings.web.port,
        log_level=os.environ.get("HEARTH_LOG_LEVEL", "info").lower(),
        log_config=None if json_lines else uvicorn.config.LOGGING_CONFIG,  # JSON: uvicorn's lines too
        proxy_headers=False,  # the app reads X-Forwarded-* itself, from HEARTH_TRUSTED_PROXIES only
        ws_max_size=WS_MAX_SIZE,
    )


if __name__ == "__main__":
    main()
