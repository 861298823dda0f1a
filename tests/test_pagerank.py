"""The offline solver (bench.solver) against networkx: both back-ends, partitionings, warm starts, certified bounds."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from bench.solver.inlink_csr import build_links
from bench.solver.pagerank import solve as pagerank
from bench.solver.partitions import assign_partitions
from bench.synthetic_graph import graph_from_edges
from rankcrawl.ranker import _push
from rankcrawl.ranker.outlinks import OutLinks
from rankcrawl.ranker.store.hostgraph import HostGraph

ALPHA = 0.85


def host_graph(seed: int, n_hosts: int = 6, intra: float = 0.85, dangling: float = 0.15,
               self_links: bool = True, weighted: bool = True, multi: bool = True) -> HostGraph:
    """A random host-structured graph with dangling pages, self-links, weights and multi-edges."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 12, n_hosts)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    n = int(offsets[-1])
    host = np.repeat(np.arange(n_hosts), sizes)
    sources = np.flatnonzero(rng.random(n) >= dangling)
    degree = rng.integers(1, 6, len(sources))
    src = np.repeat(sources, degree)
    local = offsets[host[src]] + (rng.random(len(src)) * sizes[host[src]]).astype(np.int64)
    dst = np.where(rng.random(len(src)) < intra, local, rng.integers(0, n, len(src)))
    if not self_links:
        dst = np.where(dst == src, (dst + 1) % n, dst)
    if multi:
        pick = rng.integers(0, len(src), len(src) // 5)
        src, dst = np.concatenate([src, src[pick]]), np.concatenate([dst, dst[pick]])
    weight = rng.choice([0.25, 0.5, 1.0, 2.0, 3.0], len(src)) if weighted else None
    return graph_from_edges(sizes, src, dst, weight)


def reference(graph: HostGraph, v: np.ndarray | None = None) -> np.ndarray:
    """networkx PageRank of the same model (multi-edge weights summed, dangling pages follow v)."""
    g = nx.DiGraph()
    g.add_nodes_from(range(graph.n_pages))
    for s, t, w in zip(graph.src.tolist(), graph.dst.tolist(), graph.weight.tolist()):
        g.add_edge(s, t, weight=g[s][t]["weight"] + w if g.has_edge(s, t) else w)
    p = None if v is None else dict(enumerate(v.tolist()))
    ranks = nx.pagerank(g, alpha=ALPHA, personalization=p, dangling=p, tol=1e-13, max_iter=10_000)
    return np.array([ranks[i] for i in range(graph.n_pages)])


def l1(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).sum())


@pytest.mark.parametrize(
    "kind",
    ["default", "no_self_links", "unweighted", "no_multi_edges", "many_dangling", "disconnected_hosts"],
)
@pytest.mark.parametrize("seed", [1, 2])
def test_matches_networkx(kind: str, seed: int) -> None:
    opts = {
        "default": {},
        "no_self_links": {"self_links": False},
        "unweighted": {"weighted": False},
        "no_multi_edges": {"multi": False},
        "many_dangling": {"dangling": 0.5},
        "disconnected_hosts": {"intra": 1.0},
    }[kind]
    graph = host_graph(seed, **opts)
    result = pagerank(graph, tol=1e-12)
    assert result.converged
    assert result.r.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(result.r > 0)
    assert l1(result.r, reference(graph)) <= 1e-9


def test_biasing_set_matches_personalized_networkx() -> None:
    graph = host_graph(3)
    v = np.zeros(graph.n_pages)
    v[[0, 5, 9]] = 1.0  # the biasing set B, pi_B of Eq. 3.4
    result = pagerank(graph, v=v, tol=1e-12)
    assert l1(result.r, reference(graph, v / v.sum())) <= 1e-9


def test_default_tolerance_is_close_to_networkx() -> None:
    graph = host_graph(4, n_hosts=10)
    assert l1(pagerank(graph).r, reference(graph)) <= 1e-9


@pytest.mark.parametrize("seed", [5, 6])
def test_independent_of_partitions(seed: int) -> None:
    graph = host_graph(seed, n_hosts=12, intra=0.7)
    base = pagerank(graph, tol=1e-12, partitions=1)
    for p in (2, 3, 7):
        result = pagerank(graph, tol=1e-12, partitions=p)
        assert result.partitions == p
        assert result.inter_partition_votes <= result.inter_partition_links
        assert result.inter_partition_links > 0
        assert l1(result.r, base.r) <= 1e-10


