"""Residual pushing over an out-link CSR, host segment by host segment, with a certified stop.

System (Gulli Thm 6.2.2, dangling rows of P zero): y = v + alpha·Pᵀy, r = y/‖y‖₁. We keep y and
its residual res = v + alpha·Pᵀy − y exactly: pushing page u moves res_u into y_u and adds
alpha·res_u·w_ut/out_u to res_t for each out-link u → t (Gauss–Southwell; a push sweep over all
pages in order is one Gauss–Seidel sweep). Since ‖(I − alpha·Pᵀ)⁻¹‖₁ ≤ 1/(1 − alpha),

    ‖r − r*‖₁ ≤ 2‖res‖₁ / ((1 − alpha)·‖y‖₁)                                     (bound)

and the solve stops when an exact pass over res proves (bound) ≤ tol.

Dynamic frontier by host partition: pages live in segments (a host's contiguous page ranges);
a segment is active while one of its pages holds |res| > theta. Rounds sweep the active
segments in order; theta falls by THETA_STEP per level, down to the value at which the bound
is guaranteed, so large residuals (what a change introduced) are pushed first and segments the
change never reached are never touched. Once a level has pushed at least GLOBAL_SHARE of the
pages, the residual is everywhere: the solve finishes with Gauss–Seidel sweeps (every page above
theta, in order), checking the bound after each. From a cold start (y = 0) theta only costs
there (a branch per page, more rounds): the sweeps are plain, every page above the floor that
guarantees the bound, over-relaxed by OMEGA (successive over-relaxation: fewer sweeps; res stays
exact, so the bound stays certified) until a sweep fails to shrink ‖res‖₁ by SHRINK; from a warm
start they keep falling by levels, so hosts a change barely reached stay untouched (and
unpublished).
"""

from __future__ import annotations

import numpy as np
from numba import njit

THETA_STEP = 8.0
GLOBAL_SHARE = 0.5
OMEGA = 1.1  # over-relaxation of cold sweeps (1.15 still converges on the 1M bench graph, 1.2 stalls)
SHRINK = 0.9  # a cold sweep that leaves more than this share of ‖res‖₁ ends over-relaxation


@njit(cache=True, nogil=True)
def residual(start, count, dst, weight, inv_out, v, alpha, y, res):  # pragma: no cover - compiled
    """res = v + alpha·Pᵀy − y in one scatter pass over the out-links."""
    n = y.shape[0]
    for t in range(n):
        res[t] = v[t] - y[t]
    for u in range(n):
        c = alpha * y[u] * inv_out[u]
        if c != 0.0:
            s = start[u]
            for k in range(s, s + count[u]):
                res[dst[k]] += c * weight[k]


@njit(cache=True, nogil=True)
def _totals(res, y):  # pragma: no cover - compiled
    total = 0.0
    ysum = 0.0
    for i in range(y.shape[0]):
        total += abs(res[i])
        ysum += y[i]
    return total, ysum


@njit(cache=True, nogil=True)
def _activate(seg_lo, seg_hi, res, theta, active):  # pragma: no cover - compiled
    """Mark the segments holding a page with |res| > theta; returns how many."""
    n_active = 0
    for s in range(seg_lo.shape[0]):
        active[s] = 0
        for u in range(seg_lo[s], seg_hi[s]):
            if abs(res[u]) > theta:
                active[s] = 1
                n_active += 1
                break
    return n_active


@njit(cache=True, nogil=True)
def _push_range(lo, hi, start, count, dst, weight, inv_out, alpha, theta, y, res, seg_of, active,
                acc):  # pragma: no cover - compiled
    """Push every page lo..hi-1 holding |res| > theta; acc = [edges, pages, Σ|Δy|] counts the work
    and how far y moved. A page whose |res| rises above theta activates its segment."""
    edges, pages, moved = acc[0], acc[1], acc[2]
    for u in range(lo, hi):
        d = res[u]
        if abs(d) <= theta:
            continue
        res[u] = 0.0
        y[u] += d
        pages += 1.0
        moved += abs(d)
        c = alpha * d * inv_out[u]
        if c != 0.0:
            s = start[u]
            m = count[u]
            for k in range(s, s + m):
                t = dst[k]
                old = res[t]
                new = old + c * weight[k]
                res[t] = new
                if abs(new) > theta and abs(old) <= theta:
                    active[seg_of[t]] = 1
            edges += m
    acc[0], acc[1], acc[2] = edges, pages, moved


