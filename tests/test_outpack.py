"""Packed hosts (``outpack``): the fast cold load equals the per-page reader after any mix of writes."""

from __future__ import annotations

import io

import numpy as np

from rankcrawl.ranker.store.bulk import import_edges
from rankcrawl.ranker.store.graphstore import GraphStore, PageRecord
from rankcrawl.ranker.store.hostedges import assemble, assemble_packed, pack


def same_load(store: GraphStore) -> None:
    """``load_packed`` (packs) and ``load_hosts`` (every page's field, one script per host) agree."""
    hids = store.all_host_ids()
    fast = assemble_packed(store.load_packed(hids))[0]
    slow = assemble(store.load_hosts(hids))
    assert fast.host_ids.tolist() == slow.host_ids.tolist()
    assert fast.host_offsets.tolist() == slow.host_offsets.tolist()
    key = lambda g: sorted(zip(g.src.tolist(), g.dst.tolist(), g.weight.tolist()))  # noqa: E731
    assert key(fast) == key(slow)
    ex = lambda g: [] if g.excluded is None else np.flatnonzero(g.excluded).tolist()  # noqa: E731
    assert ex(fast) == ex(slow)


def test_packs_follow_every_kind_of_write(any_client) -> None:
    store = GraphStore(any_client)
    rng = np.random.default_rng(7)
    lines = "".join(f"http://h{rng.integers(6)}.org/p{rng.integers(30)}\thttp://h{rng.integers(8)}.org/p{rng.integers(30)}"
                    f"\t{rng.choice([0.5, 1.0, 2.0])}\n" for _ in range(500))
    import_edges(store, io.StringIO(lines), lambda n, p: None)
    k = store.keys
    assert all(any_client.exists(k.outpack(h)) for h in store.all_host_ids() if any_client.hlen(k.out(h)))
    same_load(store)
    more = "".join(f"http://h{rng.integers(6)}.org/q{i}\thttp://h{rng.integers(6)}.org/p{rng.integers(30)}\n" for i in range(40))
    import_edges(store, io.StringIO(more + "http://h0.org/p1\thttp://h7.org/p2\t2.5\n"), lambda n, p: None)  # hosts with older pages
    assert all(any_client.exists(k.outpack(h)) for h in store.all_host_ids() if any_client.hlen(k.out(h)))
    same_load(store)
    # writes after the import drop the packs they touch; the load rebuilds them
    store.put_pages([PageRecord("http://h1.org/p3", [("http://h2.org/new", 3.0)]),
                     PageRecord("http://h2.org/p4", []),
                     PageRecord("http://h3.org/p5", [], {"status": 404}),
                     PageRecord("http://h9.org/fresh", [("http://h1.org/p3", 1.0)])])
    assert not any_client.exists(k.outpack(1)) and not any_client.exists(k.outpack(2))
    store.put_redirect("http://h4.org/p1", "http://h5.org/p2")
    assert not any_client.exists(k.outpack(4))
    same_load(store)
    assert any_client.exists(k.outpack(1)) and any_client.exists(k.outpack(4))  # rebuilt and kept by the load
    same_load(store)
    store.put_pages([PageRecord("http://h3.org/p5", [("http://h3.org/p6", 1.0)], {"status": 200})])  # back again
    same_load(store)


def test_an_empty_host_and_a_host_without_out_links_load(r) -> None:
    store = GraphStore(r)
    store.put_pages([PageRecord("http://a.org/", [("http://b.org/x", 1.0)])])
    packed = store.load_packed(store.all_host_ids())
    assert packed.n_edges.tolist() == [1, 0] and packed.n_pages.tolist() == [1, 1]
    assert pack(store.load_hosts(store.all_host_ids())).n_edges.tolist() == [1, 0]
    assert store.load_packed([]).n_edges.tolist() == []


def test_a_large_host_is_written_in_one_call_and_packed(r) -> None:
    store = GraphStore(r)
    lines = "".join(f"http://big.org/p{i}\thttp://big.org/p{(i * 7 + 1) % 4500}\t1\n" for i in range(4500))
    lines += "".join(f"http://big.org/p{i}\thttp://small.org/x{i % 3}\t0.5\n" for i in range(0, 4500, 2))
    report = import_edges(store, io.StringIO(lines), lambda n, p: None)
    assert report.pages == 4500 and report.edges == 4500 + 2250
    assert all(r.hget(store.keys.meta(0), lid) == b"{}" for lid in (0, 2200, 4499))
    same_load(store)
    store.put_pages([PageRecord("http://big.org/p1", [], {"status": 200})])
    import_edges(store, io.StringIO("http://big.org/p2\thttp://big.org/p3\n"), lambda n, p: None)  # older pages: rebuilt
    assert store.meta("http://big.org/p1") == {"status": 200}
    same_load(store)


def test_the_compiled_build_equals_the_assembled_one(r) -> None:
    from rankcrawl.ranker.livegraph import LiveGraph

    store = GraphStore(r)
    rng = np.random.default_rng(11)
    lines = "".join(f"http://h{rng.integers(9)}.org/p{rng.integers(80)}\thttp://h{rng.integers(12)}.org/p{rng.integers(90)}"
                    f"\t{rng.choice([0.5, 1.0, 2.0])}\n" for _ in range(3000))
    import_edges(store, io.StringIO(lines + "http://h0.org/p1\thttp://h0.org/p1\n"), lambda n, p: None)  # a self-link
    store.put_pages([PageRecord("http://h1.org/p2", [("http://h1.org/p2", 1.0), ("http://h3.org/p999", 1.0)])])
    for _ in range(2):
        packed = store.load_packed(store.all_host_ids())
        fast = LiveGraph.from_packed(packed, 0.85)
        slow = LiveGraph.from_graph(*assemble_packed(packed), 0.85)
        assert fast.n == slow.n and fast.segments == slow.segments
        for name in ("start", "count", "dst", "weight", "inv_out", "seg_of", "excluded", "res", "base"):
            assert np.array_equal(getattr(fast, name), getattr(slow, name)), name
        store.put_pages([PageRecord("http://h2.org/p3", [], {"status": 410})])  # the second round takes the other path