def test_explicit_assignment_is_used() -> None:
    graph = host_graph(7, n_hosts=5)
    assignment = np.array([1, 0, 1, 0, 2], dtype=np.int32)
    result = pagerank(graph, partitions=assignment, tol=1e-12)
    assert result.partitions == 3
    assert np.array_equal(result.assignment, assignment)
    assert l1(result.r, pagerank(graph, tol=1e-12).r) <= 1e-10


def exact(graph: HostGraph, v: np.ndarray | None = None) -> np.ndarray:
    """The model solved directly: (I − alpha·Pᵀ) y = v, r = y/‖y‖₁ (dense, small graphs)."""
    n = graph.n_pages
    a = np.zeros((n, n))
    np.add.at(a, (graph.src, graph.dst), graph.weight.astype(float))
    out = a.sum(axis=1, keepdims=True)
    p = np.divide(a, out, out=np.zeros_like(a), where=out > 0)
    y = np.linalg.solve(np.eye(n) - ALPHA * p.T, np.full(n, 1.0 / n) if v is None else v)
    return y / y.sum()


def test_certified_bound_holds_for_both_back_ends() -> None:
    graph = host_graph(8, n_hosts=20)
    ref = exact(graph)
    assert l1(ref, reference(graph)) <= 1e-9
    for partitions in (1, 3):
        for tol in (1e-4, 1e-7, 1e-11):
            result = pagerank(graph, tol=tol, partitions=partitions)
            assert result.converged and result.error_bound <= tol
            assert l1(result.r, ref) <= result.error_bound + 1e-12


def test_warm_start_from_perturbed_vector_reaches_cold_vector() -> None:
    graph = host_graph(9, n_hosts=10)
    cold = pagerank(graph, tol=1e-12)
    noisy = cold.r * np.random.default_rng(0).uniform(0.5, 1.5, graph.n_pages)
    warm = pagerank(graph, tol=1e-12, x0=noisy)
    assert l1(warm.r, cold.r) <= 1e-10
    near = pagerank(graph, tol=1e-12, x0=cold.r)
    assert near.iterations < cold.iterations


def test_warm_start_after_new_hosts_needs_fewer_iterations() -> None:
    old = host_graph(10, n_hosts=30, intra=0.95)
    before = pagerank(old, tol=1e-10)
    rng = np.random.default_rng(1)
    new_sizes = np.array([4, 3])
    n_old, n_new = old.n_pages, int(new_sizes.sum())
    new_src = np.arange(n_old, n_old + n_new).repeat(2)
    new_dst = np.concatenate([rng.integers(n_old, n_old + n_new, n_new), rng.integers(0, n_old, n_new)])
    links_in = rng.integers(0, n_old, 3)
    grown = graph_from_edges(
        np.concatenate([np.diff(old.host_offsets), new_sizes]),
        np.concatenate([old.src, new_src, links_in]),
        np.concatenate([old.dst, new_dst, np.full(3, n_old)]),
        np.concatenate([old.weight, np.ones(len(new_src) + 3, dtype=np.float32)]),
    )
    x0 = np.concatenate([before.r, np.full(n_new, 1.0 / grown.n_pages)])  # new pages: teleport share
    cold, warm = pagerank(grown, tol=1e-12), pagerank(grown, tol=1e-12, x0=x0)
    assert l1(warm.r, cold.r) <= 1e-10
    # work, not rounds: a cold solve's rounds are whole Gauss–Seidel sweeps, a warm one's mostly partial
    assert warm.sweep_equivalents < cold.sweep_equivalents
    old_parts = pagerank(old, partitions=3).assignment
    kept = assign_partitions(np.diff(grown.host_offsets), 3, previous=old_parts)
    warm_parts = pagerank(grown, tol=1e-12, x0=x0, partitions=kept)
    assert np.array_equal(warm_parts.assignment[: old.n_hosts], old_parts)
    assert l1(warm_parts.r, cold.r) <= 1e-10


