"""``OffsiteFilter``: the follow middleware asks the crawl's offsite filter before it makes a request."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from scrapy import Request, Spider
from scrapy.downloadermiddlewares.offsite import OffsiteMiddleware
from scrapy.utils.test import get_crawler

from rankcrawl.crawler.follow import OffsiteFilter


class OneSite(Spider):
    name = "one-site"
    allowed_domains = ["a.test"]


class EverySite(OffsiteMiddleware):
    def should_follow(self, request: Request, spider: Spider) -> bool:
        return True


class NoPrivatePaths(OffsiteMiddleware):
    def should_follow(self, request: Request, spider: Spider) -> bool:
        return "/private/" not in request.url


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
    stand_in.stats = crawler.stats
    return stand_in, crawler.stats


def test_offsite_requests_are_dropped_with_scrapys_stats() -> None:
    crawler, stats = crawl_with(OffsiteMiddleware)
    drops = OffsiteFilter(crawler)
    assert drops("http://b.test/x") and drops("http://b.test/y") and drops("http://c.test/")
    assert not drops("http://a.test/x") and not drops("http://www.a.test/") and not drops("http://a.test/y")
    assert stats.get_value("offsite/filtered") == 3 and stats.get_value("offsite/domains") == 2
    assert len(drops.verdicts) == 4  # one verdict per host: b.test's second URL was not asked again


def test_host_verdicts_follow_the_spiders_allowed_domains() -> None:
    crawler, stats = crawl_with(OffsiteMiddleware)
    drops = OffsiteFilter(crawler)
    assert drops("http://b.test/x")
    crawler.spider.allowed_domains = ["a.test", "b.test"]
    assert not drops("http://b.test/y")
    assert stats.get_value("offsite/filtered") == 1


def test_a_subclass_policy_is_kept_and_no_filter_drops_nothing() -> None:
    assert not OffsiteFilter(crawl_with(EverySite)[0])("http://b.test/x")
    drops = OffsiteFilter(crawl_with(NoPrivatePaths)[0])  # a policy beyond the host: asked for every URL
    assert not drops("http://a.test/public/") and drops("http://a.test/private/") and not drops("http://a.test/x")
    assert not OffsiteFilter(crawl_with()[0])("http://b.test/x")
    assert not OffsiteFilter(SimpleNamespace(spider=None))("http://b.test/x")  # no engine yet
