"""One analysis worker: a page's analysis, its host's site memory, and the page's writes to Redis.

The crawl process routes every page of a host to the same worker (``workers/pool.py``), so the worker
owns its hosts' site memory (``SiteAnalyzer``: templates, recent pages, near-duplicate evidence) and
does the whole page: ``site.facts.analyze_page`` under the page's time budget, the site-level step
(one Lua call to the host's state in Redis), the page's ``PageResult``, and its records (the page,
and the earlier pages the step re-decided) handed to its own ``EdgeWriter`` thread. What goes back to
the crawl process is the ``PageResult``: what the crawl follows, the page's edges (and those it
re-pushed) and its figures; never its facts. Counts and the writer's state go to the worker's row of the shared
``Board``.

A ``Worker`` runs in a worker process (``start``/``serve``, the process's one worker) or, with
RANKCRAWL_ANALYSIS_WORKERS = 0, in one thread of the crawl process: the same code either way.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import redis

from rankcrawl.pipelines.edges.writer import EdgeWriter, Record, page_records, repush_records
from rankcrawl.pipelines.site.analyzer import SiteAnalyzer
from rankcrawl.pipelines.site.decide import decide, page_keys
from rankcrawl.pipelines.site.facts import FactOptions, PageFacts, analyze_page
from rankcrawl.pipelines.site.result import PageResult, result_of
from rankcrawl.pipelines.workers.board import Slot
from rankcrawl.pipelines.workers.logs import capture, traced
from rankcrawl.pipelines.workers.processes import ignore_interrupts, tune_collector
from rankcrawl.ranker.store.graphstore import PageRecord
from rankcrawl.settings.connection import RedisUnavailable, connect, retry_policy

logger = logging.getLogger(__name__)

WARM_PAGE = (b"<html><head><title>warm</title></head><body><ul><li><a href='/a'>a</a></li><li><a href='/b'>b</a>"
             b"</li><li><a href='/c'>c</a></li></ul><p>" + b"word " * 80 + b"</p></body></html>")


SITE_TIMEOUT = 5.0
"""Seconds a site-level Redis call may take before the page falls back to its per-page decision."""


@dataclass(frozen=True)
class SiteSpec:
    """What a worker's ``SiteAnalyzer`` is built from."""

    redis_url: str | None
    prefix: str
    weighting: str
    scope: str
    sum_repeated: bool
    buffer: int

    def build(self) -> SiteAnalyzer:
        """The analyzer, with a checked client; if the server is away (a worker restarted during an
        outage), an unchecked one: the analyzer then decides per page and retries until Redis answers."""
        try:
            client = connect(self.redis_url, socket_timeout=SITE_TIMEOUT)
        except RedisUnavailable as exc:
            if self.redis_url is None:
                raise
            logger.warning("rankcrawl: the site-level step starts while Redis is away (%s)", exc)
            client = redis.Redis.from_url(self.redis_url, retry=retry_policy(), socket_timeout=SITE_TIMEOUT,
                                          socket_connect_timeout=SITE_TIMEOUT)
        return SiteAnalyzer(client, prefix=self.prefix, weighting=self.weighting, scope=self.scope,
                            sum_repeated=self.sum_repeated, buffer=self.buffer)


@dataclass(frozen=True)
class StoreSpec:
    """Where a worker's edge writer stores (the crawl's graph store)."""

    redis_url: str | None
    prefix: str
    batch: int
    limit: int
    max_url_length: int


@dataclass(frozen=True)
class WorkerSpec:
    """What a worker is built from (it crosses to the worker process once, when the process starts)."""

    options: FactOptions
    scope: str = "content"
    sum_repeated: bool = False
    site: SiteSpec | None = None
    store: StoreSpec | None = None


@dataclass
class Page:
    """A fetched page to analyse; ``meta`` (status, depth, fetch time) is stored with its edges (None:
    analyse only, store nothing)."""

    seq: int
    url: str
    body: bytes
    encoding: str | None
    meta: dict[str, Any] | None = None
    replay: bool = False
    """Analysed again after its worker died: stored, its result not wanted."""


@dataclass
class Store:
    """Records the crawl process stores without analysis (gone pages, redirects), about ``url``."""

    seq: int
    url: str
    records: list[Record] = field(default_factory=list)