def test_edge_cases() -> None:
    empty = pagerank(graph_from_edges([], [], []))
    assert empty.r.shape == (0,) and empty.iterations == 0
    assert pagerank(graph_from_edges([0, 0], [], []), partitions=2).r.shape == (0,)
    assert pagerank(graph_from_edges([1, 1], [0, 1], [1, 0]), partitions=2).r == pytest.approx([0.5, 0.5])
    assert pagerank(graph_from_edges([1], [], [])).r.tolist() == [1.0]
    assert pagerank(graph_from_edges([1], [0], [0])).r.tolist() == pytest.approx([1.0])
    no_edges = pagerank(graph_from_edges([2, 0, 3], [], []), partitions=2)
    assert no_edges.r == pytest.approx(np.full(5, 0.2), abs=1e-15)
    v = np.array([0.0, 1.0, 0.0, 3.0, 0.0])
    assert pagerank(graph_from_edges([2, 3], [], []), v=v).r == pytest.approx(v / 4, abs=1e-15)


def test_bad_input_is_rejected() -> None:
    graph = graph_from_edges([2], [0], [1])
    for kwargs, message in [
        ({"alpha": 1.0}, "alpha"),
        ({"tol": 0}, "tol"),
        ({"max_iter": 0}, "max_iter"),
        ({"v": [1.0]}, "one entry per page"),
        ({"v": [1.0, -1.0]}, "non-negative"),
        ({"x0": [0.0, 0.0]}, "positive mass"),
        ({"x0": [np.nan, 1.0]}, "finite"),
        ({"partitions": 0}, "at least 1"),
        ({"partitions": np.array([0, 1])}, "every host"),
    ]:
        with pytest.raises(ValueError, match=message):
            pagerank(graph, **kwargs)


def test_max_iter_reports_not_converged() -> None:
    for partitions in (1, 2):
        result = pagerank(host_graph(11), max_iter=2, tol=1e-14, partitions=partitions)
        assert result.iterations <= 2 and not result.converged and result.error_bound > 1e-14
    assert result.r.sum() == pytest.approx(1.0)


def test_assign_partitions_round_robin_by_size() -> None:
    sizes = np.array([5, 50, 10, 40, 20, 30])
    part = assign_partitions(sizes, 2)
    assert part.tolist() == [1, 0, 0, 1, 1, 0]  # sorted 50,40,30,20,10,5 dealt 0,1,0,1,0,1
    assert np.bincount(part, weights=sizes).tolist() == [90.0, 65.0]
    assert assign_partitions(sizes, 1).tolist() == [0] * 6
    assert assign_partitions([], 3).shape == (0,)


def test_assign_partitions_keeps_existing_hosts() -> None:
    sizes = np.array([50, 40, 30, 20, 100, 1])
    previous = assign_partitions(sizes[:4], 2)  # loads: 0 -> 80, 1 -> 60
    part = assign_partitions(sizes, 2, previous=previous)
    assert np.array_equal(part[:4], previous)
    assert part[4] == 1  # the big new host to the lighter partition; then 0 is lighter
    assert part[5] == 0
    marked = assign_partitions(sizes, 2, previous=np.array([-1, 1, 0, 1, 0, 0]))
    assert marked[0] == 1 and marked[1:].tolist() == [1, 0, 1, 0, 0]
    with pytest.raises(ValueError):
        assign_partitions(sizes, 2, previous=np.array([0, 5]))
    with pytest.raises(ValueError):
        assign_partitions(sizes, 0)


def test_solver_structure_is_compact() -> None:
    rng = np.random.default_rng(12)
    sizes = rng.integers(50, 500, 40)
    n = int(sizes.sum())
    host = np.repeat(np.arange(len(sizes)), sizes)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    src = np.repeat(np.arange(n), 10)
    dst = np.where(rng.random(len(src)) < 0.94,
                   offsets[host[src]] + (rng.random(len(src)) * sizes[host[src]]).astype(np.int64),
                   rng.integers(0, n, len(src)))
    graph = graph_from_edges(sizes, src, dst)
    for p in (1, 4):
        links = build_links(graph, assign_partitions(sizes, p))
        assert links.n_links == len(src)
        assert links.src.dtype == np.int32 and links.weight.dtype == np.float32
        assert pagerank(graph, partitions=p).bytes_per_link <= 16


