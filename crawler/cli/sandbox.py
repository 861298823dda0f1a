"""A killable worker process for ``rankcrawl extract``: the hard stop behind the soft time budget.

The per-file budget (``pipelines.budget``) is checked between short stretches of work, but a stretch
still runs to its end (one lxml call, one regular expression over a block's text, the link model
on a page's anchors) and a loaded machine stretches each. ``Sandbox.run`` therefore does the whole
per-file work in a child process and kills it once ``HARD_FACTOR`` × the budget has passed: no file
can hold the batch longer, and a file that makes the child die (out of memory, a crash in a C
library) costs only itself. The child is forked from the command's own process, which has loaded and
warmed the analysis code once (``warm``), so a new child starts in milliseconds; the command itself
runs no reactor and no threads of its own (numpy's idle BLAS pool registers its own fork handlers),
which is what makes ``fork`` safe here. Only our own arguments and results cross the pipe.
"""

from __future__ import annotations

import gc
import multiprocessing
import resource
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

HARD_FACTOR = 1.5
"""The child is killed this many budgets after the file was handed over."""


class HardTimeout(Exception):
    """The child ran past the hard limit and was killed."""


class WorkerDied(Exception):
    """The child ended without an answer (killed by the system, a crash in a C library)."""


def _serve(conn: Connection) -> None:
    gc.freeze()  # the objects inherited from the warm parent are never collected here: no collection scans (or copies) them
    while True:
        try:
            fn, args = conn.recv()
        except EOFError:
            return
        cpu = time.process_time()
        value = fn(*args)
        conn.send((value, time.process_time() - cpu))


class Sandbox:
    """One reusable child process running ``fn(*args)`` calls, killed and replaced on overrun."""

    def __init__(self, warm: Callable[[], Any] | None = None) -> None:
        if warm is not None:
            warm()  # in this process: every child forked later starts warm
        self.proc: Any = None
        self.conn: Connection | None = None
        self.kills = 0
        self.peak_kb = 0
        self.last_cpu: float | None = None
        """CPU seconds the child spent on the last call (None: it was killed or died)."""

    def _start(self) -> Connection:
        ctx = multiprocessing.get_context("fork")
        mine, theirs = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(theirs,), daemon=True)
        self.proc.start()
        theirs.close()
        self.conn = mine
        return mine

    def _note_peak(self) -> None:
        """Track the live child's peak resident memory (``VmHWM``) before it goes."""
        try:
            with open(f"/proc/{self.proc.pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        self.peak_kb = max(self.peak_kb, int(line.split()[1]))
        except (OSError, ValueError, AttributeError):
            pass

    def _stop(self) -> None:
        if self.proc is not None:
            self._note_peak()
            self.proc.kill()
            self.proc.join()
            self.proc = None
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def run(self, fn: Callable[..., Any], args: tuple[Any, ...], limit: float | None) -> Any:
        """``fn(*args)`` in the child; HardTimeout after ``limit`` seconds (None: no limit), WorkerDied."""
        conn = self.conn if self.proc is not None and self.proc.is_alive() else None
        if conn is None:
            self._stop()
            conn = self._start()
        self.last_cpu = None
        try:
            conn.send((fn, args))
            if conn.poll(limit):
                value, self.last_cpu = conn.recv()
                return value
        except (EOFError, OSError):
            self._stop()
            raise WorkerDied() from None
        except BaseException:  # interrupted while the child works: its late answer must not reach the next call
            self._stop()
            raise
        self.kills += 1
        self._stop()
        raise HardTimeout()

    def peak_rss_mb(self) -> float:
        """The largest resident set of any child so far (every ended child of this process counts), in MB."""
        if self.proc is not None:
            self._note_peak()
        return max(self.peak_kb, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024

    def close(self) -> None:
        self._stop()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
