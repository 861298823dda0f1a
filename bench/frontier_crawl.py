"""Crawl order of real crawls: ``rankcrawl crawl`` on the real sites with a page budget, per frontier.

The sites of bench/realsites.py are served through bench/realcrawl.py's proxy; each run is one
``rankcrawl crawl`` of every site's start page with ``RANKCRAWL_MAX_PAGES`` = the largest fraction's
share of the reachable pages, a fresh Valkey, and ``-s RANKCRAWL_FRONTIER=<name>``. The order is
what the server served (the first 200 answer of each page), so it is the crawl's real order with
its concurrency; importance = PageRank of the gold content graph (as bench/frontier_sim.real_web).
"FIFO frontier" is the ``static`` frontier with ranks never read (RANKCRAWL_RANK_REFRESH=1e6).
With ``--processes 2`` each run is ``RANKCRAWL_DISTRIBUTED`` with two crawl processes sharing one
Redis frontier (the budget split between them). Plain Scrapy (bench/plainspider.py, its LIFO
default) runs too, for the order and for pages/s.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.frontier_sim import SimWeb, mass_curve, oracle
from bench.realrun import RANKCRAWL, ROOT, CrawlRun, fresh_valkey, run_crawl
from bench.realserver import ProxyServer
from bench.realsites import Web

FAST = {"DOWNLOAD_DELAY": "0", "AUTOTHROTTLE_ENABLED": "False", "CONCURRENT_REQUESTS_PER_DOMAIN": "8",
        "RANKCRAWL_SSRF_FAIL_OPEN": "True", "LOG_LEVEL": "INFO"}
RUNS = {
    "pagerank": {"RANKCRAWL_FRONTIER": "pagerank", "RANKCRAWL_RANK_REFRESH": "0.5"},
    "opic": {"RANKCRAWL_FRONTIER": "opic"},
    "inlinks": {"RANKCRAWL_FRONTIER": "inlinks"},
    "breadth-first": {"RANKCRAWL_FRONTIER": "breadth-first"},
    "static": {"RANKCRAWL_FRONTIER": "static", "RANKCRAWL_RANK_REFRESH": "0.5"},
    "FIFO frontier (static, ranks never read)": {"RANKCRAWL_FRONTIER": "static", "RANKCRAWL_RANK_REFRESH": "1000000"},
}


def served_order(run: CrawlRun, web: Web, index: dict[str, int]) -> list[int]:
    """Pages in the order the server first answered them with 200."""
    order, seen = [], set()
    for _t, url, status in run.log:
        if status == 200 and url in index and url not in seen and web.is_page(url):
            seen.add(url)
            order.append(index[url])
    return order


def crawl_orders(web: Web, sim: SimWeb, urls: list[str], seeds: list[str], budget: int, names: list[str],
                 processes: int, plain: bool, timeout: float) -> dict[str, tuple[list[int], CrawlRun]]:
    """One crawl per frontier (and plain Scrapy): served order and the run."""
    index = {u: i for i, u in enumerate(urls)}
    out: dict[str, tuple[list[int], CrawlRun]] = {}
    work = Path(tempfile.mkdtemp(prefix="rankcrawl-frontier-"))
    with ProxyServer(web) as proxy:
        if plain:
            cmd = [sys.executable, str(ROOT / "bench" / "plainspider.py"), *seeds,
                   *sum((["-s", f"{k}={v}"] for k, v in FAST.items() if not k.startswith("RANKCRAWL_")), [])]
            run = run_crawl("plain Scrapy", cmd, proxy, timeout, work / "plain.log")
            out["plain Scrapy (LIFO)"] = (served_order(run, web, index), run)
        for name in names:
            server, redis_url = fresh_valkey(work / f"valkey-{len(out)}", persist=False)
            try:
                settings = {**FAST, **RUNS[name], "RANKCRAWL_MAX_PAGES": str(budget // processes)}
                if processes > 1:
                    settings["RANKCRAWL_DISTRIBUTED"] = "True"
                cmd = [*RANKCRAWL, "crawl", *seeds, "--redis-url", redis_url,
                       *sum((["-s", f"{k}={v}"] for k, v in settings.items()), [])]
                if processes == 1:
                    run = run_crawl(name, cmd, proxy, timeout, work / f"{len(out)}.log")
                else:
                    run = parallel_runs(name, cmd, processes, proxy, timeout, work / f"{len(out)}")
                out[name] = (served_order(run, web, index), run)
                print(f"{name}: {len(out[name][0])} pages in {run.wall:.0f} s", flush=True)
            finally:
                server.stop()
    return out


def parallel_runs(name: str, cmd: list[str], processes: int, proxy: ProxyServer, timeout: float, log: Path) -> CrawlRun:
    """``processes`` copies of ``cmd`` at once, each through the proxy; their served requests as one run."""
    import os

    env = {**os.environ, "http_proxy": proxy.url, "https_proxy": proxy.url,
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)}
    start, t0 = len(proxy.log), time.monotonic()
    procs = [subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open(f"{log}-{i}.log", "w"), env=env, cwd=ROOT)
             for i in range(processes)]
    for p in procs:
        p.wait(timeout=timeout)
    bad = [p.returncode for p in procs if p.returncode]
    if bad:
        raise SystemExit(f"{name}: a crawl process failed (exit {bad[0]}); logs: {log}-*.log")
    return CrawlRun(name, time.monotonic() - t0, proxy.log[start:])


def main(argv: list[str] | None = None) -> None:
    from bench.frontier_sim import real_web
    from bench.realsites import HELD_OUT_SITES, SITES

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sites", choices=("main", "held-out"), default="main")
    ap.add_argument("--fractions", default="0.05,0.15,0.30")
    ap.add_argument("--frontiers", default=",".join(RUNS))
    ap.add_argument("--processes", type=int, default=1)
    ap.add_argument("--no-plain", action="store_true")
    ap.add_argument("--timeout", type=float, default=900.0)
    args = ap.parse_args(argv)
    sites = list(SITES if args.sites == "main" else HELD_OUT_SITES)
    sim, urls = real_web(sites, with_urls=True)
    web = Web(sites)
    fractions = [float(f) for f in args.fractions.split(",")]
    ks = [max(1, round(f * sim.n)) for f in fractions]
    orders = crawl_orders(web, sim, urls, [s.seed for s in sites], max(ks), args.frontiers.split(","), args.processes,
                          not args.no_plain, args.timeout)
    best = mass_curve(sim, oracle(sim, max(ks)), ks)
    print("frontier\t" + "\t".join(f"{f:.0%}" for f in fractions) + "\tpages/s")
    print("oracle\t" + "\t".join(f"{m:.3f}" for m in best))
    for name, (order, run) in orders.items():
        print(name + "\t" + "\t".join(f"{m:.3f}" for m in mass_curve(sim, order, ks)) + f"\t{run.pages_per_second(web):.1f}")


if __name__ == "__main__":
    main()
