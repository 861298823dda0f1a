"""Certified warm re-solve of (I − alpha·Pᵀ) y = v: host-level correction + residual-driven host sweeps.

After a change the previous vector still solves the system everywhere except around what
changed (new pages, pages whose in-links changed, targets of pages whose out-weights changed),
so only hosts holding residual are swept, host by host (Kohlschütter §3.2.2 ranks host by host;
Gulli Thm 6.2.2 for the system, dangling rows zero, r = y/‖y‖₁).

Residual res = v + alpha·Pᵀy − y. Since ‖(I − alpha·Pᵀ)⁻¹‖₁ ≤ 1/(1 − alpha) (P substochastic),
‖y − y*‖₁ ≤ ‖res‖₁/(1 − alpha), hence for the normalised vectors

    ‖r − r*‖₁ ≤ 2‖res‖₁ / ((1 − alpha)·‖y‖₁)                                    (bound)

The solve stops only after an exact full residual pass shows (bound) ≤ ``tol``.

Start: the previous normalised vector x0 is put on the scale of the new system by the median
of v_t / ((I − alpha·Pᵀ)x0)_t over pages with v_t > 0 — the ratio is the same on every page the
change did not reach, so any renormalisation of v or x0 (pages added) cancels out.
Per host h we keep R_h, an upper bound of its residual mass: exact after a residual pass;
after sweeping h, R_h ≤ alpha·(last sweep's change), and every host g that h links to gets
R_g += alpha·Σ w_tu·|Δy_t|/out_t over h's links t → u into g (the inter-host links, ~6 % of all,
kept grouped by source host: the only out-link structure the solver holds).

A round: exact residual pass (per-host |res| and signed sums) → host-level correction (iterative
aggregation: one unknown per host, :func:`_coarse`) → one Gauss–Seidel sweep of every host whose
bound exceeds its share of the budget. Measured (bench/pagerank.py, +1 % hosts): ~15–18 sweeps'
worth of pages plus one exact pass per round, against ~60–75 cold sweeps — the change's effect
spreads over most hosts, so the saving is smaller than the residual's initial locality suggests.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# A host is swept in a round while R_h > ACTIVE · budget · n_h/n (budget: the residual mass the
# certificate allows), so hosts without residual are left alone.
ACTIVE = 0.5


@njit(cache=True)
def _host_sweep(lo, hi, indptr, src, weight, inv_out, v, alpha, y, z):  # pragma: no cover - compiled
    """One Gauss–Seidel sweep over host pages lo..hi-1; returns Σ|Δy|."""
    change = 0.0
    for t in range(lo, hi):
        acc = 0.0
        for k in range(indptr[t], indptr[t + 1]):
            acc += weight[k] * z[src[k]]
        yt = v[t] + alpha * acc
        change += abs(yt - y[t])
        y[t] = yt
        z[t] = yt * inv_out[t]
    return change


@njit(cache=True)
def _scale_ratios(indptr, src, weight, inv_out, x0, v, alpha, ratio):  # pragma: no cover - compiled
    """ratio[t] = v_t / ((I − alpha·Pᵀ)x0)_t where both are positive, NaN elsewhere."""
    n = x0.shape[0]
    for t in range(n):
        acc = 0.0
        for k in range(indptr[t], indptr[t + 1]):
            s = src[k]
            acc += weight[k] * x0[s] * inv_out[s]
        a = x0[t] - alpha * acc
        ratio[t] = v[t] / a if v[t] > 0 and a > 0 else np.nan


@njit(cache=True)
def _coarse(host_ptr, out_ptr, out_src, out_host, out_weight, inv_out, alpha, y, z, signed,
            pair_src, pair_dst, pair_flow, acc, mark):  # pragma: no cover - compiled
    """Host-level correction (iterative aggregation, Takahashi / Kohlschütter's HostRank level):
    y_t ← y_t·(1 + c_h/Y_h) with (I − alpha·F)c = R, F[g,h] = flow(h→g)/Y_h, R_h the signed residual
    of host h. Hosts are nearly uncoupled (~94 % intra-host links), so this removes the slow,
    inter-host part of the error that sweeps reduce only by a factor ≈ alpha per pass."""
    n_hosts = host_ptr.shape[0] - 1
    mass = np.zeros(n_hosts)
    keep = np.zeros(n_hosts)  # alpha·(intra-host flow)/Y_h
    m = 0
    for h in range(n_hosts):
        out_total = 0.0
        for t in range(host_ptr[h], host_ptr[h + 1]):
            mass[h] += y[t]
            if inv_out[t] > 0:
                out_total += y[t]
        first = m
        for j in range(out_ptr[h], out_ptr[h + 1]):
            g = out_host[j]
            f = out_weight[j] * z[out_src[j]]
            out_total -= f
            if mark[g] != h:
                mark[g] = h
                pair_dst[m] = g
                acc[g] = 0.0
                m += 1
            acc[g] += f
        for k in range(first, m):
            pair_src[k] = h
            pair_flow[k] = alpha * acc[pair_dst[k]] / mass[h] if mass[h] > 0 else 0.0
        keep[h] = alpha * out_total / mass[h] if mass[h] > 0 else 0.0
    c = np.empty(n_hosts)
    for h in range(n_hosts):
        c[h] = signed[h] / (1.0 - keep[h])
    for _ in range(200):
        nxt = signed.copy()
        for k in range(m):
            nxt[pair_dst[k]] += pair_flow[k] * c[pair_src[k]]
        change = 0.0
        scale = 0.0
        for h in range(n_hosts):
            nxt[h] /= 1.0 - keep[h]
            change += abs(nxt[h] - c[h])
            scale += abs(nxt[h])
            c[h] = nxt[h]
        if change <= 1e-6 * scale:
            break
    for h in range(n_hosts):
        if mass[h] > 0:
            f = 1.0 + c[h] / mass[h]
            for t in range(host_ptr[h], host_ptr[h + 1]):
                y[t] *= f
                z[t] *= f


@njit(cache=True)
def _solve(host_ptr, out_ptr, out_src, out_host, out_weight, indptr, src, weight, inv_out, v, alpha, y, z,
           tol, max_rounds, buf):  # pragma: no cover - compiled
    """Rounds: exact residual pass, host-level correction, one sweep of each host holding residual.

    Returns (rounds, host sweeps, pages swept, hosts swept at least once, final bound).
    """
    n_hosts = host_ptr.shape[0] - 1
    n = y.shape[0]
    bound = np.empty(n_hosts)
    signed = np.empty(n_hosts)
    touched = np.zeros(n_hosts, dtype=np.bool_)
    m = out_src.shape[0]
    pair_src, pair_dst, pair_flow = np.empty(m, np.int32), np.empty(m, np.int32), np.empty(m)
    acc, mark = np.empty(n_hosts), np.full(n_hosts, -1, np.int64)
    host_sweeps = 0
    pages_swept = 0
    rounds = 0
    while True:
        total = 0.0
        for h in range(n_hosts):
            a, b = 0.0, 0.0
            for t in range(host_ptr[h], host_ptr[h + 1]):
                acc_t = 0.0
                for k in range(indptr[t], indptr[t + 1]):
                    acc_t += weight[k] * z[src[k]]
                r = v[t] + alpha * acc_t - y[t]
                a += abs(r)
                b += r
            bound[h], signed[h] = a, b
            total += a
        budget = tol * (1.0 - alpha) * y.sum() / 2.0
        if total <= budget or rounds >= max_rounds:
            return rounds, host_sweeps, pages_swept, int(touched.sum()), total / budget * tol
        rounds += 1
        _coarse(host_ptr, out_ptr, out_src, out_host, out_weight, inv_out, alpha, y, z, signed,
                pair_src, pair_dst, pair_flow, acc, mark)
        for h in range(n_hosts):
            lo, hi = host_ptr[h], host_ptr[h + 1]
            if bound[h] <= ACTIVE * budget * (hi - lo) / n:
                continue
            touched[h] = True
            for t in range(lo, hi):
                buf[t - lo] = y[t]
            change = _host_sweep(lo, hi, indptr, src, weight, inv_out, v, alpha, y, z)
            host_sweeps += 1
            pages_swept += hi - lo
            bound[h] = alpha * change
            for j in range(out_ptr[h], out_ptr[h + 1]):
                t = out_src[j]
                bound[out_host[j]] += alpha * out_weight[j] * inv_out[t] * abs(y[t] - buf[t - lo])


@njit(cache=True)
def _group_inter(host_ptr, src, dst, weight, ptr, out_src, out_host, out_weight):  # pragma: no cover - compiled
    """Counting sort of the inter-host links by source host (two passes over the links)."""
    n_hosts = host_ptr.shape[0] - 1
    host_of = np.empty(host_ptr[-1], dtype=np.int32)
    for h in range(n_hosts):
        host_of[host_ptr[h]:host_ptr[h + 1]] = h
    count = np.zeros(n_hosts, dtype=np.int64)
    for k in range(src.shape[0]):
        if host_of[src[k]] != host_of[dst[k]]:
            count[host_of[src[k]]] += 1
    ptr[0] = 0
    for h in range(n_hosts):
        ptr[h + 1] = ptr[h] + count[h]
    fill = ptr[:-1].copy()
    for k in range(src.shape[0]):
        hs, ht = host_of[src[k]], host_of[dst[k]]
        if hs != ht:
            j = fill[hs]
            out_src[j] = src[k]
            out_host[j] = ht
            out_weight[j] = weight[k]
            fill[hs] = j + 1


@njit(cache=True)
def _count_inter(host_ptr, src, dst):  # pragma: no cover - compiled
    n_hosts = host_ptr.shape[0] - 1
    host_of = np.empty(host_ptr[-1], dtype=np.int32)
    for h in range(n_hosts):
        host_of[host_ptr[h]:host_ptr[h + 1]] = h
    m = 0
    for k in range(src.shape[0]):
        if host_of[src[k]] != host_of[dst[k]]:
            m += 1
    return m


def inter_host_links(host_ptr: np.ndarray, src: np.ndarray, dst: np.ndarray, weight: np.ndarray):
    """The links between different hosts grouped by source host: (ptr int64[H+1], source page
    int32, target host int32, weight float32) — 12 bytes per inter-host link."""
    m = _count_inter(host_ptr, src, dst)
    ptr = np.empty(len(host_ptr), dtype=np.int64)
    out = (np.empty(m, dtype=np.int32), np.empty(m, dtype=np.int32), np.empty(m, dtype=np.float32))
    _group_inter(host_ptr, src, dst, weight, ptr, *out)
    return (ptr, *out)


def warm_scale(indptr, src, weight, inv_out, x0: np.ndarray, v: np.ndarray, alpha: float) -> float:
    """The factor s with s·x0 ≈ the solution of (I − alpha·Pᵀ)y = v where the change did not reach."""
    ratio = np.empty(len(x0))
    _scale_ratios(indptr, src, weight, inv_out, x0, v, alpha, ratio)
    ratio = ratio[~np.isnan(ratio)]
    if len(ratio):
        return float(np.median(ratio))
    dangling = x0[inv_out == 0].sum() / x0.sum()
    return float(v.sum() / x0.sum() / (1.0 - alpha + alpha * dangling))


def local_solve(host_ptr, inter, indptr, src, weight, inv_out, v, alpha, y, tol, max_rounds):
    """Refine y in place until (bound) ≤ tol; returns the counters of :func:`_solve`."""
    z = y * inv_out
    sizes = np.diff(host_ptr)
    buf = np.empty(int(sizes.max()) if len(sizes) else 0)
    return _solve(host_ptr, *inter, indptr, src, weight, inv_out, v, alpha, y, z, tol, max_rounds, buf)
