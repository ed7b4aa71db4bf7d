"""Concurrent chats against the real web process: throughput, latency percentiles and errors.

    .venv/bin/python -m bench.fault_load --chats 50 --seconds 60

Starts a private redis-server (and, unless ``--no-cluster``, a 3-master Redis Cluster), the fake
Anthropic server (streaming replies with per-chunk latency) and one ``web`` process per
deployment, then runs ``--chats`` chats at once, each sending its next message as soon as the
previous one is answered, for ``--seconds``. Every non-200 answer counts as an error. The single
server is the baseline; the cluster runs the same load right after it in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from bench.redis_process import RedisProcess
from tests.fakes.anthropic_server import FakeAnthropic, Reply
from tests.fixtures.servers import ADMIN_TOKEN, API_KEY, RedisClusterServer, WebApp

NAMES = ("Ana", "Bo", "Cyd", "Dee", "Eli")
TALK = (
    "How was the market today?",
    "Did Tomas fix the lighthouse lamp?",
    "lol that's hilarious",
    "Tell me about the harvest fair.",
    "Good night, Ember!",
)


async def run_load(base_url: str, chats: int, seconds: float) -> tuple[list[float], int, dict[int, int]]:
    """Latencies of the answered messages, the error count and the error statuses."""
    latencies: list[float] = []
    errors: dict[int, int] = {}
    stop = time.monotonic() + seconds
    headers = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    limits = httpx.Limits(max_connections=chats + 5)
    async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=60, limits=limits) as http:

        async def chat(n: int) -> None:
            i = 0
            while time.monotonic() < stop:
                body = {"user": NAMES[n % 5].lower(), "text": f"{TALK[i % 5]} ({n}.{i})"}
                started = time.monotonic()
                try:
                    status = (await http.post(f"/api/chats/load-{n}/messages", json=body)).status_code
                except httpx.HTTPError:
                    status = 0
                if status == 200:
                    latencies.append(time.monotonic() - started)
                else:
                    errors[status] = errors.get(status, 0) + 1
                i += 1

        await asyncio.gather(*(chat(n) for n in range(chats)))
    return latencies, sum(errors.values()), errors


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def report(name: str, latencies: list[float], errors: int, statuses: dict[int, int], seconds: float) -> str:
    return (
        f"| {name} | {len(latencies)} | {len(latencies) / seconds:.1f} | "
        f"{statistics.median(latencies) * 1000:.0f} | {percentile(latencies, 0.99) * 1000:.0f} | "
        f"{errors} {statuses or ''} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--no-cluster", action="store_true")
    args = parser.parse_args()
    rows: list[str] = []
    with FakeAnthropic() as fake, tempfile.TemporaryDirectory() as tmp:
        fake.script(*[Reply(chunk_size=8, delay=0.01) for _ in range(200_000)])
        single = RedisProcess()
        deployments: list[tuple[str, dict[str, str], object]] = [
            ("single Redis", {"REDIS_URL": f"redis://127.0.0.1:{single.port}/0"}, single)
        ]
        if not args.no_cluster:
            cluster = RedisClusterServer(Path(tmp) / "cluster")
            deployments.append(("3-master cluster", cluster.env(0), cluster))
        try:
            for name, redis_env, _ in deployments:
                env = {
                    **redis_env,
                    "HEARTH_ADMIN_TOKEN": ADMIN_TOKEN,
                    "ANTHROPIC_API_KEY": API_KEY,
                    "ANTHROPIC_BASE_URL": fake.base_url,
                    "HEARTH_EMBEDDER": "hash",
                    "HEARTH_LOG_LEVEL": "warning",
                }
                app = WebApp(env, Path(tmp) / f"{name.replace(' ', '-')}.log")
                try:
                    load = run_load(app.base_url, args.chats, args.seconds)
                    latencies, errors, statuses = asyncio.run(load)
                finally:
                    app.stop()
                rows.append(report(name, latencies, errors, statuses, args.seconds))
                print(rows[-1], flush=True)
        finally:
            for _, _, server in deployments:
                server.stop()  # type: ignore[attr-defined]
    print(f"\n{args.chats} chats x {args.seconds:g} s")
    print("| Redis | answered | turns/s | p50 ms | p99 ms | errors |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        print(row)


if __name__ == "__main__":
    main()
