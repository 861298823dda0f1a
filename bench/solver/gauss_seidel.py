"""Host-partitioned Gauss–Seidel PageRank (Kohlschütter §3.2.2, Eq. 3.8–3.11).

Model (SPEC §4): r = (1 − alpha)·v + alpha·(Pᵀr + (dᵀr)·v), P row-normalised by link weight,
dangling pages jump along v (uniform, or the biasing set of Kohlschütter §3.1 Eq. 3.3/3.4).
We solve the sparse system (I − alpha·Pᵀ) y = v and return r = y / ‖y‖₁ (Gulli Thm 6.2.2;
the dangling mass only changes the scale — use the normalisation, not the printed gamma).

Each iteration the partitions run in parallel: each sweeps its pages Gauss–Seidel style,
using fresh values for intra-partition links (Eq. 3.8/3.10) and the inter-partition votes
received at the end of the previous iteration, then aggregates the votes it sends into one
value per target page (Eq. 3.11); the votes are exchanged once, between iterations.
Iteration runs until the L1 change of the normalised vector falls below a threshold; then one
residual pass certifies the error (``certified``), tightening the threshold if it must.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from bench.solver.inlink_csr import PartitionedLinks


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
def _residual_mass(indptr, src, weight, v, alpha, ext, y, z):  # pragma: no cover - compiled
    """(Σ|v + alpha·Pᵀy − y|, Σy) with the inter-partition part of Pᵀy already in ``ext``."""
    total = 0.0
    ysum = 0.0
    for t in range(y.shape[0]):
        acc = ext[t]
        for k in range(indptr[t], indptr[t + 1]):
            acc += weight[k] * z[src[k]]
        total += abs(v[t] + alpha * acc - y[t])
        ysum += y[t]
    return total, ysum


def iterate(links: PartitionedLinks, v: np.ndarray, alpha: float, y: np.ndarray, work: list[np.ndarray],
            tol: float, max_iter: int) -> tuple[int, float]:
    """Iterate in place on y until the normalised L1 change < tol; (iterations, last change).

    The loop over iterations stays in Python (a few calls per iteration); the one parallel
    region per iteration is entered from here, as numba requires for cached parallel kernels.
    """
    z, y_old, ext, votes = work
    np.multiply(y, links.inv_out, out=z)
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


def certified(links: PartitionedLinks, v: np.ndarray, alpha: float, y: np.ndarray, work: list[np.ndarray],
              tol: float, max_iter: int) -> tuple[int, float]:
    """Iterate until ‖r − r*‖₁ ≤ 2‖res‖₁/((1 − alpha)‖y‖₁) ≤ tol is proven; (sweeps, bound)."""
    z, _, ext, votes = work
    change_tol, done, bound = tol, 0, np.inf
    while True:
        it, _ = iterate(links, v, alpha, y, work, change_tol, max_iter - done)
        done += it
        np.multiply(y, links.inv_out, out=z)
        _aggregate_votes(0, links.n_votes, links.vote_ptr, links.vote_src, links.vote_weight, z, votes)
        _scatter_votes(links.vote_target, votes, ext)
        total, ysum = _residual_mass(links.indptr, links.src, links.weight, v, alpha, ext, y, z)
        bound = 2.0 * total / ((1.0 - alpha) * ysum)
        if bound <= tol or done >= max_iter:
            return done, float(bound)
        change_tol /= 10.0