@njit(cache=True, nogil=True)
def _sweep(seg_lo, seg_hi, start, count, dst, weight, inv_out, alpha, theta, omega, y, res, drift,
           acc):  # pragma: no cover - compiled
    """One Gauss–Seidel sweep: push omega·res_u for every page holding |res| > theta, segment by
    segment (omega > 1: over-relaxed; res_u keeps (1 − omega)·res_u, so it stays exact)."""
    edges, pages = acc[0], acc[1]
    for s in range(seg_lo.shape[0]):
        moved = 0.0
        for u in range(seg_lo[s], seg_hi[s]):
            d = res[u]
            if abs(d) <= theta:
                continue
            d *= omega
            res[u] -= d
            y[u] += d
            moved += abs(d)
            pages += 1.0
            c = alpha * d * inv_out[u]
            if c != 0.0:
                m = count[u]
                for k in range(start[u], start[u] + m):
                    res[dst[k]] += c * weight[k]
                edges += m
        drift[s] += moved
    acc[0], acc[1] = edges, pages


@njit(cache=True, nogil=True)
def push_solve(seg_lo, seg_hi, seg_of, start, count, dst, weight, inv_out, alpha, y, res, tol, max_rounds,
               active, drift, step, omega):  # pragma: no cover - compiled
    """Push until (bound) ≤ tol or ``max_rounds`` rounds; returns (rounds, bound, edges, pages).

    Levels: theta starts at max|res|/step and falls by ``step`` per level, never below the value
    at which every page under it guarantees the bound; a level ends when no segment is active,
    then an exact pass over res decides. ``drift[s]`` accumulates Σ|Δy| of segment s; ``omega``
    over-relaxes the sweeps of a cold start (y = 0)."""
    n = y.shape[0]
    factor = 0.5 * (1.0 - alpha)
    acc = np.zeros(3)
    rounds = 0
    if n == 0:
        return 0, 0.0, 0.0, 0.0
    theta = 0.0
    for i in range(n):
        theta = max(theta, abs(res[i]))
    theta /= step
    cold = not y.any()  # y = 0: the residual is v, everywhere
    omega = omega if cold else 1.0
    last = np.inf
    sweeping = False
    while True:
        total, ysum = _totals(res, y)
        bound = np.inf if ysum <= 0 else total / (factor * ysum)
        if bound <= tol or rounds >= max_rounds:
            return rounds, bound, acc[0], acc[1]
        if sweeping and total > SHRINK * last:
            omega = 1.0  # over-relaxation stopped paying: plain sweeps converge from anywhere
        last = total
        floor = tol * factor * ysum / n  # every |res_u| ≤ floor proves (bound) ≤ tol
        theta = max(theta, floor)
        if sweeping:  # the level's pages in order; the next level once a sweep finds none above theta
            before = acc[1]
            _sweep(seg_lo, seg_hi, start, count, dst, weight, inv_out, alpha, floor if cold else theta, omega, y,
                   res, drift, acc)
            rounds += 1
            if acc[1] == before:
                theta /= step
            continue
        level_pages = acc[1]
        _activate(seg_lo, seg_hi, res, theta, active)
        while rounds < max_rounds:
            any_active = False
            for s in range(seg_lo.shape[0]):
                if active[s]:
                    any_active = True
                    active[s] = 0
                    before = acc[2]
                    _push_range(seg_lo[s], seg_hi[s], start, count, dst, weight, inv_out, alpha, theta,
                                y, res, seg_of, active, acc)
                    drift[s] += acc[2] - before
            if not any_active:
                break
            rounds += 1
        sweeping = acc[1] - level_pages >= GLOBAL_SHARE * n
        theta /= step
