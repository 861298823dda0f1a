"""Scrapy extension: a crawl that could fetch nothing ends with finish reason ``nothing_fetched``,
one ERROR line that says why, and a failed exit status.

Without it, ``scrapy crawl`` of a local site (loopback refused unless RANKCRAWL_ALLOW_PRIVATE), or
of a site that refuses every connection, exits 0 with no page. When the spider goes idle after
requests were made and no response at all arrived, the extension closes the spider with
``nothing_fetched`` (a ``CloseSpider`` from ``spider_idle``). When the address guard refused every
request, the guard's own ERROR line at close names the cause and its remedy
(``safety.all_refused``); otherwise the extension logs one line (every request failed; Scrapy's
errors above say how). Scrapy's ``scrapy crawl`` exits with status 1 when a crawler ends without a
spider, the only failure signal it reads from a crawl that ran, so the crawler's spider is cleared
once the engine stopped (after every ``spider_closed`` handler).
"""

from __future__ import annotations

import logging
from typing import Any

from scrapy import signals
from scrapy.exceptions import CloseSpider, NotConfigured

from rankcrawl.crawler.safety import all_refused
from rankcrawl.settings.config import RankcrawlConfig

logger = logging.getLogger(__name__)

NOTHING_FETCHED = "nothing_fetched"


def nothing_fetched(stats: dict[str, Any]) -> str | None:
    """Why a crawl that made requests got no response at all (None when it got one, or made none)."""
    if stats.get("downloader/response_count"):
        return None
    if refused := all_refused(stats):
        return refused
    tried = int(stats.get("downloader/request_count") or 0)
    return f"nothing was fetched: all {tried} requests failed (the errors above say why)" if tried else None


class CrawlOutcome:
    """Turns a crawl that fetched nothing into a failed crawl."""

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
        stats = self.crawler.stats.get_stats()
        why = nothing_fetched(stats)
        if why and not self.failed:
            self.failed = True
            if not all_refused(stats):  # (the guard logs its own line at close)
                logger.error("rankcrawl: %s", why)
            raise CloseSpider(NOTHING_FETCHED)

    def engine_stopped(self) -> None:
        if self.failed:
            self.crawler.spider = None
