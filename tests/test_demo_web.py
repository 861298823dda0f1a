"""The demo web: deterministic, ground truth consistent with the served HTML, servers that stop."""

from __future__ import annotations

import socket
import urllib.error
import urllib.request
from collections import Counter
from urllib.parse import urljoin

import lxml.html
import networkx as nx
import numpy as np
import pytest

from rankcrawl.crawler.demoweb.vocabulary import TOPICS, related_topics
from rankcrawl.crawler.demoweb.web import DemoWeb
from rankcrawl.settings.urls import normalize_url, split_url


def fetch(url: str) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status, resp.headers.get("Content-Type", ""), resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Content-Type", ""), exc.read()


def region_links(html: bytes, url: str) -> tuple[list[str], list[str]]:
    """Links inside <main> and outside it, resolved as a browser does (honouring <base href>)."""
    root = lxml.html.document_fromstring(html)
    base = root.xpath("//base/@href")
    base_url = urljoin(url, base[0]) if base else url
    inside, outside = [], []
    for a in root.iter("a"):
        target = normalize_url(a.get("href", ""), base_url)
        (inside if a.xpath("ancestor::main") else outside).append(target)
    return inside, outside


def test_generation_is_deterministic_and_sized() -> None:
    a, b = DemoWeb(seed=3, n_hosts=5, pages_per_host=20), DemoWeb(seed=3, n_hosts=5, pages_per_host=20)
    assert len(a.pages) == 5 * 20
    assert {u: p.html for u, p in a.pages.items()} == {u: p.html for u, p in b.pages.items()}
    assert {p.html for p in DemoWeb(seed=4, n_hosts=5, pages_per_host=20).pages.values()} != {
        p.html for p in a.pages.values()
    }
    assert len({split_url(u)[0] for u in a.pages}) == 5


@pytest.mark.parametrize("kwargs", [{"n_hosts": 1}, {"pages_per_host": 5}])
def test_too_small_webs_are_refused(kwargs: dict[str, int]) -> None:
    with pytest.raises(ValueError, match="at least"):
        DemoWeb(**kwargs)


def test_ground_truth_links_resolve_to_pages_or_off_crawl() -> None:
    web = DemoWeb(seed=1, n_hosts=4, pages_per_host=16)
    external = normalize_url(web.external_origin)
    for page in web.pages.values():
        assert all(link in web.pages for link in page.content_links)
        for link in page.template_links:
            assert link in web.pages or split_url(link)[0] == split_url(external)[0]
    kinds = Counter(p.kind for p in web.pages.values())
    assert kinds["home"] == 4 and kinds["section"] == 12 and kinds["private"] == 4


def test_content_graph_ranks_authorities_not_template_targets() -> None:
    web = DemoWeb(seed=0, n_hosts=6, pages_per_host=30)
    urls, src, dst = web.content_graph()
    assert urls == sorted(web.pages) and src.dtype == np.int64 and len(src) == len(dst) > 100
    assert len({split_url(urls[s])[0] != split_url(urls[d])[0] for s, d in zip(src, dst)}) == 2

    def top(graph: tuple[list[str], np.ndarray, np.ndarray], k: int) -> set[str]:
        names, s, d = graph
        g = nx.DiGraph()
        g.add_nodes_from(range(len(names)))
        g.add_edges_from(zip(s.tolist(), d.tolist()))
        ranks = nx.pagerank(g, alpha=0.85)
        return {names[i] for i in sorted(ranks, key=ranks.get, reverse=True)[:k]}

    content_top, template_top = top(web.content_graph(), 5), top(web.template_graph(), 5)
    assert len(content_top & set(web.authorities)) >= 3
    assert not template_top & set(web.authorities)
    assert web.pages[next(iter(template_top))].kind in {"home", "section", "static", "private"}


def test_served_pages_match_ground_truth() -> None:
    with DemoWeb(seed=2, n_hosts=3, pages_per_host=14).serve() as web:
        assert all(u.startswith("http://127.0.0.1:") for u in web.seeds)
        for page in web.pages.values():
            status, ctype, body = fetch(page.url)
            assert status == 200 and body == page.body
            inside, outside = region_links(body, page.url)
            assert sorted(set(inside)) == sorted(page.content_links), page.url
            assert sorted(set(outside)) == sorted(page.template_links), page.url
        assert web.hits[web.seeds[0]] == 1


def test_robots_and_tricky_pages_are_served() -> None:
    with DemoWeb(seed=0, n_hosts=2, pages_per_host=12).serve() as web:
        for origin in web.origins:
            status, _, body = fetch(origin + "/robots.txt")
            assert status == 200 and b"Disallow: /private/" in body
        assert all(fetch(u)[0] == 200 and "/private/" in u for u in web.robots_disallowed)
        assert fetch(web.origins[0] + "/no/such/page")[0] == 404
        cp1252 = next(p for p in web.pages.values() if p.encoding == "cp1252")
        status, ctype, body = fetch(cp1252.url)
        assert "charset" not in ctype and b"\x93we\x92re open\x94" in body
        assert "crème brûlée" in body.decode("cp1252")
        based = next(p for p in web.pages.values() if "<base href" in p.html)
        root = lxml.html.document_fromstring(based.html)
        naive = {normalize_url(a.get("href"), based.url) for a in root.xpath("//main//a")}
        assert naive != set(based.content_links)  # only resolving against <base> gets them right
        status, _, body = fetch(web.oversized_url)
        assert status == 200 and len(body) > 2 * 1024 * 1024
        with pytest.raises(urllib.error.URLError):
            fetch(web.external_origin + "/anything")


def test_servers_stop_on_exit() -> None:
    with DemoWeb(seed=0, n_hosts=2, pages_per_host=12).serve() as web:
        ports = [int(o.rsplit(":", 1)[1]) for o in web.origins]
        assert fetch(web.seeds[0])[0] == 200
    for port in ports:
        with socket.socket() as sock, pytest.raises(OSError):
            sock.settimeout(1)
            sock.connect(("127.0.0.1", port))


def test_article_prose_and_links_are_topical() -> None:
    web = DemoWeb(seed=0, n_hosts=6, pages_per_host=30)
    topics = web.topics
    links = [(u, d) for u in topics for d in web.pages[u].content_links]
    near = sum(topics[d] in related_topics(topics[u]) for u, d in links)
    assert len(links) > 200 and near / len(links) > 0.8
    for url, topic in topics.items():
        text = lxml.html.document_fromstring(web.pages[url].html).xpath("string(//main)").lower().split()
        own = sum(w.strip(".,()") in TOPICS[topic].split() for w in text)
        other = max(sum(w.strip(".,()") in TOPICS[t].split() for w in text) for t in range(len(TOPICS)) if t != topic)
        assert own > 3 * other, url
