"""Graph store on a real Valkey server and on a real 3-node cluster (no mocks)."""

from __future__ import annotations

import multiprocessing

import numpy as np
import pytest

from rankcrawl.ranker.store.graphstore import GraphStore, PageRecord
from rankcrawl.settings.connection import connect


def edge_set(store: GraphStore) -> set[tuple[str, str, float]]:
    return set(store.iter_edges())


def test_ids_are_stable_and_never_renumbered(any_client):
    store = GraphStore(any_client)
    first = store.ids(["http://A.org/x", "http://a.org:80/y#frag", "https://b.org/", "ftp://c.org/", "not a url"])
    assert first[:3] == [(0, 0), (0, 1), (1, 0)]
    assert first[3:] == [None, None]
    again = store.ids(["https://b.org/", "http://a.org/y", "http://a.org/z", "http://c.org/"])
    assert again == [(1, 0), (0, 1), (0, 2), (2, 0)]
    assert store.ids(["http://unknown.org/", "http://a.org/nope"], create=False) == [None, None]
    assert store.url_of(0, 1) == "http://a.org/y"
    assert store.url_of(7, 0) is None


def test_pages_edges_and_dangling_targets(any_client):
    store = GraphStore(any_client)
    store.put_pages([
        PageRecord("http://a.org/", [("http://a.org/x", 1.0), ("http://b.org/", 2.0), ("http://b.org/", 0.5),
                                     ("mailto:x@y", 1.0), ("http://a.org/x", -1.0)], {"status": 200}),
        PageRecord("http://a.org/x", [("http://a.org/x", 1.0)]),
    ])
    g = store.load_graph()
    assert g.n_hosts == 2 and g.n_pages == 3
    edges = sorted(zip(g.src.tolist(), g.dst.tolist(), g.weight.tolist()))
    assert edges == [(0, 1, 1.0), (0, 2, 2.5)]  # duplicates summed, bad links and the self-link (SPEC §2.7) dropped
    assert store.meta("http://a.org/") == {"status": 200}
    assert store.meta("http://b.org/") is None  # linked, not crawled: a dangling page
    with pytest.raises(ValueError, match="not an http"):
        store.put_pages([PageRecord("javascript:void(0)", [])])


def test_recrawl_replaces_edges_and_replay_is_idempotent(any_client):
    store = GraphStore(any_client)
    batch = [PageRecord("http://a.org/", [("http://a.org/1", 1.0), ("http://b.org/", 1.0)]),
             PageRecord("http://b.org/", [("http://a.org/", 3.0)])]
    store.put_pages(batch)
    before = edge_set(store)
    store.put_pages(batch)
    assert edge_set(store) == before
    assert store.load_graph().n_pages == 3
    store.put_pages([PageRecord("http://a.org/", [("http://a.org/2", 0.5)])])
    assert edge_set(store) == {("http://a.org/", "http://a.org/2", 0.5), ("http://b.org/", "http://a.org/", 3.0)}
    store.put_pages([PageRecord("http://b.org/", [])])
    assert edge_set(store) == {("http://a.org/", "http://a.org/2", 0.5)}
    assert store.load_graph().n_pages == 4  # pages are never removed or renumbered


def test_change_stream_names_changed_pages_and_grown_hosts(any_client):
    store = GraphStore(any_client)
    assert store.stream_head() == "0-0"
    store.put_pages([PageRecord("http://a.org/", [("http://b.org/", 1.0)])])
    head = store.stream_head()
    first = store.changes_since("0-0")
    assert first.last == head and first.pages.tolist() == [0] and first.grown == {0, 1} and first.hosts == {0, 1}
    store.put_pages([PageRecord("http://a.org/x", [("http://a.org/", 1.0)]), PageRecord("http://a.org/", [])])
    second = store.changes_since(head)
    assert second.pages.tolist() == [0, 1] and second.grown == {0} and second.last == store.stream_head()
    loaded = store.load_changes(second)
    assert set(loaded) == {0} and loaded[0].pages.tolist() == [0, 1] and loaded[0].n_pages == 2
    assert loaded[0].src_local.tolist() == [1] and loaded[0].dst_local.tolist() == [0]
    store.put_pages([PageRecord("http://a.org/", [("http://a.org/x", 2.0)])])  # known target: nothing grew
    third = store.changes_since(second.last)
    assert third.pages.tolist() == [0] and third.grown == set() and third.whole == set()
    assert not store.changes_since(third.last, block_ms=50)
    any_client.xadd(store.keys.changes, {"hosts": "1"})  # the older host-level format: reload the host
    legacy = store.changes_since(third.last)
    assert legacy.whole == {1} and store.load_changes(legacy)[1].pages is None


