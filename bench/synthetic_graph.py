"""Seeded, host-structured synthetic web graphs for the PageRank benchmark.

Shape follows the LargeWeb figures of Kohlschütter §3.2.3 (Table 3.2): power-law host sizes,
~94 % intra-host links, ~10 % dangling pages, heavy-tailed out-degrees (mean ≈ 9.6 links
per page). Generation is vectorised numpy; the same seed gives the same graph.
"""

from __future__ import annotations

import numpy as np

from rankcrawl.ranker.store.hostgraph import HostGraph

INTRA = 0.94
DANGLING = 0.10
WEIGHTS = np.array([0.5, 1.0, 1.0, 1.0, 2.0], dtype=np.float32)


def graph_from_edges(host_sizes: np.ndarray | list[int], src: np.ndarray | list[int], dst: np.ndarray | list[int],
                     weight: np.ndarray | list[float] | None = None) -> HostGraph:
    """A ``HostGraph`` from pages-per-host counts and global-index edges (weights default to 1; HostIDs 0..H-1)."""
    sizes = np.asarray(host_sizes, dtype=np.int64)
    src_a = np.asarray(src, dtype=np.int64)
    w = np.ones(len(src_a), dtype=np.float32) if weight is None else np.asarray(weight, dtype=np.float32)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    return HostGraph(np.arange(len(sizes), dtype=np.uint32), offsets, src_a, np.asarray(dst, dtype=np.int64), w)


def host_sizes(n_pages: int, rng: np.random.Generator, x_min: int = 20, tail: float = 1.3,
               cap: int = 20_000) -> np.ndarray:
    """Pareto-distributed pages per host (tail index ``tail``), summing exactly to ``n_pages``."""
    if n_pages <= 0:
        return np.zeros(0, dtype=np.int64)
    draw = max(16, int(2 * n_pages / x_min))
    sizes = np.minimum(np.floor(x_min * rng.random(draw) ** (-1.0 / tail)), cap).astype(np.int64)
    while sizes.sum() < n_pages:
        sizes = np.concatenate([sizes, sizes])
    total = np.cumsum(sizes)
    k = int(np.searchsorted(total, n_pages))
    sizes = sizes[: k + 1].copy()
    sizes[-1] -= total[k] - n_pages
    return sizes[sizes > 0]


def out_degrees(n: int, rng: np.random.Generator, dangling: float = DANGLING) -> np.ndarray:
    """Heavy-tailed out-degrees (discrete Pareto, tail 1.6, mean ≈ 10.7 links per linking
    page, capped at 1000) with a ``dangling`` share of zeros."""
    deg = np.minimum(np.floor(4.0 * rng.random(n) ** (-1.0 / 1.6)), 1000).astype(np.int64)
    deg[rng.random(n) < dangling] = 0
    return deg


def _targets(src: np.ndarray, offsets: np.ndarray, sizes: np.ndarray, host_of: np.ndarray,
             rng: np.random.Generator, intra: float) -> np.ndarray:
    """A target page per source: own host with probability ``intra``, else the host of a
    uniformly drawn page (big hosts attract more); inside a host low LocalIDs are popular."""
    n = len(host_of)
    host = host_of[src]
    external = rng.random(len(src)) >= intra
    host[external] = host_of[rng.integers(0, n, int(external.sum()))]
    local = (sizes[host] * rng.random(len(src)) ** 2).astype(np.int64)
    return offsets[host] + local


def _edges(sources: np.ndarray, degree: np.ndarray, offsets: np.ndarray, sizes: np.ndarray,
           host_of: np.ndarray, rng: np.random.Generator, intra: float):
    src = np.repeat(sources, degree)
    dst = _targets(src, offsets, sizes, host_of, rng, intra)
    return src, dst, WEIGHTS[rng.integers(0, len(WEIGHTS), len(src))]


def synthetic_web(n_pages: int, seed: int = 0, intra: float = INTRA, dangling: float = DANGLING) -> HostGraph:
    """A host-ordered web graph of ``n_pages`` pages."""
    rng = np.random.default_rng(seed)
    sizes = host_sizes(n_pages, rng)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    host_of = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    src, dst, w = _edges(np.arange(n_pages), out_degrees(n_pages, rng, dangling), offsets, sizes, host_of, rng, intra)
    return HostGraph(np.arange(len(sizes), dtype=np.uint32), offsets, src, dst, w)


def add_hosts(graph: HostGraph, fraction: float = 0.01, seed: int = 1, intra: float = INTRA) -> HostGraph:
    """``graph`` plus new hosts holding ≈ ``fraction`` more pages, appended after the old hosts.

    New pages get out-links like any page; old pages gain as many links into the new hosts as
    the new hosts send out, so the new part is reachable both ways.
    """
    rng = np.random.default_rng(seed)
    new_sizes = host_sizes(max(1, int(round(graph.n_pages * fraction))), rng)
    sizes = np.concatenate([np.diff(graph.host_offsets), new_sizes])
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    host_of = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    n_old, n = graph.n_pages, int(offsets[-1])
    new_pages = np.arange(n_old, n)
    src, dst, w = _edges(new_pages, out_degrees(len(new_pages), rng), offsets, sizes, host_of, rng, intra)
    n_in = int((host_of[dst] != host_of[src]).sum())
    in_src = rng.integers(0, n_old, n_in)
    in_dst = n_old + (len(new_pages) * rng.random(n_in) ** 2).astype(np.int64)
    ids = np.arange(len(sizes), dtype=np.uint32)
    return HostGraph(
        ids,
        offsets,
        np.concatenate([graph.src, src, in_src]),
        np.concatenate([graph.dst, dst, in_dst]),
        np.concatenate([graph.weight, w, WEIGHTS[rng.integers(0, len(WEIGHTS), n_in)]]),
    )


def change_pages(graph: HostGraph, fraction: float = 0.01, seed: int = 2, intra: float = INTRA) -> HostGraph:
    """``graph`` with the out-links of a random ``fraction`` of its pages replaced (a re-crawl)."""
    rng = np.random.default_rng(seed)
    n = graph.n_pages
    changed = rng.random(n) < fraction
    keep = ~changed[graph.src]
    sizes = np.diff(graph.host_offsets)
    host_of = graph.host_of_page
    pages = np.flatnonzero(changed)
    src, dst, w = _edges(pages, out_degrees(len(pages), rng), graph.host_offsets, sizes, host_of, rng, intra)
    return HostGraph(
        graph.host_ids,
        graph.host_offsets,
        np.concatenate([graph.src[keep], src]),
        np.concatenate([graph.dst[keep], dst]),
        np.concatenate([graph.weight[keep], w]),
    )
