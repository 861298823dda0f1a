"""The site-level step (``SiteAnalyzer``) off the crawl process's GIL (SPEC §2.7).

A thread of the crawl process would compete with the reactor for the GIL, and its wall time per page
would pace the whole crawl. ``SiteProcess`` runs the crawl's one ``SiteAnalyzer`` in a worker
process of its own (``forkserver``, like the analysis workers), which receives each page's
``PageFacts`` and returns its ``PageResult``; one process, fed in submission order, so each host's
pages are decided in the order their facts arrived, as in the thread. Only our own dataclasses cross
the process boundary; the process holds its own Redis connection and the host memory
(``site.recent_pages``). If it dies, its page is lost (``WorkerCrashed``) and a new process starts with empty
memory; the hosts' state in Redis stays. ``SiteThread`` is the same step in one thread of the
calling process (RANKCRAWL_ANALYSIS_WORKERS = 0, tests).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from operator import add
from typing import NamedTuple

import redis

from rankcrawl.pipelines.site.analyzer import SiteAnalyzer
from rankcrawl.pipelines.site.facts import PageFacts
from rankcrawl.pipelines.site.result import Edges, PageResult, result_of
from rankcrawl.pipelines.workers.logs import capture, level, replay, traced
from rankcrawl.pipelines.workers.pool import Restarting, WorkerCrashed, forkserver, ignore_interrupts, in_thread
from rankcrawl.settings.connection import RedisUnavailable, connect, retry_policy

logger = logging.getLogger(__name__)

SITE_TIMEOUT = 5.0
"""Seconds a site-level Redis call may take before the page falls back to its per-page decision."""


@dataclass(frozen=True)
class SiteSpec:
    """What the crawl's ``SiteAnalyzer`` is built from (it crosses to the site-level process)."""

    redis_url: str | None
    prefix: str
    weighting: str
    scope: str
    sum_repeated: bool
    buffer: int

    def build(self) -> SiteAnalyzer:
        """The analyzer, with a checked client; if the server is away (a process restarted during an
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


class SiteFigures(NamedTuple):
    """The site-level step's counts (stats ``rankcrawl/site/*``); ``unwritten``: pages whose contribution
    never reached Redis (an outage backlog left at the end, or held by a site-level process that died)."""

    round_trips: int = 0
    fallbacks: int = 0
    replayed: int = 0
    unwritten: int = 0
    corrupt: int = 0  # corrupt values of the site-level state met (each repaired: ``site.sketch``)

    def plus(self, other: SiteFigures) -> SiteFigures:
        return SiteFigures(*map(add, self, other))


def figures(site: SiteAnalyzer) -> SiteFigures:
    return SiteFigures(site.round_trips, site.fallbacks, site.replayed, site.unwritten, site.state.corruption.total)


@dataclass
class SiteClosed:
    """The site-level step's end: re-pushes left and its figures."""

    repush: list[tuple[str, Edges]]
    figures: SiteFigures


def decide(site: SiteAnalyzer, facts: PageFacts) -> PageResult:
    """The page's result after the site-level step, with the re-pushes it caused."""
    d = site.process(facts)
    return result_of(facts, d, site.take_repush())


def close(site: SiteAnalyzer, timeout: float) -> SiteClosed:
    """Replay the outage backlog for at most ``timeout`` seconds (blocking); the step's end figures."""
    site.close(timeout)
    return SiteClosed(site.take_repush(), figures(site))


class SiteThread:
    """The site-level step in one thread of this process."""

    def __init__(self, site: SiteAnalyzer) -> None:
        self.site = site
        self.thread = ThreadPoolExecutor(1, thread_name_prefix="rankcrawl-site")
        self.restarts = 0

    async def decide(self, facts: PageFacts) -> PageResult:
        return await in_thread(self.thread, decide, self.site, facts)

    def decide_sync(self, facts: PageFacts) -> PageResult:
        return decide(self.site, facts)

    def close(self, timeout: float) -> SiteClosed:
        closed = self.thread.submit(close, self.site, timeout).result()
        self.thread.shutdown()
        return closed


_site: SiteAnalyzer | None = None
"""The site-level process's analyzer."""


def _start(spec: SiteSpec, log_level: int) -> None:
    global _site
    ignore_interrupts()
    capture(log_level)
    _site = spec.build()


def _decide(facts: PageFacts) -> tuple[PageResult, list[logging.LogRecord], SiteFigures]:
    assert _site is not None
    result, records = traced(decide, _site, facts)
    return result, records, figures(_site)


def _close(timeout: float) -> tuple[SiteClosed, list[logging.LogRecord]]:
    assert _site is not None
    return traced(close, _site, timeout)


class SiteProcess(Restarting):
    """The site-level step in a worker process of its own (started on first use, restarted if it dies)."""

    def __init__(self, spec: SiteSpec) -> None:
        super().__init__()
        self.spec = spec
        self.current = SiteFigures()
        """The running process's figures as of its last page."""
        self.lost = SiteFigures()
        """The figures of the processes that died (their unwritten pages are lost)."""

    def start(self) -> ProcessPoolExecutor:
        if self.executor is None:
            self.executor = ProcessPoolExecutor(1, mp_context=forkserver(), initializer=_start,
                                                initargs=(self.spec, level()))
        return self.executor

    async def decide(self, facts: PageFacts) -> PageResult:
        executor = self.start()
        with self._guard(executor, facts.url):
            return self._received(await in_thread(executor, _decide, facts))

    def decide_sync(self, facts: PageFacts) -> PageResult:
        executor = self.start()
        with self._guard(executor, facts.url):
            return self._received(executor.submit(_decide, facts).result())

    def _received(self, reply: tuple[PageResult, list[logging.LogRecord], SiteFigures]) -> PageResult:
        result, records, self.current = reply
        replay(records)
        return result

    @contextmanager
    def _guard(self, executor: ProcessPoolExecutor, url: str) -> Iterator[None]:
        """A dead process costs the page (``WorkerCrashed``); the next page starts a new one."""
        try:
            yield
        except BrokenProcessPool:
            if self.retire(executor):
                self.lost, self.current = self.lost.plus(self.current), SiteFigures()
            raise WorkerCrashed(f"the site-level process died on {url}") from None

    def close(self, timeout: float) -> SiteClosed:
        """The last re-pushes and the figures of every process this step ran (those that died included)."""
        if self.executor is None:
            return SiteClosed([], self.lost.plus(self.current))
        try:
            closed, records = self.executor.submit(_close, timeout).result()
            replay(records)
            return SiteClosed(closed.repush, self.lost.plus(closed.figures))
        except BrokenProcessPool:
            return SiteClosed([], self.lost.plus(self.current))
        finally:
            self.executor.shutdown(wait=True)
            self.executor = None
