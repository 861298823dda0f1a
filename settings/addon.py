"""The Scrapy add-on: ``ADDONS = {"rankcrawl.settings.Addon": 0}`` turns rankcrawl on.

It names components by dotted string (``settings`` imports no other rankcrawl package; the
classes are loaded when the add-on runs), adds each only where the user's component dicts do
not name it already (so a user's order or ``None`` stays), writes other settings at ``addon``
priority only where nothing of higher priority set them, registers the bundled spider
(``scrapy crawl rankcrawl``), and checks every ``RANKCRAWL_*`` name and value, and the values of
Scrapy's typed settings, before the crawl (project and command-line values when the crawler process
is made, a spider's own when its crawler starts): a bad one stops it with a ``SettingError`` naming
the setting and its allowed values. A Redis that cannot be reached stops it the same way, in one
line; third-party loggers that flood a DEBUG log are set to INFO (``log_levels``).
"""

from __future__ import annotations

import importlib
import logging
import sys
from types import TracebackType
from typing import Any

from scrapy.settings import SETTINGS_PRIORITIES
from scrapy.utils.misc import load_object

from rankcrawl.settings.config import RankcrawlConfig, SettingError
from rankcrawl.settings.connection import RedisUnavailable, connect, probe_writable, retry_policy
from rankcrawl.settings.defaults import DEFAULTS
from rankcrawl.settings.keys import Keys
from rankcrawl.settings.log_levels import quiet_noisy_loggers
from rankcrawl.settings.scrapy_values import check_scrapy_values

SPIDER_MODULE = "rankcrawl.crawler.spider"
PIPELINES = {"rankcrawl.pipelines.analysis_pipeline.AnalysisPipeline": 300}
SPIDER_MIDDLEWARES = {"rankcrawl.crawler.follow.FollowMiddleware": 950}  # below the spider, above Depth (900),
                                                                          # UrlLength (800) and Referer (700)
DOWNLOADER_MIDDLEWARES = {"rankcrawl.crawler.safety.SafetyMiddleware": 40,  # redirects: see crawler/redirects.py
                          "rankcrawl.crawler.redirects.RedirectAliasMiddleware": 650,
                          "rankcrawl.crawler.redirects.MetaRefreshAliasMiddleware": 585}
EXTENSIONS = {"rankcrawl.crawler.ranker_extension.RankerExtension": 500,
              "rankcrawl.crawler.progress_log.ProgressLog": 510,
              "rankcrawl.crawler.crawl_outcome.CrawlOutcome": 520}
USER_AGENT = "rankcrawl/0.1 (focused crawler; Scrapy)"
SCHEDULER = "rankcrawl.crawler.scheduler.RankedScheduler"  # the re-scoring frontier (RANKCRAWL_FRONTIER)
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
    """scrapy-redis's shared frontier and dupefilter under rankcrawl's key prefix, written and read in
    batches (``rankcrawl.crawler.shared_scheduler.BatchedScheduler``).

    The frontier is a sorted set of fingerprints scored by ``RANKCRAWL_FRONTIER`` (re-scored while
    URLs wait) and a hash of their requests. Entries are JSON (``rankcrawl.crawler.frontier``), never
    pickle, and an entry that is not a checked request is skipped. On a Redis Cluster, every frontier key lives on one slot
    (``{crawl}`` hash tag); the frontier is one hot key by design, the graph is the sharded part.
    """
    return {
        "SCHEDULER": "rankcrawl.crawler.shared_scheduler.BatchedScheduler",
        "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
        "SCHEDULER_PERSIST": True,
        "SCHEDULER_QUEUE_CLASS": "rankcrawl.crawler.shared_frontier.SharedFrontier",
        "SCHEDULER_SERIALIZER": "rankcrawl.crawler.frontier",
        "SCHEDULER_QUEUE_KEY": Keys(prefix).frontier,
        "SCHEDULER_DUPEFILTER_KEY": Keys(prefix).dupefilter,
        "REDIS_URL": redis_url,
        "REDIS_PARAMS": {"retry": retry_policy()},  # scrapy-redis makes its own client: same retry policy
    }


