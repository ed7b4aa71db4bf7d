"""RUN-1: ``make run`` prints the web address only once the web process answers ``/readyz``
(the port answers ``/healthz`` seconds earlier, while the app behind it is being built)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from adapters.devrun import announce_when_up
from tests.fixtures.servers import free_port


class _Healthz(BaseHTTPRequestHandler):
    status = 503

    def do_GET(self) -> None:
        self.send_response(self.status if self.path == "/readyz" else 404)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_the_address_is_said_only_after_readyz_answers_200() -> None:
    """Nothing while the port is closed or answers 503; the address once it answers 200."""
    port = free_port()
    said: list[str] = []
    stopping = threading.Event()
    announcer = threading.Thread(target=announce_when_up, args=(port, "0.0.0.0", stopping, said.append))
    announcer.start()
    try:
        stopping.wait(1.0)
        assert said == []  # nothing listens yet
        server = ThreadingHTTPServer(("127.0.0.1", port), _Healthz)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            stopping.wait(1.0)
            assert said == []  # it answers, but not healthy yet
            _Healthz.status = 200
            announcer.join(timeout=30)
            assert said == [f"open http://localhost:{port}"]
        finally:
            server.shutdown()
            _Healthz.status = 503
            server.server_close()
    finally:
        stopping.set()
        announcer.join(timeout=10)


def test_stopping_ends_the_wait_without_an_address() -> None:
    stopping = threading.Event()
    said: list[str] = []
    stopping.set()
    assert announce_when_up(free_port(), "127.0.0.1", stopping, said.append) is False
    assert said == []
