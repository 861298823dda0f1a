"""Run a focused crawl programmatically: ``build_settings`` and ``run_crawl`` (``CrawlerProcess``).

Twisted's reactor runs once per process: call ``run_crawl`` once (tests and the demo run it in
a subprocess, e.g. ``rankcrawl crawl``). Every ``RANKCRAWL_*`` value is checked and the Redis
server is probed for writes before the crawl starts, so a bad setting or a full or read-only
Redis is one clear error instead of a crawl that stores nothing.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from scrapy.crawler import Crawler, CrawlerProcess
from scrapy.settings import Settings

from rankcrawl.crawler.spider import FocusedSpider, check_seeds
from rankcrawl.settings.addon import check_extras
from rankcrawl.settings.addon import redis_url as crawl_redis_url
from rankcrawl.settings.config import RankcrawlConfig
from rankcrawl.settings.connection import connect, probe_writable
from rankcrawl.settings.scrapy_values import check_scrapy_values

BASE = {
    "ADDONS": {"rankcrawl.settings.Addon": 0},
    "TELNETCONSOLE_ENABLED": False,
    "REMOTE_CONTROL_ENABLED": False,
    "LOG_LEVEL": "INFO",
}


def build_settings(seeds: Sequence[str], max_pages: int | None = None,
                   overrides: Mapping[str, Any] | None = None, redis_url: str | None = None) -> Settings:
    """Scrapy settings for a rankcrawl crawl: the add-on on, overrides at command-line priority.

    Raises ``SettingError`` (one line) for a bad ``RANKCRAWL_*`` name or value or a Scrapy setting
    Scrapy cannot read. The Redis URL is resolved
    now (explicit, RANKCRAWL_REDIS_URL/REDIS_URL, else the embedded Valkey, started here), so
    every component and every subprocess uses the same server.
    """
    check_seeds(seeds)
    settings = Settings()
    settings.setdict(BASE, priority="project")
    settings.setdict(dict(overrides or {}), priority="cmdline")
    if max_pages:
        settings.set("RANKCRAWL_MAX_PAGES", int(max_pages), priority="cmdline")
    if redis_url:
        settings.set("RANKCRAWL_REDIS_URL", redis_url, priority="cmdline")
    check_scrapy_values(settings)
    check_extras(RankcrawlConfig.from_settings(settings))
    settings.set("RANKCRAWL_REDIS_URL", crawl_redis_url(settings), priority="project")
    return settings


def run_crawl(seeds: Sequence[str], max_pages: int | None = None, overrides: Mapping[str, Any] | None = None,
              redis_url: str | None = None, spider_args: Mapping[str, str] | None = None,
              on_crawler: Callable[[Crawler], None] | None = None) -> dict[str, Any]:
    """Crawl from ``seeds`` until the frontier or the page budget is exhausted; the final stats.
    ``spider_args`` are the focused spider's other arguments (``allowed_domains``, ``topic``);
    ``on_crawler`` gets the crawler before it starts (to connect to its signals)."""
    settings = build_settings(seeds, max_pages, overrides, redis_url)
    config = RankcrawlConfig.from_settings(settings)
    if config.enabled:
        client = connect(config.redis_url)  # RedisUnavailable: one clear error before crawling
        try:
            probe_writable(client, config.key_prefix)
        finally:
            client.close()
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(FocusedSpider)
    if on_crawler is not None:
        on_crawler(crawler)
    process.crawl(crawler, **{**(spider_args or {}), "seeds": list(seeds)})
    gc.freeze()  # the imports and the crawler built so far live to the end: no collection scans them again
    process.start()
    return dict(crawler.stats.get_stats())
