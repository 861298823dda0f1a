"""Host-partitioned Gauss–Seidel PageRank (Kohlschütter §3.2.2, Eq. 3.8–3.11).

Model (SPEC §4): r = (1 − alpha)·v + alpha·(Pᵀr + (dᵀr)·v), P row-normalised by link weight,
dangling pages jump along v (uniform, or the biasing set of Kohlschütter §3.1 Eq. 3.3/3.4).
We solve the sparse system (I − alpha·Pᵀ) y = v and return r = y / ‖y‖₁ (Gulli Thm 6.2.2;
the dangling mass only changes the scale — use the normalisation, not the printed gamma).

Each iteration the partitions run in parallel: each sweeps its pages Gauss–Seidel style,
using fresh values for intra-partition links (Eq. 3.8/3.10) and the inter-partition votes
received at the end of the previous iteration, then aggregates the votes it sends into one
value per target page (Eq. 3.11); the votes are exchanged once, between iterations.
Iteration stops when the L1 change of the normalised vector falls below ``tol``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from rankcrawl.ranker.store.hostgraph import HostGraph
from rankcrawl.ranker.inlink_csr import PartitionedLinks, build_links
from rankcrawl.ranker.local_pagerank import inter_host_links, local_solve, warm_scale
from rankcrawl.ranker.partitions import assign_partitions


# The warm solve certifies ‖r − r*‖₁ ≤ WARM_ACCURACY·tol: the accuracy a cold solve stopped at
# an L1 change < tol reaches (measured: L1 to PRPACK ≈ 5·tol on the synthetic graphs, bench/pagerank.py).
WARM_ACCURACY = 10.0


@dataclass
class PageRankResult:
    """The rank vector and how it was obtained."""

    r: np.ndarray  # float64[n], sums to 1, graph order
    iterations: int
    residual: float  # L1 change of the normalised vector in the last iteration
    converged: bool
    partitions: int
    assignment: np.ndarray  # int32[H] partition of each host (pass back as ``partitions``)
    seconds: float  # wall time of the whole call (structure build + iterations)
    solve_seconds: float  # wall time of the iterations alone
    links: int  # edges in the solver
    inter_partition_links: int
    inter_partition_votes: int  # values exchanged per iteration (Eq. 3.11)
    solver_bytes: int  # bytes of every array the solver holds during the iterations
    method: str = "gauss-seidel"  # or "local" (warm start: host-level Gauss–Southwell, local_pagerank.py)
    error_bound: float = float("nan")  # local: certified bound on ‖r − r*‖₁ from an exact residual pass
    hosts_swept: int = -1  # local: hosts swept at least once (-1: every host, every iteration)
    sweep_equivalents: float = float("nan")  # local: pages swept / pages (cost in full sweeps)

    @property
    def bytes_per_link(self) -> float:
        return self.solver_bytes / max(self.links, 1)


@njit(cache=True)
def _sweep(start, stop, indptr, src, weight, inv_out, v, alpha, ext, y, z):  # pragma: no cover - compiled
    """One Gauss–Seidel sweep over pages start..stop-1: links from already swept pages read
    this sweep's values (Eq. 3.8); ``ext`` holds the aggregated inter-partition votes."""
    for t in range(start, stop):
        acc = ext[t]
        for k in range(indptr[t], indptr[t + 1]):
            acc += weight[k] * z[src[k]]
        yt = v[t] + alpha * acc
        y[t] = yt
        z[t] = yt * inv_out[t]


@njit(cache=True)
def _aggregate_votes(start, stop, vote_ptr, vote_src, vote_weight, z, votes):  # pragma: no cover - compiled
    """Votes start..stop-1: one value per (source partition, target page), the sum of its
    links' votes (Eq. 3.11)."""
    for j in range(start, stop):
        acc = 0.0
        for k in range(vote_ptr[j], vote_ptr[j + 1]):
            acc += vote_weight[k] * z[vote_src[k]]
        votes[j] = acc


