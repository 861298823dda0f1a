"""Compiled build of the out-link CSR straight from packed hosts (``hostedges.Packed``), for a
cold load with no gone or redirecting page: two passes over the edges, no per-edge temporaries."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def packed_csr(n, base, edge_ptr, src_local, dst_base, dst_host, dst_local, weight):  # pragma: no cover - compiled
    """(start, count, dst, weight, inv_out) of pages 0..n-1. Host k's edges are
    edge_ptr[k]..edge_ptr[k+1]-1, from page base[k] + src_local to page dst_base[dst_host] +
    dst_local; self-links are dropped; a page's links keep their input order."""
    count = np.zeros(n, dtype=np.int32)
    out_weight = np.zeros(n)
    for k in range(base.shape[0]):
        b = base[k]
        for e in range(edge_ptr[k], edge_ptr[k + 1]):
            u = b + src_local[e]
            if dst_base[dst_host[e]] + dst_local[e] != u:
                count[u] += 1
                out_weight[u] += weight[e]
    start = np.zeros(n, dtype=np.int64)
    total = 0
    for u in range(n):
        start[u] = total
        total += count[u]
    fill = start.copy()
    dst = np.empty(total, dtype=np.int32)
    w = np.empty(total, dtype=np.float32)
    for k in range(base.shape[0]):
        b = base[k]
        for e in range(edge_ptr[k], edge_ptr[k + 1]):
            u = b + src_local[e]
            t = dst_base[dst_host[e]] + dst_local[e]
            if t != u:
                j = fill[u]
                dst[j] = t
                w[j] = weight[e]
                fill[u] = j + 1
    inv_out = np.zeros(n)
    for u in range(n):
        if out_weight[u] > 0:
            inv_out[u] = 1.0 / out_weight[u]
    return start, count, dst, w, inv_out
