"""Crawl order of real crawls: ``rankcrawl crawl`` on the real sites with a page budget, per frontier.

The sites of bench/realsites.py are served through bench/realcrawl.py's proxy; each run is one
``rankcrawl crawl`` of every site's start page with ``RANKCRAWL_MAX_PAGES`` = the largest fraction's
share of the reachable pages, a fresh Valkey, and ``-s RANKCRAWL_FRONTIER=<name>``. The order is
what the server served (the first 200 answer of each page), so it is the crawl's real order with
its concurrency; importance = PageRank of the gold content graph (as bench/frontier_sim.real_web).
``fifo`` is the ``static`` frontier with ranks never read (RANKCRAWL_RANK_REFRESH=1e6): the FIFO frontier.
With ``--processes 2`` each run is ``RANKCRAWL_DISTRIBUTED`` with two crawl processes sharing one
Redis frontier (the budget split between them). Plain Scrapy (bench/plainspider.py, its LIFO
default) runs too, for the order and for pages/s.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.frontier_sim import SimWeb, mass_curve, oracle
from bench.realrun import RANKCRAWL, ROOT, CrawlRun, fresh_valkey, run_crawl
from bench.realserver import ProxyServer
from bench.realsites import Web
from bench.report import markdown_table, write_section

FAST = {"DOWNLOAD_DELAY": "0", "AUTOTHROTTLE_ENABLED": "False", "CONCURRENT_REQUESTS_PER_DOMAIN": "8",
        "RANKCRAWL_SSRF_FAIL_OPEN": "True", "LOG_LEVEL": "INFO"}
RUNS = {
    "pagerank": {"RANKCRAWL_FRONTIER": "pagerank", "RANKCRAWL_RANK_REFRESH": "0.5"},
    "opic": {"RANKCRAWL_FRONTIER": "opic"},
    "inlinks": {"RANKCRAWL_FRONTIER": "inlinks"},
    "breadth-first": {"RANKCRAWL_FRONTIER": "breadth-first"},
    "static": {"RANKCRAWL_FRONTIER": "static", "RANKCRAWL_RANK_REFRESH": "0.5"},
    "fifo": {"RANKCRAWL_FRONTIER": "static", "RANKCRAWL_RANK_REFRESH": "1000000"},
}
FIFO = "fifo"
"""The FIFO frontier of the issue's yardstick: the static priorities with ranks never read."""
LABELS = {"pagerank": "pagerank (default)", FIFO: "FIFO (static, ranks never read)"}


def served_order(run: CrawlRun, web: Web, index: dict[str, int]) -> list[int]:
    """Pages in the order the server first answered them with 200."""
    order, seen = [], set()
    for _t, url, status in run.log:
        if status == 200 and url in index and url not in seen and web.is_page(url):
            seen.add(url)
            order.append(index[url])
    return order


def page_kb(run: CrawlRun, web: Web) -> float:
    """Mean size in KB of the distinct pages the server answered with 200."""
    pages = run.fetched_pages(web)
    return sum(len(web.answer(u).body()) for u in pages) / max(len(pages), 1) / 1024


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
                print(f"{name}: {len(out[name][0])} pages in {run.wall:.0f} s; mass at 5/15/30 %: "
                      + " ".join(f"{m:.3f}" for m in mass_curve(sim, out[name][0], [round(f * sim.n) for f in (0.05, 0.15, 0.3)])),
                      flush=True)
            finally:
                server.stop()
    return out