class Addon:
    """Enables rankcrawl's analysis, edges, following, safety middleware and ranker in one line."""

    @classmethod
    def update_pre_crawler_settings(cls, settings: Any) -> None:
        """Check the project's and the command line's values (SettingError before any crawler exists)
        and register the bundled spider: ``scrapy crawl rankcrawl`` in any project."""
        quiet_noisy_loggers()
        try:
            check_scrapy_values(settings)
            check_extras(RankcrawlConfig.from_settings(settings))
        except SettingError:
            report_uncaught_setting_errors()
            raise
        modules = settings.getlist("SPIDER_MODULES")
        if SPIDER_MODULE not in modules:
            settings.set("SPIDER_MODULES", [*modules, SPIDER_MODULE], priority=settings.getpriority("SPIDER_MODULES") or "addon")

    @classmethod
    def from_crawler(cls, crawler: Any) -> Addon:
        from scrapy.exceptions import NotConfigured

        quiet_noisy_loggers()
        report_uncaught_setting_errors()  # a spider's custom_settings are first read here
        try:
            check_scrapy_values(crawler.settings)
            config = RankcrawlConfig.from_settings(crawler.settings)  # SettingError: the crawl does not start
            if config.enabled:
                probe_redis(config)  # RedisUnavailable: before any component starts a process
        except START_ERRORS:
            crawler.spider = None  # Scrapy 2.14 judges a failed start by a missing spider (scrapy crawl exit status 1)
            raise
        if not config.enabled:
            raise NotConfigured("RANKCRAWL_ENABLED is False")
        return cls()

    def update_settings(self, settings: Any) -> None:
        """rankcrawl's defaults, components and politeness wherever the user left them unset."""
        config = RankcrawlConfig.from_settings(settings)
        for name, value in {**DEFAULTS, **CRAWLING, "DOWNLOAD_WARNSIZE": config.max_page_bytes,
                            "DOWNLOAD_MAXSIZE": 4 * config.max_page_bytes}.items():
            set_unless_user(settings, name, value)
        for setting, components in (("ITEM_PIPELINES", PIPELINES), ("SPIDER_MIDDLEWARES", SPIDER_MIDDLEWARES),
                                    ("DOWNLOADER_MIDDLEWARES", DOWNLOADER_MIDDLEWARES), ("EXTENSIONS", EXTENSIONS)):
            for path, order in components.items():
                settings.setdefault_in_component_priority_dict(setting, load_object(path), order)
        check_extras(config)
        if not config.distributed:
            set_unless_user(settings, "SCHEDULER", SCHEDULER)
        if config.distributed:
            for name, value in distributed_settings(redis_url(settings), config.key_prefix).items():
                set_unless_user(settings, name, value)


START_ERRORS = (SettingError, RedisUnavailable)
"""Errors that stop a crawl before it starts, each explained by its one-line message."""


def _one_line_hook(previous: Any) -> Any:
    def hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if isinstance(exc, START_ERRORS):
            print(f"rankcrawl: error: {exc}", file=sys.stderr)
        else:
            previous(kind, exc, tb)

    hook.rankcrawl = True  # type: ignore[attr-defined]
    return hook


class OneLineStartError(logging.Filter):
    """Rewrites a log record that carries an unhandled start error (``START_ERRORS``) into its one
    line, no traceback.

    A spider's ``custom_settings`` reach the add-on, and the components connect to Redis, only when
    its crawler starts, inside Scrapy's crawl task: Scrapy marks the crawl failed (``scrapy crawl``
    exits with status 1) and asyncio logs the exception with its traceback. (With a non-asyncio
    ``TWISTED_REACTOR``, Twisted also prints the failure's frameless two-line summary itself,
    outside logging.)"""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, START_ERRORS):
            record.msg, record.args, record.exc_info, record.exc_text = "rankcrawl: error: %s", (exc,), None, None
        return True


def report_uncaught_setting_errors() -> None:
    """Make a ``SettingError`` or ``RedisUnavailable`` that nobody catches end the process with its
    one line (exit status 1) instead of a traceback. ``scrapy crawl`` creates its crawler process (which runs
    ``update_pre_crawler_settings``) outside its own error handling, so the error is uncaught there
    (``sys.excepthook``); one raised when a crawler starts (a spider's ``custom_settings``) is logged
    by the event loop (``OneLineStartError``). A script that catches the error is unaffected (the
    hook and the loggers only see uncaught exceptions)."""
    if not getattr(sys.excepthook, "rankcrawl", False):
        sys.excepthook = _one_line_hook(sys.excepthook)
    for name in ("asyncio", "twisted"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, OneLineStartError) for f in logger.filters):
            logger.addFilter(OneLineStartError())


def probe_redis(config: RankcrawlConfig) -> None:
    """Connect to the crawl's Redis (the embedded server starts if none is named) and write one probe
    key: ``RedisUnavailable`` with one line when it cannot be reached or refuses writes."""
    client = connect(config.redis_url)
    try:
        probe_writable(client, config.key_prefix)
    finally:
        client.close()


def check_extras(config: RankcrawlConfig) -> None:
    """SettingError when a setting needs an optional dependency that is not installed."""
    if config.distributed:
        try:
            importlib.import_module("scrapy_redis")
        except ImportError:
            raise SettingError("RANKCRAWL_DISTRIBUTED needs scrapy-redis: pip install 'rankcrawl[distributed]'") from None


def set_unless_user(settings: Any, name: str, value: Any) -> None:
    """Set ``name`` at ``addon`` priority unless a user (or another add-on) already set it."""
    if (settings.getpriority(name) or 0) < SETTINGS_PRIORITIES["addon"]:
        settings.set(name, value, priority="addon")


def redis_url(settings: Any) -> str:
    """The crawl's Redis URL: RANKCRAWL_REDIS_URL, REDIS_URL, else the embedded server (started now)."""
    from rankcrawl.settings.connection import embedded_server, resolve_redis_url

    return resolve_redis_url(None, settings) or embedded_server().ensure_running()
