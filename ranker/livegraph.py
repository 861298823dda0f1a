"""The live ranker's graph and solver state in memory, updated by deltas (SPEC §4).

Pages are numbered host by host when the graph is built; pages that arrive later (new hosts,
new pages of known hosts) are appended as new segments — a contiguous range of one host's
consecutive LocalIDs — so nothing is renumbered. Out-links form the CSR of ``outlinks.py``
(8 bytes per link); a replaced list is appended and the old slots are reclaimed by compaction.
Alongside the graph we keep y and its exact residual (``_push``), so a delta only adds residual
where it changed the system, and the push solve works only where that residual reaches.

Graph conventions (SPEC §2.7) as in ``assemble``: links to a redirecting page land on its target,
links to gone pages and self-links are dropped, gone and redirecting pages hold y = 0 (no rank).
A page leaving the graph is found in one pass over the links (its in-links move or go); a page
coming back, or a redirect changing its target, asks for a rebuild (``needs_rebuild``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from rankcrawl.ranker import _blocks, _csr, _delta, _push
from rankcrawl.ranker.hostindex import HostIndex
from rankcrawl.ranker.outlinks import INDEX_LIMIT, OutLinks, PushState
from rankcrawl.ranker.store.graphstore import HostEdges
from rankcrawl.ranker.store.hostedges import EDGE, HEAD, Packed, assemble_packed, pack
from rankcrawl.ranker.store.hostgraph import HostGraph
from rankcrawl.ranker.store.outpack import decode

GROW = 1.0625  # spare capacity when arrays grow (amortised appends, little memory held back)
COMPACT_AT = 0.1  # compact the link arrays when this share of their slots is garbage


def _grown(a: np.ndarray, size: int, fill: float = 0) -> np.ndarray:
    if size <= len(a):
        return a
    out = np.full(max(size, int(len(a) * GROW) + 16), fill, dtype=a.dtype)
    out[: len(a)] = a
    return out


def warm_up(alpha: float) -> None:
    """Load the compiled kernels of a cold epoch (build, push, block sweeps) from numba's cache on
    two-page graphs, so that cost can overlap the reads of the real graph (``GraphStore.load_packed``)."""
    edges = HostEdges(2, np.array([0, 1], np.uint32), np.zeros(2, np.uint32), np.array([1, 0], np.uint32),
                      np.ones(2, np.float32))
    graph = LiveGraph.build({0: edges}, alpha)
    graph.push(1e-3, 10)
    graph.reset_residual()
    head = np.array([(0, EDGE.itemsize)], dtype=HEAD).tobytes()
    packs = [b"\1\0\0\0" + head + np.array([(1 - h, 0, 1.0)], dtype=EDGE).tobytes() for h in (0, 1)]
    ones, zeros = np.ones(2, "<u4").tobytes(), np.zeros(2, "<u4").tobytes()
    loaded = decode([0, 1], packs, [[ones, b"", zeros, b"", zeros, b""]])  # the array kinds of a real load
    LiveGraph.from_packed(loaded, alpha).push(1e-3, 10, threads=2)


class LiveGraph:
    """Out-link CSR + y + residual, host-segmented, with delta application."""

    def __init__(self, alpha: float, bias: Iterable[tuple[int, int]] | None = None) -> None:
        self.alpha = alpha
        self.bias = set(bias) if bias is not None else None
        self.n = 0
        self.end = 0  # link slots used (live + garbage)
        self.start = np.zeros(0, np.int64)
        self.count = np.zeros(0, np.int32)
        self.inv_out = np.zeros(0)
        self.y = np.zeros(0)
        self.res = np.zeros(0)
        self.seg_of = np.zeros(0, np.int32)
        self.excluded = np.zeros(0, np.bool_)
        self.dst = np.zeros(0, np.int32)
        self.weight = np.zeros(0, np.float32)
        self.segments: list[tuple[int, int, int, int]] = []  # (HostID, lo, hi, LocalID of lo)
        self.index = HostIndex()  # HostID → page number per LocalID
        self.base = np.zeros(0, np.int64)  # HostID → page number of LocalID 0 if the host is one segment, else -1
        self.alias: dict[int, int] = {}  # redirecting page → its target page (raw, before resolution)
        self.dirty: set[int] = set()  # hosts whose vectors changed outside the solver (new/excluded pages)
        self.drift: dict[int, float] = {}  # host → Σ|Δy| since its vector was last published
        self.needs_rebuild = False
        self._seg_arrays: tuple[np.ndarray, np.ndarray] | None = None

    # -- views ----------------------------------------------------------------------------
    @property
    def n_links(self) -> int:
        return int(self.count[: self.n].sum())

    @property
    def nbytes(self) -> int:
        arrays: tuple[np.ndarray, ...] = (self.start, self.count, self.inv_out, self.y, self.res, self.seg_of,
                                          self.excluded, self.dst, self.weight, self.base)
        return sum(a.nbytes for a in arrays) + self.index.nbytes + 24 * len(self.segments)

    def host_ids(self) -> list[int]:
        return sorted(self.index)

    def vector(self, hid: int) -> np.ndarray:
        """Scores y of a host per LocalID, NaN for pages outside the graph."""
        idx: slice | np.ndarray | None = self.index.span(hid)
        if idx is None:
            idx = self.index.get(hid)
            if idx is None:
                return np.zeros(0)
        return np.where(self.excluded[idx], np.nan, self.y[idx])

    def vectors(self) -> Callable[[int], np.ndarray]:
        """``vector`` for many hosts: pages outside the graph masked once, then a slice per host."""
        masked = np.where(self.excluded[: self.n], np.nan, self.y[: self.n])

        def vector(hid: int) -> np.ndarray:
            idx = self.index.span(hid)
            if idx is not None:
                return masked[idx]
            got = self.index.get(hid)
            return masked[got] if got is not None else np.zeros(0)

        return vector

    def host_sum(self, hid: int) -> float:
        idx = self.index.span(hid)
        return float(self.y[self.index[hid] if idx is None else idx].sum())

    def host_sums(self, hids: Iterable[int]) -> dict[int, float]:
        """``host_sum`` of many hosts: the one-segment ones in one ``np.add.reduceat``."""
        out: dict[int, float] = {}
        spans: list[tuple[int, int, int]] = []
        for hid in hids:
            span = self.index.span(hid)
            if span is None:
                out[hid] = self.host_sum(hid)
            else:
                spans.append((span.start, span.stop, hid))
        if spans:
            spans.sort()
            bounds = np.array([(lo, hi) for lo, hi, _ in spans], dtype=np.int64)
            y = np.append(self.y[: self.n], 0.0)  # reduceat may point one past the last page
            sums = np.add.reduceat(y, bounds.ravel())[0::2]
            sums[bounds[:, 0] == bounds[:, 1]] = 0.0
            out.update(zip([h for _, _, h in spans], sums.tolist()))
        return out

    def norm(self) -> float:
        return float(self.y[: self.n].sum())

    def page_of(self, gids: np.ndarray) -> list[tuple[int, int]]:
        """(HostID, LocalID) of page numbers."""
        out = []
        for g, s in zip(gids.tolist(), self.seg_of[gids].tolist()):
            hid, lo, _, lid0 = self.segments[s]
            out.append((hid, lid0 + g - lo))
        return out

    def _teleport(self, gids: np.ndarray, pairs: Iterable[tuple[int, int]]) -> np.ndarray:
        if self.bias is None:
            return np.where(self.excluded[gids], 0.0, 1.0)
        return np.array([0.0 if self.excluded[g] or p not in self.bias else 1.0 for g, p in zip(gids, pairs)])

    def teleport(self) -> np.ndarray:
        """v for every page (1 per page, or 1 per biasing-set page; 0 outside the graph)."""
        if self.bias is None:
            return np.where(self.excluded[: self.n], 0.0, 1.0)
        v = np.zeros(self.n)
        for hid in self.index:
            idx = self.index[hid]
            v[idx] = self._teleport(idx, ((hid, lid) for lid in range(len(idx))))
        return v

    # -- structure ------------------------------------------------------------------------
    def _segments(self) -> tuple[np.ndarray, np.ndarray]:
        if self._seg_arrays is None:
            self._seg_arrays = (np.array([s[1] for s in self.segments], dtype=np.int64),
                                np.array([s[2] for s in self.segments], dtype=np.int64))
        return self._seg_arrays

    def _in_order(self) -> bool:
        """True when the segments, in order, cover the pages 0..n-1 (so blocks of them are page ranges)."""
        lo, hi = self._segments()
        return len(lo) > 1 and int(lo[0]) == 0 and int(hi[-1]) == self.n and bool(np.all(lo[1:] == hi[:-1]))

    def _pages(self, n_new: int) -> int:
        """Room for ``n_new`` more pages; returns the first new page number."""
        first = self.n
        need = self.n + n_new
        if need > INDEX_LIMIT:
            raise ValueError(f"the ranker handles at most {INDEX_LIMIT} pages")
        self.start, self.count = _grown(self.start, need), _grown(self.count, need)
        self.inv_out, self.y, self.res = _grown(self.inv_out, need), _grown(self.y, need), _grown(self.res, need)
        self.seg_of, self.excluded = _grown(self.seg_of, need), _grown(self.excluded, need)
        self.n = need
        return first

    def ensure_host(self, hid: int, n_pages: int) -> None:
        """Give host ``hid`` at least ``n_pages`` pages (new ones: one new segment, y = 0, res = v)."""
        if self.index.size(hid) >= n_pages:
            return
        idx = self.index[hid] if hid in self.index else np.zeros(0, np.int32)
        extra = n_pages - len(idx)
        first = self._pages(extra)
        self.base = _grown(self.base, hid + 1, -1)
        self.base[hid] = first if not len(idx) else -1
        gids = np.arange(first, first + extra, dtype=np.int32)
        self.start[gids], self.count[gids], self.inv_out[gids], self.y[gids] = self.end, 0, 0.0, 0.0
        self.excluded[gids] = False
        self.seg_of[gids] = len(self.segments)
        self.segments.append((hid, first, first + extra, len(idx)))
        self._seg_arrays = None
        if len(idx):
            self.index.set_array(hid, np.concatenate([idx, gids]))
        else:
            self.index.set_range(hid, first, extra)
        self.res[gids] = self._teleport(gids, ((hid, lid) for lid in range(len(idx), n_pages)))
        self.dirty.add(hid)

    def gids(self, hosts: np.ndarray, locals_: np.ndarray) -> np.ndarray:
        """Page numbers of (HostID, LocalID) arrays (the pages must exist)."""
        out = np.empty(len(hosts), dtype=np.int64)
        if not len(hosts):
            return out
        base = self.base[hosts]
        fast = base >= 0  # hosts of one segment: no per-host work
        out[fast] = base[fast] + locals_[fast]
        rest = np.flatnonzero(~fast)
        if len(rest):
            order = rest[np.argsort(hosts[rest], kind="stable")]
            cuts = np.flatnonzero(np.diff(hosts[order])) + 1
            for part in np.split(order, cuts):
                out[part] = self.index[int(hosts[part[0]])][locals_[part]]
        return out

    def _links(self, extra: int) -> None:
        """Room for ``extra`` more link slots (compacting first when much is garbage)."""
        live = self.n_links
        if self.end and (self.end - live) > COMPACT_AT * self.end:
            dst, weight = np.empty(live + extra, np.int32), np.empty(live + extra, np.float32)
            self.end = int(_delta.compact(self.start[: self.n], self.count[: self.n], self.dst, self.weight, dst, weight))
            self.dst, self.weight = dst, weight
        self.dst, self.weight = _grown(self.dst, self.end + extra), _grown(self.weight, self.end + extra)

    def _resolve(self, dst: np.ndarray) -> np.ndarray:
        """Where links to pages ``dst`` land: alias targets followed, -1 for pages outside the graph."""
        out = dst.astype(np.int64)
        hit = np.flatnonzero(self.excluded[out])
        for i in hit.tolist():
            t, hops = int(out[i]), 0
            while t in self.alias and hops < 32:
                t, hops = self.alias[t], hops + 1
            out[i] = -1 if self.excluded[t] else t
        return out

    def _replace(self, pages: np.ndarray, src: np.ndarray, dst: np.ndarray, w: np.ndarray) -> None:
        """Set the out-lists of ``pages`` to the links (src, dst, w) (src ∈ pages), residual kept exact."""
        keep = (dst >= 0) & (dst != src) & ~self.excluded[src]
        src, dst, w = src[keep], dst[keep], w[keep]
        pos = np.searchsorted(pages, src)
        order = np.argsort(pos, kind="stable")
        new_ptr = np.zeros(len(pages) + 1, dtype=np.int64)
        np.cumsum(np.bincount(pos, minlength=len(pages)), out=new_ptr[1:])
        new_dst, new_w = dst[order].astype(np.int32), w[order].astype(np.float32)
        changed = _delta.differs(pages, new_ptr, new_dst, new_w, self.start, self.count, self.dst, self.weight)
        if not changed.any():
            return
        sel = np.flatnonzero(changed)
        lens = new_ptr[sel + 1] - new_ptr[sel]
        sub_ptr = np.zeros(len(sel) + 1, dtype=np.int64)
        np.cumsum(lens, out=sub_ptr[1:])
        take = np.concatenate([np.arange(new_ptr[i], new_ptr[i + 1]) for i in sel]) if len(sel) else np.zeros(0, np.int64)
        self._links(int(sub_ptr[-1]))
        self.end = int(_delta.replace_lists(pages[sel].astype(np.int64), sub_ptr, new_dst[take], new_w[take],
                                            self.start, self.count, self.dst, self.weight, self.inv_out, self.y,
                                            self.res, self.alpha, self.end))

    # -- building and deltas ----------------------------------------------------------------
    @classmethod
    def build(cls, hosts: dict[int, HostEdges], alpha: float, bias: Iterable[tuple[int, int]] | None = None) -> LiveGraph:
        """A cold build from whole hosts (``GraphStore.load_hosts``): host-ordered, y = 0, res = v."""
        graph, alias_from, alias_to = assemble_packed(pack(hosts))
        return cls.from_graph(graph, alias_from, alias_to, alpha, bias)

    @classmethod
    def from_graph(cls, graph: HostGraph, alias_from: np.ndarray, alias_to: np.ndarray, alpha: float,
                   bias: Iterable[tuple[int, int]] | None = None) -> LiveGraph:
        """``build`` from ``assemble_packed`` already done (the graph, its redirects as page numbers)."""
        return cls._from_links(OutLinks.from_graph(graph), graph.host_ids, graph.host_offsets, graph.excluded,
                               alias_from, alias_to, alpha, bias)

    @classmethod
    def from_packed(cls, p: Packed, alpha: float, bias: Iterable[tuple[int, int]] | None = None) -> LiveGraph:
        """``build`` of loaded hosts (``GraphStore.load_packed``): straight to the CSR when no page is
        gone or redirects, else through ``assemble_packed``."""
        if len(p.gone) or len(p.alias_local):
            return cls.from_graph(*assemble_packed(p), alpha, bias)
        host_ids, pos, offsets = _csr.layout(p)
        none = np.zeros(0, np.int64)
        return cls._from_links(OutLinks.from_packed(p, pos, offsets), host_ids, offsets, None, none, none, alpha, bias)

    @classmethod
    def _from_links(cls, links: OutLinks, host_ids: np.ndarray, offsets: np.ndarray, excluded: np.ndarray | None,
                    alias_from: np.ndarray, alias_to: np.ndarray, alpha: float,
                    bias: Iterable[tuple[int, int]] | None) -> LiveGraph:
        g = cls(alpha, bias)
        g.n, g.end = int(offsets[-1]), len(links.dst)
        g.start, g.count, g.inv_out = links.start, links.count, links.inv_out
        g.dst, g.weight, g.seg_of = links.dst, links.weight, links.seg_of
        g.excluded = excluded if excluded is not None else np.zeros(g.n, np.bool_)
        g.y = np.zeros(g.n)
        g.base = np.full(int(host_ids.max()) + 1 if len(host_ids) else 0, -1, dtype=np.int64)
        g.base[host_ids] = offsets[:-1]
        for k, hid in enumerate(host_ids.tolist()):
            g.segments.append((hid, int(offsets[k]), int(offsets[k + 1]), 0))
            g.index.set_range(hid, int(offsets[k]), int(offsets[k + 1] - offsets[k]))
        g.alias = dict(zip(alias_from.tolist(), alias_to.tolist()))
        g.res = g.teleport()
        return g

    def apply(self, hosts: dict[int, HostEdges]) -> None:
        """Give the pages a ``HostEdges`` covers (``pages``; every page of the host when None) their
        stored out-links, gone state and redirects; page counts grow to the stored ones."""
        for hid, part in hosts.items():
            self.ensure_host(hid, max(part.n_pages, int(part.src_local.max()) + 1 if len(part.src_local) else 0))
        parts = list(hosts.values())
        th = np.concatenate([p.dst_host for p in parts] + [p.alias_target["host"] for p in parts]
                            + [np.zeros(0, np.uint32)]).astype(np.int64)
        tl = np.concatenate([p.dst_local for p in parts] + [p.alias_target["local"] for p in parts]
                            + [np.zeros(0, np.uint32)]).astype(np.int64)
        if len(th):
            targets, inverse = np.unique(th, return_inverse=True)
            size = np.zeros(len(targets), dtype=np.int64)
            np.maximum.at(size, inverse, tl + 1)
            for h, m in zip(targets.tolist(), size.tolist()):
                self.ensure_host(h, m)
        newly: list[np.ndarray] = []
        covered: list[np.ndarray] = []
        srcs: list[np.ndarray] = []
        for hid, part in hosts.items():
            idx = self.index[hid]
            cover = idx if part.pages is None else idx[part.pages]
            covered.append(cover)
            srcs.append(idx[part.src_local])
            was = self.excluded[cover]
            if not (len(part.gone) or len(part.alias_local) or was.any()):
                continue
            now = np.zeros(len(idx), dtype=bool)
            now[part.gone] = True
            now[part.alias_local] = True
            now = now if part.pages is None else now[part.pages]
            alias_src = idx[part.alias_local]
            alias_dst = self.gids(part.alias_target["host"].astype(np.int64), part.alias_target["local"].astype(np.int64))
            gone = idx[part.gone]
            moved = any(self.alias.get(s, d) != d for s, d in zip(alias_src.tolist(), alias_dst.tolist()))
            if np.any(was & ~now) or moved or (set(gone.tolist()) & set(self.alias)):
                self.needs_rebuild = True  # a page came back or a redirect changed: rebuild
                return
            self.alias.update(zip(alias_src.tolist(), alias_dst.tolist()))
            fresh = cover[now & ~was]
            self.excluded[fresh] = True
            newly.append(fresh)
            if len(fresh):
                self.dirty.add(hid)
        if covered:
            src = np.concatenate(srcs).astype(np.int64)
            dst = self._resolve(self.gids(np.concatenate([p.dst_host for p in parts]).astype(np.int64),
                                          np.concatenate([p.dst_local for p in parts]).astype(np.int64)))
            weight = np.concatenate([p.weight for p in parts])
            self._replace(np.unique(np.concatenate(covered)).astype(np.int64), src, dst, weight)
        fresh_all = np.concatenate(newly + [np.zeros(0, np.int64)]).astype(np.int64)
        if len(fresh_all):
            marked = np.zeros(self.n, dtype=np.bool_)
            marked[fresh_all] = True
            sources = _delta.sources_into(marked, self.start[: self.n], self.count[: self.n], self.dst)
            src = np.repeat(sources, self.count[sources])
            slots = np.concatenate([np.arange(self.start[u], self.start[u] + self.count[u]) for u in sources]
                                   + [np.zeros(0, np.int64)]).astype(np.int64)
            self._replace(sources.astype(np.int64), src, self._resolve(self.dst[slots]), self.weight[slots])
            self.y[fresh_all] = 0.0
            self.res[fresh_all] = 0.0

    # -- solving ----------------------------------------------------------------------------
    def reset_residual(self) -> None:
        """res = v + alpha·Pᵀy − y exactly (after y was set from a published epoch)."""
        n = self.n
        _push.residual(self.start[:n], self.count[:n], self.dst, self.weight, self.inv_out[:n], self.teleport(),
                       self.alpha, self.y[:n], self.res[:n])

    def push(self, tol: float, max_rounds: int, threads: int = 1) -> PushState:
        """Push to the certified bound ``tol``; adds each host's Σ|Δy| to ``drift``. A cold solve
        (y = 0) with its segments in page order (as built) sweeps on ``threads`` threads (``_blocks``)."""
        n = self.n
        lo, hi = self._segments()
        drift = np.zeros(len(lo))
        if threads > 1 and self._in_order() and not self.y[:n].any():
            rounds, bound, edges, pages = _blocks.block_solve(
                lo, hi, self.start[:n], self.count[:n], self.dst, self.weight, self.inv_out[:n], self.alpha,
                self.y[:n], self.res[:n], tol, max_rounds, drift, threads)
        else:
            rounds, bound, edges, pages = _push.push_solve(
                lo, hi, self.seg_of[:n], self.start[:n], self.count[:n], self.dst, self.weight, self.inv_out[:n],
                self.alpha, self.y[:n], self.res[:n], tol, max_rounds, np.zeros(len(lo), dtype=np.uint8), drift,
                _push.THETA_STEP, _push.OMEGA)
        touched = np.flatnonzero(drift)
        for s in touched.tolist():
            hid = self.segments[s][0]
            self.drift[hid] = self.drift.get(hid, 0.0) + float(drift[s])
        return PushState(int(rounds), float(bound), float(edges), float(pages), len(touched))