def parallel_runs(name: str, cmd: list[str], processes: int, proxy: ProxyServer, timeout: float, log: Path) -> CrawlRun:
    """``processes`` copies of ``cmd`` at once, each through the proxy; their served requests as one run."""
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
    ap.add_argument("--pages", default="100,250,500,1000", help="also the mass after these many pages (issue table)")
    ap.add_argument("--frontiers", default=",".join(RUNS))
    ap.add_argument("--processes", type=int, default=1)
    ap.add_argument("--no-plain", action="store_true")
    ap.add_argument("--timeout", type=float, default=900.0)
    ap.add_argument("--repeat", type=int, default=1, help="crawls per frontier (interleaved); figures are medians")
    args = ap.parse_args(argv)
    sites = list(SITES if args.sites == "main" else HELD_OUT_SITES)
    sim, urls = real_web(sites, with_urls=True)
    web = Web(sites)
    fractions = [float(f) for f in args.fractions.split(",")]
    ks = [max(1, round(f * sim.n)) for f in fractions]
    counts = [int(k) for k in args.pages.split(",") if k.strip()]
    budget = max(ks + counts)
    runs = [crawl_orders(web, sim, urls, [s.seed for s in sites], budget, args.frontiers.split(","), args.processes,
                         not args.no_plain, args.timeout) for _ in range(args.repeat)]
    names = list(runs[0])
    best = mass_curve(sim, oracle(sim, max(ks)), ks)
    fifo_name = FIFO
    mid = fractions.index(0.15) if 0.15 in fractions else len(fractions) // 2
    plain = "plain Scrapy (LIFO)"
    curve = {name: [mass_curve(sim, run[name][0], ks) for run in runs] for name in names}
    rate = {name: [run[name][1].pages_per_second(web) for run in runs] for name in names}
    vs_fifo = {name: [c[mid] / f[mid] for c, f in zip(curve[name], curve[fifo_name])] if fifo_name in curve else []
               for name in names}
    vs_plain = {name: [r / p for r, p in zip(rate[name], rate[plain])] if plain in rate else [] for name in names}
    kb = {name: [page_kb(run[name][1], web) for run in runs] for name in names}
    kb_vs_plain = {name: [r * k / (p * q) for r, k, p, q in zip(rate[name], kb[name], rate[plain], kb[plain])]
                   if plain in rate else [] for name in names}
    cpu_ms = {name: [1000 * run[name][1].cpu / max(len(run[name][1].fetched_pages(web)), 1) for run in runs]
              for name in names}

    def med(xs: list[float]) -> float | str:
        return float(np.median(xs)) if xs else ""

    def spread(xs: list[float]) -> str:
        return f"{min(xs):.3f}–{max(xs):.3f}" if len(xs) > 1 else ""

    rows = [["oracle (pages by importance)", *best, 1.0, med([best[mid] / f[mid] for f in curve[fifo_name]])
             if fifo_name in curve else "", "", "", "", "", "", "", ""]]
    for name in names:
        mass = [float(np.median([c[i] for c in curve[name]])) for i in range(len(ks))]
        rows.append([LABELS.get(name, name), *mass, mass[mid] / best[mid], med(vs_fifo[name]), spread(vs_fifo[name]),
                     med(rate[name]), med(vs_plain[name]), spread(vs_plain[name]), med(kb[name]),
                     med(kb_vs_plain[name]), med(cpu_ms[name])])
    headers = ["frontier", *(f"mass @ {f:.0%}" for f in fractions), f"÷ oracle @ {fractions[mid]:.0%}",
               f"÷ FIFO @ {fractions[mid]:.0%}", "÷ FIFO, range over runs", "pages/s", "÷ plain Scrapy pages/s",
               "÷ plain, range over runs", "KB per page", "KB/s ÷ plain Scrapy", "CPU ms per page"]
    table = markdown_table(headers, rows)
    by_count = markdown_table(["first pages fetched", "oracle", *(LABELS.get(n, n) for n in names)],
                              [[k, mass_curve(sim, oracle(sim, k), [k])[0],
                                *(float(np.median([mass_curve(sim, run[n][0], [k])[0] for run in runs])) for n in names)]
                               for k in counts])
    print(table)
    print(by_count)
    command = "python -m bench.frontier_crawl " + " ".join(argv if argv is not None else sys.argv[1:])
    section = "frontier-crawl" + ("" if args.processes == 1 else f"-{args.processes}p") + ("" if args.sites == "main" else "-heldout")
    write_section(section, (
        f"Real crawls of the {args.sites} real sites ({sim.n} reachable pages), page budget {budget}, "
        f"{args.repeat} crawl(s) per frontier, interleaved (figures: medians over the crawls), "
        f"{args.processes} crawl process(es){' sharing one Redis frontier' if args.processes > 1 else ''}. "
        "mass @ k = share of the gold content graph's PageRank held by the first k pages the server served; "
        "pages/s counted at the server (plain Scrapy crawls every page, rankcrawl stops at the budget); "
        "KB per page = mean size of the pages served, KB/s = pages/s × KB per page; CPU ms per page = CPU of the "
        "crawl and every process it started (analysis workers) over the pages served. "
        f"Measured {time.strftime('%Y-%m-%d')} on {os.cpu_count()} cores. Command: `{command}`.\n\n" + table
        + "\n\nThe same crawls after a fixed number of pages:\n\n" + by_count))


if __name__ == "__main__":
    main()
