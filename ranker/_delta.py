"""Compiled kernels that apply graph deltas to the live out-link CSR and keep the residual exact.

When page u's out-links change from L_old (out-weight W_old) to L_new (W_new), the residual
res = v + alpha·Pᵀy − y changes only at their targets: res_t −= alpha·y_u·w/W_old for t in
L_old, res_t += alpha·y_u·w/W_new for t in L_new (SPEC §4: the change stream as deltas).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def differs(pages, new_ptr, new_dst, new_w, start, count, dst, weight):  # pragma: no cover - compiled
    """bool per page: is its new list (new_ptr[i]:new_ptr[i+1]) different from the stored one?"""
    out = np.zeros(pages.shape[0], dtype=np.bool_)
    for i in range(pages.shape[0]):
        u = pages[i]
        a, b = new_ptr[i], new_ptr[i + 1]
        if b - a != count[u]:
            out[i] = True
            continue
        s = start[u]
        for k in range(b - a):
            if new_dst[a + k] != dst[s + k] or new_w[a + k] != weight[s + k]:
                out[i] = True
                break
    return out


@njit(cache=True, nogil=True)
def replace_lists(pages, new_ptr, new_dst, new_w, start, count, dst, weight, inv_out, y, res, alpha,
                  end):  # pragma: no cover - compiled
    """Replace the out-lists of ``pages`` (appended at ``end``), updating res; returns the new end."""
    for i in range(pages.shape[0]):
        u = pages[i]
        c = alpha * y[u] * inv_out[u]
        if c != 0.0:
            s = start[u]
            for k in range(s, s + count[u]):
                res[dst[k]] -= c * weight[k]
        a, b = new_ptr[i], new_ptr[i + 1]
        total = 0.0
        for k in range(a, b):
            dst[end + k - a] = new_dst[k]
            weight[end + k - a] = new_w[k]
            total += new_w[k]
        start[u] = end
        count[u] = b - a
        inv_out[u] = 1.0 / total if total > 0 else 0.0
        c = alpha * y[u] * inv_out[u]
        if c != 0.0:
            for k in range(a, b):
                res[new_dst[k]] += c * new_w[k]
        end += b - a
    return end


@njit(cache=True, nogil=True)
def sources_into(marked, start, count, dst):  # pragma: no cover - compiled
    """Pages with at least one out-link into a page where ``marked`` is set (one pass over the links)."""
    n = start.shape[0]
    hit = np.zeros(n, dtype=np.bool_)
    for u in range(n):
        s = start[u]
        for k in range(s, s + count[u]):
            if marked[dst[k]]:
                hit[u] = True
                break
    return np.flatnonzero(hit)


@njit(cache=True, nogil=True)
def compact(start, count, dst, weight, out_dst, out_weight):  # pragma: no cover - compiled
    """Copy every live list into fresh arrays in page order; returns the links copied."""
    end = 0
    for u in range(start.shape[0]):
        s = start[u]
        m = count[u]
        for k in range(m):
            out_dst[end + k] = dst[s + k]
            out_weight[end + k] = weight[s + k]
        start[u] = end
        end += m
    return end