@njit(parallel=True, cache=True)
def _sweep_partitions(part_ptr, vote_part_ptr, vote_ptr, vote_src, vote_weight, votes,
                      indptr, src, weight, inv_out, v, alpha, ext, y, z):  # pragma: no cover - compiled
    """Every partition, one thread each: sweep its pages (reading the votes received in
    ``ext``), then aggregate the votes it sends for the next iteration from its fresh values."""
    for p in prange(part_ptr.shape[0] - 1):
        _sweep(part_ptr[p], part_ptr[p + 1], indptr, src, weight, inv_out, v, alpha, ext, y, z)
        _aggregate_votes(vote_part_ptr[p], vote_part_ptr[p + 1], vote_ptr, vote_src, vote_weight, z, votes)


@njit(cache=True)
def _scatter_votes(vote_target, votes, ext):  # pragma: no cover - compiled
    ext[:] = 0.0
    for j in range(votes.shape[0]):
        ext[vote_target[j]] += votes[j]


@njit(cache=True)
def _normalised_change(y, y_old, s_old):  # pragma: no cover - compiled
    """(‖y‖₁, L1 distance between y/‖y‖₁ and y_old/s_old) for non-negative y."""
    s_new = y.sum()
    change = 0.0
    for i in range(y.shape[0]):
        change += abs(y[i] / s_new - y_old[i] / s_old)
    return s_new, change


@njit(cache=True)
def _serial_gauss_seidel(indptr, src, weight, inv_out, v, alpha, y, z, tol, max_iter):  # pragma: no cover - compiled
    """P = 1: the whole iteration in one call. The change is summed inside the sweep: y solves a
    fixed-scale linear system, so Σ|Δy|/‖y‖₁ is the L1 change of the normalised vector up to
    O(tol²) — no copy of the previous vector, no extra pass."""
    n = y.shape[0]
    change = np.inf
    it = 0
    while it < max_iter and change >= tol:
        it += 1
        diff = 0.0
        total = 0.0
        for t in range(n):
            acc = 0.0
            for k in range(indptr[t], indptr[t + 1]):
                acc += weight[k] * z[src[k]]
            yt = v[t] + alpha * acc
            diff += abs(yt - y[t])
            total += yt
            y[t] = yt
            z[t] = yt * inv_out[t]
        change = diff / total
    return it, change


def _gauss_seidel(links: PartitionedLinks, v: np.ndarray, alpha: float, y: np.ndarray, work: list[np.ndarray],
                  tol: float, max_iter: int) -> tuple[int, float]:
    """Iterate in place on y until the normalised L1 change < tol; (iterations, last change).

    The loop over iterations stays in Python (a few calls per iteration); the one parallel
    region per iteration is entered from here, as numba requires for cached parallel kernels.
    """
    z, y_old, ext, votes = work
    np.multiply(y, links.inv_out, out=z)
    if links.n_partitions == 1:
        return _serial_gauss_seidel(links.indptr, links.src, links.weight, links.inv_out, v, alpha, y, z,
                                    tol, max_iter)
    csr = (links.indptr, links.src, links.weight, links.inv_out, v, alpha, ext, y, z)
    vote_links = (links.vote_ptr, links.vote_src, links.vote_weight)
    _aggregate_votes(0, links.n_votes, *vote_links, z, votes)
    s_old, change, it = y.sum(), np.inf, 0
    while it < max_iter and change >= tol:
        it += 1
        np.copyto(y_old, y)
        _scatter_votes(links.vote_target, votes, ext)
        _sweep_partitions(links.part_ptr, links.vote_part_ptr, *vote_links, votes, *csr)
        s_old, change = _normalised_change(y, y_old, s_old)
    return it, float(change)


@njit(cache=True)
def _jacobi(indptr, src, weight, inv_out, v, alpha, y, z, y_new, tol, max_iter):  # pragma: no cover - compiled
    n = y.shape[0]
    s_old = y.sum()
    residual = np.inf
    it = 0
    while it < max_iter and residual >= tol:
        it += 1
        for i in range(n):
            z[i] = y[i] * inv_out[i]
        s_new = 0.0
        for t in range(n):
            acc = 0.0
            for k in range(indptr[t], indptr[t + 1]):
                acc += weight[k] * z[src[k]]
            y_new[t] = v[t] + alpha * acc
            s_new += y_new[t]
        residual = 0.0
        for i in range(n):
            residual += abs(y_new[i] / s_new - y[i] / s_old)
            y[i] = y_new[i]
        s_old = s_new
    return it, residual


