"""Scrapy extension: a crawl that could fetch nothing because the SSRF guard refused every request
ends with finish reason ``nothing_fetched`` and a failed exit status.

Without it, ``scrapy crawl`` of a local site (loopback refused unless RANKCRAWL_ALLOW_PRIVATE)
exits 0 with no page. When the spider goes idle and the guard refused (or could not resolve)
every request while nothing was downloaded, the extension closes the spider with
``nothing_fetched`` (a ``CloseSpider`` from ``spider_idle``); the guard's one ERROR line at close
names the cause and its remedy (``safety.all_refused``). Scrapy's ``scrapy crawl`` exits with status 1 when a crawler ends without a
spider, the only failure signal it reads from a crawl that ran, so the crawler's spider is cleared
once the engine stopped (after every ``spider_closed`` handler).
"""

from __future__ import annotations

from typing import Any

from scrapy import signals
from scrapy.exceptions import CloseSpider, NotConfigured

from rankcrawl.crawler.safety import all_refused
from rankcrawl.settings.config import RankcrawlConfig

NOTHING_FETCHED = "nothing_fetched"


class CrawlOutcome:
    """Turns a crawl that fetched nothing because of the address guard into a failed crawl."""

    def __init__(self, crawler: Any) -> None:
        self.crawler = crawler
        self.failed = False

    @classmethod
    def from_crawler(cls, crawler: Any) -> CrawlOutcome:
        if not RankcrawlConfig.of(crawler).enabled:
            raise NotConfigured("RANKCRAWL_ENABLED is False")
        ext = cls(crawler)
        crawler.signals.connect(ext.spider_idle, signal=signals.spider_idle)
        crawler.signals.connect(ext.engine_stopped, signal=signals.engine_stopped)
        return ext

    def spider_idle(self, spider: Any) -> None:
        refused = all_refused(self.crawler.stats.get_stats())
        if refused and not self.failed:
            self.failed = True
            raise CloseSpider(NOTHING_FETCHED)

    def engine_stopped(self) -> None:
        if self.failed:
            self.crawler.spider = None
