"""The link graph as the solver sees it: pages numbered host by host (Kohlschütter §3.2.1)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

ALIAS_HOPS = 32


def resolve_targets(n: int, gone: np.ndarray, alias_from: np.ndarray, alias_to: np.ndarray) -> np.ndarray:
    """int64[n]: where a link to each page lands — itself, the end of its redirect chain, or -1
    (gone, or a redirect chain that loops or ends at a gone page)."""
    target = np.arange(n, dtype=np.int64)
    target[alias_from] = alias_to
    target[gone] = -1
    for _ in range(ALIAS_HOPS):
        ok = target >= 0
        step = target.copy()
        step[ok] = target[target[ok]]
        if np.array_equal(step, target):
            break
        target = step
    is_alias = np.zeros(n, dtype=bool)
    is_alias[alias_from] = True
    ok = target >= 0
    target[ok & is_alias[np.maximum(target, 0)]] = -1  # still on a redirect: a loop or a chain too long
    return target


@dataclass(frozen=True)
class HostGraph:
    """Pages ordered by host; page (host k, LocalID l) has global index ``host_offsets[k] + l``.

    ``host_ids`` are the store's HostIDs (sorted, uint32); ``src``/``dst`` are global page
    indices of the weighted edges (weights > 0). Pages without out-edges are dangling.
    """

    host_ids: np.ndarray
    host_offsets: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    weight: np.ndarray
    excluded: np.ndarray | None = None  # bool[n]: pages outside the graph (gone, redirecting): no rank

    def __post_init__(self) -> None:
        n = self.n_pages
        if self.host_offsets.shape != (len(self.host_ids) + 1,) or self.host_offsets[0] != 0:
            raise ValueError("host_offsets must start at 0 and have one entry per host plus one")
        if np.any(np.diff(self.host_offsets) < 0):
            raise ValueError("host_offsets must be non-decreasing")
        if not (len(self.src) == len(self.dst) == len(self.weight)):
            raise ValueError("src, dst and weight must have equal length")
        if len(self.src) and (self.src.min() < 0 or self.dst.min() < 0 or max(self.src.max(), self.dst.max()) >= n):
            raise ValueError("edge endpoint outside 0..n_pages-1")
        if len(self.weight) and not np.all(self.weight > 0):
            raise ValueError("edge weights must be positive")

    @property
    def n_pages(self) -> int:
        return int(self.host_offsets[-1])

    @property
    def n_hosts(self) -> int:
        return len(self.host_ids)

    @property
    def host_of_page(self) -> np.ndarray:
        """Host position (0..H-1) of every page."""
        return np.repeat(np.arange(self.n_hosts, dtype=np.int64), np.diff(self.host_offsets))

    @classmethod
    def with_conventions(cls, host_ids: np.ndarray, offsets: np.ndarray, src: np.ndarray, dst: np.ndarray,
                         weight: np.ndarray, gone: np.ndarray, alias_from: np.ndarray,
                         alias_to: np.ndarray) -> HostGraph:
        """The graph with SPEC §2.7 applied: links land on redirect targets, links into gone pages
        and self-links are dropped, gone and redirecting pages have no out-links and no rank."""
        n = int(offsets[-1])
        if not len(gone) and not len(alias_from):  # nothing leaves the graph: only self-links go
            keep = dst != src
            return cls(host_ids, offsets, *((src, dst, weight) if keep.all() else (src[keep], dst[keep], weight[keep])))
        target = resolve_targets(n, gone, alias_from, alias_to)
        excluded = np.zeros(n, dtype=bool)
        excluded[gone] = True
        excluded[alias_from] = True
        dst = target[dst]
        keep = (dst >= 0) & (dst != src) & ~excluded[src]
        return cls(host_ids, offsets, src[keep], dst[keep], weight[keep], excluded if excluded.any() else None)
