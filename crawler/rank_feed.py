"""``RankFeed``: published ranks of queued URLs, read off the reactor for the frontier.

The scheduler tells the feed which URLs it queued and which it handed out (two thread-safe deques,
appended on the reactor thread); a daemon thread wakes every ``refresh`` seconds and, when the
published epoch changed, reads the ranks of the URLs still queued (``RankQueries.rank``: one
pipelined read per batch) and leaves them in ``ready``. The reactor thread only drains ``ready``:
it never waits on Redis. (The shared frontier passes a ``sink`` that writes the ranks to Redis from the
thread instead.) A failure to read (Redis away, a corrupt value) is logged once per kind and
retried at the next wake; the thread ends only when the scheduler stops it.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Hashable
from typing import Any

from rankcrawl.ranker.store.queries import RankQueries
from rankcrawl.settings.connection import connect

logger = logging.getLogger(__name__)

BATCH = 5000
"""URLs per rank read."""


class RankFeed:
    """Background reader of the ranks of the frontier's queued URLs, one batch per published epoch."""

    def __init__(self, redis_url: str | None, prefix: str, refresh: float,
                 sink: Callable[[int, list[tuple[Hashable, float]]], None] | None = None) -> None:
        self.redis_url, self.prefix, self.refresh = redis_url, prefix, refresh
        self.sink = sink
        """Called in the feed thread with each epoch's ranks instead of leaving them in ``ready``."""
        self.queued: deque[tuple[Hashable, str]] = deque()
        self.taken: deque[Hashable] = deque()
        self.ready: deque[tuple[int, list[tuple[Hashable, float]]]] = deque()
        """(epoch, [(key, rank)]) for the reactor thread to apply."""
        self.epoch: int | None = None
        self.reads = 0
        self.failures = 0
        self._urls: dict[Hashable, str] = {}
        self._queries: RankQueries | None = None
        self._errors: set[str] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rankcrawl-rank-feed", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _sync(self) -> None:
        while self.queued:
            key, url = self.queued.popleft()
            self._urls[key] = url
        while self.taken:
            self._urls.pop(self.taken.popleft(), None)

    def read_once(self) -> bool:
        """Read the ranks of the queued URLs if a new epoch was published (blocking; off the reactor)."""
        self._queries = self._queries or RankQueries(connect(self.redis_url), self.prefix)
        self._sync()
        epoch = self._queries.epoch()
        if epoch is None or epoch == self.epoch:
            return False
        items = list(self._urls.items())
        found: list[tuple[Hashable, float]] = []
        for i in range(0, len(items), BATCH):
            chunk = items[i:i + BATCH]
            ranks = self._queries.rank([u for _, u in chunk])
            found += [(k, r) for k, u in chunk if (r := ranks.get(u)) is not None]
        if self.sink is not None:
            self.sink(epoch, found)
        else:
            self.ready.append((epoch, found))
        self.epoch = epoch
        self.reads += 1
        return True

    def _run(self) -> None:
        while not self._stop.wait(self.refresh):
            try:
                self.read_once()
            except Exception as exc:  # noqa: BLE001 - the feed must outlive any one bad read
                self.failures += 1
                kind = type(exc).__name__
                log = logger.debug if kind in self._errors else logger.warning
                self._errors.add(kind)
                log("rankcrawl: frontier ranks not read (%s: %s); retrying", kind, str(exc)[:200])

    def drain(self) -> list[tuple[int, list[tuple[Hashable, float]]]]:
        """The epochs read since the last call (reactor thread)."""
        out: list[Any] = []
        while self.ready:
            out.append(self.ready.popleft())
        return out
