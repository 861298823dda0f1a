"""Each analysis worker's figures in memory shared with the crawl process (one row of doubles a worker).

A worker (its page loop and its edge writer thread) writes its own row; the crawl process reads every
row at any time — the watchdog needs a worker's writer state (records waiting, the last write, the
records stored) while no page is in flight, and Scrapy's stats need the counts — so nothing but the
follow result travels back with a page. Counters are the running worker's own; when a worker dies
the crawl process folds its row into ``lost`` and clears it for the next one (``retire``).
"""

from __future__ import annotations

import multiprocessing
from typing import Any

COUNTERS = ("pages", "edges", "retries", "rejected", "redirects", "gone", "failed", "corrupt", "urls_rejected",
            "round_trips", "fallbacks", "replayed", "site_corrupt", "analysed", "cpu")
"""Counts that add up over workers and over a dead worker's successors."""
PEAKS = ("peak", "slowest")
"""Maxima: the most records a writer held, the slowest page's CPU seconds."""
GAUGES = ("buffered", "progress", "acked", "unwritten")
"""The running worker's state: records its writer holds, when it last wrote (``time.monotonic``, shared
by the processes of one machine) or records began to wait, the highest page sequence number whose records
are all stored (or refused), pages whose site-level state waits for Redis."""
FIELDS = COUNTERS + PEAKS + GAUGES
INDEX = {name: i for i, name in enumerate(FIELDS)}


class Slot:
    """One worker's row."""

    def __init__(self, cells: Any, row: int) -> None:
        self.cells, self.base = cells, row * len(FIELDS)

    def __getitem__(self, name: str) -> float:
        return float(self.cells[self.base + INDEX[name]])

    def __setitem__(self, name: str, value: float) -> None:
        self.cells[self.base + INDEX[name]] = value

    def add(self, name: str, value: float) -> None:
        self[name] += value

    def most(self, name: str, value: float) -> None:
        if value > self[name]:
            self[name] = value


class Board:
    """The rows of ``workers`` workers (shared memory: passed to a worker process when it starts)."""

    def __init__(self, workers: int) -> None:
        self.cells = multiprocessing.get_context("forkserver").RawArray("d", max(1, workers) * len(FIELDS))
        self.slots = [Slot(self.cells, i) for i in range(max(1, workers))]
        self.lost = dict.fromkeys(COUNTERS + PEAKS, 0.0)
        """The counts of workers that died."""

    def retire(self, slot: Slot) -> None:
        """A worker died: keep its counts in ``lost`` and clear its row (``acked`` stays)."""
        for name in COUNTERS:
            self.lost[name] += slot[name]
        for name in PEAKS:
            self.lost[name] = max(self.lost[name], slot[name])
        for name in FIELDS:
            if name != "acked":
                slot[name] = 0.0

    def total(self, name: str) -> float:
        """``name`` over every worker, those that died included (maxima for ``PEAKS``)."""
        values = [s[name] for s in self.slots]
        if name in PEAKS:
            return max([self.lost[name], *values])
        return self.lost.get(name, 0.0) + sum(values)