def grown_graph(old: HostGraph, seed: int = 1) -> HostGraph:
    """``old`` plus two new hosts linked both ways to the old ones."""
    rng = np.random.default_rng(seed)
    new_sizes = np.array([4, 3])
    n_old, n_new = old.n_pages, int(new_sizes.sum())
    new_src = np.arange(n_old, n_old + n_new).repeat(2)
    new_dst = np.concatenate([rng.integers(n_old, n_old + n_new, n_new), rng.integers(0, n_old, n_new)])
    links_in = rng.integers(0, n_old, 3)
    return graph_from_edges(
        np.concatenate([np.diff(old.host_offsets), new_sizes]),
        np.concatenate([old.src, new_src, links_in]),
        np.concatenate([old.dst, new_dst, np.full(3, n_old)]),
        np.concatenate([old.weight, np.ones(len(new_src) + 3, dtype=np.float32)]),
    )


def changed_pages(graph: HostGraph, pages: list[int]) -> HostGraph:
    """``graph`` with the out-links of ``pages`` pointed at page 0 of their own host."""
    host = graph.host_of_page
    moved = np.isin(graph.src, pages)
    dst = np.where(moved, graph.host_offsets[host[graph.src]], graph.dst)
    return HostGraph(graph.host_ids, graph.host_offsets, graph.src, dst, graph.weight)


def test_warm_start_after_changed_pages_and_biasing_set() -> None:
    graph = host_graph(13, n_hosts=30, intra=0.95)
    v = np.zeros(graph.n_pages)
    v[[0, 5, 9]] = 1.0
    x0 = pagerank(graph, tol=1e-12, v=v).r
    changed = changed_pages(graph, [3, 40])
    cold = pagerank(changed, tol=1e-12, v=v)
    warm = pagerank(changed, tol=1e-12, v=v, x0=x0 + 1e-300)
    assert warm.converged and l1(warm.r, cold.r) <= 2e-12
    assert l1(warm.r, exact(changed, v / v.sum())) <= warm.error_bound + 1e-12
    assert warm.sweep_equivalents < cold.sweep_equivalents


def test_excluded_pages_get_no_rank() -> None:
    graph = host_graph(17, n_hosts=5, self_links=False)
    excluded = np.zeros(graph.n_pages, dtype=bool)
    excluded[[1, 4]] = True
    keep = ~excluded[graph.src] & ~excluded[graph.dst]
    g = HostGraph(graph.host_ids, graph.host_offsets, graph.src[keep], graph.dst[keep], graph.weight[keep], excluded)
    result = pagerank(g, tol=1e-12)
    assert result.r[[1, 4]].tolist() == [0.0, 0.0] and result.r.sum() == pytest.approx(1.0, abs=1e-12)
    assert l1(result.r, reference_without(g, excluded)) <= 1e-9


def reference_without(graph: HostGraph, excluded: np.ndarray) -> np.ndarray:
    g = nx.DiGraph()
    g.add_nodes_from(np.flatnonzero(~excluded).tolist())
    for s, t, w in zip(graph.src.tolist(), graph.dst.tolist(), graph.weight.tolist()):
        g.add_edge(s, t, weight=g[s][t]["weight"] + w if g.has_edge(s, t) else w)
    ranks = nx.pagerank(g, alpha=ALPHA, tol=1e-13, max_iter=10_000)
    out = np.zeros(graph.n_pages)
    for k, x in ranks.items():
        out[k] = x
    return out


@pytest.mark.parametrize("omega", [1.0, 1.1, 1.9])
def test_cold_sweeps_over_relaxed_keep_the_residual_exact_and_drop_an_omega_that_stalls(omega: float) -> None:
    graph = host_graph(3, n_hosts=40)
    links = OutLinks.from_graph(graph)
    n = graph.n_pages
    v = np.full(n, 1.0 / n)
    y, res = np.zeros(n), v.copy()
    active, drift = np.zeros(len(links.seg_lo), np.uint8), np.zeros(len(links.seg_lo))
    _, bound, _, _ = _push.push_solve(links.seg_lo, links.seg_hi, links.seg_of, links.start, links.count, links.dst,
                                      links.weight, links.inv_out, ALPHA, y, res, 1e-12, 10_000, active, drift,
                                      _push.THETA_STEP, omega)
    assert bound <= 1e-12  # omega = 1.9 diverges unless the solve drops it
    exact = np.empty(n)
    links.residual(v, ALPHA, y, exact)
    assert np.abs(exact - res).max() <= 1e-15
    assert l1(y / y.sum(), reference(graph)) <= 1e-9