@dataclass
class Finish:
    """The crawl's end: replay the site-level backlog, then flush the edge writer, within ``timeout`` s."""

    timeout: float


@dataclass
class Finished:
    """What a worker could not store by its end: pages and edges left in its writer."""

    pages: int
    edges: int


Job = Page | Store | Finish


class Worker:
    """A page's analysis, its host's site memory and the page's writes, in one process or thread."""

    def __init__(self, spec: WorkerSpec, slot: Slot) -> None:
        self.spec, self.slot = spec, slot
        self.site = spec.site.build() if spec.site is not None else None
        store = spec.store
        self.writer = None if store is None else EdgeWriter(store.redis_url, store.prefix, store.batch, store.limit,
                                                            store.max_url_length, slot)
        if self.writer is not None:
            self.writer.start()

    def serve(self, job: Job) -> PageResult | Finished | None:
        """Do ``job``: a page's result (None when it was skipped, or replayed), a finish's leftovers."""
        if isinstance(job, Page):
            return self.page(job)
        if isinstance(job, Store):
            self.store(job.seq, job.records)
            return None
        return self.finish(job.timeout)

    def page(self, job: Page) -> PageResult | None:
        facts = analyze_page(job.url, job.body, job.encoding, self.spec.options)
        self.slot.add("analysed", 1)
        self.slot.add("cpu", facts.seconds)
        self.slot.most("slowest", facts.seconds)
        if facts.outcome == "skipped":
            return None
        result = self.decide(facts)
        if job.meta is not None:
            self.store(job.seq, page_records(result, job.meta))
        return None if job.replay else result

    def decide(self, facts: PageFacts) -> PageResult:
        """The page's result: after the site-level step, or from its facts alone without one."""
        if self.site is None:
            d = decide(facts, page_keys(facts), lambda k: False, False, False, [1.0] * len(facts.links),
                       self.spec.scope, self.spec.sum_repeated)
            return result_of(facts, d, [])
        d = self.site.process(facts)
        self.site_figures()
        return result_of(facts, d, self.site.take_repush())

    def store(self, seq: int, records: Sequence[Record]) -> None:
        if self.writer is not None:
            for record in records:
                self.writer.put(record, seq)

    def finish(self, timeout: float) -> Finished:
        """Replay the site-level backlog and store its re-pushes, then flush, both within ``timeout``
        seconds: what is left (blocking)."""
        deadline = time.monotonic() + timeout
        if self.site is not None:
            self.site.close(timeout)
            self.site_figures()
            self.store(self.writer.last if self.writer else 0, repush_records(self.site.take_repush()))
        if self.writer is None:
            return Finished(0, 0)
        left = self.writer.close(max(0.0, deadline - time.monotonic()))
        edges = sum(len(r.links) for r in list(self.writer.buffer) if isinstance(r, PageRecord))
        with self.writer.cond:
            self.writer.publish()
        return Finished(left, edges)

    def site_figures(self) -> None:
        site, slot = self.site, self.slot
        assert site is not None
        for name, value in (("round_trips", site.round_trips), ("fallbacks", site.fallbacks), ("replayed", site.replayed),
                            ("unwritten", site.unwritten), ("site_corrupt", site.state.corruption.total)):
            slot[name] = value


_worker: Worker | None = None
"""A worker process's worker."""


def start(spec: WorkerSpec, slot: Slot, log_level: int) -> None:
    """A worker process's start: SIGINT ignored, its log records kept for the crawl process
    (``workers.logs``), its worker built and a tiny page analysed once, so compiled kernels and the
    classifier are loaded before real work; then the cyclic collector is tuned (``tune_collector``)."""
    global _worker
    ignore_interrupts()
    capture(log_level)
    analyze_page("http://warm.invalid/", WARM_PAGE, "utf-8", spec.options)
    _worker = Worker(spec, slot)
    tune_collector()


def serve(job: Job) -> tuple[PageResult | Finished | None, list[logging.LogRecord]]:
    """In a worker process: ``Worker.serve`` and the log records it left."""
    assert _worker is not None
    return traced(_worker.serve, job)
