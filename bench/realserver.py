"""A forward proxy on 127.0.0.1 that answers by host from a ``realsites.Web`` (no upstream).

Plain http: the client sends ``GET http://host/path``. https: ``CONNECT host:443``, then TLS
with a throw-away self-signed certificate made at start (Scrapy does not verify it), then
ordinary requests inside the tunnel. CONNECT to a host that is not a site: 404. Every page
request is logged ``(monotonic time, url, status)`` for the throughput and coverage figures.
Connections idle for ``IDLE_TIMEOUT`` seconds are closed; all threads are daemons.
"""

from __future__ import annotations

import datetime
import ssl
import tempfile
import threading
import time
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from socketserver import _SocketWriter  # type: ignore[attr-defined]

from bench.realsites import ROBOTS, Web

IDLE_TIMEOUT = 30.0
NOT_FOUND = b"<!DOCTYPE html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>"


def self_signed(hosts: Iterable[str], folder: Path) -> tuple[Path, Path]:
    """A throw-away certificate (EC P-256, one day) for ``hosts``; (cert path, key path)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "rankcrawl realcrawl bench")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(h) for h in sorted(hosts)]), critical=False)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


class ProxyHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = IDLE_TIMEOUT
    server: ProxyServer
    tunnel_host = ""

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - quiet
        pass

    def do_CONNECT(self) -> None:
        host = self.path.rsplit(":", 1)[0]
        if host not in self.server.web.hosts:
            self._send(404, b"", "text/plain")
            self.close_connection = True
            return
        self.send_response(200, "Connection Established")
        self.end_headers()
        self.wfile.flush()
        try:
            tls = self.server.tls.wrap_socket(self.connection, server_side=True)
        except (ssl.SSLError, OSError):
            self.close_connection = True
            return
        self.connection = tls
        self.rfile = tls.makefile("rb", self.rbufsize)
        self.wfile = _SocketWriter(tls)
        self.tunnel_host = host
        self.close_connection = False

    def do_GET(self) -> None:
        self._serve(head=False)

    def do_HEAD(self) -> None:
        self._serve(head=True)

    def _serve(self, head: bool) -> None:
        if self.tunnel_host:
            url = f"https://{self.headers.get('Host') or self.tunnel_host}{self.path}"
        elif self.path.startswith("http://"):
            url = self.path
        else:
            self._send(400, b"absolute http:// URL or CONNECT expected", "text/plain")
            return
        entry = self.server.web.answer(url)
        if entry is None:
            status, body, ctype, location = 404, NOT_FOUND, "text/html", ""
        elif entry.status == 301:
            status, body, ctype, location = 301, b"", "text/html", entry.location
        elif entry.path is None:
            status, body, ctype, location = 200, ROBOTS, "text/plain", ""
        else:
            status, body, ctype, location = 200, entry.body(), entry.content_type, ""
        self.server.log.append((time.monotonic(), url, status))
        self._send(status, b"" if head else body, ctype, location, length=len(body))

    def _send(self, status: int, body: bytes, ctype: str, location: str = "", length: int | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        if location:
            self.send_header("Location", location)
        self.end_headers()
        self.wfile.write(body)


class ProxyServer(ThreadingHTTPServer):
    """The proxy; ``url`` for http_proxy/https_proxy; ``log`` of served requests."""

    daemon_threads = True

    def __init__(self, web: Web) -> None:
        super().__init__(("127.0.0.1", 0), ProxyHandler)
        self.web = web
        self.log: list[tuple[float, str, int]] = []
        with tempfile.TemporaryDirectory(prefix="realcrawl-tls-") as folder:
            cert, key = self_signed(web.hosts, Path(folder))
            self.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            self.tls.load_cert_chain(cert, key)
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def __enter__(self) -> ProxyServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
        self._thread.join(timeout=5)
