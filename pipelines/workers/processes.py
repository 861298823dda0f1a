"""Process plumbing of the analysis workers: their start method, their signals, awaiting their results.

Worker processes start from a ``forkserver`` (never ``fork`` from a process whose reactor and threads
run) preloaded with the worker's modules; a result computed elsewhere (a process or a thread) is
awaited from the reactor as a Deferred.
"""

from __future__ import annotations

import gc
import multiprocessing
import signal
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

PRELOAD = ["rankcrawl.pipelines.workers.worker"]
GC_YOUNG = 7000
"""Allocations between two cyclic collections of the youngest objects in a process rankcrawl owns
(Python's default: 700)."""


def forkserver() -> Any:
    """The ``forkserver`` context of every rankcrawl worker process, its server preloaded with ``PRELOAD``."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    return ctx


def tune_collector() -> None:
    """In a long-running process rankcrawl owns (an analysis worker, the ``rankcrawl crawl`` command):
    freeze the objects made so far (modules, models), which no cyclic collection then scans, and collect
    the youngest objects every ``GC_YOUNG`` allocations. A page's objects are freed by reference counting
    (it leaves less than one reference cycle), so the collector's passes, and the passes over the older
    generations they trigger, are nearly all cost."""
    gc.freeze()
    gc.set_threshold(GC_YOUNG, *gc.get_threshold()[1:])


def ignore_interrupts() -> None:
    """In a worker process: ignore SIGINT. A terminal's Ctrl-C reaches the whole foreground process
    group; the crawl process stops its workers in order, so they must not die with a traceback first.
    (A worker thread, with RANKCRAWL_ANALYSIS_WORKERS = 0, leaves the signal to the crawl.)"""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


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
