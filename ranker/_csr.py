"""Compiled build of the out-link CSR straight from packed hosts (``hostedges.Packed``), for a
cold load with no gone or redirecting page: a pass over the edges for the page numbering, two
for the CSR, no per-edge temporaries."""

from __future__ import annotations

import numpy as np
from numba import njit

from rankcrawl.ranker.store.hostedges import Packed, numbering


@njit(cache=True, nogil=True)
def _sizes(top, host_ids, n_pages, dst_host, dst_local):  # pragma: no cover - compiled
    """Pages of every HostID 0..top (-1: absent): its stored count, extended by the edge targets."""
    size = np.full(top + 1, -1, dtype=np.int64)
    for k in range(host_ids.shape[0]):
        size[host_ids[k]] = n_pages[k]
    for e in range(dst_host.shape[0]):
        need = np.int64(dst_local[e]) + 1
        if size[dst_host[e]] < need:
            size[dst_host[e]] = need
    return size


def layout(p: Packed) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``hostedges.layout`` of hosts with no redirect, the page counts found in one compiled pass."""
    top = max([int(a.max()) for a in (p.host_ids, p.dst_host) if len(a)], default=-1)
    return numbering(_sizes(top, p.host_ids, p.n_pages, p.dst_host, p.dst_local))


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
