"""Page analysis in worker processes, off the reactor's GIL (SPEC §2.7).

``AnalysisPool(workers)`` runs ``site.facts.analyze_page`` in a ``ProcessPoolExecutor`` of
``workers`` processes started by ``forkserver`` (never ``fork`` from a process whose reactor and
threads run), preloaded with the analysis modules and warmed with one small page each (the
classifier read) as soon as the pool starts. The reactor sends the body bytes and
gets back ``PageFacts`` — only our own dataclasses cross the process boundary; nothing read from
Redis is ever unpickled. At most ``2 · workers`` pages are in flight: ``run`` awaits a slot first,
so a saturated pool slows the crawl down (Scrapy's scraper then stops downloading) instead of
queueing bodies without bound. ``workers = 0`` analyses in a reactor thread instead. A worker that
dies (out of memory, a crash in a C library) costs its page (``WorkerCrashed``); the pool is rebuilt.
If the workers cannot even start — as with any multiprocessing program, a script that starts a
crawl at import time must guard it with ``if __name__ == "__main__":`` — the pool logs one error and
analyses in threads from then on.
"""

from __future__ import annotations

import logging
import multiprocessing
import signal
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import Deferred, DeferredSemaphore
from twisted.internet.threads import deferToThread
from twisted.python.failure import Failure

from rankcrawl.pipelines.site.facts import FactOptions, PageFacts, analyze_page
from rankcrawl.pipelines.workers.logs import capture, level, replay, traced

logger = logging.getLogger(__name__)

PRELOAD = ["rankcrawl.pipelines.site.facts", "rankcrawl.pipelines.workers.site_process"]
WARM_PAGE = (b"<html><head><title>warm</title></head><body><ul><li><a href='/a'>a</a></li><li><a href='/b'>b</a>"
             b"</li><li><a href='/c'>c</a></li></ul><p>" + b"word " * 80 + b"</p></body></html>")


class WorkerCrashed(RuntimeError):
    """A worker process died while analysing a page."""


def forkserver() -> Any:
    """The ``forkserver`` context of every rankcrawl worker process, its server preloaded with ``PRELOAD``."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    return ctx


def ignore_interrupts() -> None:
    """In a worker process: ignore SIGINT. A terminal's Ctrl-C reaches the whole foreground process
    group; the crawl process stops its workers in order, so they must not die with a traceback first.
    (A worker thread, with RANKCRAWL_ANALYSIS_WORKERS = 0, leaves the signal to the crawl.)"""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def warm(options: FactOptions, log_level: int) -> None:
    """A worker's start: SIGINT ignored, its log records kept for the crawl process (``workers.logs``),
    and a tiny page analysed once, so compiled kernels and the classifier are loaded before real work."""
    ignore_interrupts()
    capture(log_level)
    analyze_page("http://warm.invalid/", WARM_PAGE, "utf-8", options)


def as_deferred(future: Future[Any]) -> Deferred[Any]:
    """A Deferred fired in the reactor thread when ``future`` (run elsewhere) completes."""
    from twisted.internet import reactor

    d: Deferred[Any] = Deferred()

    def fire(f: Future[Any]) -> None:
        exc = f.exception() if not f.cancelled() else RuntimeError("cancelled")
        if exc is not None:
            d.errback(Failure(exc))
        else:
            d.callback(f.result())

    future.add_done_callback(lambda f: reactor.callFromThread(fire, f))
    return d


async def in_thread(executor: Any, fn: Callable[..., Any], *args: Any) -> Any:
    """Run ``fn(*args)`` on ``executor`` and await it from the reactor."""
    return await maybe_deferred_to_future(as_deferred(executor.submit(fn, *args)))


class Restarting:
    """Owner of a process pool that is dropped when it breaks and started anew on next use."""

    def __init__(self) -> None:
        self.executor: ProcessPoolExecutor | None = None
        self.restarts = 0

    def retire(self, executor: ProcessPoolExecutor) -> bool:
        """Drop the broken ``executor`` (and count a restart); False if an earlier page already did,
        as every page in flight on a dead pool fails."""
        if self.executor is not executor:
            return False
        self.executor = None
        self.restarts += 1
        executor.shutdown(wait=False, cancel_futures=True)
        return True


class AnalysisPool(Restarting):
    """A bounded pool of warm analysis processes (or the reactor's threads when ``workers`` is 0)."""

    def __init__(self, workers: int, options: FactOptions) -> None:
        if workers < 0:
            raise ValueError(f"RANKCRAWL_ANALYSIS_WORKERS must be ≥ 0, not {workers}")
        super().__init__()
        self.workers, self.options = workers, options
        self.slots = DeferredSemaphore(max(1, 2 * workers))
        self.peak = 0
        self.served = 0
        self.slowest = 0.0
        """Seconds the slowest page's analysis took in its worker (``PageFacts.seconds``)."""
        self.cpu = 0.0
        """CPU seconds the analysis of the pages served took (``PageFacts.seconds`` summed)."""

    def start(self) -> None:
        """Start and warm the worker processes (returns at once; warming runs in the background)."""
        if self.workers and self.executor is None:
            self.executor = ProcessPoolExecutor(self.workers, mp_context=forkserver(), initializer=warm,
                                                initargs=(self.options, level()))
            for _ in range(self.workers):
                self.executor.submit(int)

    async def run(self, url: str, body: bytes, encoding: str | None) -> PageFacts:
        """The page's facts; awaits a free slot first (backpressure)."""
        if not self.workers:
            self.served += 1
            facts = await maybe_deferred_to_future(deferToThread(analyze_page, url, body, encoding, self.options))
            self.slowest = max(self.slowest, facts.seconds)
            self.cpu += facts.seconds
            return facts
        await maybe_deferred_to_future(self.slots.acquire())
        self.peak = max(self.peak, self.slots.limit - self.slots.tokens)
        try:
            self.start()
            executor = self.executor
            assert executor is not None
            try:
                facts, records = await in_thread(executor, traced, analyze_page, url, body, encoding, self.options)
            except BrokenProcessPool:
                if self.retire(executor) and not self.served:
                    logger.error("rankcrawl: analysis worker processes could not start (a script that starts "
                                 "a crawl needs `if __name__ == '__main__':`); analysing in threads")
                    self.workers = 0
                raise WorkerCrashed(f"an analysis worker died on {url}") from None
            replay(records)
            self.served += 1
            self.slowest = max(self.slowest, facts.seconds)
            self.cpu += facts.seconds
            return facts
        finally:
            self.slots.release()

    def close(self) -> None:
        """Stop the worker processes (blocking: call it off the reactor thread)."""
        if self.executor is not None:
            self.executor.shutdown(wait=True, cancel_futures=True)
            self.executor = None
