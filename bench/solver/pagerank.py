"""The offline PageRank solver, :func:`solve`: a ``HostGraph`` in memory, solved in one call (the
reference the live ranker and the benchmarks are checked against).

Model (SPEC §4): r = (1 − alpha)·v + alpha·(Pᵀr + (dᵀr)·v), P row-normalised by link weight,
dangling pages jump along v (uniform, or the biasing set of Kohlschütter §3.1 Eq. 3.3/3.4).
Solved as (I − alpha·Pᵀ) y = v, r = y / ‖y‖₁ (Gulli Thm 6.2.2).

``tol`` is a contract: the result carries ``error_bound``, a certified bound on ‖r − r*‖₁ from
the exact residual (Eq. (bound) in ``_push``), and ``converged`` means ``error_bound ≤ tol``.
Back-ends: one partition → residual pushing over the out-links, host segment by host
segment (``_push``); P > 1 partitions → Kohlschütter's partitioned Gauss–Seidel with
aggregated inter-partition votes (``gauss_seidel``, §3.2.2), certified by a residual pass.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import numpy as np

from bench.solver import gauss_seidel
from bench.solver.inlink_csr import build_links
from bench.solver.partitions import assign_partitions
from rankcrawl.ranker.outlinks import OutLinks
from rankcrawl.ranker.parameters import ALPHA, TOL, check_parameters
from rankcrawl.ranker.store.hostgraph import HostGraph

log = logging.getLogger("bench.solver")


@dataclass
class PageRankResult:
    """The rank vector and how it was obtained."""

    r: np.ndarray  # float64[n], sums to 1, graph order
    iterations: int  # push: rounds over the active host segments; Gauss–Seidel: sweeps
    error_bound: float  # certified bound on ‖r − r*‖₁
    converged: bool  # error_bound ≤ tol
    partitions: int
    assignment: np.ndarray  # int32[H] partition of each host (pass back as ``partitions``)
    seconds: float  # wall time of the whole call (structure build + iterations)
    solve_seconds: float  # wall time of the iterations alone
    links: int  # edges in the solver
    solver_bytes: int  # bytes of every array the solver holds during the iterations
    method: str  # "push" or "gauss-seidel"
    sweep_equivalents: float  # links traversed / links (cost in full sweeps)
    hosts_swept: int = -1  # push: hosts swept at least once
    inter_partition_links: int = 0
    inter_partition_votes: int = 0  # values exchanged per iteration (Eq. 3.11)

    @property
    def residual(self) -> float:
        return self.error_bound

    @property
    def bytes_per_link(self) -> float:
        return self.solver_bytes / max(self.links, 1)


def probability(x: np.ndarray | None, n: int, name: str) -> np.ndarray | None:
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


def warm_scale(r0: np.ndarray, inv_out: np.ndarray, alpha: float) -> np.ndarray:
    """The unnormalised y (for v summing to 1) matching a rank vector: ‖y‖₁ = 1/(1 − alpha + alpha·dᵀr)."""
    dangling_mass = r0[inv_out == 0].sum()
    return r0 / (1.0 - alpha + alpha * dangling_mass)


def _host_assignment(graph: HostGraph, partitions: int | np.ndarray) -> np.ndarray:
    if np.isscalar(partitions):
        return assign_partitions(np.diff(graph.host_offsets), int(np.asarray(partitions).item()))
    part = np.asarray(partitions, dtype=np.int32)
    if part.shape != (graph.n_hosts,) or (len(part) and part.min() < 0):
        raise ValueError("a partition assignment must give every host a partition >= 0")
    return part


def report(result: PageRankResult, tol: float) -> None:
    """Non-convergence is never silent: log it (callers also count it in what they publish)."""
    if not result.converged:
        log.warning("PageRank did not converge: certified error bound %.3g > tol %.3g after %d iterations",
                    result.error_bound, tol, result.iterations)


def solve(
    graph: HostGraph,
    alpha: float = ALPHA,
    tol: float = TOL,
    v: np.ndarray | None = None,
    x0: np.ndarray | None = None,
    partitions: int | np.ndarray = 1,
    max_iter: int = 1000,
) -> PageRankResult:
    """PageRank of ``graph`` to a certified L1 error ≤ ``tol``.

    ``v``: teleport vector (None = uniform); ``x0``: warm start (None = cold), both in graph
    order and normalised here. ``partitions``: a partition count (hosts dealt by
    :func:`assign_partitions`) or an explicit int array with each host's partition.
    ``max_iter`` caps rounds (push) or sweeps (Gauss–Seidel); hitting it gives converged=False.
    """
    started = time.perf_counter()
    check_parameters(alpha, tol, max_iter)
    n = graph.n_pages
    v = probability(v, n, "v")
    x0 = probability(x0, n, "x0")
    assignment = _host_assignment(graph, partitions)
    n_parts = int(assignment.max()) + 1 if len(assignment) else 1
    v_full = np.full(n, 1.0 / max(n, 1)) if v is None else v
    if graph.excluded is not None:  # gone and redirecting pages have no rank (SPEC §2.7)
        v_full = np.where(graph.excluded, 0.0, v_full)
        if n and v_full.sum() <= 0:
            raise ValueError("every page with teleport mass is outside the graph")
        v_full /= max(v_full.sum(), 1e-300)
    if n == 0:
        result = PageRankResult(np.zeros(0), 0, 0.0, True, n_parts, assignment, 0.0, 0.0, 0, 0, "push", 0.0)
    elif n_parts == 1:
        result = _solve_push(graph, alpha, tol, v_full, x0, max_iter, assignment)
    else:
        result = _solve_partitioned(graph, alpha, tol, v_full, x0, max_iter, assignment)
    result.seconds = time.perf_counter() - started
    report(result, tol)
    return result


def _solve_push(graph: HostGraph, alpha: float, tol: float, v: np.ndarray, x0: np.ndarray | None,
                max_iter: int, assignment: np.ndarray) -> PageRankResult:
    links = OutLinks.from_graph(graph)
    n = graph.n_pages
    res = np.empty(n)
    if x0 is None:
        y = np.zeros(n)
        res[:] = v
    else:
        y = warm_scale(x0, links.inv_out, alpha)
        links.residual(v, alpha, y, res)
    solve_started = time.perf_counter()
    state = links.push(alpha, y, res, tol, max_iter)
    solve_seconds = time.perf_counter() - solve_started
    return PageRankResult(
        r=y / y.sum(), iterations=state.rounds, error_bound=state.bound, converged=state.bound <= tol,
        partitions=1, assignment=assignment, seconds=0.0, solve_seconds=solve_seconds, links=links.n_links,
        solver_bytes=links.nbytes + y.nbytes + res.nbytes + v.nbytes, method="push",
        sweep_equivalents=state.edges / max(links.n_links, 1), hosts_swept=state.segments_swept,
    )


def _solve_partitioned(graph: HostGraph, alpha: float, tol: float, v: np.ndarray, x0: np.ndarray | None,
                       max_iter: int, assignment: np.ndarray) -> PageRankResult:
    n = graph.n_pages
    links = build_links(graph, assignment)
    v_s = links.to_solver(v)
    y = warm_scale(v_s if x0 is None else links.to_solver(x0), links.inv_out, alpha)
    work = [np.empty(n), np.empty(n), np.zeros(n), np.empty(links.n_votes)]
    solve_started = time.perf_counter()
    iterations, bound = gauss_seidel.certified(links, v_s, alpha, y, work, tol, max_iter)
    solve_seconds = time.perf_counter() - solve_started
    return PageRankResult(
        r=links.to_graph(y / y.sum()), iterations=iterations, error_bound=bound, converged=bound <= tol,
        partitions=links.n_partitions, assignment=assignment, seconds=0.0, solve_seconds=solve_seconds,
        links=links.n_links, solver_bytes=links.nbytes + y.nbytes + v_s.nbytes + sum(a.nbytes for a in work),
        method="gauss-seidel", sweep_equivalents=float(iterations),
        inter_partition_links=links.n_inter_links, inter_partition_votes=links.n_votes,
    )
