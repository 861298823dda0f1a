"""The crawl's analysis workers: each page to the worker of its host, once (SPEC §2.7).

``AnalysisPool(spec, workers)`` keeps ``workers`` worker processes (``workers/worker.py``; each a
one-process ``ProcessPoolExecutor`` started by ``forkserver``, preloaded and warmed as soon as the
pool starts) and sends every page to the worker that owns its host (``routing.HostRouter``): the page's
URL, body and fetch metadata cross to the worker, its ``PageResult`` comes back — one round trip a
page; the worker itself writes the host's site state and the page's edges. Gone pages and redirects
(``store``) go to the worker of their host too, so one writer stores every record of a URL, in order.
``workers = 0`` runs one ``Worker`` in a thread of this process: the same code, no process crossed.

At most ``IN_FLIGHT`` pages a worker are in flight, and none is sent to a worker whose edge writer holds
its share of RANKCRAWL_EDGE_BUFFER records (the buffer split evenly over the workers) — the crawl waits
instead (backpressure), until the writer takes records again or ``gave_up`` is set (``edges.sink``: Redis took no write for too long).

A dead worker (out of memory, a crash in a C library) loses nothing: the pool keeps each page it sent
(``owed``, body included) until the worker's writer reports its records stored (``Board`` row,
``acked``), starts a new worker and sends it the owed pages again in their order — the answered ones
to be stored only, the unanswered ones for their result. The new worker's site memory starts from the
hosts' state in Redis (what it alone kept, its recent pages, is rebuilt from the pages it gets). A page
whose worker died ``MAX_TRIES`` times while it was unanswered costs that page (``WorkerCrashed``). If
the workers cannot even start — as with any multiprocessing program, a script that starts a crawl at
import time must guard it with ``if __name__ == "__main__":`` — the pool logs one error and runs its
worker in a thread from then on.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, NamedTuple

from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from twisted.internet.defer import Deferred, DeferredList, DeferredSemaphore
from twisted.internet.task import deferLater
from twisted.internet.threads import deferToThread

from rankcrawl.pipelines.edges.writer import Record
from rankcrawl.pipelines.site.facts import FactOptions
from rankcrawl.pipelines.site.result import PageResult
from rankcrawl.pipelines.workers.board import Board, Slot
from rankcrawl.pipelines.workers.logs import level, replay
from rankcrawl.pipelines.workers.processes import as_deferred, forkserver
from rankcrawl.pipelines.workers.routing import HostRouter
from rankcrawl.pipelines.workers.worker import (
    SITE_TIMEOUT,
    Finish,
    Finished,
    Job,
    Page,
    SiteSpec,
    Store,
    StoreSpec,
    Worker,
    WorkerSpec,
    serve,
    start,
)
from rankcrawl.settings.config import RankcrawlConfig, per_crawler
from rankcrawl.settings.connection import connect, embedded_server

logger = logging.getLogger(__name__)

IN_FLIGHT = 2
"""Pages a worker may hold at once: one analysed, the next one waiting."""
MAX_TRIES = 2
"""Workers a page may see die under it before it is given up."""
BACKPRESSURE_POLL = 0.05


class WorkerCrashed(RuntimeError):
    """A page's worker died under it ``MAX_TRIES`` times."""


def in_place(worker: Worker, job: Job) -> tuple[PageResult | Finished | None, list[logging.LogRecord]]:
    """``Worker.serve`` in this process (its records go to this process's loggers as they are logged)."""
    return worker.serve(job), []


class Sent(NamedTuple):
    """A job on its way: the executor (the worker) it went to, and its result to come."""

    executor: Executor
    future: Future[Any]


