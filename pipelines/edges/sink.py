"""The crawl's edge writers seen from the reactor: engine paused while Redis takes no write, flush at close.

Each analysis worker stores its own pages' records with its own writer thread (``edges.writer``,
``workers.worker``); ``EdgeSink.of(crawler)`` is the crawl's one view of them, shared by the follow
middleware (gone pages: URLs that answered >= 400), the redirect middleware (redirects) and the
in-crawl ranker (which awaits the final flush). It hands those records to the worker of their host
(``workers.pool.AnalysisPool.store``). When a worker's writer holds its share of RANKCRAWL_EDGE_BUFFER
records, the pool sends that worker nothing more until it writes again (backpressure). While Redis takes no
write (a writer is *stalled*: records wait and none was written for a while), a watchdog on the
reactor pauses the engine (no new fetches; responses in flight still arrive) once a buffer is full or
the stall passes ``RANKCRAWL_OUTAGE_TIMEOUT``, and unpauses it when writes go through again. A stall
that reaches ``RANKCRAWL_FLUSH_TIMEOUT`` (at least the outage timeout) closes the spider with reason
``redis_unavailable``, and the close does not wait again (nor does the workers' site-level replay).
Otherwise at spider close every worker flushes within ``RANKCRAWL_FLUSH_TIMEOUT``; whatever could
not be written is logged and counted in ``rankcrawl/pages/unflushed`` and ``rankcrawl/edges/unflushed``
— never lost silently.

Stats (``AnalysisPool.stats``, the workers' figures): ``rankcrawl/pages/pushed``, ``rankcrawl/edges/pushed``,
``rankcrawl/edges/buffered_max`` (peak records a writer held), ``rankcrawl/redis/retries``,
``rankcrawl/edges/backpressure``, ``rankcrawl/pages/rejected``, ``rankcrawl/pages/gone`` (fetched URLs
that answered 4xx/5xx, stored as gone), ``rankcrawl/pages/redirects`` (redirecting URLs stored as
aliases of their targets), ``rankcrawl/pages/failed`` (records not stored: a corrupt value in Redis,
such as a stored ID that is not one, or an unexpected error while writing them; the writer goes on
with the next), ``rankcrawl/redis/corrupt`` (corrupt values met, each skipped: ``ranker.store.corrupt``)
and ``rankcrawl/urls/rejected`` (link targets not stored: not http(s), or breaking the URL contract of
``settings.urls``, e.g. over ``RANKCRAWL_MAX_URL_LENGTH``); here: ``rankcrawl/redis/pauses`` and
``rankcrawl/redis/paused_s`` (engine pauses for Redis, seconds paused).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from scrapy import signals
from scrapy.utils.defer import deferred_from_coro
from twisted.internet.task import LoopingCall

from rankcrawl.pipelines.edges.writer import Redirect
from rankcrawl.pipelines.workers.pool import AnalysisPool
from rankcrawl.ranker.store.graphstore import PageRecord
from rankcrawl.settings.config import RankcrawlConfig, per_crawler

logger = logging.getLogger(__name__)

WATCH_INTERVAL = 0.25
REDIS_UNAVAILABLE = "redis_unavailable"
"""The finish reason of a crawl closed because Redis took no write for RANKCRAWL_FLUSH_TIMEOUT seconds."""


class EdgeSink:
    """The crawl's edge writers (in its analysis workers), watched from the reactor."""

    def __init__(self, crawler: Any, pool: AnalysisPool, outage_timeout: float) -> None:
        self.crawler, self.stats, self.pool = crawler, crawler.stats, pool
        self.outage_timeout = outage_timeout
        self.outage_limit = pool.outage_limit  # a stall this long ends the crawl
        self.closing = self.gave_up = False
        self.watchdog = LoopingCall(self._watch)
        self.paused_at: float | None = None  # when this sink paused the engine
        self.pauses, self.paused_s = 0, 0.0
        crawler.signals.connect(self.watch, signal=signals.spider_opened)
        crawler.signals.connect(self.close, signal=signals.spider_closed)

    @classmethod
    def of(cls, crawler: Any) -> EdgeSink:
        """The crawler's one sink."""
        return per_crawler(crawler, cls, lambda: cls(crawler, AnalysisPool.of(crawler),
                                                     RankcrawlConfig.of(crawler).outage_timeout))

    async def put_gone(self, url: str, meta: dict[str, Any]) -> None:
        """``url`` was fetched and answered ``meta["status"]`` >= 400: it leaves the graph (no rank)."""
        self.watch()
        await self.pool.store(url, [PageRecord(url=url, meta=meta)])

    async def put_redirects(self, sources: list[str], target: str) -> None:
        """Each of ``sources`` redirected (in a chain) to ``target``: each becomes its alias."""
        self.watch()
        for source in sources:
            await self.pool.store(source, [Redirect(source, target)])

    def watch(self) -> None:
        """Start the watchdog (once, in a crawl: a sink used outside one, as in tests, has no engine)."""
        if not self.watchdog.running and not self.closing and self._engine_running():
            self.watchdog.start(WATCH_INTERVAL, now=False)

    def _engine_running(self) -> bool:
        """Whether the crawler has an engine (Scrapy 2.19 raises RuntimeError for an engine not set yet)."""
        try:
            return getattr(self.crawler, "engine", None) is not None
        except RuntimeError:
            return False

    def _watch(self) -> None:
        """On the reactor: pause the engine while the writer is stalled past RANKCRAWL_OUTAGE_TIMEOUT
        or its buffer is full, unpause it when writes go through again, give up at ``outage_limit``."""
        stalled, full = self.pool.stalled(), self.pool.full()
        if self.gave_up or self.closing:
            return
        if stalled >= self.outage_limit:
            self._give_up()
        elif self.paused_at is None and (full or stalled >= self.outage_timeout):
            self.paused_at = time.monotonic()
            self.pauses += 1
            self.crawler.engine.pause()
            logger.warning("rankcrawl: fetching paused: %d pages wait for Redis (%d a worker at most), no write for %.0fs",
                           self.pool.board.total("buffered"), self.pool.spec.store.limit if self.pool.spec.store else 0,
                           stalled)
        elif self.paused_at is not None and not full and stalled < self.outage_timeout:
            self._unpause()
            logger.warning("rankcrawl: writes reach Redis again: fetching resumed")
        self._publish_stats()

    def _unpause(self) -> None:
        if self.paused_at is not None:
            self.paused_s += time.monotonic() - self.paused_at
            self.paused_at = None
            self.crawler.engine.unpause()

    def _give_up(self) -> None:
        """Redis took no write for ``outage_limit`` seconds: close the spider (reason
        ``redis_unavailable``); the workers' close then waits no more for Redis."""
        if self.gave_up:
            return
        self.gave_up = self.pool.gave_up = True
        self.pool.flush_timeout = 0.0
        logger.error("rankcrawl: Redis took no write for %.0fs (RANKCRAWL_FLUSH_TIMEOUT); %d pages not stored; "
                     "closing the spider", self.outage_limit, self.pool.board.total("buffered"))
        self._unpause()  # the engine's close needs no pause; the scraper ends its responses
        deferred_from_coro(self.crawler.engine.close_spider_async(reason=REDIS_UNAVAILABLE))

    async def close(self) -> None:
        """The workers' flush within RANKCRAWL_FLUSH_TIMEOUT (``AnalysisPool.close``: what was left is
        counted); every caller waits for it."""
        self.closing = True
        if self.watchdog.running:
            self.watchdog.stop()
        self._unpause()
        await self.pool.close()
        self._publish_stats()

    def _publish_stats(self) -> None:
        paused = self.paused_s + (time.monotonic() - self.paused_at if self.paused_at else 0)
        for name, value in (*self.pool.stats().items(), ("rankcrawl/redis/pauses", self.pauses),
                            ("rankcrawl/redis/paused_s", round(paused, 1))):
            self.stats.set_value(name, value)