def test_load_graph_of_some_hosts_and_vectorised_unpacking(any_client):
    store = GraphStore(any_client)
    rng = np.random.default_rng(1)
    records = []
    for h in range(5):
        for p in range(20):
            targets = rng.integers(0, 5, 4), rng.integers(0, 20, 4)
            records.append(PageRecord(f"http://h{h}.org/p{p}",
                                      [(f"http://h{t}.org/p{q}", 0.25 + k) for k, (t, q) in enumerate(zip(*targets))]))
    store.put_pages(records, batch_size=37)
    g = store.load_graph()
    got = {(store.url_of(*pair(g, s)), store.url_of(*pair(g, d)), round(float(w), 3)) for s, d, w in zip(g.src, g.dst, g.weight)}
    want = {(r.url, t, w) for r in records for t, w in merged(r.links) if t != r.url}  # no self-links
    assert got == want
    sub = store.load_graph([2])
    assert set(g.host_ids[np.searchsorted(g.host_offsets, sub.src, side="right") - 1].tolist()) <= set(g.host_ids.tolist())
    assert len(sub.src) == sum(len([t for t in merged(r.links) if t[0] != r.url])
                               for r in records if r.url.startswith("http://h2.org/"))


def pair(g, i):
    k = int(np.searchsorted(g.host_offsets, i, side="right") - 1)
    return int(g.host_ids[k]), int(i - g.host_offsets[k])


def merged(links):
    acc: dict[str, float] = {}
    for t, w in links:
        acc[t] = acc.get(t, 0.0) + w
    return [(t, round(w, 3)) for t, w in acc.items()]


def _importer(url: str, worker: int, out) -> None:
    store = GraphStore(connect(url))
    records = [PageRecord(f"http://h{(i + worker) % 6}.org/p{i % 40}", [(f"http://h{i % 5}.org/q{i % 30}", 1.0)])
               for i in range(400)]
    store.put_pages(records, batch_size=7)
    out.put(worker)


