# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Algorithm 4.1's passes compiled (optional extension): ``blockfusion.python_fusion_groups`` over C arrays.

The same passes in the same order with the same IEEE double arithmetic (a group's density
``(words - last) / (lines - 1)``, Eq. 4.7's slope delta), so the same groups; only the per-group
Python objects are gone. Each pass compacts the groups in place: a group absorbed into its left
neighbour leaves no slot, and the slot written is never one still to be read.
"""

import numpy as np

from libc.math cimport fabs
from libc.stdint cimport int64_t


cdef inline double _rho(int64_t words, int64_t lines, int64_t last) noexcept:
    return <double>(words - last) / <double>(lines - 1) if lines > 1 else <double>words


def fusion_groups(const int64_t[::1] words, const int64_t[::1] lines, const int64_t[::1] last,
                  const unsigned char[::1] forced, const unsigned char[::1] no_gap,
                  double theta_max, bint smoothed, bint rules, deadline):
    """[start, end) ranges of the atomic blocks that the variant (``theta_max``, ``smoothed``, ``rules``)
    fuses; ``forced``/``no_gap``: the gap before each block enforces/avoids a gap (Eq. 4.8)."""
    cdef Py_ssize_t n = words.shape[0], m = n, i, k, cur, nxt
    start_a, end_a = np.arange(n, dtype=np.int64), np.arange(1, n + 1, dtype=np.int64)
    w_a, l_a, last_a = np.array(words, dtype=np.int64), np.array(lines, dtype=np.int64), np.array(last, dtype=np.int64)
    rho_a = np.empty(n, dtype=np.float64)
    cdef int64_t[::1] start = start_a, end = end_a, w = w_a, l = l_a, la = last_a
    cdef double[::1] rho = rho_a
    cdef double a, b, top
    cdef bint changed = True, fuse
    for i in range(n):
        rho[i] = _rho(w[i], l[i], la[i])
    while changed and m > 1:
        if deadline is not None:
            deadline.check("fusion")
        changed = False
        k = 0
        i = 1
        while i < m:
            cur = i
            nxt = i + 1 if i + 1 < m else -1
            if (smoothed and nxt >= 0 and rho[k] == rho[nxt] and rho[cur] < rho[k]
                    and not (rules and (forced[start[cur]] or forced[start[nxt]]))):
                end[k], la[k] = end[nxt], la[nxt]
                w[k] += w[cur] + w[nxt]
                l[k] += l[cur] + l[nxt]
                rho[k] = _rho(w[k], l[k], la[k])
                i += 2
                changed = True
                continue
            if rules and forced[start[cur]]:
                fuse = False
            elif rules and no_gap[start[cur]]:
                fuse = True
            else:
                a, b = rho[k], rho[cur]
                top = a if a > b else b
                fuse = (fabs(a - b) / top if top > 0 else 0.0) <= theta_max
            if fuse:
                end[k], la[k] = end[cur], la[cur]
                w[k] += w[cur]
                l[k] += l[cur]
                rho[k] = _rho(w[k], l[k], la[k])
                changed = True
            else:
                k += 1
                start[k], end[k], w[k], l[k], la[k], rho[k] = start[cur], end[cur], w[cur], l[cur], la[cur], rho[cur]
            i += 1
        m = k + 1
    return [(start[i], end[i]) for i in range(m)]
