"""Push each page's content links to the graph store from a background thread (SPEC §3).

The reactor only appends a ``PageRecord`` to a buffer; a worker thread writes batches with
``GraphStore.put_pages``. When Redis is down the batch stays buffered and is retried with
exponential backoff — ``put_pages`` is idempotent, so a replay after a half-written batch is
safe. The buffer is bounded (``RANKCRAWL_EDGE_BUFFER`` pages): when full, ``process_item`` waits
(backpressure, the crawl slows down) instead of dropping. At spider close everything is flushed
within ``RANKCRAWL_FLUSH_TIMEOUT``; whatever could not be written is logged and counted in
``rankcrawl/edges/unflushed`` — never lost silently.

Stats: ``rankcrawl/pages/pushed``, ``rankcrawl/edges/pushed``, ``rankcrawl/edges/buffered_max``
(peak pages waiting), ``rankcrawl/redis/retries``, ``rankcrawl/edges/backpressure``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from typing import Any

import redis
from itemadapter import ItemAdapter
from scrapy.exceptions import NotConfigured
from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from twisted.internet.task import deferLater
from twisted.internet.threads import deferToThread

from rankcrawl.ranker.store.graphstore import GraphStore, PageRecord
from rankcrawl.settings.connection import RedisUnavailable, connect, resolve_redis_url
from rankcrawl.settings.defaults import DEFAULTS

logger = logging.getLogger(__name__)

BACKOFF_START, BACKOFF_MAX = 0.1, 5.0
BACKPRESSURE_POLL = 0.05


def page_records(item: Any) -> list[PageRecord]:
    """Graph-store records of an analysed item: the page (links + fetch metadata), then its repushes.

    A re-pushed earlier page carries no metadata; the writer keeps the stored one.
    """
    a = ItemAdapter(item)
    meta = {k: a.get(k) for k in ("status", "fetched_at", "depth", "title") if a.get(k) is not None}
    page = PageRecord(url=a["url"], links=list(a.get("edges") or []), meta=meta)
    return [page] + [PageRecord(url=u, links=list(edges)) for u, edges in a.get("repush") or []]


class EdgeWriter:
    """A bounded buffer of page records drained to ``GraphStore.put_pages`` by one thread."""

    def __init__(self, url: str | None, prefix: str, batch: int, limit: int) -> None:
        self.url, self.prefix, self.batch, self.limit = url, prefix, batch, limit
        self.buffer: deque[PageRecord] = deque()
        self.cond = threading.Condition()
        self.closing = self.abandoned = False
        self.pages = self.edges = self.retries = self.rejected = self.peak = 0
        self.thread = threading.Thread(target=self._run, name="rankcrawl-edges", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def full(self) -> bool:
        return len(self.buffer) >= self.limit

    def put(self, record: PageRecord) -> None:
        with self.cond:
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
        delay = BACKOFF_START
        while True:
            with self.cond:
                while not self.buffer and not self.closing:
                    self.cond.wait()
                if not self.buffer or self.abandoned:
                    return
                batch = [self.buffer[i] for i in range(min(self.batch, len(self.buffer)))]
            try:
                store = store or GraphStore(connect(self.url), self.prefix)
                self._write(store, batch)
            except (redis.RedisError, RedisUnavailable, OSError) as exc:
                self.retries += 1
                logger.warning("rankcrawl: Redis write failed (%s); %d pages buffered, retry in %.1fs", exc, len(self.buffer), delay)
                time.sleep(delay)
                delay = min(2 * delay, BACKOFF_MAX)
                continue
            delay = BACKOFF_START
            with self.cond:
                for _ in batch:
                    self.buffer.popleft()

    def _write(self, store: GraphStore, batch: list[PageRecord]) -> None:
        for rec in batch:
            if not rec.meta:
                rec.meta = store.meta(rec.url) or {}
        try:
            store.put_pages(batch)
            good = batch
        except ValueError:
            good = []
            for rec in batch:
                try:
                    store.put_pages([rec])
                    good.append(rec)
                except ValueError as exc:
                    self.rejected += 1
                    logger.error("rankcrawl: page not stored: %s", exc)
        self.pages += len(good)
        self.edges += sum(len(r.links) for r in good)


class EdgePushPipeline:
    """Item pipeline: content links → Redis graph, buffered and retried, never blocking the reactor."""

    def __init__(self, crawler: Any) -> None:
        settings = crawler.settings
        self.crawler = crawler
        self.stats = crawler.stats
        self.flush_timeout = settings.getfloat("RANKCRAWL_FLUSH_TIMEOUT", DEFAULTS["RANKCRAWL_FLUSH_TIMEOUT"])
        self.writer = EdgeWriter(
            resolve_redis_url(None, settings),
            settings.get("RANKCRAWL_KEY_PREFIX") or DEFAULTS["RANKCRAWL_KEY_PREFIX"],
            settings.getint("RANKCRAWL_EDGE_BATCH", DEFAULTS["RANKCRAWL_EDGE_BATCH"]),
            settings.getint("RANKCRAWL_EDGE_BUFFER", DEFAULTS["RANKCRAWL_EDGE_BUFFER"]),
        )

    @classmethod
    def from_crawler(cls, crawler: Any) -> "EdgePushPipeline":
        if not crawler.settings.getbool("RANKCRAWL_ENABLED", DEFAULTS["RANKCRAWL_ENABLED"]):
            raise NotConfigured("RANKCRAWL_ENABLED is False")
        return cls(crawler)

    def open_spider(self) -> None:
        self.writer.start()

    async def process_item(self, item: Any) -> Any:
        if self.writer.full():
            self.stats.inc_value("rankcrawl/edges/backpressure")
            logger.warning("rankcrawl: edge buffer full (%d pages); waiting for Redis", self.writer.limit)
            from twisted.internet import reactor  # the running one; importing it early would install a default

            deadline = time.monotonic() + self.flush_timeout
            while self.writer.full() and time.monotonic() < deadline:
                await maybe_deferred_to_future(deferLater(reactor, BACKPRESSURE_POLL, lambda: None))
            if self.writer.full():
                logger.error("rankcrawl: Redis unreachable for %.0fs with a full buffer; closing the spider", self.flush_timeout)
                deferred_from_coro(self.crawler.engine.close_spider_async(reason="rankcrawl_redis_unavailable"))
        for record in page_records(item):
            self.writer.put(record)
        self._publish_stats()
        return item

    async def close_spider(self) -> None:
        left = await maybe_deferred_to_future(deferToThread(self.writer.close, self.flush_timeout))
        self._publish_stats()
        if left:
            lost = sum(len(r.links) for r in list(self.writer.buffer))
            self.stats.set_value("rankcrawl/edges/unflushed", lost)
            logger.error("rankcrawl: %d pages (%d edges) could not be written to Redis before the flush timeout", left, lost)

    def _publish_stats(self) -> None:
        w = self.writer
        for name, value in (
            ("rankcrawl/pages/pushed", w.pages),
            ("rankcrawl/edges/pushed", w.edges),
            ("rankcrawl/edges/buffered_max", w.peak),
            ("rankcrawl/redis/retries", w.retries),
            ("rankcrawl/pages/rejected", w.rejected),
        ):
            self.stats.set_value(name, value)
