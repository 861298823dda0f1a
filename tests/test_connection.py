"""The connection layer against real servers."""

from __future__ import annotations

import pytest

from rankcrawl.settings.connection import RedisUnavailable, connect, embedded_server, resolve_redis_url


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
