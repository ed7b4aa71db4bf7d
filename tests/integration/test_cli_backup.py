"""``python -m adapters.cli backup`` / ``restore FILE`` as an operator runs them (RUN-1, issue 14).

The CLI takes its Redis client and key namespace from ``bootstrap.build`` like the other
processes, so ``HEARTH_NAMESPACE`` and ``HEARTH_BACKUP_DIR`` mean the same thing to it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from tests.fixtures.servers import ROOT, RedisServer, fresh_db

pytestmark = pytest.mark.integration

DB = 14


@pytest.fixture
async def redis(redis_server: RedisServer) -> AsyncIterator[aioredis.Redis]:
    async with fresh_db(redis_server, DB) as client:
        yield client


HEARTH = Path(sys.executable).parent / "hearth"  # the console command pip installs


def cli(
    redis_server: RedisServer, folder: Path, *args: str, entry: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        **redis_server.env(DB),
        "HEARTH_NAMESPACE": "inn",
        "HEARTH_EMBEDDER": "none",
        "HEARTH_BACKUP_DIR": str(folder),
        "PYTHONPATH": str(ROOT),
    }
    env.pop("ANTHROPIC_API_KEY", None)
    return subprocess.run(
        [*(entry or (sys.executable, "-m", "adapters.cli")), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


async def test_backup_then_restore_puts_the_namespace_back(
    redis: aioredis.Redis, redis_server: RedisServer, tmp_path: Path
) -> None:
    await redis.set("inn:setting:motto", "warm")
    await redis.hset("inn:personas", "default", b"ember")
    await redis.set("other:setting:motto", "not ours")
    made = cli(redis_server, tmp_path, "backup")
    assert made.returncode == 0, made.stderr
    found = re.fullmatch(r"backed up (\d+) keys to (\S+)\n", made.stdout)
    assert found is not None and found.group(1) == "2"
    backup = Path(found.group(2))
    assert backup.parent == tmp_path and backup.is_file()

    await redis.set("inn:setting:motto", "cold")
    await redis.set("inn:setting:added", "later")
    put_back = cli(redis_server, tmp_path, "restore", str(backup))
    assert put_back.returncode == 0, put_back.stderr
    assert put_back.stdout == f"restored 2 keys from {backup}\n"
    assert await redis.get("inn:setting:motto") == b"warm"
    assert await redis.get("inn:setting:added") is None  # not there at backup time
    assert await redis.hget("inn:personas", "default") == b"ember"
    assert await redis.get("other:setting:motto") == b"not ours"  # another namespace is left alone


def test_restore_without_a_file_says_so(redis_server: RedisServer, tmp_path: Path) -> None:
    run = cli(redis_server, tmp_path, "restore")
    assert run.returncode != 0 and "restore needs the backup file" in run.stderr


async def test_the_hearth_command_runs_backup_like_python_m(
    redis: aioredis.Redis, redis_server: RedisServer, tmp_path: Path
) -> None:
    """``hearth backup`` (the console entry point) is the operator command it names."""
    await redis.set("inn:setting:motto", "warm")
    made = cli(redis_server, tmp_path, "backup", entry=(str(HEARTH),))
    assert made.returncode == 0, made.stderr
    assert re.fullmatch(r"backed up 1 keys to (\S+)\n", made.stdout), made.stdout


def test_the_hearth_command_names_its_commands_and_refuses_others(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    listed = cli(redis_server, tmp_path, "--help", entry=(str(HEARTH),))
    assert listed.returncode == 0
    assert all(f"  {name}" in listed.stdout for name in ("web", "worker", "backup", "restore", "reembed"))
    wrong = cli(redis_server, tmp_path, "serve", entry=(str(HEARTH),))
    assert wrong.returncode == 2 and "unknown command 'serve'" in wrong.stderr
