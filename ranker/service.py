"""The long-running ranker: consume changes, re-solve warm, publish epochs (SPEC §4).

The graph stays in memory; after the first load only hosts named in the change stream are
reloaded. Each solve starts from the last published vector (pages that are new start at their
teleport share, then the vector is renormalised) and calls the partitioned Gauss–Seidel
solver (Kohlschütter §3.2.2). Published epochs carry the stream offset they cover, so a
process killed at any moment resumes from the last epoch without skipping a change.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np
import redis

from rankcrawl.ranker.store.epochs import current, load_vectors, publish
from rankcrawl.ranker.store.graphstore import GraphStore, HostEdges, assemble, stream_id_key
from rankcrawl.ranker.store.hostgraph import HostGraph
from rankcrawl.settings.keys import DEFAULT_PREFIX
from rankcrawl.ranker.partitioned_pagerank import pagerank
from rankcrawl.ranker.partitions import assign_partitions
from rankcrawl.ranker.progress import Progress



@dataclass(frozen=True)
class SolveReport:
    """What one solve did."""

    epoch: int
    hosts: int
    pages: int
    edges: int
    reloaded_hosts: int
    iterations: int
    residual: float
    seconds: float


class RankerService:
    """Keeps ranks in Redis current with the graph store."""

    def __init__(
        self,
        client: Any,
        alpha: float = 0.85,
        tol: float = 1e-10,
        partitions: int = 1,
        teleport_urls: Iterable[str] | None = None,
        prefix: str = DEFAULT_PREFIX,
        debounce: float = 0.5,
        progress: Progress | None = None,
    ) -> None:
        if not 0 < alpha < 1:
            raise ValueError("alpha must be between 0 and 1")
        if tol <= 0:
            raise ValueError("tol must be positive")
        if partitions < 1:
            raise ValueError("partitions must be at least 1")
        self.store = GraphStore(client, prefix)
        self.alpha, self.tol, self.partitions, self.debounce = alpha, tol, partitions, debounce
        self.teleport_urls = list(teleport_urls or [])
        self.progress = progress or Progress()
        self._hosts: dict[int, HostEdges] | None = None
        self._offset: str | None = None
        self._vectors: dict[int, np.ndarray] = {}
        self._assignment: dict[int, int] = {}

    # -- graph ----------------------------------------------------------------------------
    def _refresh(self, head: str) -> int:
        """Bring the in-memory graph up to ``head``; returns how many hosts were (re)loaded."""
        if (self._hosts is None or self._offset is None or self.store.stream_gap(self._offset)
                or stream_id_key(head) < stream_id_key(self._offset)):  # trimmed, or the server lost data
            self._hosts = self.store.load_hosts(self.store.all_host_ids())
            return len(self._hosts)
        _, changed = self.store.changes_since(self._offset, until=head)
        self._hosts.update(self.store.load_hosts(sorted(changed)))
        return len(changed)

    def _teleport(self, graph: HostGraph) -> np.ndarray | None:
        """The biasing set's teleport vector π_B (Kohlschütter Eq. 3.4), None for uniform."""
        if not self.teleport_urls:
            return None
        known = {h: k for k, h in enumerate(graph.host_ids.tolist())}
        pairs = [p for p in self.store.ids(self.teleport_urls, create=False) if p and p[0] in known]
        idx = [graph.host_offsets[known[h]] + l for h, l in pairs if graph.host_offsets[known[h]] + l < graph.host_offsets[known[h] + 1]]
        if not idx:
            raise ValueError("none of the teleport URLs is in the graph")
        v = np.zeros(graph.n_pages)
        v[np.unique(idx)] = 1.0
        return v / v.sum()

    def _warm_start(self, graph: HostGraph, v: np.ndarray | None) -> np.ndarray | None:
        """Last published ranks in graph order; new pages at their teleport share; renormalised."""
        if not self._vectors:
            return None
        x0 = np.full(graph.n_pages, 1.0 / graph.n_pages) if v is None else v.copy()
        for k, hid in enumerate(graph.host_ids.tolist()):
            old = self._vectors.get(hid)
            if old is not None:
                lo, hi = graph.host_offsets[k], graph.host_offsets[k + 1]
                m = min(len(old), hi - lo)
                x0[lo : lo + m] = old[:m]
        total = x0.sum()
        return x0 / total if total > 0 else None

    def _partition_of_hosts(self, graph: HostGraph) -> np.ndarray:
        """Stable host → partition map: known hosts keep theirs, new ones go to the lightest."""
        previous = np.array([self._assignment.get(h, -1) for h in graph.host_ids.tolist()], dtype=np.int64)
        part = assign_partitions(np.diff(graph.host_offsets), self.partitions, previous if len(self._assignment) else None)
        self._assignment = dict(zip(graph.host_ids.tolist(), part.tolist()))
        return part

    # -- solving --------------------------------------------------------------------------
    def resume(self) -> None:
        """Pick up the last published epoch: its stream offset and its vector for the warm start."""
        state = current(self.store)
        if state is not None:
            self._vectors = load_vectors(self.store, state.epoch) or {}
            self._offset = state.offset

    def pending(self) -> bool:
        """True if nothing is published yet or changes arrived after the published epoch."""
        state = current(self.store)
        return state is None or self.store.stream_head() != state.offset

    def solve_once(self) -> SolveReport | None:
        """Load what changed, solve warm, publish an epoch. None when the graph is empty."""
        started = time.perf_counter()
        if self._hosts is None:
            self.resume()
        head = self.store.stream_head()
        reloaded = self._refresh(head)
        graph = assemble(self._hosts or {})
        if graph.n_pages == 0:
            self._offset = head
            return None
        self.progress.loaded(graph.n_hosts, graph.n_pages, len(graph.src), reloaded)
        v = self._teleport(graph)
        x0 = self._warm_start(graph, v)
        with self.progress.solving():
            result = pagerank(graph, alpha=self.alpha, tol=self.tol, v=v, x0=x0, partitions=self._partition_of_hosts(graph))
        stats = dict(
            hosts=graph.n_hosts, pages=graph.n_pages, edges=len(graph.src),
            iterations=result.iterations, residual=result.residual, alpha=self.alpha, tol=self.tol,
        )
        epoch = publish(self.store, graph, result.r, head, stats)
        self._offset = head
        self._vectors = {int(h): result.r[graph.host_offsets[k] : graph.host_offsets[k + 1]]
                         for k, h in enumerate(graph.host_ids)}
        report = SolveReport(epoch, graph.n_hosts, graph.n_pages, len(graph.src), reloaded,
                             result.iterations, result.residual, time.perf_counter() - started)
        self.progress.published(report)
        return report

    def run(self, stop: threading.Event, poll_interval: float = 1.0) -> None:
        """Solve whenever changes arrive (debounced) until ``stop`` is set."""
        while not stop.is_set():
            try:
                if self._hosts is None:
                    self.resume()
                if self.pending() and self.solve_once() is not None:
                    continue
                since = self._offset or "0-0"
                last, _ = self.store.changes_since(since, block_ms=max(1, int(poll_interval * 1000)))
                if last != since and not stop.wait(self.debounce):
                    self.solve_once()
            except (redis.ConnectionError, redis.TimeoutError) as exc:
                self.progress.waiting(f"Redis unavailable ({exc}); retrying in {poll_interval:g} s")
                stop.wait(poll_interval)
