"""Analysed pages → the graph store, written from a background thread (SPEC §3).

``EdgeSink.of(crawler)`` is the crawl's one writer, shared by the follow middleware (every HTML
response of any spider) and the analysis pipeline (items that carry a body). The reactor only
appends ``PageRecord``s to a buffer; a worker thread (``EdgeWriter``) writes batches with
``GraphStore.put_pages``. When Redis is down the batch stays buffered and is retried with
exponential backoff — ``put_pages`` is idempotent, so a replay after a half-written batch is
safe. The buffer is bounded (``RANKCRAWL_EDGE_BUFFER`` pages): when full, ``put`` waits
(backpressure) instead of dropping. While Redis takes no write (the writer is *stalled*: records
wait and none was written for a while), a watchdog on the reactor pauses the engine (no new
fetches; responses in flight still arrive) once the buffer is full or the stall passes
``RANKCRAWL_OUTAGE_TIMEOUT``, and unpauses it when writes go through again. A stall that reaches
``RANKCRAWL_FLUSH_TIMEOUT`` (at least the outage timeout) closes the spider with reason
``redis_unavailable``, and the close does not wait again (nor does the analyzer's site-level
replay). Otherwise at spider close everything is flushed within ``RANKCRAWL_FLUSH_TIMEOUT``;
whatever could not be written is logged and counted in ``rankcrawl/pages/unflushed`` and
``rankcrawl/edges/unflushed`` — never lost silently.

Stats: ``rankcrawl/pages/pushed``, ``rankcrawl/edges/pushed``, ``rankcrawl/edges/buffered_max``
(peak pages waiting), ``rankcrawl/redis/retries``, ``rankcrawl/edges/backpressure``,
``rankcrawl/redis/pauses`` and ``rankcrawl/redis/paused_s`` (engine pauses for Redis, seconds paused),
``rankcrawl/pages/rejected``, ``rankcrawl/pages/gone`` (fetched URLs that answered 4xx/5xx, stored
as gone), ``rankcrawl/pages/redirects`` (redirecting URLs stored as aliases of their targets),
``rankcrawl/pages/failed`` (records not stored: a corrupt value in Redis, such as a stored ID that
is not one, or an unexpected error while writing them; the thread goes on with the next) and
``rankcrawl/redis/corrupt`` (corrupt values met, each skipped: ``ranker.store.corrupt``) and
``rankcrawl/urls/rejected`` (link targets not stored: not http(s), or breaking the URL contract of
``settings.urls``, e.g. over ``RANKCRAWL_MAX_URL_LENGTH``). Only
failures of the connection or the server's state are retried.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import redis
from scrapy import signals
from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from twisted.internet.defer import Deferred
from twisted.internet.task import LoopingCall, deferLater
from twisted.internet.threads import deferToThread

from rankcrawl.pipelines.site.result import PageResult
from rankcrawl.ranker.store.corrupt import CorruptValue, key_in, wrong_type
from rankcrawl.ranker.store.graphstore import GraphStore, PageRecord
from rankcrawl.settings.config import RankcrawlConfig, per_crawler, shared_if_built
from rankcrawl.settings.connection import RedisUnavailable, connect, outage_delay
from rankcrawl.settings.urls import MAX_URL_LENGTH

logger = logging.getLogger(__name__)

BACKPRESSURE_POLL = 0.05
RECENT_PAGES = 4096
LOGGED_FAILURES = 10
WATCH_INTERVAL = 0.25
REDIS_UNAVAILABLE = "redis_unavailable"
"""The finish reason of a crawl closed because Redis took no write for RANKCRAWL_FLUSH_TIMEOUT seconds."""


@dataclass
class Redirect:
    """``source`` answered with a redirect that ended at ``target`` (``GraphStore.put_redirect``)."""

    source: str
    target: str


Record = PageRecord | Redirect


def transient(exc: BaseException) -> bool:
    """True for a failure of the connection or the server's state (down, loading, read-only, full),
    which a retry of the same write can outlive; False for one caused by what was written or read."""
    if isinstance(exc, (RedisUnavailable, OSError, redis.ConnectionError, redis.TimeoutError)):
        return True
    script_error = "user_script" in str(exc) or "Error running script" in str(exc)
    return isinstance(exc, redis.RedisError) and not wrong_type(exc) and not script_error


def page_records(result: PageResult, meta: dict[str, Any]) -> list[PageRecord]:
    """Graph-store records of an analysed page: the page (edges + fetch metadata), then its repushes.

    A re-pushed earlier page carries no metadata; the writer keeps the stored one.
    """
    meta = {k: v for k, v in {**meta, "title": result.title}.items() if v is not None}
    page = PageRecord(url=result.url, links=list(result.edges), meta=meta)
    return [page] + [PageRecord(url=u, links=list(edges)) for u, edges in result.repush]


class EdgeWriter:
    """A bounded buffer of page records drained to ``GraphStore.put_pages`` by one thread."""

    def __init__(self, url: str | None, prefix: str, batch: int, limit: int, max_url_length: int = MAX_URL_LENGTH) -> None:
        self.url, self.prefix, self.batch, self.limit = url, prefix, batch, limit
        self.max_url_length = max_url_length
        self.rejected_urls = 0  # link targets not stored (not http(s), or breaking the URL contract)
        self.buffer: deque[Record] = deque()
        self.cond = threading.Condition()
        self.closing = self.abandoned = False
        self.pages = self.edges = self.retries = self.rejected = self.peak = self.redirects = self.gone = 0
        self.failed = 0  # records not stored: a corrupt value in Redis or an unexpected error while writing them
        self.corrupt: dict[str, int] = {}  # corrupt values met, per key family
        self.progress = time.monotonic()  # last write, or when records began to wait
        self.thread = threading.Thread(target=self._run, name="rankcrawl-edges", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def full(self) -> bool:
        return len(self.buffer) >= self.limit

    def stalled(self) -> float:
        """Seconds records have waited with no write going through (0 when none waits)."""
        with self.cond:
            return time.monotonic() - self.progress if self.buffer else 0.0

    def put(self, record: Record) -> None:
        with self.cond:
            if not self.buffer:
                self.progress = time.monotonic()
            self.buffer.append(record)
            self.peak = max(self.peak, len(self.buffer))
            self.cond.notify()

    def close(self, timeout: float) -> int:
        """Flush for at most ``timeout`` seconds (blocking; call it in a thread); pages left."""
        with self.cond:
            self.closing = True
            self.cond.notify()
        self.thread.join(timeout)
        with self.cond:
            self.abandoned = True
        return len(self.buffer)

    def _run(self) -> None:
        store: GraphStore | None = None
        failures = 0
        while True:
            with self.cond:
                while not self.buffer and not self.closing:
                    self.cond.wait()
                if not self.buffer or self.abandoned:
                    return
                batch = [self.buffer[i] for i in range(min(self.batch, len(self.buffer)))]
                if isinstance(batch[0], Redirect):
                    batch = batch[:1]
                else:  # the pages up to the next redirect: batches keep the order of the records
                    batch = batch[:next((i for i, r in enumerate(batch) if isinstance(r, Redirect)), len(batch))]
            try:
                store = store or GraphStore(connect(self.url), self.prefix, self.max_url_length)
                self._write(store, batch)
            except Exception as exc:
                if not transient(exc):  # not the connection: what the records or their keys hold
                    self._failed(batch, exc)
                else:
                    self.retries += 1
                    delay = outage_delay(failures)
                    failures += 1
                    logger.warning("rankcrawl: Redis write failed (%s); %d pages buffered, retry in %.1fs",
                                   exc, len(self.buffer), delay)
                    time.sleep(delay)
                    continue
            finally:
                if store is not None:
                    self.corrupt = dict(store.corruption.counts)
                    self.rejected_urls = store.rejected_urls
            failures = 0
            with self.cond:
                for _ in batch:
                    self.buffer.popleft()
                self.progress = time.monotonic()

    def _failed(self, batch: Sequence[Record], exc: BaseException, store: GraphStore | None = None) -> None:
        """Records that cannot be stored: counted, the first LOGGED_FAILURES logged, never retried (the
        thread goes on); a key of the wrong type is counted as corrupt."""
        if store is not None and wrong_type(exc):
            store.corruption.add(key_in(exc), "wrong type", len(batch))
        self.failed += len(batch)
        if self.failed - len(batch) < LOGGED_FAILURES:
            logger.error("rankcrawl: %d records not stored (%s: %s)%s", len(batch), type(exc).__name__, exc,
                         "; further failures are counted, not logged" if self.failed >= LOGGED_FAILURES else "")

    def _write(self, store: GraphStore, batch: list[Record]) -> None:
        if isinstance(batch[0], Redirect):
            try:
                store.put_redirect(batch[0].source, batch[0].target)
            except CorruptValue as exc:
                self._failed(batch, exc)
            except ValueError as exc:
                self.rejected += 1
                logger.error("rankcrawl: redirect not stored: %s", exc)
            else:
                self.failed += len(store.unstored)
                self.redirects += not store.unstored
            return
        self._write_pages(store, [r for r in batch if isinstance(r, PageRecord)])

    def _write_pages(self, store: GraphStore, batch: list[PageRecord]) -> None:
        """Store the batch; if that fails for anything but the connection, page by page, so one
        page's bad URL or corrupt stored value costs that page only."""
        for rec in batch:
            if not rec.meta:
                rec.meta = store.meta(rec.url) or {}
        try:
            store.put_pages(batch)
            unstored = set(store.unstored)
            good = [r for r in batch if r.url not in unstored]
            self.failed += len(batch) - len(good)
        except Exception as exc:
            if transient(exc):
                raise
            good = []
            for rec in batch:
                try:
                    store.put_pages([rec])
                except CorruptValue as exc:
                    self._failed([rec], exc)
                except ValueError as exc:
                    self.rejected += 1
                    logger.error("rankcrawl: page not stored: %s", exc)
                except Exception as exc:
                    if transient(exc):
                        raise
                    self._failed([rec], exc, store)
                else:
                    if store.unstored:
                        self.failed += 1
                    else:
                        good.append(rec)
        self.pages += len(good)
        self.gone += sum(r.gone for r in good)
        self.edges += sum(len(r.links) for r in good)