class Lane:
    """One worker (a process, or a thread of this process) and the jobs it still owes the store."""

    def __init__(self, pool: AnalysisPool, slot: Slot) -> None:
        self.pool, self.slot = pool, slot
        self.executor: Executor | None = None
        self.worker: Worker | None = None
        self.slots = DeferredSemaphore(IN_FLIGHT)
        self.seq = 0
        self.owed: OrderedDict[int, Page | Store] = OrderedDict()
        """Jobs sent whose records are not yet all stored, by sequence number."""
        self.answered: set[int] = set()
        self.tries: dict[int, int] = {}
        self.resent: dict[int, Sent] = {}

    def start(self) -> Executor:
        """The worker's executor (started now if it is not running)."""
        if self.executor is None:
            if self.pool.processes:
                self.executor = ProcessPoolExecutor(1, mp_context=forkserver(), initializer=start,
                                                    initargs=(self.pool.spec, self.slot, level()))
                self.executor.submit(int)  # start and warm the process now
            else:
                self.executor = ThreadPoolExecutor(1, thread_name_prefix="rankcrawl-analysis")
        return self.executor

    def local(self) -> Worker:
        """This lane's worker in this process (RANKCRAWL_ANALYSIS_WORKERS = 0)."""
        if self.worker is None:
            self.worker = Worker(self.pool.spec, self.slot)
        return self.worker

    def submit(self, job: Job) -> Sent:
        """``job`` on the worker; raises ``BrokenProcessPool`` if the worker died while idle."""
        executor = self.start()
        if isinstance(executor, ProcessPoolExecutor):
            return Sent(executor, executor.submit(serve, job))
        return Sent(executor, executor.submit(in_place, self.local(), job))

    def send(self, seq: int, job: Page | Store) -> Sent:
        """Submit the newest owed job, starting another worker first if this one died while idle."""
        while True:
            executor = self.start()
            try:
                return self.submit(job)
            except BrokenProcessPool:
                del self.owed[seq]
                self.recover(executor)
                self.owed[seq] = job

    async def run(self, job: Page | Store) -> PageResult | None:
        """Send ``job`` to the worker (after a free slot and room in its writer) and await its result."""
        await self.pool.room(self)
        await maybe_deferred_to_future(self.slots.acquire())
        self.pool.peak = max(self.pool.peak, sum(IN_FLIGHT - lane.slots.tokens for lane in self.pool.lanes))
        self.seq += 1
        seq = job.seq = self.seq
        self.owed[seq], self.tries[seq] = job, 1
        try:
            sent: Sent | None = self.send(seq, job)
            while sent is not None:
                try:
                    result, records = await maybe_deferred_to_future(as_deferred(sent.future))
                    break
                except BrokenProcessPool:
                    self.recover(sent.executor)
                    sent = self.resent.pop(seq, None)
            else:
                raise WorkerCrashed(f"an analysis worker died {MAX_TRIES} times under {job.url}")
        except Exception:
            self.forget(seq)  # the job failed in its worker (the error goes to the caller), or was given up
            raise
        finally:
            self.tries.pop(seq, None)
            self.slots.release()
        replay(records)
        self.answered.add(seq)
        if isinstance(job, Page) and (job.meta is None or result is None):
            self.forget(seq)
        self.settle()
        return result

    def forget(self, seq: int) -> None:
        self.owed.pop(seq, None)
        self.answered.discard(seq)

    def settle(self) -> None:
        """Forget the answered jobs whose records the worker's writer stored."""
        acked = self.slot["acked"]
        while self.owed:
            seq = next(iter(self.owed))
            if seq > acked or seq not in self.answered:
                return
            self.forget(seq)

    def recover(self, executor: Executor) -> None:
        """The worker of ``executor`` died: start another and send it every job still owed, in order
        (answered pages to be stored only; a page unanswered after ``MAX_TRIES`` deaths is dropped)."""
        if self.executor is not executor:
            return  # another job of the same worker already recovered it
        self.executor = None
        executor.shutdown(wait=False, cancel_futures=True)
        self.pool.restarts += 1
        self.pool.board.retire(self.slot)
        if not self.pool.served:
            logger.error("rankcrawl: analysis worker processes could not start (a script that starts a crawl needs "
                         "`if __name__ == '__main__':`); analysing in a thread")
            self.pool.processes = False
        else:
            logger.error("rankcrawl: an analysis worker died; %d pages sent to it again", len(self.owed))
        self.resent.clear()
        for seq, job in list(self.owed.items()):
            if seq not in self.answered:
                if self.tries.get(seq, MAX_TRIES) >= MAX_TRIES:
                    self.forget(seq)
                    continue
                self.tries[seq] += 1
            elif isinstance(job, Page):
                job.replay = True
            self.resent[seq] = self.submit(job)

    async def finish(self, timeout: float) -> Finished:
        """The worker's end: replay, flush and stop it; what it could not store (blocking work in its worker)."""
        if self.executor is None and self.worker is None:
            return Finished(0, 0)
        for _ in range(MAX_TRIES):
            sent = self.submit(Finish(timeout))
            try:
                finished, records = await maybe_deferred_to_future(as_deferred(sent.future))
            except BrokenProcessPool:
                self.recover(sent.executor)
                continue
            replay(records)
            break
        else:
            finished = Finished(len(self.owed), 0)
        executor, self.executor = self.executor, None
        if executor is not None:
            await maybe_deferred_to_future(deferToThread(executor.shutdown, True))
        return finished


