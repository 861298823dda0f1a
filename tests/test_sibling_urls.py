"""Sibling URLs: a host's pages of one file name share their in-link evidence in the pagerank frontier."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from scrapy import Request, Spider
from scrapy.utils.test import get_crawler

from rankcrawl.crawler.frontier_scores import LINK_META
from rankcrawl.crawler.scheduler import RankedScheduler
from rankcrawl.crawler.sibling_urls import GROUP_RESCORE_LIMIT, SIBLING_WEIGHT, SiblingTally, sibling_group


class Demo(Spider):
    name = "demo"


def scheduler(**settings: Any) -> RankedScheduler:
    crawler = get_crawler(Demo, {"RANKCRAWL_REDIS_URL": "redis://127.0.0.1:9/0", "RANKCRAWL_FRONTIER": "pagerank",
                                 **settings})
    s = RankedScheduler.from_crawler(crawler)
    s.open(Demo.from_crawler(crawler))
    return s


def link(url: str) -> Request:
    return Request(url, meta={LINK_META: [1.0, 0.1], "depth": 1})


def test_the_group_is_the_hosts_file_name_and_generic_names_have_none() -> None:
    en = sibling_group("a.test", "http://a.test/docs/en/mod/core.html?x=1")
    assert en is not None and en == sibling_group("a.test", "http://a.test/docs/fr/mod/core.html")
    assert en != sibling_group("b.test", "http://b.test/docs/en/mod/core.html")  # another host
    assert en != sibling_group("a.test", "http://a.test/docs/en/mod/core.htm")
    for generic in ("http://a.test/docs/", "http://a.test/docs/en/index.html", "http://a.test/", "http://a.test"):
        assert sibling_group("a.test", generic) is None


@pytest.mark.parametrize("url", ["http://a.test/x/y.html?q=/z.html#f", "https://a.test:8080", "https://a.test?x=/a/b.html",
                                 "http://a.test/#/a.html", "http://u@a.test/p/q.html", "http://a.test/a%20b.html"])
def test_the_group_reads_the_path_as_urlsplit_does(url: str) -> None:
    name = urlsplit(url).path.rsplit("/", 1)[-1]
    assert sibling_group("a.test", url) == (sibling_group("a.test", f"http://a.test/d/{name}") if name else None)


def test_sibling_evidence_is_the_weighted_mean_of_the_other_urls() -> None:
    t = SiblingTally()
    g = 1
    for key in ("en", "fr", "ja"):
        t.queued(g, key)
    t.linked(g, 6.0)  # six in-links to the English page
    assert t.evidence(g, 6.0) == 0.0  # its own links are not its siblings'
    assert t.evidence(g, 0.0) == pytest.approx(SIBLING_WEIGHT * 6.0 / 2)
    assert t.evidence(None, 0.0) == 0.0
    t.taken(g, "en")
    assert sorted(t.others(g, "fr")) == ["ja"]  # handed-out URLs stay members, no longer re-scored
    assert t.evidence(g, 0.0) == pytest.approx(SIBLING_WEIGHT * 3.0)


def test_a_large_group_is_left_to_the_next_epoch() -> None:
    t = SiblingTally()
    g = 2
    for i in range(GROUP_RESCORE_LIMIT + 2):
        t.queued(g, i)
    assert list(t.others(g, 0)) == []


def test_in_links_to_one_language_raise_its_translation_in_the_queue() -> None:
    s = scheduler()
    for url in ("http://a.test/fr/intro.html", "http://a.test/fr/faq.html", "http://a.test/fr/core.html",
                "http://a.test/en/core.html"):
        s.enqueue_request(link(url))
    for _ in range(5):  # the English page is linked from five more fetched pages
        s.enqueue_request(link("http://a.test/en/core.html"))
    order = [r.url for r in iter(s.next_request, None)]
    assert order[:2] == ["http://a.test/en/core.html", "http://a.test/fr/core.html"]


def test_a_resumed_crawl_keeps_the_sibling_evidence(tmp_path: Path) -> None:
    first = scheduler(JOBDIR=str(tmp_path))
    for url in ("http://a.test/en/core.html", "http://a.test/fr/faq.html", "http://a.test/fr/core.html"):
        first.enqueue_request(link(url))
    for _ in range(5):
        first.enqueue_request(link("http://a.test/en/core.html"))
    assert first.next_request().url == "http://a.test/en/core.html"
    first.close("shutdown")
    second = scheduler(JOBDIR=str(tmp_path))
    assert second.next_request().url == "http://a.test/fr/core.html"
    second.close("finished")
