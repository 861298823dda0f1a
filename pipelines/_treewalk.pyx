# cython: language_level=3, boundscheck=False, wraparound=False
"""The tree ensembles' walk compiled (optional extension): ``trees.TreeEnsemble.leaves`` without numpy's
per-level array steps.

The same rule as ``TreeEnsemble.level_walk``, ``node = 2 * node + 1 + (x[feature[node]] > threshold[node])``
for every row and tree, in one loop; the same leaf indices (into ``leaf_value.ravel()``), so numpy then
sums the same leaf values in the same order: bit-identical decisions.
"""

import numpy as np

from libc.stdint cimport int64_t


def leaves(const double[:, ::1] x, const int64_t[:, ::1] feature, const double[:, ::1] threshold, int depth):
    """int64[rows, trees]: the leaf each row of ``x`` reaches in each complete tree (heap order)."""
    cdef Py_ssize_t n = x.shape[0], n_trees = feature.shape[0], width = feature.shape[1]
    out = np.empty((n, n_trees), dtype=np.int64)
    cdef int64_t[:, ::1] o = out
    cdef Py_ssize_t i, t, level, node
    with nogil:
        for i in range(n):
            for t in range(n_trees):
                node = 0
                for level in range(depth):
                    node = 2 * node + 1 + (x[i, feature[t, node]] > threshold[t, node])
                o[i, t] = t * (width + 1) + node - width
    return out
