"""Serving a ``DemoWeb`` on 127.0.0.1: one threading HTTP server per host."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from rankcrawl.crawler.demoweb.web import DemoWeb


class _HostServer(ThreadingHTTPServer):
    """One host of the demo web: a threading HTTP server on a free loopback port."""

    daemon_threads = True
    web: DemoWeb
    origin: str

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HostServer

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        self._respond(send_body=True)

    def do_HEAD(self) -> None:  # noqa: N802
        self._respond(send_body=False)

    def _respond(self, send_body: bool) -> None:
        status, ctype, body = self.server.web.response(self.server.origin + self.path)
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if send_body:
            self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Silent: the demo's progress view is the log."""


@contextmanager
def serve(web: DemoWeb) -> Iterator[DemoWeb]:
    """Serve this web on 127.0.0.1, one ThreadingHTTPServer per host; stopped on exit.

    Yields a DemoWeb of the same seed and size whose URLs are the served ones. Off-crawl
    social links point at a loopback port that is bound but never listens (refused).
    """
    servers: list[_HostServer] = []
    threads: list[threading.Thread] = []
    closed = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        servers += [_HostServer() for _ in range(web.n_hosts)]
        closed.bind(("127.0.0.1", 0))
        origins = [f"http://127.0.0.1:{s.server_address[1]}" for s in servers]
        served = DemoWeb(web.seed, web.n_hosts, web.pages_per_host, origins=origins,
                         external_origin=f"http://127.0.0.1:{closed.getsockname()[1]}")
        for server, origin in zip(servers, origins):
            server.web, server.origin = served, origin
            thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1},
                                      name=f"demo-web {origin}", daemon=True)
            thread.start()
            threads.append(thread)
        yield served
    finally:
        for server in servers[: len(threads)]:
            server.shutdown()
        for server in servers:
            server.server_close()
        for thread in threads:
            thread.join(timeout=5)
        closed.close()
