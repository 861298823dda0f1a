"""The focused spider: fetch pages, let the pipelines decide which links count, follow those.

``parse`` yields one ``PageItem`` per page and no requests. Links are followed from the
pipelines' result: on ``item_scraped`` (after every pipeline) the item's ``follow`` links are
scheduled through ``crawler.engine.crawl`` with rank-aware priorities (crawler/priority.py).
Those requests bypass spider middlewares, so the spider applies the depth limit (DEPTH_LIMIT)
and the page budget (RANKCRAWL_MAX_PAGES) itself; the downloader middlewares still apply (offsite via
``allowed_domains``, robots.txt, safety), and the dupefilter drops repeats. With RANKCRAWL_ENABLED = False the pipelines are off and
the spider is a plain Scrapy crawler following every link (the baseline of bench/crawl.py).

Arguments (``-a name=value``): ``seeds`` (comma/space separated URLs), ``seeds_file`` (one URL
a line), ``seeds_key`` (a Redis list or set of URLs), ``allowed_domains`` (comma separated;
default: the seeds' host names), ``topic`` (comma separated terms, added to
RANKCRAWL_TOPIC_TERMS). The page budget RANKCRAWL_MAX_PAGES counts fetched pages: the frontier
keeps growing, and the priorities decide which pages the budget buys; once it is spent the spider
schedules nothing more and closes (reason ``page_budget``), finishing the pages in flight.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any, AsyncIterator, Iterable

import scrapy
from scrapy import signals
from scrapy.exceptions import DontCloseSpider
from scrapy.http import Response, TextResponse
from scrapy.linkextractors import LinkExtractor
from scrapy.utils.defer import deferred_from_coro

from rankcrawl.crawler.items import PageItem
from rankcrawl.crawler.priority import Prioritizer, RankCache
from rankcrawl.settings.urls import host_of, normalize_url
from rankcrawl.settings.connection import connect, resolve_redis_url
from rankcrawl.settings.defaults import DEFAULTS

SEPARATORS = re.compile(r"[\s,]+")


def split_list(value: str | Iterable[str] | None) -> list[str]:
    """A comma/space separated string (or an iterable) as a list of non-empty strings."""
    if not value:
        return []
    items = SEPARATORS.split(value) if isinstance(value, str) else list(value)
    return [s.strip() for s in items if s and s.strip()]


def check_seeds(urls: Iterable[str]) -> list[str]:
    """Normalised seed URLs; ValueError naming the first one that is not an http(s) URL."""
    seeds = []
    for url in urls:
        norm = normalize_url(url)
        if norm is None:
            raise ValueError(f"not an http(s) URL: {url!r}")
        seeds.append(norm)
    if not seeds:
        raise ValueError("no seed URLs given")
    return list(dict.fromkeys(seeds))


def seeds_from_key(redis_url: str | None, key: str) -> list[str]:
    """Seed URLs stored in a Redis list or set."""
    client = connect(redis_url)
    try:
        kind = client.type(key).decode()
        values = client.lrange(key, 0, -1) if kind == "list" else client.smembers(key) if kind == "set" else []
    finally:
        client.close()
    return sorted(v.decode() for v in values)


class FocusedSpider(scrapy.Spider):
    name = "rankcrawl"

    def __init__(
        self,
        seeds: str | Iterable[str] | None = None,
        seeds_file: str | None = None,
        seeds_key: str | None = None,
        allowed_domains: str | Iterable[str] | None = None,
        topic: str | Iterable[str] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self._seed_args = (split_list(seeds), seeds_file, seeds_key)
        self._allowed_arg = split_list(allowed_domains)
        self._topic_arg = split_list(topic)
        self.max_pages = 0
        self.seeds: list[str] = []
        self.fetched = 0
        self.closing = False
        self.idle_since: float | None = None

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> "FocusedSpider":
        spider = super().from_crawler(crawler, *args, **kwargs)
        s = crawler.settings
        urls, seeds_file, seeds_key = spider._seed_args
        if seeds_file:
            urls += split_list(Path(seeds_file).read_text(encoding="utf-8"))
        if seeds_key:
            urls += seeds_from_key(resolve_redis_url(None, s), seeds_key)
        spider.seeds = check_seeds(urls)
        spider.allowed_domains = spider._allowed_arg or sorted({host_of(u) for u in spider.seeds})
        spider.max_pages = s.getint("RANKCRAWL_MAX_PAGES", DEFAULTS["RANKCRAWL_MAX_PAGES"])
        spider.depth_limit = s.getint("DEPTH_LIMIT")
        spider.enabled = s.getbool("RANKCRAWL_ENABLED", DEFAULTS["RANKCRAWL_ENABLED"])
        spider.distributed = s.getbool("RANKCRAWL_DISTRIBUTED", DEFAULTS["RANKCRAWL_DISTRIBUTED"])
        spider.idle_timeout = s.getfloat("RANKCRAWL_IDLE_TIMEOUT", DEFAULTS["RANKCRAWL_IDLE_TIMEOUT"])
        terms = split_list(s.getlist("RANKCRAWL_TOPIC_TERMS", DEFAULTS["RANKCRAWL_TOPIC_TERMS"])) + spider._topic_arg
        spider.rank_cache = RankCache(
            resolve_redis_url(None, s),
            s.get("RANKCRAWL_KEY_PREFIX") or DEFAULTS["RANKCRAWL_KEY_PREFIX"],
            s.getfloat("RANKCRAWL_RANK_REFRESH", DEFAULTS["RANKCRAWL_RANK_REFRESH"]),
        )
        spider.prioritizer = Prioritizer(spider.rank_cache, terms)
        crawler.signals.connect(spider.item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(spider.spider_idle, signal=signals.spider_idle)
        crawler.signals.connect(spider.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(spider.spider_closed, signal=signals.spider_closed)
        return spider

    def spider_opened(self, spider: Any) -> None:
        if self.enabled:
            self.rank_cache.start()

    def spider_closed(self, spider: Any) -> None:
        if self.enabled:
            self.rank_cache.stop()

    async def start(self) -> AsyncIterator[scrapy.Request]:
        for url in self.seeds:
            yield scrapy.Request(url, callback=self.parse, meta={"depth": 0})

    def parse(self, response: Response) -> Iterable[PageItem | scrapy.Request]:
        encoding = response.encoding if isinstance(response, TextResponse) else None
        self.fetched += 1
        if self.budget_spent():
            self.close_for_budget()
        elif not self.enabled and isinstance(response, TextResponse):
            yield from self._plain_follow(response)
        yield PageItem(
            url=response.url,
            body=response.body,
            status=response.status,
            encoding=encoding,
            content_type=response.headers.get(b"Content-Type", b"").decode("latin-1"),
            depth=int(response.meta.get("depth", 0)),
            fetched_at=time.time(),
        )

    def item_scraped(self, item: Any, response: Response, spider: Any) -> None:
        """After the pipelines: schedule the item's followable links, best first."""
        self.idle_since = None
        if not isinstance(item, PageItem):
            return
        depth = item.depth + 1
        if self.depth_limit and depth > self.depth_limit:
            self.crawler.stats.inc_value("rankcrawl/follow/depth_limited", len(item.follow))
            return
        engine = self.crawler.engine
        if self.budget_spent():
            return
        for url, text, weight in item.follow:
            priority = self.prioritizer.priority(item.url, url, weight, text)
            engine.crawl(scrapy.Request(url, callback=self.parse, priority=priority, meta={"depth": depth}))

    def _plain_follow(self, response: TextResponse) -> Iterable[scrapy.Request]:
        """RANKCRAWL_ENABLED = False: a plain Scrapy crawl following every link (same budget)."""
        for link in LinkExtractor().extract_links(response):
            yield scrapy.Request(link.url, callback=self.parse)

    def budget_spent(self) -> bool:
        return bool(self.max_pages) and self.fetched >= self.max_pages

    def close_for_budget(self) -> None:
        """Close once the budget is spent; pages already downloaded still go through the pipelines."""
        if not self.closing:
            self.closing = True
            deferred_from_coro(self.crawler.engine.close_spider_async(reason="page_budget"))

    def spider_idle(self, spider: Any) -> None:
        """Distributed mode: wait up to RANKCRAWL_IDLE_TIMEOUT for other processes' requests."""
        if not self.distributed:
            return
        now = time.monotonic()
        self.idle_since = self.idle_since or now
        if now - self.idle_since < self.idle_timeout:
            raise DontCloseSpider
