"""A cold push solve on several threads: the host segments cut into contiguous blocks, one
thread sweeping each (the compiled sweeps release the GIL).

Each block runs the cold sweeps of ``_push`` (over-relaxed Gauss–Seidel over its pages, every
|res_u| above the floor) on its own pages; residual a push sends to a page of another block goes
to the sender's ``spill`` instead, and is added to res once every block has finished the sweep
(Kohlschütter §3.2.2: inter-partition votes one sweep late), page by page as the sweep listed
them. After that merge res is again the exact residual of y, so the stop rule and its certified
bound (Eq. (bound) in ``_push``) are unchanged. Blocks cut the pages at host boundaries, balanced
by links, so few links cross.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from rankcrawl.ranker._push import OMEGA, SHRINK, _totals


@njit(cache=True, nogil=True)
def _sweep_block(s0, s1, seg_lo, seg_hi, start, count, dst, weight, inv_out, alpha, theta, omega, y, res, spill,
                 mark, touched, drift, acc):  # pragma: no cover - compiled
    """``_push._sweep`` of segments s0..s1-1; residual for pages outside them goes to ``spill``, each
    such page listed once in ``touched`` (``mark``ed; acc[2] counts them) for ``_merge``."""
    lo, hi = seg_lo[s0], seg_hi[s1 - 1]
    edges, pages, n_touched = acc[0], acc[1], np.int64(acc[2])
    for s in range(s0, s1):
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
                    t = dst[k]
                    if t >= lo and t < hi:
                        res[t] += c * weight[k]
                    else:
                        if mark[t] == 0:
                            mark[t] = 1
                            touched[n_touched] = t
                            n_touched += 1
                        spill[t] += c * weight[k]
                edges += m
        drift[s] += moved
    acc[0], acc[1], acc[2] = edges, pages, n_touched


@njit(cache=True, nogil=True)
def _merge(touched, n_touched, spill, mark, res):  # pragma: no cover - compiled
    """Add the spill of the first ``n_touched`` pages of ``touched`` to res; spill and marks back to zero."""
    for i in range(n_touched):
        t = touched[i]
        res[t] += spill[t]
        spill[t] = 0.0
        mark[t] = 0


def cuts(seg_lo: np.ndarray, seg_hi: np.ndarray, start: np.ndarray, count: np.ndarray, blocks: int) -> np.ndarray:
    """Segment boundaries 0 = c_0 < … < c_B = S of ``blocks`` blocks with about equal pages + links."""
    n = int(seg_hi[-1])
    work = np.cumsum(count[:n].astype(np.int64) + 1)
    seg_work = work[seg_hi - 1] if n else np.zeros(len(seg_hi), np.int64)
    at = np.searchsorted(seg_work, np.arange(1, blocks) * seg_work[-1] / blocks)
    return np.unique(np.concatenate([[0], np.clip(at + 1, 1, len(seg_lo)), [len(seg_lo)]]))


def block_solve(seg_lo: np.ndarray, seg_hi: np.ndarray, start: np.ndarray, count: np.ndarray, dst: np.ndarray,
                weight: np.ndarray, inv_out: np.ndarray, alpha: float, y: np.ndarray, res: np.ndarray, tol: float,
                max_rounds: int, drift: np.ndarray, blocks: int) -> tuple[int, float, float, float]:
    """The cold sweeps of ``_push.push_solve`` (y = 0, contiguous segments covering every page) on
    ``blocks`` threads, until (bound) ≤ tol or ``max_rounds`` sweeps: (rounds, bound, edges, pages)."""
    n = y.shape[0]
    factor = 0.5 * (1.0 - alpha)
    bounds = cuts(seg_lo, seg_hi, start, count, blocks)
    parts = list(zip(bounds[:-1].tolist(), bounds[1:].tolist()))
    spills = [np.zeros(n) for _ in parts]
    marks = [np.zeros(n, np.uint8) for _ in parts]
    touched = [np.empty(n - (seg_hi[b - 1] - seg_lo[a]), np.int32) for a, b in parts]  # room for every page outside
    accs = [np.zeros(3) for _ in parts]  # edges, pages pushed; pages touched in the spill
    omega, last, rounds = OMEGA, np.inf, 0
    with ThreadPoolExecutor(max(len(parts) - 1, 1)) as pool:
        while True:
            total, ysum = _totals(res, y)
            bound = np.inf if ysum <= 0 else total / (factor * ysum)
            if bound <= tol or rounds >= max_rounds:
                break
            if rounds and total > SHRINK * last:
                omega = 1.0
            last = total
            floor = tol * factor * ysum / n

            def sweep(k: int, omega: float = omega, floor: float = floor) -> None:
                a, b = parts[k]
                _sweep_block(a, b, seg_lo, seg_hi, start, count, dst, weight, inv_out, alpha, floor, omega, y, res,
                             spills[k], marks[k], touched[k], drift, accs[k])

            running = [pool.submit(sweep, k) for k in range(1, len(parts))]
            sweep(0)
            for f in running:
                f.result()
            for k in range(len(parts)):
                _merge(touched[k], int(accs[k][2]), spills[k], marks[k], res)
                accs[k][2] = 0.0
            rounds += 1
    return rounds, bound, sum(float(a[0]) for a in accs), sum(float(a[1]) for a in accs)
