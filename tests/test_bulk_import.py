"""Bulk edge import: normalize_url's fast path agrees with its general one; the import equals put_pages."""

from __future__ import annotations

import io

import numpy as np

import rankcrawl.settings.urls as urls_module
from rankcrawl.ranker.store.bulk import import_edges
from rankcrawl.ranker.store.graphstore import GraphStore, PageRecord
from rankcrawl.ranker.store.records import host_and_path


def test_fast_split_agrees_with_normalisation(monkeypatch) -> None:
    urls = ["http://a.org/", "https://a.org/x/y?z=1&b=2", "http://a.org", "http://A.org/x", "http://a.org:80/x",
            "https://a.org:443/", "http://a.org:8080/p", "http://a.org:080/p", "http://a.org:99999/",
            "http://xn--bcher-kva.example/", "http://a--b.org/", "http://a.org/%7Ex", "http://a.org/x#frag",
            "http://a.org/ x", "http://a.org/über", "ftp://a.org/", "http://127.0.0.1:8000/a", "http://a.org/./b/../c",
            "http://a.org//double",
            "http://a.org/.well-known/x", "http://a.org/a/..", "http://a.org/~user/", "http://a.org/?", "http://a.org/a?b",
            "http://-bad.org/", "http://a.org./x",
            "mailto:x@y", "http://a.org/x?q=a%20b", "http://sub.domain.example.com/path/to/page.html"]
    fast = [host_and_path(url) for url in urls]
    assert sum(urls_module._plain(url) is not None for url in urls) >= 10  # the fast path taken, ports too
    host_and_path.cache_clear()
    monkeypatch.setattr(urls_module, "_plain", lambda url: None)  # w3lib's general way for every URL
    for url, got in zip(urls, fast):
        assert got == host_and_path(url), url
    host_and_path.cache_clear()


def test_import_equals_put_pages_and_merges_duplicates(r) -> None:
    rng = np.random.default_rng(3)
    lines, records = [], {}
    for i in range(300):
        src = f"http://h{i % 7}.org/p{i % 50}"
        dst = f"http://h{rng.integers(7)}.org/p{rng.integers(60)}"
        w = float(rng.choice([0.5, 1.0, 2.0]))
        lines.append(f"{src}\t{dst}\t{w}")
        records.setdefault(src, []).append((dst, w))
    lines += ["http://h0.org/p0\tnot a url", "bad line", "http://h1.org/p1\thttp://h2.org/\t-1"]
    bad: list[int] = []
    report = import_edges(GraphStore(r, "imp:"), io.StringIO("\n".join(lines) + "\n"), lambda n, p: bad.append(n))
    assert sorted(bad) == [301, 302, 303] and report.bad == 3
    GraphStore(r, "ref:").put_pages(PageRecord(u, ls) for u, ls in records.items())
    assert set(GraphStore(r, "imp:").iter_edges()) == set(GraphStore(r, "ref:").iter_edges())
    assert report.pages == len(records)


def test_vectorised_chunks_store_what_the_per_line_path_stores(r) -> None:
    rng = np.random.default_rng(5)
    rows = [(f"http://h{rng.integers(5)}.org/p{rng.integers(40)}", f"http://H{rng.integers(6)}.org:80/p{rng.integers(40)}",
             float(rng.choice([0.5, 1.0, 2.0]))) for _ in range(400)]
    three = "".join(f"{s}\t{d}\t{w:g}\n" for s, d, w in rows)
    two = "".join(f"{s}\t{d}\n" for s, d, _ in rows)
    bad: list[int] = []
    for prefix, text in (("fast3:", three), ("fast2:", two), ("slow3:", "# forces the per-line path\n" + three),
                         ("slow2:", "# forces the per-line path\n" + two)):
        report = import_edges(GraphStore(r, prefix), io.StringIO(text), lambda n, p: bad.append(n))
        assert report.bad == 0
    assert not bad
    for kind in ("3", "2"):
        fast, slow = GraphStore(r, f"fast{kind}:"), GraphStore(r, f"slow{kind}:")
        assert sorted(fast.iter_edges()) == sorted(slow.iter_edges()) and len(list(fast.iter_edges())) > 300
        assert fast.changes_since("0-0").pages.tolist() == slow.changes_since("0-0").pages.tolist()


def test_a_bad_weight_in_a_regular_chunk_is_reported_by_line(r) -> None:
    text = "http://a.org/1\thttp://a.org/2\t1\nhttp://a.org/2\thttp://a.org/3\tnan\nhttp://a.org/3\thttp://a.org/1\tx\n"
    bad: list[int] = []
    report = import_edges(GraphStore(r, "w:"), io.StringIO(text), lambda n, p: bad.append(n))
    assert bad == [2, 3] and report.edges == 1 and report.pages == 1
