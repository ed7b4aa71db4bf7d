"""Prometheus metrics of one process (``prometheus-client``), fed by the chat service's observer.

Each process keeps its own registry (no multiprocess mode): a web process answers ``/metrics``
with its own turns, and a worker serves its registry on ``HEARTH_WORKER_METRICS_PORT``. Run
several web processes and Prometheus scrapes each one; sums across them are the query's job.

:class:`Metrics` is the ``TurnObserver`` the composition root gives the ``ChatService``: it only
increments counters in memory, so a turn pays no Redis round trip for its metrics. The job
queue's gauges are read from Redis when ``/metrics`` is scraped (:meth:`Metrics.render`), and a
Redis failure there leaves them at their last value and counts a Redis error.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from engine.errors import StorageUnavailable
from engine.requestlog import RequestLog
from storage.errors import watch_redis_errors

__all__ = ["CONTENT_TYPE", "Backlog", "Metrics", "memory_decision"]

log = logging.getLogger("hearth.metrics")
turns = logging.getLogger("hearth.turns")

CONTENT_TYPE = CONTENT_TYPE_LATEST
"""The Prometheus text format's content type."""

Backlog = Callable[[], Awaitable[tuple[int, int | None]]]
"""(jobs waiting, the oldest one's enqueue time in epoch ms): ``RedisSummaryStore.backlog``."""

_TURN_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0, 120.0)
_FIRST_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0)
_SCAN_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)


def memory_decision(log: RequestLog) -> str:
    """What memory did for a turn: ``recalled`` (a search found one), ``used`` (stored ones went
    in, none found by search), ``nothing`` (no memory in the request)."""
    if any(m.state == "recalled" for m in log.memories):
        return "recalled"
    return "used" if log.memories else "nothing"


def _log_turn(request: RequestLog, outcome: str, seconds: float) -> None:
    """One line per turn with its chat and turn id (JSON fields with ``HEARTH_LOG_FORMAT=json``)."""
    turns.info(
        "turn %s of %s: %s in %.3f s",
        request.turn,
        request.chat,
        outcome,
        seconds,
        extra={
            "chat": request.chat,
            "turn": request.turn,
            "provider": request.provider,
            "outcome": outcome,
            "seconds": round(seconds, 3),
        },
    )


class Metrics:
    """A process's registry and the metrics in it (names in README's "Metrics" section)."""

    def __init__(self, *, backlog: Backlog | None = None) -> None:
        self.registry = CollectorRegistry()
        self._backlog = backlog
        r = self.registry
        self.turn = Histogram(
            "hearth_turn_seconds",
            "Time from a turn's start to its stored reply (or stored failure).",
            ["provider", "outcome"],
            buckets=_TURN_BUCKETS,
            registry=r,
        )
        self.first_text = Histogram(
            "hearth_first_token_seconds",
            "Time from a turn's start to the reply's first text.",
            ["provider"],
            buckets=_FIRST_BUCKETS,
            registry=r,
        )
        self.provider_errors = Counter(
            "hearth_provider_errors",
            "Turns the provider could not answer, by error code.",
            ["provider", "kind"],
            registry=r,
        )
        self.tokens = Counter(
            "hearth_tokens", "Tokens the provider reported, by kind.", ["provider", "kind"], registry=r
        )
        self.redis_errors = Counter(
            "hearth_redis_errors", "Redis failures (unreachable, refused command).", ["kind"], registry=r
        )
        self.queue_depth = Gauge(
            "hearth_job_queue_depth", "Background jobs not yet acknowledged (read at scrape).", registry=r
        )
        self.queue_age = Gauge(
            "hearth_job_oldest_age_seconds",
            "Age of the oldest job not yet acknowledged; 0 when none waits (read at scrape).",
            registry=r,
        )
        self.memory = Counter(
            "hearth_memory_decisions", "Answered turns by what memory did.", ["decision"], registry=r
        )
        self.lore_scan = Histogram(
            "hearth_lore_scan_seconds", "Time to scan a turn's lorebooks.", buckets=_SCAN_BUCKETS, registry=r
        )

    def watch_redis(self) -> None:
        """Count this process's Redis failures (``storage.errors``)."""
        watch_redis_errors(self.redis_error)

    def redis_error(self, kind: str) -> None:
        self.redis_errors.labels(kind=kind).inc()

    # --- TurnObserver ------------------------------------------------------------------------

    def first_token(self, provider: str, seconds: float) -> None:
        self.first_text.labels(provider=provider).observe(max(seconds, 0.0))

    def turn_done(self, log: RequestLog, seconds: float) -> None:
        self.turn.labels(provider=log.provider, outcome="ok").observe(max(seconds, 0.0))
        _log_turn(log, "ok", seconds)
        usage = log.usage
        if usage is not None:
            for kind, count in (
                ("input", usage.input_tokens),
                ("cache_read", usage.cache_read_input_tokens),
                ("cache_write", usage.cache_creation_input_tokens),
                ("output", usage.output_tokens),
            ):
                self.tokens.labels(provider=log.provider, kind=kind).inc(count)
        self.memory.labels(decision=memory_decision(log)).inc()

    def turn_failed(self, log: RequestLog, kind: str, seconds: float) -> None:
        self.turn.labels(provider=log.provider, outcome="error").observe(max(seconds, 0.0))
        self.provider_errors.labels(provider=log.provider, kind=kind).inc()
        _log_turn(log, kind, seconds)

    def lore_scanned(self, seconds: float) -> None:
        self.lore_scan.observe(max(seconds, 0.0))

    # --- exposition --------------------------------------------------------------------------

    async def refresh(self) -> None:
        """Read the job queue's depth and age from Redis (a failure keeps the last values)."""
        if self._backlog is None:
            return
        try:
            depth, oldest_ms = await self._backlog()
        except StorageUnavailable as exc:
            log.warning("metrics: the job queue could not be read: %s", exc.message)
            return
        self.queue_depth.set(depth)
        self.queue_age.set(max(0.0, time.time() - oldest_ms / 1000) if oldest_ms is not None else 0.0)

    async def render(self) -> bytes:
        """The registry in the Prometheus text format, the queue gauges read just before."""
        await self.refresh()
        return generate_latest(self.registry)
