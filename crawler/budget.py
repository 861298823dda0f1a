"""The page budget RANKCRAWL_MAX_PAGES: pages that reached the spider, then the crawl closes.

Counted by the follow middleware (any spider) or, with the plugin off, by the bundled spider.
At the limit the crawl closes with reason ``page_budget``; requests the downloader already holds
(up to CONCURRENT_REQUESTS) are still fetched and analysed, as with Scrapy's CLOSESPIDER_PAGECOUNT.
"""

from __future__ import annotations

from typing import Any

from scrapy.utils.defer import deferred_from_coro


class PageBudget:
    """RANKCRAWL_MAX_PAGES: counts pages that reach the spider and closes the crawl at the limit."""

    def __init__(self, crawler: Any, limit: int) -> None:
        self.crawler, self.limit = crawler, limit
        self.fetched = 0
        self.closing = False

    def count(self) -> None:
        self.fetched += 1
        if self.spent() and not self.closing:
            self.closing = True
            deferred_from_coro(self.crawler.engine.close_spider_async(reason="page_budget"))

    def spent(self) -> bool:
        return bool(self.limit) and self.fetched >= self.limit
