"""The long-running ranker: apply the change stream as deltas, push residuals locally, publish
what moved (SPEC §4 "warm start and incremental operation").

The graph and the solver state (y and its exact residual) stay in memory (``LiveGraph``); the
first epoch loads every host, later ones reload only the pages named in the change stream (and
the page counts of hosts that grew) and apply them as deltas. The solve pushes residual where the delta put it, until the certified
bound on ‖r − r*‖₁ holds: ``tol`` for a final epoch, ``interim_tol`` (looser) while changes keep
arriving. Every epoch records its bound and whether it converged (non-convergence is logged and
counted in the published state). Only one ranker publishes at a time (``Lease``); an epoch's
stream offset lets a restarted ranker resume from the last published epoch, whose scores seed
the solve (the residual is recomputed exactly, so the result is exact again).
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import redis

from rankcrawl.ranker.parameters import ALPHA, TOL, check_parameters
from rankcrawl.ranker.progress import Progress
from rankcrawl.ranker.store.changestream import stream_id_key
from rankcrawl.ranker.store.epochs import TOP_K, RankPublisher, current, load_vectors
from rankcrawl.ranker.store.graphstore import GraphStore
from rankcrawl.ranker.store.lease import Lease, LeaseLost
from rankcrawl.settings.keys import DEFAULT_PREFIX

if TYPE_CHECKING:
    from rankcrawl.ranker.livegraph import LiveGraph

log = logging.getLogger("rankcrawl.ranker")

MAX_ROUNDS = 100_000
MAX_THREADS = 4
BLOCK_LINKS = 500_000
SOLVE_SHARE = 0.5
"""Every epoch solves to this share of tol: in a warm epoch the rest lets unmoved hosts stay
unpublished; a cold epoch's residual so starts the next epochs within their own target, and their
pushes stay where changes put residual. The last epoch of a service (``ranker --once``), which
no epoch follows, solves to tol itself."""


@dataclass(frozen=True)
class SolveReport:
    """What one epoch did."""

    epoch: int
    hosts: int
    pages: int
    edges: int
    reloaded_hosts: int
    iterations: int
    error_bound: float
    converged: bool
    final: bool
    hosts_published: int
    seconds: float
    load_seconds: float
    solve_seconds: float
    publish_seconds: float
    sweep_equivalents: float

    @property
    def residual(self) -> float:
        return self.error_bound


def cold_threads(links: int) -> int:
    """Threads of a cold solve when ``partitions`` is not given: one per core, up to MAX_THREADS,
    for a graph of at least BLOCK_LINKS links (below, a sweep is too short to share)."""
    return min(os.cpu_count() or 1, MAX_THREADS) if links >= BLOCK_LINKS else 1


def load_solver(alpha: float) -> None:
    """Import the solver (numba) and load its compiled kernels: the service runs this while the
    graph is read, so neither waits for the other."""
    _import_arraymath()
    from rankcrawl.ranker.livegraph import warm_up

    warm_up(alpha)


def _import_arraymath() -> None:
    """Import numba's array functions with its BLAS probe failing. At import the module tries
    ``scipy.linalg.cython_blas`` (≈0.2 s when scipy is installed, most of loading the solver) only
    to pick how ``np.convolve``/``np.correlate`` take inner products in compiled code (a loop
    without it); np.dot and linalg still find BLAS when compiled. The ranker's kernels use none."""
    blas = "scipy.linalg.cython_blas"
    if "numba.np.arraymath" in sys.modules or blas in sys.modules:
        return
    sys.modules[blas] = None  # type: ignore[assignment]  # import fails: as on an install without scipy
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        del sys.modules[blas]


