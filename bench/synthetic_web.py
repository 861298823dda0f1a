"""A seeded synthetic web of many hosts as a ``SimWeb`` for the crawl-order simulator.

Hosts have Pareto-distributed sizes (``bench.synthetic_graph.host_sizes``). Page 0 of a host is
its home page; a host's pages form a navigation tree (page i lists pages ``BRANCHING·i + 1 …``), and
every page links to its host's hubs (the home page and its first ``BRANCHING`` children): these
links are followed but are no edges of the ranked graph. Content links (heavy-tailed out-degrees,
``bench.synthetic_graph.out_degrees``) stay in the host with probability ``INTRA``; their targets
follow the copying model (Kleinberg et al. 1999, Kumar et al. 2000): with probability ``COPY`` a
link copies the target of a uniformly drawn earlier content link of its host, otherwise it picks
a page of the host uniformly, which gives the in-degrees a power-law tail. A link across hosts
copies the target of a uniformly drawn content link anywhere (popular pages attract more) with
probability ``COPY``, otherwise it points to the home page of a host drawn in proportion to its
size. Every host after the first is linked from a page of an earlier host, so the whole web is
reachable from host 0's home page. Importance is the PageRank of the content graph.

Run ``python -m bench.synthetic_web [--pages 1000000 --seed 0]`` to print the web's properties.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass

import numpy as np

from bench.frontier_sim import SimWeb, pagerank_of
from bench.synthetic_graph import host_sizes, out_degrees

BRANCHING = 8
"""Children a navigation page lists; the hubs are the home page and its first BRANCHING children."""
INTRA = 0.9
"""Share of content links that stay within their host."""
COPY = 0.75
"""Probability that a content link copies the target of an earlier link (in-degree tail ≈ 1 + 1/COPY)."""
SEEDS = 5
"""Start pages: the home pages of the first hosts."""


def _csr(n: int, src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unique (src, dst) pairs without self-links as (indptr, indices), targets ascending per page."""
    keep = src != dst
    keys = np.sort(src[keep] * n + dst[keep])
    keys = keys[np.concatenate([[True], keys[1:] != keys[:-1]])] if len(keys) else keys
    rows = keys // n
    return np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n))]), keys % n


