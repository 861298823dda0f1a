"""The live ranker: deltas equal a cold build, certified bounds after random batches, publishing
only what moved, kill -9 mid-delta, and two rankers sharing one Redis (real Valkey, no mocks)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter

import networkx as nx
import numpy as np
import pytest
from epoch_reader import whole_epoch_reader

from bench.synthetic_graph import graph_from_edges
from rankcrawl.ranker.livegraph import LiveGraph
from rankcrawl.ranker.service import RankerService
from rankcrawl.ranker.store.epochs import current
from rankcrawl.ranker.store.graphstore import GraphStore, PageRecord
from rankcrawl.ranker.store.hostedges import assemble, assemble_packed, pack
from rankcrawl.ranker.store.queries import RankQueries

CLI = [sys.executable, "-c", "from rankcrawl.crawler.cli.main import main; main()"]


def page(rng: np.random.Generator, h: int, p: int, hosts: int, pages: int) -> PageRecord:
    links = [(f"http://h{h if rng.random() < 0.7 else rng.integers(hosts)}.org/{rng.integers(pages + 3)}",
              float(rng.choice([0.5, 1.0, 2.0]))) for _ in range(int(rng.integers(0, 5)))]
    return PageRecord(f"http://h{h}.org/{p}", links, {"status": 200})


def batch(rng: np.random.Generator, step: int, hosts: int, pages: int) -> tuple[list[PageRecord], list[tuple[str, str]]]:
    """Random changes: re-crawled pages (insertions and deletions of links), a new host, 404s, redirects."""
    records = [page(rng, int(rng.integers(hosts)), int(rng.integers(pages)), hosts, pages) for _ in range(6)]
    new = f"http://new{step}.org"
    records += [PageRecord(f"{new}/{i}", [(f"http://h{rng.integers(hosts)}.org/{rng.integers(pages)}", 1.0),
                                          (f"{new}/{(i + 1) % 3}", 1.0)], {"status": 200}) for i in range(3)]
    records.append(PageRecord(f"http://h{rng.integers(hosts)}.org/{rng.integers(pages)}", [(f"{new}/0", 2.0)],
                              {"status": 200}))
    records.append(PageRecord(f"http://h{rng.integers(hosts)}.org/{pages + 10 + step}", [], {"status": 404}))
    redirects = [(f"http://h{rng.integers(hosts)}.org/{pages + 20 + step}", f"{new}/1")]
    return records, redirects


def seed_web(store: GraphStore, rng: np.random.Generator, hosts: int = 5, pages: int = 20) -> None:
    store.put_pages([page(rng, h, p, hosts, pages) for h in range(hosts) for p in range(pages)])


def edges_by_page(g: LiveGraph) -> dict[tuple[int, int], Counter]:
    out: dict[tuple[int, int], Counter] = {}
    pairs = g.page_of(np.arange(g.n))
    for u, key in enumerate(pairs):
        s, c = int(g.start[u]), int(g.count[u])
        targets = [pairs[t] for t in g.dst[s : s + c].tolist()]
        out[key] = Counter(zip(targets, g.weight[s : s + c].tolist()))
    return out


def excluded_pages(g: LiveGraph) -> set[tuple[int, int]]:
    return {p for p, x in zip(g.page_of(np.arange(g.n)), g.excluded[: g.n].tolist()) if x}


def test_delta_application_equals_a_cold_build(r):
    rng = np.random.default_rng(1)
    store = GraphStore(r)
    seed_web(store, rng)
    live = LiveGraph.build(store.load_hosts(store.all_host_ids()), 0.85)
    live.push(1e-12, 10_000)
    for step in range(6):
        head = store.stream_head()
        records, redirects = batch(rng, step, 5, 20)
        store.put_pages(records)
        for a, b in redirects:
            store.put_redirect(a, b)
        changes = store.changes_since(head)
        if step % 2:  # page-level deltas, and whole hosts (the older format) on even steps
            live.apply(store.load_changes(changes))
        else:
            live.apply(store.load_hosts(sorted(changes.hosts)))
        assert not live.needs_rebuild
        cold = LiveGraph.build(store.load_hosts(store.all_host_ids()), 0.85)
        assert edges_by_page(live) == edges_by_page(cold)
        assert excluded_pages(live) == excluded_pages(cold)
        tracked = live.res[: live.n].copy()
        live.reset_residual()
        assert np.abs(tracked - live.res[: live.n]).sum() <= 1e-9 * live.norm()  # the residual stayed exact
        live.push(1e-12, 10_000)


def test_packed_cold_load_equals_the_per_host_load(r):
    """The cold epoch's reads (plain commands, unpacked at once, alongside the kernel warm-up) give
    the graph the per-host script reads give: edges, gone pages, redirects, page counts."""
    rng = np.random.default_rng(4)
    store = GraphStore(r)
    seed_web(store, rng)
    for step in range(4):
        records, redirects = batch(rng, step, 5, 20)
        store.put_pages(records)
        for a, b in redirects:
            store.put_redirect(a, b)
    hosts = store.all_host_ids()
    warmed: list[bool] = []
    got, alias_from, alias_to = assemble_packed(store.load_packed(hosts, meanwhile=lambda: warmed.append(True)))
    want, want_from, want_to = assemble_packed(pack(store.load_hosts(hosts)))
    assert warmed == [True] and got.n_pages == want.n_pages and len(alias_from) >= 4 and got.excluded is not None
    for name in ("host_ids", "host_offsets", "excluded"):
        assert np.array_equal(getattr(got, name), getattr(want, name)), name
    assert sorted(zip(got.src.tolist(), got.dst.tolist(), got.weight.tolist())) == sorted(
        zip(want.src.tolist(), want.dst.tolist(), want.weight.tolist()))
    assert dict(zip(alias_from.tolist(), alias_to.tolist())) == dict(zip(want_from.tolist(), want_to.tolist()))
    assert np.array_equal(got.src, assemble(store.load_hosts(hosts)).src)


def networkx_reference(store: GraphStore) -> dict[str, float]:
    g = store.load_graph()
    urls = store.urls_of(zip(np.repeat(g.host_ids, np.diff(g.host_offsets)).tolist(),
                             (np.arange(g.n_pages) - np.repeat(g.host_offsets[:-1], np.diff(g.host_offsets))).tolist()))
    excluded = g.excluded if g.excluded is not None else np.zeros(g.n_pages, bool)
    d = nx.DiGraph()
    d.add_nodes_from(i for i in range(g.n_pages) if not excluded[i])
    for s, t, w in zip(g.src.tolist(), g.dst.tolist(), g.weight.tolist()):
        d.add_edge(s, t, weight=d[s][t]["weight"] + w if d.has_edge(s, t) else w)
    ranks = nx.pagerank(d, alpha=0.85, tol=1e-15, max_iter=10_000)
    return {urls[i]: x for i, x in ranks.items()}


def test_incremental_bound_holds_against_networkx_after_random_batches(r):
    for seed in (2, 3):
        r.flushall()
        rng = np.random.default_rng(seed)
        store = GraphStore(r)
        seed_web(store, rng)
        for tol in (1e-3, 1e-6, 1e-9):
            service = RankerService(r, tol=tol)
            service.solve_once()
            for step in range(3):
                records, redirects = batch(rng, 10 * seed + step, 5, 20)
                store.put_pages(records)
                for a, b in redirects:
                    store.put_redirect(a, b)
                report = service.solve_once()
                assert report.converged and report.error_bound <= tol
                ours = dict(RankQueries(r).export())
                ref = networkx_reference(store)
                assert set(ours) == set(ref)
                assert sum(abs(ours[u] - ref[u]) for u in ref) <= report.error_bound + 1e-11
                assert RankQueries(r).rank([records[-1].url])[records[-1].url] is None  # the 404 page


def test_publish_only_changed_hosts_and_readers_see_whole_epochs(r):
    store = GraphStore(r)
    islands = [PageRecord(f"http://island{i}.org/{j}", [(f"http://island{i}.org/{(j + 1) % 5}", 1.0)])
               for i in range(6) for j in range(5)]
    seed_web(store, np.random.default_rng(4))
    store.put_pages(islands)
    service = RankerService(r, tol=1e-12)
    first = service.solve_once()
    assert first.hosts_published == first.hosts
    urls = [u for u, _ in RankQueries(r).export()]
    published = []
    with whole_epoch_reader(r, urls) as reads:
        for i in range(40):
            store.put_pages([PageRecord("http://h0.org/0", [(f"http://h{(i % 4) + 1}.org/{j}", 5.0) for j in range(8)])])
            published.append(service.solve_once().hosts_published)
            if i >= 10 and reads.count >= 20:
                break
    assert not reads.problems, reads.problems[:3]
    assert reads.count >= 20
    assert max(published) <= first.hosts - 6  # the islands' vectors were never rewritten
    ours = dict(RankQueries(r).export())
    ref = networkx_reference(store)
    assert sum(abs(ours[u] - ref[u]) for u in ref) <= 1e-9


def test_kill_9_mid_delta_then_restart_gives_exact_ranks(redis_url, r, rankcrawl_home):
    rng = np.random.default_rng(5)
    store = GraphStore(r)
    seed_web(store, rng, hosts=8, pages=300)
    proc = subprocess.Popen([*CLI, "ranker", "--redis-url", redis_url, "--tol", "1e-13", "--poll-interval", "0.05"],
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        loads = 0
        while loads < 3 and time.monotonic() < deadline:  # the third load is the second delta
            line = proc.stderr.readline()
            assert line or proc.poll() is None, "ranker exited"
            if "graph:" in line:
                loads += 1
                records, redirects = batch(rng, loads, 8, 300)
                store.put_pages(records)
                for a, b in redirects:
                    store.put_redirect(a, b)
        assert loads == 3
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait(timeout=10)
    done = subprocess.run([*CLI, "ranker", "--once", "--redis-url", redis_url, "--tol", "1e-12"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert current(store).offset == store.stream_head()
    ours = dict(RankQueries(r).export())
    ref = networkx_reference(store)
    assert set(ours) == set(ref)
    assert sum(abs(ours[u] - ref[u]) for u in ref) <= 1e-9


@pytest.mark.slow
def test_two_rankers_share_one_redis(redis_url, r, rankcrawl_home):
    store = GraphStore(r)
    rng = np.random.default_rng(6)
    seed_web(store, rng, hosts=6, pages=100)
    cmd = [*CLI, "ranker", "--redis-url", redis_url, "--tol", "1e-10", "--poll-interval", "0.05"]
    procs = [subprocess.Popen(cmd, stderr=subprocess.DEVNULL) for _ in range(2)]
    stop, problems, reads = threading.Event(), [], [0]

    def reader() -> None:
        queries = RankQueries(r)
        while not stop.is_set():
            exported = dict(queries.export())
            if exported and abs(sum(exported.values()) - 1) > 1e-9:
                problems.append(f"export(): sum {sum(exported.values())}")
            top = queries.top(5)
            if top and not all(0 < x <= 1 for _, x in top):
                problems.append(f"top(): {top}")
            reads[0] += 1

    thread = threading.Thread(target=reader)
    thread.start()
    epochs = []
    try:
        end = time.monotonic() + 60
        step = 0
        while time.monotonic() < end:
            records, redirects = batch(rng, step, 6, 100)
            store.put_pages(records)
            step += 1
            time.sleep(0.2)
            state = current(store)
            epochs.append(state.epoch if state else 0)
        assert all(p.poll() is None for p in procs), "a ranker died"
    finally:
        stop.set()
        thread.join(timeout=30)
        for p in procs:
            p.terminate()
            p.wait(timeout=20)
    assert not problems, problems[:3]
    assert reads[0] >= 20 and epochs[-1] > epochs[0] and epochs == sorted(epochs)
    deadline = time.monotonic() + 30
    done = subprocess.run([*CLI, "ranker", "--once", "--redis-url", redis_url, "--tol", "1e-12"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and time.monotonic() < deadline, done.stderr
    ours = dict(RankQueries(r).export())
    ref = networkx_reference(store)
    assert sum(abs(ours[u] - ref[u]) for u in ref) <= 1e-9


def test_host_sums_and_vectors_equal_the_per_host_ones():
    """The batched publish helpers (``host_sums``, ``vectors``) agree with ``host_sum``/``vector``
    for hosts held in one segment, hosts that grew (several segments) and empty hosts."""
    g = graph_from_edges([3, 0, 5, 2], [0, 1, 3, 4, 8], [1, 2, 4, 5, 9])
    none = np.zeros(0, np.int64)
    graph = LiveGraph.from_graph(g, none, none, 0.85)
    graph.ensure_host(1, 2)
    graph.ensure_host(0, 4)
    graph.y[: graph.n] = np.random.default_rng(1).random(graph.n)
    graph.excluded[2] = True
    hosts = graph.host_ids()
    sums = graph.host_sums(hosts)
    vector = graph.vectors()
    for h in hosts:
        assert abs(sums[h] - graph.host_sum(h)) <= 1e-12
        assert np.array_equal(vector(h), graph.vector(h), equal_nan=True)
    assert np.isnan(vector(0)[2]) and len(vector(0)) == 4 and len(vector(1)) == 2


def test_a_cold_solve_on_threads_is_certified_and_exact():
    """Blocks of hosts swept on 1–3 threads (``_blocks``): the residual stays exact, the bound holds,
    and the ranks agree with the one-thread push to within the bounds."""
    from rankcrawl.ranker import _push

    rng = np.random.default_rng(9)
    sizes = rng.integers(1, 40, size=30)
    n = int(sizes.sum())
    src, dst = rng.integers(0, n, 3000), rng.integers(0, n, 3000)
    g = graph_from_edges(sizes, src, dst, rng.choice([0.5, 1.0, 2.0], 3000).astype(np.float32))
    none = np.zeros(0, np.int64)
    ranks = {}
    for threads in (1, 2, 3):
        graph = LiveGraph.from_graph(g, none, none, 0.85)
        state = graph.push(1e-10, 100_000, threads=threads)
        assert state.bound <= 1e-10
        y = graph.y[: graph.n].copy()
        res = np.empty(graph.n)
        _push.residual(graph.start[: graph.n], graph.count[: graph.n], graph.dst, graph.weight, graph.inv_out[: graph.n],
                       graph.teleport(), 0.85, y, res)
        assert np.abs(res - graph.res[: graph.n]).max() <= 1e-12
        ranks[threads] = y / y.sum()
    for threads in (2, 3):
        assert np.abs(ranks[threads] - ranks[1]).sum() <= 2e-10