class RankerService:
    """Keeps ranks in Redis current with the graph store."""

    def __init__(
        self,
        client: Any,
        alpha: float = ALPHA,
        tol: float = TOL,
        partitions: int | None = None,
        teleport_urls: Iterable[str] | None = None,
        prefix: str = DEFAULT_PREFIX,
        debounce: float = 0.5,
        progress: Progress | None = None,
        interim_tol: float | None = None,
        lease_ttl: float = 10.0,
        lease_wait: float = 0.0,
        top_k: int = TOP_K,
        duty: float = 1.0,
        min_period: float = 0.0,
    ) -> None:
        check_parameters(alpha, tol)
        if not 0 < duty <= 1:
            raise ValueError("duty must be in (0, 1]")
        if not min_period >= 0:
            raise ValueError("min_period must be at least 0")
        if partitions is not None and partitions < 1:
            raise ValueError("partitions must be at least 1")
        if interim_tol is not None and interim_tol < tol:
            raise ValueError("interim_tol must be at least tol")
        self.store = GraphStore(client, prefix)
        self.publisher = RankPublisher(self.store, top_k)
        self.alpha, self.tol, self.interim_tol, self.debounce = alpha, tol, interim_tol, debounce
        self.partitions = partitions  # threads (blocks of hosts) of a cold solve; None: by size (``cold_threads``)
        self.teleport_urls = list(teleport_urls or [])
        self.progress = progress or Progress()
        self.lease_ttl, self.lease_wait = lease_ttl, lease_wait
        self.duty = duty
        """Share of wall time ``run`` may spend in epochs: after an epoch of t seconds it rests
        t·(1/duty − 1) (a ranker inside a crawl process leaves the reactor its GIL)."""
        self.min_period = min_period
        """Seconds from the start of one epoch of ``run`` to the next, at least (a longer rest when
        the duty's is shorter)."""
        self.graph: LiveGraph | None = None
        self._offset: str | None = None
        self._final = True  # the last epoch this service published was a final one
        self._urls: dict[int, str] = {}  # page number → URL, for the top list
        self._published_sum: dict[int, float] = {}  # host → Σ of its published scores (norm = their sum)

    # -- graph ----------------------------------------------------------------------------
    def _bias(self) -> list[tuple[int, int]] | None:
        if not self.teleport_urls:
            return None
        pairs = [p for p in self.store.ids(self.teleport_urls, create=False) if p]
        if not pairs:
            raise ValueError("none of the teleport URLs is in the graph")
        return pairs

    def _load(self) -> int:
        """Cold: every host, seeded with the published epoch's scores (residual recomputed exactly)."""
        packed = self.store.load_packed(self.store.all_host_ids(), meanwhile=lambda: load_solver(self.alpha))
        from rankcrawl.ranker.livegraph import LiveGraph

        state = current(self.store)
        vectors = load_vectors(self.store, state.epoch) if state else None
        graph = LiveGraph.from_packed(packed, self.alpha, self._bias())
        del packed
        if vectors:
            for hid, vec in vectors.items():
                idx = graph.index.get(hid)
                if idx is not None:
                    m = min(len(idx), len(vec))
                    graph.y[idx[:m]] = np.nan_to_num(vec[:m], nan=0.0)
            graph.y[: graph.n][graph.excluded[: graph.n]] = 0.0
            graph.reset_residual()
        graph.dirty = set(graph.index)
        self.graph, self._urls, self._published_sum = graph, {}, {}
        return len(graph.index)

    def _refresh(self, head: str) -> int:
        """Bring the in-memory graph up to ``head``; returns how many hosts were (re)loaded."""
        if (self.graph is None or self._offset is None or self.graph.needs_rebuild
                or self.store.stream_gap(self._offset)
                or stream_id_key(head) < stream_id_key(self._offset)):  # trimmed, or the server lost data
            return self._load()
        changes = self.store.changes_since(self._offset, until=head)
        if changes:
            self.graph.apply(self.store.load_changes(changes))
            if self.graph.needs_rebuild:
                return self._load()
        return len(changes.hosts)

    # -- state ----------------------------------------------------------------------------
    def resume(self) -> None:
        """Pick up the last published epoch's stream offset (its scores seed the first load)."""
        state = current(self.store)
        if state is not None and self._offset is None:
            self._offset = state.offset

    def pending(self) -> bool:
        """True if nothing is published yet, changes arrived after the published epoch, or the
        last epoch this service published was interim."""
        state = current(self.store)
        return state is None or self.store.stream_head() != state.offset or not self._final

    # -- solving --------------------------------------------------------------------------
    def _top(self, graph: LiveGraph) -> dict[str, float]:
        y = graph.y[: graph.n]
        k = min(self.publisher.top_k, graph.n)
        best = np.argpartition(-y, k - 1)[:k] if k else np.zeros(0, np.int64)
        best = best[y[best] > 0]
        missing = [int(g) for g in best if int(g) not in self._urls]
        self._urls = {g: self._urls[g] for g in best.tolist() if g in self._urls}
        if missing:
            urls = self.store.urls_of(graph.page_of(np.array(missing, dtype=np.int64)))
            self._urls.update((g, u) for g, u in zip(missing, urls) if u is not None)
        return {self._urls[g]: float(y[g]) for g in best.tolist() if g in self._urls}

    def solve_once(self, final: bool = True, last: bool = False) -> SolveReport | None:
        """Apply what changed, solve to the bound, publish an epoch. None when the graph is empty
        or another ranker holds the lease for longer than ``lease_wait``. ``last``: no epoch of this
        service follows (the solve may take all of tol, see SOLVE_SHARE)."""
        started = time.perf_counter()
        lease = Lease(self.store.client, self.store.keys, self.lease_ttl, self.lease_wait,
                      corruption=self.store.corruption)
        with lease as held:
            if not held:
                self.progress.waiting("another ranker is publishing; skipped")
                return None
            if self._offset is None:
                self.resume()
            head = self.store.stream_head()
            reloaded = self._refresh(head)
            self._offset = head
            graph = self.graph
            assert graph is not None
            if graph.n == 0:
                return None
            load_s = time.perf_counter() - started
            edges = graph.n_links
            self.progress.loaded(len(graph.index), graph.n, edges, reloaded)
            tol = self.tol if final or self.interim_tol is None else self.interim_tol
            solve_started = time.perf_counter()
            with self.progress.solving():
                state = graph.push(tol if last else tol * SOLVE_SHARE, MAX_ROUNDS, self.partitions or cold_threads(edges))
            solve_s = time.perf_counter() - solve_started
            if state.bound > tol:
                log.warning("ranker: not converged — certified error bound %.3g > tol %.3g", state.bound, tol)
            publish_started = time.perf_counter()
            epoch, written, bound = self._publish(lease, graph, head, tol, state, final, edges)
            self._final = final or self.interim_tol is None
        report = SolveReport(epoch, len(graph.index), graph.n, edges, reloaded, state.rounds, bound, bound <= tol,
                             self._final, written, time.perf_counter() - started, load_s, solve_s,
                             time.perf_counter() - publish_started, state.edges / max(edges, 1))
        self.progress.published(report)
        return report

    def _hosts_to_publish(self, graph: LiveGraph, tol: float, solve_bound: float) -> tuple[set[int], float]:
        """Hosts whose vectors must be rewritten, and the staleness Σ|y − y_published| left.

        New and excluded pages always go out; of the hosts the solve moved, the most moved go out
        until what stays unpublished fits the bound: ‖r_published − r*‖₁ ≤ solve bound +
        2·staleness/norm ≤ tol (the same normalisation lemma as the solve's bound)."""
        if self.publisher.full_publish_needed() or not self._published_sum:
            return set(graph.index), 0.0
        hosts = set(graph.dirty)
        pending = sorted(((d, h) for h, d in graph.drift.items() if h not in hosts), reverse=True)
        stale = sum(d for d, _ in pending)
        budget = max(0.0, tol - solve_bound) * 0.5 * max(sum(self._published_sum.values()), 1e-300) / 2
        for d, h in pending:
            if stale <= budget:
                break
            hosts.add(h)
            stale -= d
        return hosts, max(stale, 0.0)

    def _publish(self, lease: Lease, graph: LiveGraph, head: str, tol: float, state: Any, final: bool,
                 edges: int) -> tuple[int, int, float]:
        hosts, stale = self._hosts_to_publish(graph, tol, state.bound)
        sums = graph.host_sums(hosts)
        published_sum = {**self._published_sum, **sums}
        norm = sum(published_sum.values())
        bound = state.bound + 2.0 * stale / norm
        previous = current(self.store)
        counted = previous.fields.get("unconverged", "0") if previous else "0"
        unconverged = int(counted) if counted.isascii() and counted.isdigit() else 0
        stats = dict(hosts=len(graph.index), pages=int((~graph.excluded[: graph.n]).sum()), edges=edges,
                     iterations=state.rounds, error_bound=repr(bound), residual=repr(bound), solve_bound=repr(state.bound),
                     tol=tol, converged=int(bound <= tol), unconverged=unconverged + (bound > tol), final=int(final),
                     alpha=self.alpha, corrupt=self.store.corruption.total)
        epoch = self.publisher.publish(lease, hosts, graph.vectors(), norm, sums, self._top(graph), head, stats)
        self._published_sum = published_sum
        graph.dirty.clear()
        for h in hosts:
            graph.drift.pop(h, None)
        return epoch, len(hosts), bound

    def _quiet(self) -> bool:
        """True when no change arrived during the last ``debounce`` seconds (server clock)."""
        head = self.store.stream_head()
        if head == "0-0":
            return True
        seconds, micros = self.store.client.time()
        return seconds * 1000 + micros // 1000 - stream_id_key(head)[0] >= self.debounce * 1000

    def _final_now(self) -> bool:
        return self.interim_tol is None or self._quiet()

    def _rest(self, report: SolveReport | None, stop: threading.Event, poll_interval: float) -> None:
        """After an epoch: rest as ``duty`` and ``min_period`` ask; after none (lease held, empty graph):
        ``poll_interval``."""
        if report is None:
            stop.wait(poll_interval)
            return
        stop.wait(max(report.seconds * (1 / self.duty - 1), self.min_period - report.seconds))

    def run(self, stop: threading.Event, poll_interval: float = 1.0) -> None:
        """Solve whenever changes arrive (debounced) until ``stop`` is set; while changes keep
        coming, epochs are interim (``interim_tol``), then a final one follows."""
        while not stop.is_set():
            try:
                self.resume()
                if self.pending():
                    final = self._final_now()
                    state = current(self.store)
                    if not final and state is not None and state.offset == self.store.stream_head():
                        stop.wait(self.debounce)  # an interim epoch covers every change: wait for quiet
                        continue
                    self._rest(self.solve_once(final=final), stop, poll_interval)
                    continue
                since = self._offset or "0-0"
                last = self.store.changes_since(since, block_ms=max(1, int(poll_interval * 1000))).last
                if last != since and not stop.wait(self.debounce):
                    self._rest(self.solve_once(final=self._final_now()), stop, poll_interval)
            except LeaseLost as exc:
                self.progress.waiting(f"{exc}; retrying")
            except (redis.ConnectionError, redis.TimeoutError) as exc:
                self.progress.waiting(f"Redis unavailable ({exc}); retrying in {poll_interval:g} s")
                stop.wait(poll_interval)
            except Exception as exc:  # one bad epoch (whatever a record held) must not end the service
                log.error("ranker: epoch failed (%s: %s); reloading the graph in %g s", type(exc).__name__, exc,
                          poll_interval)
                self.graph = None
                stop.wait(poll_interval)
