"""Run a focused crawl programmatically: ``build_settings`` and ``run_crawl`` (``CrawlerProcess``).

Twisted's reactor runs once per process: call ``run_crawl`` once (tests and the demo run it in
a subprocess, e.g. ``rankcrawl crawl``).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from scrapy.crawler import CrawlerProcess
from scrapy.settings import Settings

from rankcrawl.crawler.spider import FocusedSpider, check_seeds
from rankcrawl.settings.addon import redis_url as crawl_redis_url
from rankcrawl.settings.connection import connect
from rankcrawl.settings.defaults import DEFAULTS, check_choices

BASE = {
    "ADDONS": {"rankcrawl.settings.Addon": 0},
    "TELNETCONSOLE_ENABLED": False,
    "REMOTE_CONTROL_ENABLED": False,
    "LOG_LEVEL": "INFO",
}


def build_settings(seeds: Sequence[str], max_pages: int | None = None,
                   overrides: Mapping[str, Any] | None = None, redis_url: str | None = None) -> Settings:
    """Scrapy settings for a rankcrawl crawl: the add-on on, overrides at command-line priority.

    The Redis URL is resolved now (explicit, RANKCRAWL_REDIS_URL/REDIS_URL, else the embedded
    Valkey, started here), so every component and every subprocess uses the same server.
    """
    check_seeds(seeds)
    settings = Settings()
    settings.setdict(BASE, priority="project")
    settings.setdict(dict(overrides or {}), priority="cmdline")
    if max_pages:
        settings.set("RANKCRAWL_MAX_PAGES", int(max_pages), priority="cmdline")
    if redis_url:
        settings.set("RANKCRAWL_REDIS_URL", redis_url, priority="cmdline")
    check_choices(settings)
    settings.set("RANKCRAWL_REDIS_URL", crawl_redis_url(settings), priority="project")
    return settings


def run_crawl(seeds: Sequence[str], max_pages: int | None = None,
              overrides: Mapping[str, Any] | None = None, redis_url: str | None = None) -> dict[str, Any]:
    """Crawl from ``seeds`` until the frontier or the page budget is exhausted; the final stats."""
    settings = build_settings(seeds, max_pages, overrides, redis_url)
    if settings.getbool("RANKCRAWL_ENABLED", DEFAULTS["RANKCRAWL_ENABLED"]):
        connect(settings.get("RANKCRAWL_REDIS_URL")).close()  # RedisUnavailable: one clear error before crawling
    process = CrawlerProcess(settings, install_root_handler=True)
    crawler = process.create_crawler(FocusedSpider)
    process.crawl(crawler, seeds=list(seeds))
    process.start()
    return dict(crawler.stats.get_stats())
