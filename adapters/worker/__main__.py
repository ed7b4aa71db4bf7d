"""``python -m adapters.worker``: the Procfile's ``worker`` process.

It runs the background jobs (conversation summaries and the deep memory pass, taken from the
``jobs`` stream), the periodic archive pass (sessions to pages, the dream pass, the sweep) and,
when ``TELEGRAM_BOT_TOKEN`` is set and no webhook is configured, Telegram long polling. With
``HEARTH_WORKER_METRICS_PORT`` set it serves its own metrics registry (``adapters.metrics``) on
``127.0.0.1:<port>/metrics``, without a token (loopback only); the job queue gauges are read
with each heartbeat. It announces itself with a heartbeat key that expires when the process
dies and stops on SIGTERM. Started while Redis is down, it waits for Redis (retrying with
backoff, logging each miss) and then starts as usual.
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

from redis.exceptions import RedisClusterException, RedisError

from adapters.bootstrap import build, install_personas
from adapters.hearth import Hearth
from adapters.logs import configure_logging, json_logs
from adapters.worker.jobs import ArchiveSweeper, JobRunner, dream_runner
from config.settings import load_settings
from engine.errors import ConfigError
from storage.client import why_unreachable

log = logging.getLogger("hearth.worker")
HEARTBEAT_SECONDS = 15
REDIS_WAIT_FIRST, REDIS_WAIT_MOST = 0.5, 10.0  # seconds between pings while Redis is down


async def run() -> None:
    """Build once, then run the jobs, the archive pass and Telegram polling until SIGTERM/SIGINT."""
    hearth = build(load_settings(os.environ))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        if not await _redis_up(hearth, stop):
            return
        await install_personas(hearth)
        await _serve(hearth, stop)
    finally:
        await hearth.close()
        log.info("Hearth worker stopped")


async def _redis_up(hearth: Hearth, stop: asyncio.Event) -> bool:
    """Wait until Redis answers (backoff from ``REDIS_WAIT_FIRST`` to ``REDIS_WAIT_MOST``);
    ``False`` when told to stop first."""
    delay = REDIS_WAIT_FIRST
    while not await hearth.ping():
        reason = await why_unreachable(hearth.redis) or "no answer"
        log.warning("Redis does not answer yet (%s); the worker tries again in %.1f s", reason, delay)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=delay)
        if stop.is_set():
            return False
        delay = min(REDIS_WAIT_MOST, delay * 2)
    return True


async def _serve(hearth: Hearth, stop: asyncio.Event) -> None:
    settings = hearth.settings
    telegram = None
    if settings.telegram.polling:
        # Imported only when Telegram is configured: aiogram takes seconds to import.
        from adapters.telegram.polling import Polling

        telegram = await Polling.start(hearth, on_exit=stop.set)
    jobs = JobRunner(
        hearth.summary_desk,
        hearth.summaries,
        archive=hearth.archive,
        chats=hearth.service.chats,
        reclaim_ms=settings.worker.job_reclaim_secs * 1000,
    )
    dream = dream_runner(hearth.archive, hearth.service.model, settings.llm.model, settings.dream)
    tasks = [
        asyncio.create_task(jobs.run(stop)),
        asyncio.create_task(
            ArchiveSweeper(hearth.archive, dream=dream, chats=hearth.service.chats).run(stop)
        ),
    ]
    _serve_metrics(hearth)
    log.info("Hearth worker ready (Telegram polling: %s; background jobs: on)", "on" if telegram else "off")
    try:
        await _heartbeat(hearth, stop)
    finally:
        stop.set()
        await asyncio.gather(*tasks)
        if telegram is not None:
            await telegram.stop()


def _serve_metrics(hearth: Hearth) -> None:
    """Serve the worker's registry on loopback when ``HEARTH_WORKER_METRICS_PORT`` is set."""
    port = hearth.settings.worker.metrics_port
    if port is None or hearth.metrics is None:
        return
    from prometheus_client import start_http_server

    start_http_server(port, addr="127.0.0.1", registry=hearth.metrics.registry)  # a daemon thread
    log.info("worker metrics on http://127.0.0.1:%d/metrics", port)


async def _heartbeat(hearth: Hearth, stop: asyncio.Event) -> None:
    """Keep the worker's key alive (on the graph's one Redis client) until ``stop``; then delete it."""
    key = hearth.keys.setting(f"worker:{socket.gethostname()}:{os.getpid()}")
    try:
        while not stop.is_set():
            try:
                await hearth.redis.set(key, "alive", ex=HEARTBEAT_SECONDS * 2)
            except (RedisError, RedisClusterException) as exc:  # Redis restarting, a Cluster failing over:
                # keep running, the jobs retry by themselves
                log.warning("heartbeat failed (%s); retrying", type(exc).__name__)
            if hearth.metrics is not None and hearth.settings.worker.metrics_port is not None:
                await hearth.metrics.refresh()  # the job queue gauges, read once a heartbeat
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=HEARTBEAT_SECONDS)
    finally:
        with contextlib.suppress(RedisError, RedisClusterException):
            await hearth.redis.delete(key)


def main() -> None:
    """Entry point."""
    configure_logging("INFO", json_lines=json_logs(os.environ))
    try:
        asyncio.run(run())
    except ConfigError as exc:
        sys.stderr.write(f"hearth: {exc.message}\n")
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
