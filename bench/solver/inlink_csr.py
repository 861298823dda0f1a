"""The solver's compact link structure: in-link CSR per partition plus aggregated votes.

Pages are relabelled so every partition is one contiguous range (hosts keep their order
inside it). Intra-partition links form an in-link CSR (int32 source, float32 weight: 8 bytes
per link); inter-partition links are grouped by (source partition, target page), so each
partition sends one value per target page — Kohlschütter §3.2.2, Eq. 3.11.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from rankcrawl.ranker.outlinks import scatter_by_key
from rankcrawl.ranker.store.hostgraph import HostGraph

INDEX_LIMIT = np.iinfo(np.int32).max


@dataclass(frozen=True)
class PartitionedLinks:
    """In-link structure in solver order (``order[i]`` = original index of solver page i)."""

    order: np.ndarray | None  # int64[n] or None when solver order is the graph's order
    part_ptr: np.ndarray  # int64[P+1] page range of each partition
    indptr: np.ndarray  # int64[n+1] intra-partition in-links of each target page
    src: np.ndarray  # int32[E_intra] source page
    weight: np.ndarray  # float32[E_intra] link weight
    vote_ptr: np.ndarray  # int64[V+1] links that make up each aggregated vote
    vote_part_ptr: np.ndarray  # int64[P+1] votes sent by each partition (votes grouped by sender)
    vote_src: np.ndarray  # int32[E_inter]
    vote_weight: np.ndarray  # float32[E_inter]
    vote_target: np.ndarray  # int32[V] target page of each vote
    inv_out: np.ndarray  # float64[n] 1 / out-weight, 0 for dangling pages

    @property
    def n_pages(self) -> int:
        return len(self.inv_out)

    @property
    def n_partitions(self) -> int:
        return len(self.part_ptr) - 1

    @property
    def n_votes(self) -> int:
        return len(self.vote_target)

    @property
    def n_inter_links(self) -> int:
        return len(self.vote_src)

    @property
    def n_links(self) -> int:
        return len(self.src) + len(self.vote_src)

    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays of this structure."""
        return sum(a.nbytes for a in (getattr(self, f.name) for f in fields(self)) if isinstance(a, np.ndarray))

    def to_solver(self, x: np.ndarray) -> np.ndarray:
        """A page vector in graph order, reordered into solver order."""
        return x if self.order is None else x[self.order]

    def to_graph(self, x: np.ndarray) -> np.ndarray:
        """A page vector in solver order, reordered back into graph order."""
        if self.order is None:
            return x
        out = np.empty_like(x)
        out[self.order] = x
        return out


def _in_link_csr(target: np.ndarray, source: np.ndarray, weight: np.ndarray,
                 n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(indptr, src int32, weight float32) of the in-link CSR for edges source → target."""
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(target, minlength=n), out=indptr[1:])
    src, w = np.empty(len(target), dtype=np.int32), np.empty(len(target), dtype=np.float32)
    scatter_by_key(target, source, weight, indptr, src, w)
    return indptr, src, w


def build_links(graph: HostGraph, host_partition: np.ndarray) -> PartitionedLinks:
    """The solver structure of ``graph`` with host k in partition ``host_partition[k]``."""
    n = graph.n_pages
    if n > INDEX_LIMIT:
        raise ValueError(f"the solver handles at most {INDEX_LIMIT} pages")
    weight = np.asarray(graph.weight, dtype=np.float32)
    out_weight = np.bincount(graph.src, weights=weight, minlength=n)
    inv_out = np.divide(1.0, out_weight, out=np.zeros(n), where=out_weight > 0)
    n_parts = int(host_partition.max()) + 1 if len(host_partition) else 1
    empty_votes: dict[str, np.ndarray] = dict(
        vote_ptr=np.zeros(1, dtype=np.int64),
        vote_part_ptr=np.zeros(2, dtype=np.int64),
        vote_src=np.empty(0, dtype=np.int32),
        vote_weight=np.empty(0, dtype=np.float32),
        vote_target=np.empty(0, dtype=np.int32),
    )
    if n_parts == 1:
        indptr, src, w = _in_link_csr(graph.dst, graph.src, weight, n)
        part_ptr = np.array([0, n], dtype=np.int64)
        return PartitionedLinks(None, part_ptr, indptr, src, w, inv_out=inv_out, **empty_votes)

    page_part = np.repeat(host_partition.astype(np.int32), np.diff(graph.host_offsets))
    order = np.argsort(page_part, kind="stable")
    label = np.empty(n, dtype=np.int32)
    label[order] = np.arange(n, dtype=np.int32)
    part_ptr = np.zeros(n_parts + 1, dtype=np.int64)
    np.cumsum(np.bincount(page_part, minlength=n_parts), out=part_ptr[1:])

    src_part = page_part[graph.src]
    inter = src_part != page_part[graph.dst]
    s, t = label[graph.src], label[graph.dst]
    indptr, src, w = _in_link_csr(t[~inter], s[~inter], weight[~inter], n)

    key = src_part[inter].astype(np.int64) * n + t[inter]
    by_vote = np.argsort(key, kind="stable")
    key = key[by_vote]
    starts = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]])) if len(key) else np.empty(0, np.int64)
    vote_ptr = np.append(starts, len(key)).astype(np.int64)
    vote_part_ptr = np.zeros(n_parts + 1, dtype=np.int64)
    np.cumsum(np.bincount(key[starts] // n, minlength=n_parts), out=vote_part_ptr[1:])
    return PartitionedLinks(
        order=order.astype(np.int64),
        part_ptr=part_ptr,
        indptr=indptr,
        src=src,
        weight=w,
        vote_ptr=vote_ptr,
        vote_part_ptr=vote_part_ptr,
        vote_src=s[inter][by_vote],
        vote_weight=weight[inter][by_vote],
        vote_target=(key[starts] % n).astype(np.int32),
        inv_out=inv_out[order],
    )
