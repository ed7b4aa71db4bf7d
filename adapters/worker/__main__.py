"""``python -m adapters.worker``: the Procfile's ``worker`` process.

It runs the background jobs (conversation summaries and the deep memory pass, taken from the
``jobs`` stream), the periodic archive pass (sessions to pages, the dream pass, the sweep) and,
when ``TELEGRAM_BOT_TOKEN`` is set and no webhook is configured, Telegram long polling. It
announces itself with a heartbeat key that expires when the process dies and stops on SIGTERM.
"""

from __future__ import annotations

import os

# One OpenMP thread per process for the embedder and FAISS: on a shared 2-core box two threads
# halved throughput under contention (docs/BENCHMARKS.md, memory step). Set before they load.
os.environ.setdefault("OMP_NUM_THREADS", "1")

import asyncio
import contextlib
import logging
import signal
import socket
import sys

from redis.exceptions import RedisError

from adapters.bootstrap import build, install_personas
from adapters.worker.jobs import ArchiveSweeper, JobRunner, dream_runner
from config.settings import load_settings
from engine.errors import ConfigError
from engine.service.archive import archive_settings
from storage.client import connect
from storage.keys import KeyBuilder

log = logging.getLogger("hearth.worker")
HEARTBEAT_SECONDS = 15


async def run() -> None:
    """Heartbeat until SIGTERM/SIGINT."""
    settings = load_settings(os.environ)
    redis = connect(settings.redis_url, cluster=settings.redis_cluster)
    key = KeyBuilder(prefix=settings.namespace).setting(f"worker:{socket.gethostname()}:{os.getpid()}")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await redis.ping()
    telegram = None
    if settings.telegram_bot_token is not None and settings.telegram_webhook_url is None:
        # Imported only when Telegram is configured: aiogram takes seconds to import.
        from adapters.telegram.polling import Polling

        telegram = await Polling.start(settings, on_exit=stop.set)
    hearth = build(settings)
    await install_personas(hearth)
    assert hearth.service.summaries is not None
    assert hearth.archive is not None
    archive = hearth.archive.reconfigured(archive_settings(os.environ))
    reclaim_ms = settings.job_reclaim_secs * 1000
    jobs = JobRunner(hearth.service.summaries, hearth.summaries, archive=archive, reclaim_ms=reclaim_ms)
    job_task = asyncio.create_task(jobs.run(stop))
    sweep_task = asyncio.create_task(
        ArchiveSweeper(archive, dream=dream_runner(archive, hearth.service.model, settings.model)).run(stop)
    )
    log.info("Hearth worker ready (Telegram polling: %s; background jobs: on)", "on" if telegram else "off")
    try:
        while not stop.is_set():
            try:
                await redis.set(key, "alive", ex=HEARTBEAT_SECONDS * 2)
            except RedisError as exc:  # Redis is restarting: keep running, the jobs retry by themselves
                log.warning("heartbeat failed (%s); retrying", type(exc).__name__)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=HEARTBEAT_SECONDS)
    finally:
        stop.set()
        await job_task
        await sweep_task
        await hearth.close()
        if telegram is not None:
            await telegram.stop()
        with contextlib.suppress(RedisError):
            await redis.delete(key)
        await redis.aclose()
        log.info("Hearth worker stopped")


def main() -> None:
    """Entry point."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        asyncio.run(run())
    except ConfigError as exc:
        sys.stderr.write(f"hearth: {exc.message}\n")
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