def _probability(x: np.ndarray | None, n: int, name: str) -> np.ndarray | None:
    """``x`` as a float64 probability vector of length n (None stays None)."""
    if x is None:
        return None
    a = np.asarray(x, dtype=np.float64)
    if a.shape != (n,):
        raise ValueError(f"{name} must have one entry per page ({n}), got shape {a.shape}")
    if not np.all(np.isfinite(a)) or np.any(a < 0):
        raise ValueError(f"{name} must be finite and non-negative")
    total = a.sum()
    if total <= 0:
        raise ValueError(f"{name} must have positive mass")
    return a / total


def _check(alpha: float, tol: float, max_iter: int) -> None:
    if not 0 <= alpha < 1:
        raise ValueError("alpha must be in [0, 1)")
    if not tol > 0:
        raise ValueError("tol must be positive")
    if max_iter < 1:
        raise ValueError("max_iter must be at least 1")


def _start(r0: np.ndarray, inv_out: np.ndarray, alpha: float) -> np.ndarray:
    """The unnormalised y matching a rank vector: ‖y‖₁ = 1 / (1 − alpha + alpha·dᵀr) (Gulli Thm 6.2.2)."""
    dangling_mass = r0[inv_out == 0].sum()
    return r0 / (1.0 - alpha + alpha * dangling_mass)


def _host_assignment(graph: HostGraph, partitions: int | np.ndarray) -> np.ndarray:
    if np.isscalar(partitions):
        return assign_partitions(np.diff(graph.host_offsets), int(partitions))
    part = np.asarray(partitions, dtype=np.int32)
    if part.shape != (graph.n_hosts,) or (len(part) and part.min() < 0):
        raise ValueError("a partition assignment must give every host a partition >= 0")
    return part


def pagerank(
    graph: HostGraph,
    alpha: float = 0.85,
    tol: float = 1e-10,
    v: np.ndarray | None = None,
    x0: np.ndarray | None = None,
    partitions: int | np.ndarray = 1,
    max_iter: int = 1000,
) -> PageRankResult:
    """PageRank of ``graph`` by host-partitioned Gauss–Seidel.

    ``v``: teleport vector (None = uniform); ``x0``: warm start (None = v), both in graph
    order and normalised here. ``partitions``: a partition count (hosts dealt by
    :func:`assign_partitions`) or an explicit int array with each host's partition.
    The converged vector does not depend on the partitioning (up to ``tol``).
    """
    started = time.perf_counter()
    _check(alpha, tol, max_iter)
    n = graph.n_pages
    v = _probability(v, n, "v")
    x0 = _probability(x0, n, "x0")
    assignment = _host_assignment(graph, partitions)
    links = build_links(graph, assignment)
    v_s = links.to_solver(np.full(n, 1.0 / max(n, 1)) if v is None else v)
    y = _start(v_s if x0 is None else links.to_solver(x0), links.inv_out, alpha)
    serial = links.n_partitions == 1
    work = [np.empty(n), np.empty(0 if serial else n), np.zeros(0 if serial else n), np.empty(links.n_votes)]
    solve_started = time.perf_counter()
    iterations, residual = (0, 0.0) if n == 0 else _gauss_seidel(links, v_s, alpha, y, work, tol, max_iter)
    solve_seconds = time.perf_counter() - solve_started
    r = links.to_graph(y / y.sum()) if n else y
    return PageRankResult(
        r=r,
        iterations=int(iterations),
        residual=float(residual),
        converged=bool(residual < tol),
        partitions=links.n_partitions,
        assignment=assignment,
        seconds=time.perf_counter() - started,
        solve_seconds=solve_seconds,
        links=links.n_links,
        inter_partition_links=links.n_inter_links,
        inter_partition_votes=links.n_votes,
        solver_bytes=links.nbytes + y.nbytes + v_s.nbytes + sum(a.nbytes for a in work),
    )