def _split(indptr: np.ndarray, indices: np.ndarray) -> list[np.ndarray]:
    """Each page's slice of ``indices`` (views, no copies)."""
    bounds = indptr.tolist()
    return [indices[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def _resolve(ptr: np.ndarray, base: np.ndarray) -> np.ndarray:
    """Targets of links that each either keep their own ``base`` target (``ptr[e] == e``) or copy the
    target of the earlier link ``ptr[e]``: pointer jumping until every chain ends at a base link."""
    while True:
        nxt = ptr[ptr]
        if np.array_equal(nxt, ptr):
            return base[ptr]
        ptr = nxt


def _navigation(offsets: np.ndarray, sizes: np.ndarray, host_of: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Listing links (parent → child in the host's tree) and hub links (every page → its host's hubs)."""
    n = len(host_of)
    local = np.arange(n, dtype=np.int64) - offsets[host_of]
    child = local > 0
    parent = offsets[host_of[child]] + (local[child] - 1) // BRANCHING
    hubs = np.minimum(sizes, BRANCHING + 1)[host_of]
    hub_src = np.repeat(np.arange(n, dtype=np.int64), hubs)
    first = np.repeat(np.cumsum(hubs) - hubs, hubs)
    hub_dst = offsets[host_of[hub_src]] + (np.arange(len(hub_src), dtype=np.int64) - first)
    return np.concatenate([parent, hub_src]), np.concatenate([np.flatnonzero(child), hub_dst])


def _content(offsets: np.ndarray, sizes: np.ndarray, host_of: np.ndarray,
             rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Content links by the copying model (module docstring), plus one in-link to each host after the
    first from a page of an earlier host."""
    n = len(host_of)
    src = np.repeat(np.arange(n, dtype=np.int64), out_degrees(n, rng))
    cross = rng.random(len(src)) >= INTRA
    isrc, xsrc = src[~cross], src[cross]
    # Links within the host, in page order: a copy points to an earlier link of the same host.
    ihost = host_of[isrc]
    start = np.searchsorted(ihost, ihost, side="left")
    pos = np.arange(len(isrc), dtype=np.int64)
    copies = (rng.random(len(isrc)) < COPY) & (pos > start)
    ptr = pos.copy()
    ptr[copies] = start[copies] + (rng.random(int(copies.sum())) * (pos[copies] - start[copies])).astype(np.int64)
    base = offsets[ihost] + (rng.random(len(isrc)) * sizes[ihost]).astype(np.int64)
    idst = _resolve(ptr, base)
    # Links across hosts: a copy of any content link's target, or the home page of a host by size.
    xdst = offsets[host_of[rng.integers(0, n, len(xsrc))]]
    copied = (rng.random(len(xsrc)) < COPY) & (len(idst) > 0)
    if len(idst):
        xdst[copied] = idst[rng.integers(0, len(idst), int(copied.sum()))]
    # Reachability: host h > 0 is linked from a uniformly drawn page of a host before it.
    hosts = np.arange(1, len(sizes), dtype=np.int64)
    earlier = (rng.random(len(hosts)) * hosts).astype(np.int64)
    rsrc = offsets[earlier] + (rng.random(len(hosts)) * sizes[earlier]).astype(np.int64)
    return np.concatenate([isrc, xsrc, rsrc]), np.concatenate([idst, xdst, offsets[hosts]])


def synthetic_web(n_pages: int = 1_000_000, seed: int = 0, seeds: int = SEEDS) -> SimWeb:
    """The synthetic web of ``n_pages`` pages (module docstring); the same seed gives the same web."""
    if n_pages < 1:
        raise ValueError(f"a synthetic web needs at least one page, got {n_pages}")
    rng = np.random.default_rng(seed)
    sizes = host_sizes(n_pages, rng)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    host_of = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    csrc, cdst = _content(offsets, sizes, host_of, rng)
    nsrc, ndst = _navigation(offsets, sizes, host_of)
    cptr, cidx = _csr(n_pages, csrc, cdst)
    fptr, fidx = _csr(n_pages, np.concatenate([nsrc, csrc]), np.concatenate([ndst, cdst]))
    rows = np.repeat(np.arange(n_pages, dtype=np.int64), np.diff(cptr))
    importance = pagerank_of(n_pages, rows, cidx)
    names = [f"site{h}.example" for h in range(len(sizes))]
    return SimWeb(f"synthetic web ({n_pages:,} pages, seed {seed})", _split(fptr, fidx), _split(cptr, cidx),
                  [names[h] for h in host_of.tolist()], importance / importance.sum(),
                  offsets[: min(seeds, len(sizes))].tolist())


@dataclass(frozen=True)
class WebProperties:
    """Size and shape figures of a ``SimWeb``."""

    pages: int
    hosts: int
    follow_links: int
    content_links: int
    intra_host_share: float
    dangling_share: float
    in_degree_p50: float
    in_degree_p99: float
    in_degree_max: int
    in_degree_tail: float
    """Power-law exponent of the content in-degrees ≥ their 99th percentile (discrete MLE, Clauset et al. 2009)."""
    top1_mass: float
    """Share of the importance held by the top 1 % of pages."""
    largest_host: int

    def rows(self) -> list[list[object]]:
        return [["pages", f"{self.pages:,}"], ["hosts", f"{self.hosts:,}"], ["largest host (pages)", f"{self.largest_host:,}"],
                ["followed links", f"{self.follow_links:,}"], ["content links", f"{self.content_links:,}"],
                ["content links within their host", f"{self.intra_host_share:.3f}"],
                ["pages without content links", f"{self.dangling_share:.3f}"],
                ["content in-degree median / p99 / max", f"{self.in_degree_p50:.0f} / {self.in_degree_p99:.0f} / {self.in_degree_max:,}"],
                ["in-degree tail exponent (≥ p99)", f"{self.in_degree_tail:.2f}"],
                ["PageRank share of the top 1 % of pages", f"{self.top1_mass:.3f}"]]


def properties(web: SimWeb) -> WebProperties:
    """Pages, hosts, links, in-degree tail and mass concentration of ``web``."""
    lengths = np.fromiter((len(c) for c in web.content), dtype=np.int64, count=web.n)
    dst = np.concatenate(web.content) if web.n else np.zeros(0, dtype=np.int64)
    src = np.repeat(np.arange(web.n, dtype=np.int64), lengths)
    names, host_ids = np.unique(np.asarray(web.host, dtype=object).astype(str), return_inverse=True)
    indeg = np.bincount(dst, minlength=web.n)
    xmin = max(1.0, float(np.percentile(indeg, 99)))
    tail = indeg[indeg >= xmin]
    alpha = 1.0 + len(tail) / float(np.log(tail / (xmin - 0.5)).sum())
    top = max(1, web.n // 100)
    return WebProperties(
        pages=web.n, hosts=len(names),
        follow_links=int(sum(len(f) for f in web.follow)), content_links=len(dst),
        intra_host_share=float((host_ids[src] == host_ids[dst]).mean()) if len(dst) else 0.0,
        dangling_share=float((lengths == 0).mean()),
        in_degree_p50=float(np.median(indeg)), in_degree_p99=float(np.percentile(indeg, 99)),
        in_degree_max=int(indeg.max()), in_degree_tail=alpha,
        top1_mass=float(np.sort(web.importance)[-top:].sum() / web.importance.sum()),
        largest_host=int(np.bincount(host_ids).max()))


def main(argv: list[str] | None = None) -> None:
    from bench.report import markdown_table

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.pages < 1:
        sys.exit(f"--pages must be at least 1, got {args.pages}")
    t0 = time.perf_counter()
    web = synthetic_web(args.pages, args.seed)
    built = time.perf_counter() - t0
    print(markdown_table(["property", "value"], [*properties(web).rows(), ["built in (s)", f"{built:.1f}"]]))


if __name__ == "__main__":
    main()
