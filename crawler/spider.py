"""The bundled focused spider: seeds, allowed domains and topic in, everything else from the add-on.

``scrapy crawl rankcrawl -a seeds=...`` (the add-on registers this module in SPIDER_MODULES; the
README's ``SPIDER_MODULES +=`` line also lists it in ``scrapy list``) or ``rankcrawl crawl``.
``parse`` yields no request: the follow middleware (``crawler/follow.py``) analyses every page,
stores its edges and follows its links with rank-aware priorities, as it does for any spider; with
a feed export (``-o``/``-O``, FEEDS) it yields one small item per page. With RANKCRAWL_ENABLED =
False the plugin is off and the spider is a plain Scrapy crawler following every link under the same page budget (the baseline of bench/crawl.py).

Arguments (``-a name=value``): ``seeds`` (comma/space separated URLs), ``seeds_file`` (one URL
a line), ``seeds_key`` (a Redis list or set of URLs), ``allowed_domains`` (comma separated;
default: the seeds' host names), ``topic`` (comma separated terms, added to
RANKCRAWL_TOPIC_TERMS). In distributed mode an idle process waits RANKCRAWL_IDLE_TIMEOUT seconds
for requests of the other processes before closing.
"""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

import scrapy
from scrapy import signals
from scrapy.exceptions import DontCloseSpider
from scrapy.http import Response, TextResponse
from scrapy.linkextractors import LinkExtractor

from rankcrawl.crawler.budget import PageBudget
from rankcrawl.settings.config import RankcrawlConfig
from rankcrawl.settings.connection import connect
from rankcrawl.settings.urls import host_of, normalize_url

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
    client = connect(redis_url, decode_responses=True)
    try:
        kind = client.type(key)
        values = client.lrange(key, 0, -1) if kind == "list" else client.smembers(key) if kind == "set" else []
    finally:
        client.close()
    return sorted(str(v) for v in values)


class FocusedSpider(scrapy.Spider):
    name = "rankcrawl"
    custom_settings: dict[str, Any] | None = {"CONCURRENT_ITEMS": 1}
    """Its callbacks and the follow middleware yield requests only, each scheduled at once: Scrapy's
    CONCURRENT_ITEMS slots are idle asyncio tasks (100 per response by default) held while the page
    is analysed, and their garbage collection costs the crawl process CPU (docs/BENCHMARKS.md)."""
    allowed_domains: list[str]
    config: RankcrawlConfig
    plain_budget: PageBudget | None
    feed_pages: bool

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
        self.topic_terms = split_list(topic)
        self.seeds: list[str] = []
        self.idle_since: float | None = None

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> FocusedSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        config = RankcrawlConfig.of(crawler)
        urls, seeds_file, seeds_key = spider._seed_args
        if seeds_file:
            urls += split_list(Path(seeds_file).read_text(encoding="utf-8"))
        if seeds_key:
            urls += seeds_from_key(config.redis_url, seeds_key)
        spider.seeds = check_seeds(urls)
        spider.allowed_domains = spider._allowed_arg or sorted({host_of(u) for u in spider.seeds})
        spider.config = config
        spider.plain_budget = None if config.enabled else PageBudget(crawler, config.max_pages)
        spider.feed_pages = bool(crawler.settings.getdict("FEEDS"))
        crawler.signals.connect(spider.spider_idle, signal=signals.spider_idle)
        return spider

    async def start(self) -> AsyncIterator[scrapy.Request]:
        for url in self.seeds:
            yield scrapy.Request(url)

    def parse(self, response: Response) -> Iterable[scrapy.Request | dict[str, Any]]:
        """With a feed export (``-o``/``-O``, FEEDS), one item per page: url, status, depth, title. With
        the plugin on, no request (the follow middleware follows); without it, every link."""
        self.idle_since = None
        if self.feed_pages and isinstance(response, TextResponse):
            yield {"url": response.url, "status": response.status, "depth": response.meta.get("depth", 0),
                   "title": (response.xpath("normalize-space(//title)").get() or "")}
        if self.plain_budget is None:
            return
        self.plain_budget.count()
        if not self.plain_budget.spent() and isinstance(response, TextResponse):
            for link in LinkExtractor().extract_links(response):
                yield scrapy.Request(link.url)

    def spider_idle(self, spider: Any) -> None:
        """Distributed mode: wait up to RANKCRAWL_IDLE_TIMEOUT for other processes' requests."""
        if not self.config.distributed:
            return
        now = time.monotonic()
        self.idle_since = self.idle_since or now
        if now - self.idle_since < self.config.idle_timeout:
            raise DontCloseSpider
