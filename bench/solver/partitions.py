"""Host → partition assignment balanced by page count (Kohlschütter §3.2.3).

Hosts are sorted by page count (descending) and dealt round robin over the P partitions; on
a later call with ``previous``, existing hosts keep their partition and each new host goes to
the partition that is currently lightest, so no page ever moves between partitions.
"""

from __future__ import annotations

import heapq

import numpy as np


def assign_partitions(
    host_sizes: np.ndarray | list[int], n_partitions: int, previous: np.ndarray | list[int] | None = None
) -> np.ndarray:
    """Partition (0..P-1) of every host, int32[H].

    ``previous``: the earlier assignment in host order; it may be shorter than ``host_sizes``
    (hosts appended since) and may hold -1 for hosts that are new. Existing hosts keep it.
    """
    sizes = np.asarray(host_sizes, dtype=np.int64)
    if n_partitions < 1:
        raise ValueError("the number of partitions must be at least 1")
    if np.any(sizes < 0):
        raise ValueError("host sizes must be non-negative")
    n_hosts = len(sizes)
    if previous is None:
        order = np.argsort(-sizes, kind="stable")
        part = np.empty(n_hosts, dtype=np.int32)
        part[order] = np.arange(n_hosts, dtype=np.int32) % n_partitions
        return part
    prev = np.asarray(previous, dtype=np.int64)
    if len(prev) > n_hosts:
        raise ValueError("previous assignment covers more hosts than there are")
    if np.any(prev >= n_partitions) or np.any(prev < -1):
        raise ValueError(f"previous assignment must hold partitions 0..{n_partitions - 1} or -1")
    part = np.full(n_hosts, -1, dtype=np.int32)
    part[: len(prev)] = prev
    known = part >= 0
    load = np.bincount(part[known], weights=sizes[known], minlength=n_partitions)
    heap = [(float(load[k]), k) for k in range(n_partitions)]
    heapq.heapify(heap)
    new_hosts = np.flatnonzero(~known)
    for h in new_hosts[np.argsort(-sizes[new_hosts], kind="stable")]:
        weight, k = heapq.heappop(heap)
        part[h] = k
        heapq.heappush(heap, (weight + float(sizes[h]), k))
    return part
