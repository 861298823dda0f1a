"""The real-site benchmark's pure helpers (gold extraction, edge and rank figures) on tiny pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import realmetrics as M
from bench.realgold import Gold, extract, frontier, template_targets
from bench.realsites import Entry, Site, Web, refresh_target

SITE = Site("t", "pkg", "f", "https://t.org/d/", "index.html", "test", ('[role="main"]',), (".skip",))

PAGE = b"""<html><body>
<div class="nav"><a href="index.html">Home</a> <a href="b.html">B</a></div>
<div role="main"><p>Some prose words here, more of them than there are words in the links, and <a href="b.html#x">a link</a>, to
<a href="#top">myself</a>, <a href="a.html">me again</a>, <a href="gone.html">gone</a>,
<a href="mailto:x@t.org">mail</a> <a href="alias.html">alias</a>.</p>
<div class="skip"><a href="c.html">C in a skipped part</a></div></div></body></html>"""


def web(tmp_path: Path) -> Web:
    entries = {}
    for name in ("index.html", "a.html", "b.html", "c.html"):
        (tmp_path / name).write_bytes(PAGE)
        entries[f"https://t.org/d/{name}"] = Entry(200, path=tmp_path / name)
    entries["https://t.org/d/alias.html"] = Entry(301, location="https://t.org/d/c.html")
    return Web([SITE], entries)


def test_extract_splits_content_from_outside_links() -> None:
    p = extract("https://t.org/d/a.html", PAGE, SITE)
    assert p.content == {"https://t.org/d/b.html", "https://t.org/d/a.html", "https://t.org/d/gone.html",
                         "https://t.org/d/alias.html"}
    assert p.outside == {"https://t.org/d/index.html", "https://t.org/d/b.html", "https://t.org/d/c.html"}
    assert p.has_region and not p.index_like and 0 < p.linked_words < p.words


def test_gold_edges_resolve_redirects_and_drop_self_and_404(tmp_path: Path) -> None:
    w = web(tmp_path)
    pages = {u: extract(u, PAGE, SITE) for u in w.entries if w.is_page(u)}
    gold = Gold.build(w, pages, ["https://t.org/d/index.html"])
    a = "https://t.org/d/a.html"
    assert gold.content_edges[a] == {"https://t.org/d/b.html", "https://t.org/d/c.html"}
    assert gold.all_edges[a] == {"https://t.org/d/index.html", "https://t.org/d/b.html", "https://t.org/d/c.html"}
    assert set(gold.reachable) == {f"https://t.org/d/{n}" for n in ("index.html", "a.html", "b.html", "c.html")}
    # c.html: outside the region on every page, but alias.html in the region lands on it: no template link
    assert gold.template["t.org"] == {"https://t.org/d/index.html"}
    assert gold.content_landing[a] == {"https://t.org/d/b.html", "https://t.org/d/a.html", "https://t.org/d/gone.html",
                                       "https://t.org/d/c.html"}  # alias.html lands on c.html: a content link to c


def test_a_page_that_refreshes_at_once_is_a_redirect(tmp_path: Path) -> None:
    """As Scrapy's MetaRefreshMiddleware takes it: links to it land on its target; it is no gold page."""
    chooser = tmp_path / "choose.html"
    chooser.write_bytes(b'<html><head><meta http-equiv="refresh" content="0; URL=b.html"></head>'
                        b'<body><a href="a.html">a/</a> <a href="b.html">b/</a></body></html>')
    slow = tmp_path / "slow.html"
    slow.write_bytes(b'<html><head><meta http-equiv="refresh" content="600; URL=b.html"></head><body>x</body></html>')
    url = "https://t.org/d/choose.html"
    assert refresh_target(Entry(200, path=chooser), url) == "https://t.org/d/b.html"
    assert refresh_target(Entry(200, path=slow), "https://t.org/d/slow.html") == ""
    w = web(tmp_path)
    w.entries[url] = Entry(200, path=chooser, location="https://t.org/d/b.html")
    assert w.resolve(url) == "https://t.org/d/b.html" and not w.is_page(url)


def test_index_like_by_link_share_and_name() -> None:
    toc = b'<html><body><div role="main"><a href="x.html">one two</a> <a href="y.html">three</a> four</div></body></html>'
    assert extract("https://t.org/d/page.html", toc, SITE).index_like
    assert extract("https://t.org/d/genindex.html", PAGE, SITE).index_like


def test_edge_counts_and_leaks() -> None:
    stored = {"s": {"a", "b", "nav"}, "t": set()}
    gold = {"s": {"a", "c"}, "t": {"a"}}
    c = M.edge_counts(stored, gold, ["s", "t"])
    assert (c.tp, c.fp, c.fn) == (1, 2, 2)
    assert c.precision == pytest.approx(1 / 3) and c.recall == pytest.approx(1 / 3)
    assert M.leaked_template(stored, {"s": {"nav", "b"}}, {"s": {"a", "b"}}, {"h": {"nav", "b"}}, {"s": "h"}) == 1
    assert template_targets([]) == {}


def test_pagerank_dangling_uniform_and_rank_agreement() -> None:
    pr = M.pagerank(["a", "b", "c"], {"a": {"b"}, "b": {"a", "b", "x"}})
    assert sum(pr.values()) == pytest.approx(1.0)
    assert pr["c"] < pr["a"] and pr["c"] < pr["b"]
    ranks = M.restrict({"a": 0.2, "b": 0.2, "zzz": 0.6}, ["a", "b", "c"])
    assert ranks == {"a": 0.5, "b": 0.5, "c": 0.0}
    assert M.l1({"a": 0.5, "b": 0.5}, {"a": 1.0}) == pytest.approx(1.0)
    gold = {f"p{i}": 1.0 / (i + 1) for i in range(5)}
    assert M.kendall_top(gold, gold, k=5) == pytest.approx(1.0)
    assert M.kendall_top(gold, {u: -v for u, v in gold.items()}, k=5) == pytest.approx(-1.0)


def test_frontier_links_count_as_dangling_pages(tmp_path: Path) -> None:
    """Links off the served pages (unserved host, non-HTML file) are the gold's frontier; broken ones are not."""
    w = web(tmp_path)
    (tmp_path / "f.txt").write_bytes(b"text")
    w.entries["https://t.org/d/f.txt"] = Entry(200, path=tmp_path / "f.txt")
    page = (b'<html><body><div role="main"><a href="b.html">b</a> <a href="https://else.org/x">x</a> '
            b'<a href="f.txt">f</a> <a href="gone.html">gone</a></div></body></html>')
    assert frontier(w, extract("https://t.org/d/a.html", page, SITE).content) == {
        "https://else.org/x", "https://t.org/d/f.txt"}
    edges = {"a": {"b"}, "b": {"a"}}
    plain = M.pagerank(["a", "b"], edges)
    assert plain["a"] == pytest.approx(0.5)
    pr = M.pagerank(["a", "b"], edges, frontier={"a": {"x1", "x2", "x3"}})
    assert set(pr) == {"a", "b", "x1", "x2", "x3"} and sum(pr.values()) == pytest.approx(1.0)
    assert pr["a"] > pr["b"]  # a gives 3/4 of its vote to the frontier, b all of its to a
