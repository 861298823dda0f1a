"""Scrapy extension: the ranker service runs beside the crawl, so ranks go live while crawling.

On ``spider_opened`` a thread runs ``RankerService.run`` (warm-started, partitioned PageRank,
SPEC §4) with RANKCRAWL_ALPHA / _TOL / _PARTITIONS; with RANKCRAWL_BIAS_TO_SEEDS the teleport
vector is the spider's seeds (topic-specific PageRank, Kohlschütter §3.1 Eq. 3.4). Redis faults
restart the service after a pause. Only one ranker publishes at a time (a lease in Redis): when
several crawl processes share a Redis, the in-crawl ranker of each skips an epoch while another
holds the lease. On ``spider_closed`` it waits for the edge sink's flush, stops and solves once
more (waiting up to FINAL_LEASE_WAIT for the lease), so the published epoch covers the whole
crawl. Turn it off (RANKCRAWL_RANKER = False) when a separate ``rankcrawl ranker`` process serves
several crawler processes. Its per-epoch lines are DEBUG (``EpochLog``); the crawl's periodic
progress line (``ProgressLog``) shows the last epoch. Stats: ``rankcrawl/ranker/epoch`` (the final
epoch's number) and ``rankcrawl/ranker/cpu_s`` (CPU seconds of its threads).
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import redis
from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.threads import deferToThread

from rankcrawl.crawler.epoch_log import EpochLog
from rankcrawl.pipelines.edges.sink import REDIS_UNAVAILABLE, EdgeSink
from rankcrawl.ranker.service import RankerService
from rankcrawl.settings.config import RankcrawlConfig, per_crawler, shared_if_built
from rankcrawl.settings.connection import RedisUnavailable, connect
from rankcrawl.settings.log_levels import quiet_noisy_loggers

logger = logging.getLogger(__name__)

RESTART_PAUSE = 1.0
JOIN_TIMEOUT = 30.0
FINAL_LEASE_WAIT = 60.0
DUTY = 0.25
"""Share of wall time the in-crawl ranker spends in epochs (``RankerService.duty``): the rest of
the crawl process's GIL stays with the reactor; the final epoch after the crawl is not paced."""
MIN_PERIOD = 1.0
"""Seconds between the starts of two epochs during the crawl, at least (``RankerService.min_period``):
the frontier reads the ranks every ``RANKCRAWL_RANK_REFRESH`` (2 s), so quicker epochs would cost the
crawl process and Redis CPU that nothing reads."""


class RankerExtension:
    def __init__(self, crawler: Any, config: RankcrawlConfig) -> None:
        self.crawler = crawler
        self.redis_url, self.prefix = config.redis_url, config.key_prefix
        self.alpha, self.tol, self.partitions = config.alpha, config.tol, config.partitions
        self.interim_tol = max(config.interim_tol, config.tol)
        self.bias = config.bias_to_seeds
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None
        self.teleport: list[str] = []
        self.cpu_s = 0.0
        """CPU seconds of the ranker's threads (stat ``rankcrawl/ranker/cpu_s``)."""
        self.service: RankerService | None = None
        self.epoch_log = per_crawler(crawler, EpochLog, EpochLog)

    @classmethod
    def from_crawler(cls, crawler: Any) -> RankerExtension:
        config = RankcrawlConfig.of(crawler)
        if not config.enabled:
            raise NotConfigured("RANKCRAWL_ENABLED is False")
        if not config.ranker:
            raise NotConfigured("RANKCRAWL_RANKER is False")
        quiet_noisy_loggers()  # numba compiles the solver in this process (also when enabled without the add-on)
        ext = cls(crawler, config)
        crawler.signals.connect(ext.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        return ext

    def _service(self) -> RankerService:
        """The warm service (graph in memory), created on first use and after a Redis fault."""
        if self.service is None:
            self.service = RankerService(connect(self.redis_url), alpha=self.alpha, tol=self.tol,
                                         partitions=self.partitions, teleport_urls=self.teleport or None,
                                         prefix=self.prefix, duty=DUTY, min_period=MIN_PERIOD, interim_tol=self.interim_tol,
                                         progress=self.epoch_log)
        return self.service

    def spider_opened(self, spider: Any) -> None:
        if self.bias:
            self.teleport = list(getattr(spider, "seeds", []))
        self.thread = threading.Thread(target=self._run, name="rankcrawl-ranker", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        started = time.thread_time()
        while not self.stop.is_set():
            try:
                self._service().run(self.stop, poll_interval=0.5)
            except (redis.RedisError, RedisUnavailable, OSError, ValueError) as exc:
                logger.warning("rankcrawl: ranker paused: %s", exc)
                self.service = None
                self.stop.wait(RESTART_PAUSE)
        self.cpu_s += time.thread_time() - started

    def _final_solve(self) -> None:
        started = time.thread_time()
        try:
            self._final_epoch()
        finally:
            self.cpu_s += time.thread_time() - started
            self.crawler.stats.set_value("rankcrawl/ranker/cpu_s", round(self.cpu_s, 2))

    def _final_epoch(self) -> None:
        self.stop.set()
        if self.thread is not None:
            self.thread.join(JOIN_TIMEOUT)
        try:
            if self.thread is not None and self.thread.is_alive():
                self.service = None  # still busy after JOIN_TIMEOUT: never share its state
            service = self._service()
            service.lease_wait = FINAL_LEASE_WAIT
            report = service.solve_once(final=True)
            if report is None:
                logger.warning("rankcrawl: no final epoch (empty graph, or another ranker held the lease %g s)",
                               FINAL_LEASE_WAIT)
            if report is not None:
                self.crawler.stats.set_value("rankcrawl/ranker/epoch", report.epoch)
        except (redis.RedisError, RedisUnavailable, OSError, ValueError) as exc:
            logger.error("rankcrawl: final ranking failed: %s", exc)

    async def spider_closed(self, spider: Any, reason: str = "finished") -> None:
        """The final solve, after the crawl's edge sink flushed (so the epoch covers every stored page);
        none when the crawl closed because Redis took no write."""
        sink = shared_if_built(self.crawler, EdgeSink)
        if sink is not None:
            await sink.close()
        if reason == REDIS_UNAVAILABLE:
            self.stop.set()
            return
        await maybe_deferred_to_future(deferToThread(self._final_solve))