class AnalysisPool:
    """The crawl's workers, a page routed to its host's worker."""

    def __init__(self, spec: WorkerSpec, workers: int, outage_limit: float = 60.0, flush_timeout: float = 60.0) -> None:
        if workers < 0:
            raise ValueError(f"RANKCRAWL_ANALYSIS_WORKERS must be ≥ 0, not {workers}")
        self.spec, self.workers, self.outage_limit = spec, workers, outage_limit
        self.flush_timeout = flush_timeout
        """Seconds the close waits for Redis (0 once the crawl gave up on it)."""
        self.processes = workers > 0
        self.board = Board(workers)
        self.lanes = [Lane(self, slot) for slot in self.board.slots]
        self.router = HostRouter(len(self.lanes))
        self.restarts = self.served = self.peak = self.backpressure = 0
        self.gave_up = self.closing = False
        """``gave_up``: set when Redis took no write for too long: nothing waits for room in a writer any more."""
        self.finished: Finished | None = None
        self.waiters: list[Deferred[Finished]] = []

    @classmethod
    def from_config(cls, config: RankcrawlConfig) -> AnalysisPool:
        """The pool of a checked config; its worker processes start at once (an unreachable Redis: one line, now)."""
        url = config.redis_url or embedded_server().ensure_running()
        connect(url, socket_timeout=SITE_TIMEOUT).close()
        share = -(-config.edge_buffer // max(1, config.workers))  # the crawl's buffer, split over its writers
        site = (SiteSpec(url, config.key_prefix, config.link_weighting, config.edge_scope, config.sum_repeated_links,
                         share) if config.site_level else None)
        options = FactOptions(site=site is not None, weighting=config.link_weighting if site else "uniform",
                              classifier=config.classifier, max_bytes=config.max_page_bytes, timeout=config.analysis_timeout)
        store = StoreSpec(url, config.key_prefix, config.edge_batch, share, config.max_url_length)
        pool = cls(WorkerSpec(options, config.edge_scope, config.sum_repeated_links, site, store), config.workers,
                   max(config.flush_timeout, config.outage_timeout), config.flush_timeout)
        pool.start()
        return pool

    @classmethod
    def of(cls, crawler: Any) -> AnalysisPool:
        """The crawl's one pool, shared by the analyzer and the edge sink (built on first use)."""
        return per_crawler(crawler, cls, lambda: cls.from_config(RankcrawlConfig.of(crawler)))

    def start(self) -> None:
        """Start and warm the worker processes (returns at once; warming runs in the background)."""
        if self.processes:
            for lane in self.lanes:
                lane.start()

    def lane(self, url: str) -> Lane:
        return self.lanes[self.router.route(url)]

    async def run(self, url: str, body: bytes, encoding: str | None, meta: dict[str, Any] | None) -> PageResult | None:
        """The page's result from its host's worker, which stores its edges (``meta`` given); None when the
        page was over its analysis time budget."""
        result = await self.lane(url).run(Page(0, url, body, encoding, meta))
        self.served += 1
        return result

    async def store(self, url: str, records: list[Record]) -> None:
        """Store ``records`` (about ``url``: a gone page, its redirects) through its host's worker."""
        await self.lane(url).run(Store(0, url, records))

    async def room(self, lane: Lane) -> None:
        """Wait while ``lane``'s writer holds its limit of records (at most ``outage_limit`` seconds)."""
        store = self.spec.store
        if store is None or lane.slot["buffered"] < store.limit:
            return
        self.backpressure += 1
        logger.warning("rankcrawl: a worker's edge buffer is full (%d pages); waiting for Redis", store.limit)
        from twisted.internet import reactor  # the running one; importing it early would install a default

        deadline = time.monotonic() + self.outage_limit
        while lane.slot["buffered"] >= store.limit and not self.gave_up and time.monotonic() < deadline:
            await maybe_deferred_to_future(deferLater(reactor, BACKPRESSURE_POLL, lambda: None))

    def stalled(self) -> float:
        """Seconds the longest-waiting writer's records have waited with no write going through."""
        now = time.monotonic()
        return max((now - s["progress"] for s in self.board.slots if s["buffered"] > 0), default=0.0)

    def full(self) -> bool:
        """Whether a writer holds its limit of records."""
        store = self.spec.store
        return store is not None and any(s["buffered"] >= store.limit for s in self.board.slots)

    async def close(self) -> Finished:
        """Each worker's end within ``flush_timeout`` seconds (at once): what the crawl could not store
        (logged, and in ``stats``). Later callers wait for the first."""
        if self.finished is not None:
            return self.finished
        if self.closing:
            waiter: Deferred[Finished] = Deferred()
            self.waiters.append(waiter)
            return await maybe_deferred_to_future(waiter)
        self.closing = True
        left: list[Finished] = []
        try:
            results = await maybe_deferred_to_future(DeferredList(
                [deferred_from_coro(lane.finish(self.flush_timeout)) for lane in self.lanes], consumeErrors=True))
            for lane, (ok, value) in zip(self.lanes, results):
                if ok:
                    left.append(value)
                else:  # what it owed is not known to be stored
                    logger.error("rankcrawl: an analysis worker did not finish: %s", value)
                    left.append(Finished(len(lane.owed), 0))
        finally:
            self.finished = Finished(sum(f.pages for f in left), sum(f.edges for f in left))
            if self.finished.pages:
                logger.error("rankcrawl: %d pages (%d edges) could not be written to Redis %s", self.finished.pages,
                             self.finished.edges, "(it took no write for RANKCRAWL_FLUSH_TIMEOUT)" if self.gave_up
                             else "before the flush timeout")
            for waiter in self.waiters:
                waiter.callback(self.finished)
        return self.finished

    def stats(self) -> dict[str, float]:
        """The workers' figures as Scrapy stats."""
        t = self.board.total
        figures = {
            "rankcrawl/pages/pushed": t("pages"), "rankcrawl/edges/pushed": t("edges"),
            "rankcrawl/edges/buffered_max": t("peak"), "rankcrawl/edges/backpressure": self.backpressure,
            "rankcrawl/redis/retries": t("retries"), "rankcrawl/pages/rejected": t("rejected"),
            "rankcrawl/pages/gone": t("gone"), "rankcrawl/pages/redirects": t("redirects"),
            "rankcrawl/pages/failed": t("failed"), "rankcrawl/redis/corrupt": t("corrupt"),
            "rankcrawl/urls/rejected": t("urls_rejected"),
            "rankcrawl/analysis/workers": self.workers, "rankcrawl/analysis/worker_restarts": self.restarts,
            "rankcrawl/analysis/in_flight_max": self.peak, "rankcrawl/analysis/slowest_ms": round(t("slowest") * 1000),
            "rankcrawl/analysis/cpu_s": round(t("cpu"), 1),
        }
        if self.finished is not None and self.finished.pages:
            figures |= {"rankcrawl/pages/unflushed": self.finished.pages, "rankcrawl/edges/unflushed": self.finished.edges}
        if self.spec.site is not None:
            figures |= {"rankcrawl/site/round_trips": t("round_trips"), "rankcrawl/site/fallback": t("fallbacks"),
                        "rankcrawl/site/replayed": t("replayed"), "rankcrawl/site/unwritten": t("unwritten"),
                        "rankcrawl/site/corrupt": t("site_corrupt"), "rankcrawl/site/restarts": self.restarts}
        return {name: int(value) if float(value).is_integer() else value for name, value in figures.items()}

