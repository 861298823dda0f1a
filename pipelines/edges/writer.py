"""The graph store's writer: page records drained to ``GraphStore.put_pages`` by one thread (SPEC §3).

Each analysis worker owns one ``EdgeWriter`` (``workers/worker.py``) and hands it the records of the pages
it analysed: the page (edges + fetch metadata), the earlier pages the site-level step re-decided, gone
pages and redirects. The buffer is bounded by the crawl (its worker's share of ``RANKCRAWL_EDGE_BUFFER``
records: the crawl process waits before it hands that worker more, ``workers/pool.py``). When Redis is down the batch
stays buffered and is retried with exponential backoff — ``put_pages`` is idempotent, so a replay after a
half-written batch is safe. Only failures of the connection or the server's state are retried; records
that cannot be stored for what they hold are counted (``failed``, ``rejected``) and skipped.

Every record carries the sequence number of the page that produced it; ``acked`` is the highest number
whose records all left the buffer (stored, or refused), so the crawl process knows which pages a dead
worker still owed the store. With a row of ``workers/board.py`` the writer keeps its counts and its
state there (``Figures``) for the crawl process to read.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import redis

from rankcrawl.pipelines.site.result import Edges, PageResult
from rankcrawl.ranker.store.corrupt import CorruptValue, key_in, wrong_type
from rankcrawl.ranker.store.graphstore import GraphStore, PageRecord
from rankcrawl.settings.connection import RedisUnavailable, connect, outage_delay
from rankcrawl.settings.urls import MAX_URL_LENGTH

logger = logging.getLogger(__name__)

LOGGED_FAILURES = 10
LINGER = 0.1
"""Seconds the writer waits for more records once the first of a batch arrives (not once the batch or
the buffer is full, nor at close): storing one page's records costs nearly as much as storing several
pages' (the ID script, the pipeline and the change-stream entry are per batch), and pages reach a
worker tens of milliseconds apart, so a batch written as soon as its first record arrives holds one page."""


class Figures(Protocol):
    """Where a writer keeps its counts and state (``workers.board.Slot``)."""

    def __setitem__(self, name: str, value: float) -> None: ...


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
    return [PageRecord(url=result.url, links=list(result.edges), meta=meta), *repush_records(result.repush)]


def repush_records(repush: list[tuple[str, Edges]]) -> list[PageRecord]:
    """Records of earlier pages the site-level step re-decided (no metadata: the writer keeps the stored one)."""
    return [PageRecord(url=u, links=list(edges)) for u, edges in repush]


class EdgeWriter:
    """A bounded buffer of page records drained to ``GraphStore.put_pages`` by one thread."""

    def __init__(self, url: str | None, prefix: str, batch: int, limit: int, max_url_length: int = MAX_URL_LENGTH,
                 figures: Figures | None = None) -> None:
        self.url, self.prefix, self.batch, self.limit = url, prefix, batch, limit
        self.max_url_length, self.figures = max_url_length, figures
        self.rejected_urls = 0  # link targets not stored (not http(s), or breaking the URL contract)
        self.buffer: deque[Record] = deque()
        self.seqs: deque[int] = deque()  # the page sequence number of each buffered record
        self.last = 0  # the sequence number of the last record put
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

    @property
    def acked(self) -> int:
        """The highest page sequence number whose records all left the buffer."""
        return self.seqs[0] - 1 if self.seqs else self.last

    def put(self, record: Record, seq: int = 0) -> None:
        """Buffer ``record`` of page ``seq`` (numbers never decrease from one call to the next)."""
        with self.cond:
            if not self.buffer:
                self.progress = time.monotonic()
            self.buffer.append(record)
            self.seqs.append(seq)
            self.last = seq
            self.peak = max(self.peak, len(self.buffer))
            self.publish()
            self.cond.notify()

    def publish(self) -> None:
        """Copy the counts and state to ``figures`` (called with ``cond`` held)."""
        f = self.figures
        if f is None:
            return
        for name, value in (("pages", self.pages), ("edges", self.edges), ("retries", self.retries),
                            ("rejected", self.rejected), ("redirects", self.redirects), ("gone", self.gone),
                            ("failed", self.failed), ("corrupt", sum(self.corrupt.values())),
                            ("urls_rejected", self.rejected_urls), ("peak", self.peak), ("buffered", len(self.buffer)),
                            ("progress", self.progress), ("acked", self.acked)):
            f[name] = value

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
                self.cond.wait_for(lambda: self.closing or len(self.buffer) >= min(self.batch, self.limit), LINGER)
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
                    with self.cond:
                        self.publish()
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
                    self.seqs.popleft()
                self.progress = time.monotonic()
                self.publish()

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
