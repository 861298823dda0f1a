"""Pure figures of bench/realcrawl.py: edge P/R/F1, leaked template edges, PageRank agreement."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import networkx as nx
from scipy.stats import kendalltau

Edges = Mapping[str, set[str]]


@dataclass
class EdgeCounts:
    """Stored vs gold edges summed over source pages."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    def add(self, stored: set[str], gold: set[str]) -> None:
        self.tp += len(stored & gold)
        self.fp += len(stored - gold)
        self.fn += len(gold - stored)

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        return 2 * self.tp / (2 * self.tp + self.fp + self.fn) if self.tp + self.fp + self.fn else 0.0


def edge_counts(stored: Edges, gold: Edges, sources: Iterable[str]) -> EdgeCounts:
    """P/R counts of ``stored`` against ``gold`` over ``sources`` (a source absent = no edges)."""
    counts = EdgeCounts()
    for s in sources:
        counts.add(stored.get(s, set()), gold.get(s, set()))
    return counts


def leaked_template(stored: Edges, outside: Mapping[str, set[str]], content: Mapping[str, set[str]],
                    template: Mapping[str, set[str]], host: Mapping[str, str]) -> int:
    """Stored edges (s, d) whose link d is a template link of s's host, outside s's content region only."""
    n = 0
    for s, targets in stored.items():
        if s not in outside:
            continue
        t = template.get(host[s], set())
        n += sum(1 for d in targets if d in t and d in outside[s] and d not in content[s])
    return n


def pagerank(nodes: Iterable[str], edges: Edges, alpha: float = 0.85, frontier: Edges | None = None) -> dict[str, float]:
    """PageRank on ``nodes`` (edges leaving the node set dropped): uniform teleport, dangling -> uniform.

    ``frontier``: further links of the nodes to pages outside them (never fetched: no out-links of
    their own), which join the graph as dangling pages, as in a crawler's graph; their ranks are
    returned too (``restrict`` leaves them out)."""
    graph = nx.DiGraph()
    graph.add_nodes_from(nodes)
    inside = set(graph)
    graph.add_edges_from((s, d) for s, ds in edges.items() if s in inside for d in ds if d in inside and d != s)
    graph.add_edges_from((s, d) for s, ds in (frontier or {}).items() if s in inside for d in ds if d not in inside)
    return nx.pagerank(graph, alpha=alpha, tol=1e-12, max_iter=1000)


def restrict(ranks: Mapping[str, float], nodes: Iterable[str]) -> dict[str, float]:
    """``ranks`` on ``nodes`` (missing = 0), renormalised to sum 1 (all 0 when no mass)."""
    values = {u: ranks.get(u, 0.0) for u in nodes}
    total = sum(values.values())
    return {u: v / total for u, v in values.items()} if total > 0 else values


def l1(p: Mapping[str, float], q: Mapping[str, float]) -> float:
    """L1 distance of two distributions over the keys of ``p``."""
    return sum(abs(v - q.get(u, 0.0)) for u, v in p.items())


def kendall_top(gold: Mapping[str, float], other: Mapping[str, float], k: int = 100) -> float:
    """Kendall tau-b of ``other`` against ``gold`` on gold's top ``k`` pages (missing = 0)."""
    top = sorted(gold, key=lambda u: (-gold[u], u))[:k]
    if len(top) < 2:
        return float("nan")
    tau = kendalltau([gold[u] for u in top], [other.get(u, 0.0) for u in top]).statistic
    return float(tau)
