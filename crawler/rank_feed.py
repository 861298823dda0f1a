"""``RankFeed``: published ranks of queued URLs, read off the reactor for the frontier.

The scheduler tells the feed which URLs it queued and which it handed out (two thread-safe deques,
appended on the reactor thread); a daemon thread wakes every ``refresh`` seconds and, when the
published epoch changed, reads the ranks of the URLs still queued (each host's score vector once,
indexed by the URLs' LocalIDs, which are looked up once) and leaves them in ``ready``. The reactor
thread only drains ``ready``: it never waits on Redis. (The shared frontier passes a ``sink`` that
writes the ranks to Redis from the thread instead.) A failure to read (Redis away, a corrupt value) is logged once per kind and
retried at the next wake; the thread ends only when the scheduler stops it.
"""

from __future__ import annotations

import logging
import threading
from collections import defaultdict, deque
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

from rankcrawl.ranker.store.epochs import alive, current, get_many, manifest, vector_of
from rankcrawl.ranker.store.graphstore import GraphStore
from rankcrawl.settings.connection import connect

logger = logging.getLogger(__name__)

BATCH = 5000
"""URLs per ID look-up."""


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
        self._urls: dict[Hashable, str] = {}
        self._ids: dict[Hashable, tuple[int, int]] = {}
        self._store: GraphStore | None = None
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
            key = self.taken.popleft()
            self._urls.pop(key, None)
            self._ids.pop(key, None)

    def _resolve(self, store: GraphStore) -> None:
        """(HostID, LocalID) of queued URLs that have none yet (IDs never change; a URL gets one once
        an edge to it is stored)."""
        todo = [k for k in self._urls if k not in self._ids]
        for i in range(0, len(todo), BATCH):
            chunk = todo[i:i + BATCH]
            for key, ids in zip(chunk, store.ids([self._urls[k] for k in chunk], create=False)):
                if ids is not None:
                    self._ids[key] = ids

    def read_once(self) -> bool:
        """Read the ranks of the queued URLs if a new epoch was published (blocking; off the reactor):
        one GET per host of its score vector, indexed by the URLs' LocalIDs."""
        store = self._store = self._store or GraphStore(connect(self.redis_url), self.prefix)
        self._sync()
        state = current(store)
        if state is None or state.epoch == self.epoch:
            return False
        self._resolve(store)
        m = manifest(store, state.epoch)
        if m is None:
            return False  # dropped meanwhile: the next wake reads the newer epoch
        by_host: dict[int, list[tuple[Hashable, int]]] = defaultdict(list)
        for key, (hid, lid) in self._ids.items():
            if hid < len(m) and m[hid]:
                by_host[hid].append((key, lid))
        hosts = list(by_host)
        raws = get_many(store, [store.keys.rank(h, int(m[h])) for h in hosts])
        if not alive(store, state.epoch):
            return False
        found: list[tuple[Hashable, float]] = []
        for hid, raw in zip(hosts, raws):
            vec = vector_of(store, store.keys.rank(hid, int(m[hid])), raw) if raw is not None else None
            if vec is None:
                continue
            keys, lids = zip(*by_host[hid])
            idx = np.asarray(lids, dtype=np.int64)
            ok = idx < len(vec)
            vals = np.full(len(idx), np.nan)
            vals[ok] = vec[idx[ok]] / state.norm
            found += [(k, float(v)) for k, v in zip(keys, vals.tolist()) if v == v]
        if self.sink is not None:
            self.sink(state.epoch, found)
        else:
            self.ready.append((state.epoch, found))
        self.epoch = state.epoch
        return True

    def _run(self) -> None:
        while not self._stop.wait(self.refresh):
            try:
                self.read_once()
            except Exception as exc:  # noqa: BLE001 - the feed must outlive any one bad read
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
