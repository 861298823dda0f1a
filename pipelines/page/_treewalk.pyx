# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The tree ensembles' walk compiled (optional extension): ``trees.TreeEnsemble.leaves`` without numpy's
per-level array steps.

The same rule as ``TreeEnsemble.level_walk``, ``node = 2 * node + 1 + (x[feature[node]] > threshold[node])``
for every row and tree; the same leaf indices (into ``leaf_value.ravel()``), so numpy then sums the same
leaf values in the same order: bit-identical decisions. Each tree walks ``LANES`` rows level by level
together: their steps do not depend on one another, so the processor overlaps their memory loads
(one row's walk is a chain of dependent loads).
"""

import numpy as np

from libc.stdint cimport int64_t

DEF LANES = 8


def leaves(const double[:, ::1] x, const int64_t[:, ::1] feature, const double[:, ::1] threshold, int depth):
    """int64[rows, trees]: the leaf each row of ``x`` reaches in each complete tree (heap order)."""
    cdef Py_ssize_t n = x.shape[0], n_trees = feature.shape[0], width = feature.shape[1]
    out = np.empty((n, n_trees), dtype=np.int64)
    cdef int64_t[:, ::1] o = out
    cdef Py_ssize_t start, lanes, r, t, level, base
    cdef Py_ssize_t node[LANES]
    cdef const int64_t* f
    cdef const double* th
    with nogil:
        for start in range(0, n, LANES):
            lanes = min(LANES, n - start)
            for t in range(n_trees):
                f = &feature[t, 0]
                th = &threshold[t, 0]
                base = t * (width + 1) - width
                for r in range(lanes):
                    node[r] = 0
                for level in range(depth):
                    for r in range(lanes):
                        node[r] = 2 * node[r] + 1 + (x[start + r, f[node[r]]] > th[node[r]])
                for r in range(lanes):
                    o[start + r, t] = base + node[r]
    return out