def test_concurrent_importer_processes_never_share_an_id(any_redis_url, any_client):
    ctx = multiprocessing.get_context("fork")
    out = ctx.Queue()
    procs = [ctx.Process(target=_importer, args=(any_redis_url, w, out)) for w in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    store = GraphStore(any_client)
    hosts = {k.decode(): int(v) for k, v in any_client.hgetall(store.keys.hosts).items()}
    assert sorted(hosts.values()) == list(range(len(hosts))) == list(range(6))
    for hid in hosts.values():
        urls = {k.decode(): int(v) for k, v in any_client.hgetall(store.keys.urls(hid)).items()}
        paths = {int(k): v.decode() for k, v in any_client.hgetall(store.keys.paths(hid)).items()}
        assert sorted(urls.values()) == list(range(len(urls)))
        assert paths == {v: k for k, v in urls.items()}
    assert store.load_graph().n_pages == sum(any_client.hlen(store.keys.paths(h)) for h in hosts.values())


def test_a_redirects_edges_land_on_its_target(any_client):
    store = GraphStore(any_client)
    store.put_pages([PageRecord("http://a.org/", [("http://a.org/old", 2.0), ("http://b.org/", 1.0)]),
                     PageRecord("http://b.org/", [("http://a.org/old", 1.0)])])
    store.put_redirect("http://a.org/old", "http://c.org/new")
    store.put_pages([PageRecord("http://c.org/new", [("http://a.org/", 1.0)], {"status": 200})])
    g = store.load_graph()
    url = dict(zip(range(g.n_pages), store.urls_of(pairs(g))))
    edges = sorted((url[s], url[d], w) for s, d, w in zip(g.src.tolist(), g.dst.tolist(), g.weight.tolist()))
    assert edges == [("http://a.org/", "http://b.org/", 1.0), ("http://a.org/", "http://c.org/new", 2.0),
                     ("http://b.org/", "http://c.org/new", 1.0), ("http://c.org/new", "http://a.org/", 1.0)]
    assert [url[i] for i in np.flatnonzero(g.excluded)] == ["http://a.org/old"]
    assert sorted(store.iter_edges(resolved=True)) == edges  # the export as the ranker counts it
    assert ("http://a.org/", "http://a.org/old", 2.0) in edge_set(store)  # the raw export keeps the link as stored
    store.put_redirect("http://c.org/new", "http://a.org/old")  # a redirect loop: both leave the graph
    g = store.load_graph()
    assert set(store.urls_of(p for i, p in enumerate(pairs(g)) if g.excluded[i])) == {"http://a.org/old", "http://c.org/new"}
    assert len(g.src) == 1  # only a -> b is left
    assert list(store.iter_edges(resolved=True)) == [("http://a.org/", "http://b.org/", 1.0)]


def test_a_page_answering_404_leaves_the_graph_and_comes_back(any_client):
    store = GraphStore(any_client)
    store.put_pages([PageRecord("http://a.org/", [("http://a.org/x", 1.0), ("http://a.org/y", 1.0)]),
                     PageRecord("http://a.org/x", [("http://a.org/", 1.0)])])
    store.put_pages([PageRecord("http://a.org/x", [("http://a.org/y", 1.0)], {"status": 404})])
    g = store.load_graph()
    assert g.excluded is not None and g.excluded.tolist() == [False, True, False]
    assert sorted(zip(g.src.tolist(), g.dst.tolist())) == [(0, 2)]  # its out-links and in-links are gone
    assert list(store.iter_edges(resolved=True)) == [("http://a.org/", "http://a.org/y", 1.0)]
    assert store.meta("http://a.org/x") == {"status": 404}
    store.put_pages([PageRecord("http://a.org/x", [("http://a.org/", 1.0)], {"status": 200})])
    g = store.load_graph()
    assert g.excluded is None and sorted(zip(g.src.tolist(), g.dst.tolist())) == [(0, 1), (0, 2), (1, 0)]


def pairs(g):
    k = np.repeat(np.arange(g.n_hosts), np.diff(g.host_offsets))
    return list(zip(g.host_ids[k].tolist(), (np.arange(g.n_pages) - g.host_offsets[k]).tolist()))


def test_load_pages_equals_the_whole_host_in_several_script_calls(r):
    """Page-level reads (``PAGES_PACKED``, split over calls past ARGS_PER_CALL pages) give each
    page's edges, gone state and redirect exactly as the whole-host read does."""
    from rankcrawl.ranker.store.changestream import pair_keys
    from rankcrawl.ranker.store.graphstore import ARGS_PER_CALL

    store = GraphStore(r)
    n = ARGS_PER_CALL + 500
    store.put_pages([PageRecord(f"http://a.org/{i}", [(f"http://a.org/{(i * 7) % n}", 1.0 + i % 3),
                                                       (f"http://b.org/{i % 11}", 2.0)]) for i in range(n)])
    store.put_pages([PageRecord(f"http://a.org/{i}", [], {"status": 404}) for i in range(0, n, 97)])
    store.put_redirect("http://a.org/5", "http://b.org/3")
    hid = store.host_ids(["http://a.org"])["http://a.org"]
    whole = store.load_hosts([hid])[hid]
    part = store.load_pages(pair_keys(np.full(n, hid), np.arange(n)))[hid]
    assert part.pages is not None and sorted(part.pages.tolist()) == list(range(n))
    assert part.n_pages == whole.n_pages

    def edges(h):
        return sorted(zip(h.src_local.tolist(), h.dst_host.tolist(), h.dst_local.tolist(), h.weight.tolist()))

    assert edges(part) == edges(whole) and len(edges(whole)) > 2 * ARGS_PER_CALL
    assert part.gone.tolist() == whole.gone.tolist() and len(whole.gone) > 30
    assert part.alias_local.tolist() == whole.alias_local.tolist() == [store.ids(["http://a.org/5"])[0][1]]
    assert part.alias_target.tolist() == whole.alias_target.tolist()
