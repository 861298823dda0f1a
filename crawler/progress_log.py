"""Scrapy extension: one INFO line every RANKCRAWL_PROGRESS_INTERVAL seconds, like Scrapy's LogStats.

    rankcrawl: 120 pages (60 pages/min), 118 analysed, 950 edges stored, frontier 340, epoch 12 (0.02 s solve, 3 s ago)

Pages are responses received, analysed and edges stored are the ``rankcrawl/…`` stats, the frontier
is the scheduler's queue length. The epoch is the in-crawl ranker's last publish (``EpochLog``) or,
with RANKCRAWL_RANKER off, the published state in Redis (read in a thread, shown one line later).
"""

from __future__ import annotations

import logging
import time
from typing import Any

import redis
from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.asyncio import create_looping_call
from twisted.internet.threads import deferToThread

from rankcrawl.crawler.epoch_log import EpochLog
from rankcrawl.ranker.store.epochs import current
from rankcrawl.ranker.store.graphstore import GraphStore
from rankcrawl.settings.config import RankcrawlConfig, per_crawler
from rankcrawl.settings.connection import RedisUnavailable, connect

logger = logging.getLogger(__name__)


def frontier_size(crawler: Any) -> int | None:
    """Requests queued in the crawl's scheduler (None when it cannot tell: no engine yet, no length)."""
    try:
        engine = crawler.engine  # Scrapy 2.19 raises RuntimeError before the crawl starts
        scheduler = getattr(engine, "scheduler", None) or getattr(getattr(engine, "_slot", None), "scheduler", None)
        return len(scheduler) if scheduler is not None else None
    except (AttributeError, RuntimeError, TypeError, redis.RedisError):
        return None


def describe_epoch(epoch: int, solve_seconds: float | None, age: float) -> str:
    solve = f"{solve_seconds:.2f} s solve, " if solve_seconds is not None else ""
    return f"epoch {epoch} ({solve}{age:.0f} s ago)"


class ProgressLog:
    """Logs the crawl's progress periodically; RANKCRAWL_PROGRESS_INTERVAL = 0 turns it off."""

    def __init__(self, crawler: Any, config: RankcrawlConfig) -> None:
        self.crawler, self.stats = crawler, crawler.stats
        self.interval = config.progress_interval
        self.redis_url, self.prefix = config.redis_url, config.key_prefix
        self.epochs = per_crawler(crawler, EpochLog, EpochLog) if config.ranker else None
        self.published: str | None = None
        self.pages_before = 0
        self.task: Any = None

    @classmethod
    def from_crawler(cls, crawler: Any) -> ProgressLog:
        config = RankcrawlConfig.of(crawler)
        if not config.enabled:
            raise NotConfigured("RANKCRAWL_ENABLED is False")
        if not config.progress_interval:
            raise NotConfigured("RANKCRAWL_PROGRESS_INTERVAL is 0")
        ext = cls(crawler, config)
        crawler.signals.connect(ext.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        return ext

    def spider_opened(self, spider: Any) -> None:
        self.task = create_looping_call(self.log)
        self.task.start(self.interval, now=False)

    def spider_closed(self, spider: Any) -> None:
        if self.task is not None and self.task.running:
            self.task.stop()

    def line(self) -> str:
        """The progress line from the current stats, frontier and last epoch."""
        pages = int(self.stats.get_value("response_received_count", 0))
        rate = (pages - self.pages_before) * 60.0 / self.interval
        self.pages_before = pages
        parts = [f"{pages} pages ({rate:.0f} pages/min)",
                 f"{self.stats.get_value('rankcrawl/pages/analysed', 0)} analysed",
                 f"{self.stats.get_value('rankcrawl/edges/pushed', 0)} edges stored"]
        if (queued := frontier_size(self.crawler)) is not None:
            parts.append(f"frontier {queued}")
        parts.append(self.epoch())
        return "rankcrawl: " + ", ".join(parts)

    def epoch(self) -> str:
        if self.epochs is not None:
            report, at = self.epochs.last, self.epochs.at
            return describe_epoch(report.epoch, report.seconds, time.monotonic() - at) if report else "no epoch yet"
        deferToThread(self._read_published).addErrback(lambda _: None)
        return self.published or "no epoch yet"

    def _read_published(self) -> None:
        try:
            client = connect(self.redis_url)
            try:
                state = current(GraphStore(client, self.prefix))
            finally:
                client.close()
        except (RedisUnavailable, redis.RedisError, OSError):
            return
        if state is not None:
            age = time.time() - float(state.fields.get("published_at", time.time()))
            self.published = describe_epoch(state.epoch, None, max(age, 0.0))

    def log(self) -> None:
        logger.info(self.line())
