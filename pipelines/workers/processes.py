"""Process plumbing of the analysis workers: their start method, their signals, awaiting their results.

Worker processes start from a ``forkserver`` (never ``fork`` from a process whose reactor and threads
run) preloaded with the worker's modules; a result computed elsewhere (a process or a thread) is
awaited from the reactor as a Deferred.
"""

from __future__ import annotations

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
