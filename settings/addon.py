"""The Scrapy add-on: ``ADDONS = {"rankcrawl.settings.Addon": 0}`` turns rankcrawl on.

It names components by dotted string only (``settings`` imports no other rankcrawl package) and
writes at ``addon`` priority, so project, spider and command-line settings still win.
"""

from __future__ import annotations

from typing import Any

from rankcrawl.settings.connection import retry_policy
from rankcrawl.settings.defaults import DEFAULTS

PIPELINES = {
    "rankcrawl.pipelines.analysis_pipeline.AnalysisPipeline": 300,
    "rankcrawl.pipelines.edge_pipeline.EdgePushPipeline": 800,
}
DOWNLOADER_MIDDLEWARES = {"rankcrawl.crawler.safety.SafetyMiddleware": 40}
EXTENSIONS = {"rankcrawl.crawler.ranker_extension.RankerExtension": 500}
USER_AGENT = "rankcrawl/0.1 (focused crawler; Scrapy)"
CRAWLING = {  # politeness; FIFO among equal priorities (breadth-first)
    "ROBOTSTXT_OBEY": True,
    "CONCURRENT_REQUESTS_PER_DOMAIN": 2,
    "DOWNLOAD_DELAY": 0.25,
    "AUTOTHROTTLE_ENABLED": True,
    "AUTOTHROTTLE_START_DELAY": 1.0,
    "AUTOTHROTTLE_TARGET_CONCURRENCY": 2.0,
    "USER_AGENT": USER_AGENT,
    "SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.FifoMemoryQueue",
    "SCHEDULER_DISK_QUEUE": "scrapy.squeues.PickleFifoDiskQueue",
}


def distributed_settings(redis_url: str, prefix: str) -> dict[str, Any]:
    """scrapy-redis's shared scheduler and dupefilter under rankcrawl's key prefix.

    Its ``PriorityQueue`` is a sorted set scored by ``-request.priority``, so rankcrawl's rank-aware
    priorities order the shared frontier. Entries are JSON (``rankcrawl.crawler.frontier``), never
    pickle, and an entry that is not a checked request is skipped. On a Redis Cluster, every frontier key lives on one slot
    (``{crawl}`` hash tag); the frontier is one hot key by design, the graph is the sharded part.
    """
    return {
        "SCHEDULER": "scrapy_redis.scheduler.Scheduler",
        "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
        "SCHEDULER_PERSIST": True,
        "SCHEDULER_QUEUE_CLASS": "rankcrawl.crawler.frontier.SafePriorityQueue",
        "SCHEDULER_SERIALIZER": "rankcrawl.crawler.frontier",
        "SCHEDULER_QUEUE_KEY": f"{prefix}{{crawl}}:%(spider)s:requests",
        "SCHEDULER_DUPEFILTER_KEY": f"{prefix}{{crawl}}:%(spider)s:dupefilter",
        "REDIS_URL": redis_url,
        "REDIS_PARAMS": {"retry": retry_policy()},  # scrapy-redis makes its own client: same retry policy
    }


class Addon:
    """Enables rankcrawl's pipelines, safety middleware, ranker and priorities in one line."""

    @classmethod
    def from_crawler(cls, crawler: Any) -> "Addon":
        from scrapy.exceptions import NotConfigured

        if not crawler.settings.getbool("RANKCRAWL_ENABLED", DEFAULTS["RANKCRAWL_ENABLED"]):
            raise NotConfigured("RANKCRAWL_ENABLED is False")
        return cls()

    def update_settings(self, settings: Any) -> None:
        """Write rankcrawl's defaults, components and politeness at ``addon`` priority."""
        for name, value in DEFAULTS.items():
            settings.set(name, value, priority="addon")
        for name, value in CRAWLING.items():
            settings.set(name, value, priority="addon")
        cap = settings.getint("RANKCRAWL_MAX_PAGE_BYTES")
        settings.set("DOWNLOAD_WARNSIZE", cap, priority="addon")
        settings.set("DOWNLOAD_MAXSIZE", 4 * cap, priority="addon")
        for setting, components in (
            ("ITEM_PIPELINES", PIPELINES),
            ("DOWNLOADER_MIDDLEWARES", DOWNLOADER_MIDDLEWARES),
            ("EXTENSIONS", EXTENSIONS),
        ):
            for path, order in components.items():
                settings[setting][path] = order
        if settings.getbool("RANKCRAWL_DISTRIBUTED"):
            for name, value in distributed_settings(redis_url(settings), settings.get("RANKCRAWL_KEY_PREFIX")).items():
                settings.set(name, value, priority="addon")


def redis_url(settings: Any) -> str:
    """The crawl's Redis URL: RANKCRAWL_REDIS_URL, REDIS_URL, else the embedded server (started now)."""
    from rankcrawl.settings.connection import embedded_server, resolve_redis_url

    return resolve_redis_url(None, settings) or embedded_server().ensure_running()