class EdgeSink:
    """The crawl's writer of analysed pages: bounded buffer, backpressure, flush at spider close."""

    def __init__(self, crawler: Any, config: RankcrawlConfig) -> None:
        self.crawler, self.stats = crawler, crawler.stats
        self.flush_timeout, self.outage_timeout = config.flush_timeout, config.outage_timeout
        self.outage_limit = max(config.flush_timeout, config.outage_timeout)  # a stall this long ends the crawl
        self.writer = EdgeWriter(config.redis_url, config.key_prefix, config.edge_batch, config.edge_buffer,
                                 config.max_url_length)
        self.recent: OrderedDict[str, None] = OrderedDict()
        self.started = self.closing = self.closed = self.gave_up = False
        self.waiters: list[Deferred[None]] = []
        self.watchdog = LoopingCall(self._watch)
        self.paused_at: float | None = None  # when this sink paused the engine
        self.pauses, self.paused_s = 0, 0.0
        crawler.signals.connect(self.close, signal=signals.spider_closed)

    @classmethod
    def of(cls, crawler: Any) -> EdgeSink:
        """The crawler's one sink."""
        return per_crawler(crawler, cls, lambda: cls(crawler, RankcrawlConfig.of(crawler)))

    def stored(self, url: str) -> bool:
        """True when this crawl recently stored ``url``'s page (so an item for it needs no analysis)."""
        return url in self.recent

    async def put(self, result: PageResult, meta: dict[str, Any]) -> None:
        """Buffer the page's records; waits while the buffer is full (backpressure)."""
        await self._put(page_records(result, meta))
        self.recent[result.url] = None
        if len(self.recent) > RECENT_PAGES:
            self.recent.popitem(last=False)

    async def put_gone(self, url: str, meta: dict[str, Any]) -> None:
        """``url`` was fetched and answered ``meta["status"]`` >= 400: it leaves the graph (no rank)."""
        await self._put([PageRecord(url=url, meta=meta)])

    async def put_redirects(self, sources: list[str], target: str) -> None:
        """Each of ``sources`` redirected (in a chain) to ``target``: each becomes its alias."""
        await self._put([Redirect(source, target) for source in sources])

    def _engine_running(self) -> bool:
        """Whether the crawler has an engine (a sink used outside a crawl, as in tests, has none; Scrapy
        2.19 raises RuntimeError for an engine not set yet)."""
        try:
            return getattr(self.crawler, "engine", None) is not None
        except RuntimeError:
            return False

    async def _put(self, records: Sequence[Record]) -> None:
        if not self.started:
            self.started = True
            self.writer.start()
            if self._engine_running():
                self.watchdog.start(WATCH_INTERVAL, now=False)
        if self.writer.full():
            await self._backpressure()
        for record in records:
            self.writer.put(record)
        self._publish_stats()

    async def _backpressure(self) -> None:
        self.stats.inc_value("rankcrawl/edges/backpressure")
        logger.warning("rankcrawl: edge buffer full (%d pages); waiting for Redis", self.writer.limit)
        from twisted.internet import reactor  # the running one; importing it early would install a default

        deadline = time.monotonic() + self.outage_limit
        while self.writer.full() and not self.gave_up and time.monotonic() < deadline:
            await maybe_deferred_to_future(deferLater(reactor, BACKPRESSURE_POLL, lambda: None))
        if self.writer.full():
            self._give_up()

    def _watch(self) -> None:
        """On the reactor: pause the engine while the writer is stalled past RANKCRAWL_OUTAGE_TIMEOUT
        or its buffer is full, unpause it when writes go through again, give up at ``outage_limit``."""
        stalled, full = self.writer.stalled(), self.writer.full()
        if self.gave_up or self.closing:
            return
        if stalled >= self.outage_limit:
            self._give_up()
        elif self.paused_at is None and (full or stalled >= self.outage_timeout):
            self.paused_at = time.monotonic()
            self.pauses += 1
            self.crawler.engine.pause()
            logger.warning("rankcrawl: fetching paused: %d pages wait for Redis (buffer of %d), no write for %.0fs",
                           len(self.writer.buffer), self.writer.limit, stalled)
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
        ``redis_unavailable``); the close then waits no more for Redis."""
        if self.gave_up:
            return
        self.gave_up = True
        logger.error("rankcrawl: Redis took no write for %.0fs (RANKCRAWL_FLUSH_TIMEOUT); %d pages not stored; "
                     "closing the spider", self.outage_limit, len(self.writer.buffer))
        self._unpause()  # the engine's close needs no pause; the scraper ends its responses
        from rankcrawl.pipelines.page_analyzer import PageAnalyzer  # a layer above the sink: looked up only here

        if (analyzer := shared_if_built(self.crawler, PageAnalyzer)) is not None:
            analyzer.flush_timeout = 0.0  # its close replays nothing into a Redis that took no write
        deferred_from_coro(self.crawler.engine.close_spider_async(reason=REDIS_UNAVAILABLE))

    async def close(self) -> None:
        """Flush within RANKCRAWL_FLUSH_TIMEOUT and count what was left; later callers wait for the first."""
        if self.closed:
            return
        if self.closing:
            waiter: Deferred[None] = Deferred()
            self.waiters.append(waiter)
            await maybe_deferred_to_future(waiter)
            return
        self.closing = True
        if self.watchdog.running:
            self.watchdog.stop()
        self._unpause()
        try:
            timeout = 0.0 if self.gave_up else self.flush_timeout
            left = await maybe_deferred_to_future(deferToThread(self.writer.close, timeout)) if self.started else 0
            self._publish_stats()
            if left:
                lost = sum(len(r.links) for r in list(self.writer.buffer) if isinstance(r, PageRecord))
                self.stats.set_value("rankcrawl/pages/unflushed", left)
                self.stats.set_value("rankcrawl/edges/unflushed", lost)
                logger.error("rankcrawl: %d pages (%d edges) could not be written to Redis %s", left, lost,
                             "(it took no write for RANKCRAWL_FLUSH_TIMEOUT)" if self.gave_up else "before the flush timeout")
        finally:
            self.closed = True
            for waiter in self.waiters:
                waiter.callback(None)

    def _publish_stats(self) -> None:
        w = self.writer
        for name, value in (
            ("rankcrawl/pages/pushed", w.pages),
            ("rankcrawl/edges/pushed", w.edges),
            ("rankcrawl/edges/buffered_max", w.peak),
            ("rankcrawl/redis/retries", w.retries),
            ("rankcrawl/redis/pauses", self.pauses),
            ("rankcrawl/redis/paused_s", round(self.paused_s + (time.monotonic() - self.paused_at if self.paused_at else 0), 1)),
            ("rankcrawl/pages/rejected", w.rejected),
            ("rankcrawl/pages/gone", w.gone),
            ("rankcrawl/pages/redirects", w.redirects),
            ("rankcrawl/pages/failed", w.failed),
            ("rankcrawl/redis/corrupt", sum(w.corrupt.values())),
            ("rankcrawl/urls/rejected", w.rejected_urls),
        ):
            self.stats.set_value(name, value)