def warm_pagerank(
    graph: HostGraph,
    x0: np.ndarray,
    alpha: float = 0.85,
    tol: float = 1e-10,
    v: np.ndarray | None = None,
    partitions: int | np.ndarray = 1,
    max_iter: int = 1000,
) -> PageRankResult:
    """Certified re-solve from the previous vector ``x0`` (local_pagerank.py): rounds of a
    host-level correction and sweeps of the hosts holding residual, until an exact residual
    pass certifies ‖r − r*‖₁ ≤ WARM_ACCURACY·tol (``error_bound``). One thread, whatever the
    partitioning (``partitions`` only yields ``assignment``). ``iterations`` counts rounds."""
    started = time.perf_counter()
    _check(alpha, tol, max_iter)
    if graph.n_pages == 0:
        return pagerank(graph, alpha, tol, v, None, partitions, max_iter)
    v = _probability(v, graph.n_pages, "v")
    x0 = _probability(x0, graph.n_pages, "x0")
    assignment = _host_assignment(graph, partitions)
    n = graph.n_pages
    links = build_links(graph, np.zeros(graph.n_hosts, dtype=np.int32))
    v_s = np.full(n, 1.0 / n) if v is None else v
    csr = (links.indptr, links.src, links.weight, links.inv_out)
    y = x0 * warm_scale(*csr, x0, v_s, alpha)
    inter = inter_host_links(graph.host_offsets, graph.src, graph.dst, graph.weight)
    solve_started = time.perf_counter()
    rounds, _, pages_swept, hosts_swept, bound = local_solve(
        graph.host_offsets, inter, *csr, v_s, alpha, y, WARM_ACCURACY * tol, max_iter)
    solve_seconds = time.perf_counter() - solve_started
    held = (links.nbytes + y.nbytes * 2 + v_s.nbytes + sum(a.nbytes for a in inter)
            + graph.n_hosts * 9 + int(np.diff(graph.host_offsets).max()) * 8)  # + z, bounds, touched, buffer
    return PageRankResult(
        r=y / y.sum(),
        iterations=int(rounds),
        residual=float(bound),
        converged=bool(bound <= WARM_ACCURACY * tol),
        partitions=int(assignment.max()) + 1 if len(assignment) else 1,
        assignment=assignment,
        seconds=time.perf_counter() - started,
        solve_seconds=solve_seconds,
        links=links.n_links,
        inter_partition_links=0,
        inter_partition_votes=0,
        solver_bytes=held,
        method="local",
        error_bound=float(bound),
        hosts_swept=int(hosts_swept),
        sweep_equivalents=pages_swept / n,
    )


def power_iteration(
    graph: HostGraph,
    alpha: float = 0.85,
    tol: float = 1e-10,
    v: np.ndarray | None = None,
    x0: np.ndarray | None = None,
    max_iter: int = 1000,
) -> PageRankResult:
    """The same model solved by Jacobi iteration on (I − alpha·Pᵀ) y = v — the power method's
    iterates up to scale (Gulli §6.2, Bianchini et al.); single-threaded, for comparison."""
    started = time.perf_counter()
    _check(alpha, tol, max_iter)
    n = graph.n_pages
    v = _probability(v, n, "v")
    x0 = _probability(x0, n, "x0")
    assignment = np.zeros(graph.n_hosts, dtype=np.int32)
    links = build_links(graph, assignment)
    v_s = np.full(n, 1.0 / max(n, 1)) if v is None else v
    y = _start(v_s if x0 is None else x0, links.inv_out, alpha)
    work = [np.empty(n), np.empty(n)]
    solve_started = time.perf_counter()
    iterations, residual = (0, 0.0) if n == 0 else _jacobi(
        links.indptr, links.src, links.weight, links.inv_out, v_s, alpha, y, *work, tol, max_iter
    )
    solve_seconds = time.perf_counter() - solve_started
    return PageRankResult(
        r=y / y.sum() if n else y,
        iterations=int(iterations),
        residual=float(residual),
        converged=bool(residual < tol),
        partitions=1,
        assignment=assignment,
        seconds=time.perf_counter() - started,
        solve_seconds=solve_seconds,
        links=links.n_links,
        inter_partition_links=0,
        inter_partition_votes=0,
        solver_bytes=links.nbytes + y.nbytes + v_s.nbytes + sum(a.nbytes for a in work),
    )
