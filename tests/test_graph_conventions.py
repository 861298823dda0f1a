"""Graph conventions on a real crawl (issue 10): a redirect is an alias of its target, a URL that
answered 4xx/5xx gets no rank, and query-argument order does not split a page in two.

``rankcrawl crawl`` runs as a subprocess against a small site served on 127.0.0.1 and a real Valkey.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
import redis
from loopback import http_site

from rankcrawl.ranker.store.graphstore import GraphStore
from rankcrawl.ranker.store.queries import RankQueries
from tests.test_crawl_e2e import run, stored_edges

pytestmark = pytest.mark.slow

PROSE = "<p>" + " ".join(["Ranking pages by their links is an old and useful idea."] * 6) + "</p>"


def page(title: str, links: list[str]) -> bytes:
    anchors = " ".join(f'<a href="{href}">read more about {href}</a>' for href in links)
    return (f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>{PROSE}"
            f"<p>See {anchors} in the text.</p>{PROSE}</article></body></html>").encode()


REFRESH = b'<html><head><meta http-equiv="refresh" content="0; url=/new"></head><body>moved</body></html>'


class Site:
    """``/`` links to ``/new`` and to three URLs that end there (``/old`` → 301, ``/moved`` → 302 →
    ``/old``, ``/refresh`` by meta refresh: Scrapy's dupefilter drops the redirected requests after
    the first), a 404, a 500 and one query page twice (``?b=2&a=1``, ``?a=1&b=2``); fetches are counted."""

    PAGES = {
        "/": page("Home", ["/new", "/old", "/moved", "/refresh", "/missing", "/broken", "/q?b=2&a=1", "/q?a=1&b=2"]),
        "/new": page("New", ["/"]),
        "/refresh": REFRESH,
        "/q?a=1&b=2": page("Query", ["/"]),
        "/q?b=2&a=1": page("Query", ["/"]),
    }
    STATUS = {"/old": 301, "/moved": 302, "/missing": 404, "/broken": 500}
    LOCATION = {"/old": "/new", "/moved": "/old"}

    def __init__(self) -> None:
        self.hits: dict[str, int] = {}
        self.base = ""

    def answer(self, path: str) -> tuple[int, bytes, dict[str, str]]:
        self.hits[path] = self.hits.get(path, 0) + 1
        status = self.STATUS.get(path, 200 if path in self.PAGES else 404)
        body = self.PAGES.get(path, b"<html><body><p>gone</p></body></html>")
        return status, body, {"Location": self.LOCATION[path]} if path in self.LOCATION else {}

    def url(self, path: str) -> str:
        return self.base + path


@pytest.fixture
def site() -> Iterator[Site]:
    s = Site()
    with http_site(s.answer) as port:
        s.base = f"http://127.0.0.1:{port}"
        yield s


def test_redirects_errors_and_query_order_in_the_stored_graph(site: Site, r: redis.Redis, redis_url: str) -> None:
    stats = run([site.url("/")], redis_url, RANKCRAWL_EDGE_SCOPE="all", RANKCRAWL_FOLLOW_SCOPE="all")
    assert site.hits["/new"] == site.hits["/missing"] == site.hits["/refresh"] == 1
    assert site.hits.get("/q?b=2&a=1", 0) + site.hits.get("/q?a=1&b=2", 0) == 1  # the dupefilter: one page
    assert int(stats["rankcrawl/pages/redirects"]) >= 3 and int(stats["rankcrawl/pages/gone"]) == 2

    store = GraphStore(r)
    assert store.meta(site.url("/missing"))["status"] == 404
    assert store.meta(site.url("/broken"))["status"] == 500
    assert store.meta(site.url("/old")) == store.meta(site.url("/refresh")) == {"redirect": site.url("/new")}
    assert store.meta(site.url("/moved")) == {"redirect": site.url("/old")}
    stored = stored_edges(r)[site.url("/")]  # as stored: to the URLs the page links to
    assert {u for u in stored if "/q?" in u} == {site.url("/q?a=1&b=2")}  # one node for both argument orders
    graph = store.load_graph()  # as ranked: the alias's in-edge lands on its target, gone pages are out

    def index(path: str) -> int:
        hid, lid = store.ids([site.url(path)], create=False)[0]  # type: ignore[misc]
        return int(graph.host_offsets[np.searchsorted(graph.host_ids, hid)]) + lid

    home = {int(d) for s, d in zip(graph.src, graph.dst) if s == index("/")}
    assert index("/new") in home and not home & {index(p) for p in ("/old", "/moved", "/refresh", "/missing")}

    ranks = dict(RankQueries(r).export())
    assert set(ranks) == {site.url(p) for p in ("/", "/new", "/q?a=1&b=2")}  # no rank for 404/500 or the alias
    assert abs(sum(ranks.values()) - 1.0) < 1e-6
