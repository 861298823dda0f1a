"""Out-link CSR in host order, the structure the push back-end and the live ranker work on.

Page u's out-links are ``dst[start[u] : start[u] + count[u]]`` with ``weight`` alongside
(int32 target, float32 weight: 8 bytes per link). Pages form segments — contiguous page ranges
of one host each (``seg_lo``/``seg_hi``, ``seg_of`` per page) — the partitions the push solver
activates and sweeps.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np
from numba import njit

from rankcrawl.ranker import _csr, _push
from rankcrawl.ranker.store.hostedges import Packed
from rankcrawl.ranker.store.hostgraph import HostGraph

INDEX_LIMIT = np.iinfo(np.int32).max


@njit(cache=True)
def scatter_by_key(key, value, weight, indptr, out_value, out_weight):  # pragma: no cover - compiled
    """Counting-sort scatter: each link's (value, weight) into its key's slot of a CSR, in input order
    (key = target for an in-link CSR, source for an out-link CSR)."""
    fill = indptr[:-1].copy()
    for k in range(key.shape[0]):
        j = fill[key[k]]
        out_value[j] = value[k]
        out_weight[j] = weight[k]
        fill[key[k]] = j + 1


@dataclass(frozen=True)
class PushState:
    rounds: int
    bound: float
    edges: float
    pages: float
    segments_swept: int


@dataclass
class OutLinks:
    start: np.ndarray  # int64[n]
    count: np.ndarray  # int32[n]
    dst: np.ndarray  # int32[capacity]
    weight: np.ndarray  # float32[capacity]
    inv_out: np.ndarray  # float64[n] 1 / out-weight, 0 for dangling pages
    seg_lo: np.ndarray  # int64[S]
    seg_hi: np.ndarray  # int64[S]
    seg_of: np.ndarray  # int32[n]

    @property
    def n_pages(self) -> int:
        return len(self.inv_out)

    @property
    def n_links(self) -> int:
        return int(self.count.sum())

    @property
    def nbytes(self) -> int:
        return sum(getattr(self, f.name).nbytes for f in fields(self))

    @classmethod
    def from_graph(cls, graph: HostGraph) -> OutLinks:
        n = graph.n_pages
        if n > INDEX_LIMIT:
            raise ValueError(f"the solver handles at most {INDEX_LIMIT} pages")
        weight = np.asarray(graph.weight, dtype=np.float32)
        counts = np.bincount(graph.src, minlength=n)
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        dst = np.empty(len(graph.src), dtype=np.int32)
        w = np.empty(len(graph.src), dtype=np.float32)
        scatter_by_key(np.asarray(graph.src), np.asarray(graph.dst), weight, indptr, dst, w)
        out_weight = np.bincount(graph.src, weights=weight, minlength=n)
        inv_out = np.divide(1.0, out_weight, out=np.zeros(n), where=out_weight > 0)
        offsets = np.asarray(graph.host_offsets, dtype=np.int64)
        return cls(indptr[:-1].copy(), counts.astype(np.int32), dst, w, inv_out, offsets[:-1].copy(),
                   offsets[1:].copy(), graph.host_of_page.astype(np.int32))

    @classmethod
    def from_packed(cls, p: Packed, pos: np.ndarray, offsets: np.ndarray) -> OutLinks:
        """``from_graph`` of ``assemble_packed(p)`` when no page is gone or redirects (hosts placed by
        ``layout``: HostID positions ``pos``, ``offsets``), built in two compiled passes."""
        n = int(offsets[-1])
        if n > INDEX_LIMIT:
            raise ValueError(f"the solver handles at most {INDEX_LIMIT} pages")
        dst_base = np.where(pos >= 0, offsets[np.maximum(pos, 0)], 0)
        edge_ptr = np.concatenate([[0], np.cumsum(p.n_edges)]).astype(np.int64)
        start, count, dst, w, inv_out = _csr.packed_csr(n, offsets[pos[p.host_ids]], edge_ptr, p.src_local, dst_base,
                                                        p.dst_host, p.dst_local, p.weight)
        sizes = np.diff(offsets)
        return cls(start, count, dst, w, inv_out, offsets[:-1].copy(), offsets[1:].copy(),
                   np.repeat(np.arange(len(sizes), dtype=np.int32), sizes))

    def residual(self, v: np.ndarray, alpha: float, y: np.ndarray, res: np.ndarray) -> None:
        """res = v + alpha·Pᵀy − y (exact, one pass)."""
        _push.residual(self.start, self.count, self.dst, self.weight, self.inv_out, v, alpha, y, res)

    def push(self, alpha: float, y: np.ndarray, res: np.ndarray, tol: float, max_rounds: int) -> PushState:
        """Push residuals until the certified bound ≤ tol (see ``_push``), in place on y and res."""
        active = np.zeros(len(self.seg_lo), dtype=np.uint8)
        drift = np.zeros(len(self.seg_lo))
        rounds, bound, edges, pages = _push.push_solve(
            self.seg_lo, self.seg_hi, self.seg_of, self.start, self.count, self.dst, self.weight, self.inv_out,
            alpha, y, res, tol, max_rounds, active, drift, _push.THETA_STEP,
            _push.OMEGA)
        return PushState(int(rounds), float(bound), float(edges), float(pages), int((drift > 0).sum()))
