"""``offsite_filter``: the follow middleware asks the crawl's offsite filter before it yields a request."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from scrapy import Request, Spider
from scrapy.downloadermiddlewares.offsite import OffsiteMiddleware
from scrapy.utils.test import get_crawler

from rankcrawl.crawler.follow import offsite_filter


class OneSite(Spider):
    name = "one-site"
    allowed_domains = ["a.test"]


class EverySite(OffsiteMiddleware):
    def should_follow(self, request: Request, spider: Spider) -> bool:
        return True


def crawl_with(*middlewares: type[OffsiteMiddleware]) -> tuple[Any, Any]:
    """A crawler whose downloader holds ``middlewares`` (real ones, opened on the spider)."""
    crawler = get_crawler(OneSite)
    spider = crawler.spider = OneSite()
    found = []
    for cls in middlewares:
        mw = cls.from_crawler(crawler)
        mw.spider_opened(spider)
        found.append(mw)
    stand_in = SimpleNamespace(engine=SimpleNamespace(downloader=SimpleNamespace(middleware=SimpleNamespace(
        middlewares=found))), spider=spider)
    return stand_in, crawler.stats


def test_offsite_requests_are_dropped_with_scrapys_stats() -> None:
    crawler, stats = crawl_with(OffsiteMiddleware)
    drops = offsite_filter(crawler)
    assert drops(Request("http://b.test/x")) and drops(Request("http://b.test/y"))
    assert not drops(Request("http://a.test/x")) and not drops(Request("http://www.a.test/"))
    assert not drops(Request("http://b.test/z", meta={"allow_offsite": True}))
    assert stats.get_value("offsite/filtered") == 2 and stats.get_value("offsite/domains") == 1


def test_a_subclass_policy_is_kept_and_no_filter_drops_nothing() -> None:
    assert not offsite_filter(crawl_with(EverySite)[0])(Request("http://b.test/x"))
    assert not offsite_filter(crawl_with()[0])(Request("http://b.test/x"))
    assert not offsite_filter(SimpleNamespace(spider=None))(Request("http://b.test/x"))  # no engine yet
