"""Topical real crawls: harvest rate of ``rankcrawl crawl`` with ``RANKCRAWL_TOPIC_TERMS``, per frontier.

On topic is a property of the page, not of the crawl: a page is on topic when the words of its
content region (bench/realgold.py's region of the site's CSS selectors, its ``not_content`` parts
removed; lower-cased ``\\w+`` words, the crawler's own ``topical`` rule) include every topic term.
Harvest rate after k pages = share of the first k pages the server served (first 200 answer of each
page, as bench/frontier_crawl.py) that are on topic; the base rate is the share of all reachable
pages on topic, what an order blind to the topic harvests on average. Each run is one
``rankcrawl crawl`` of every site's start page with a fresh Valkey and a page budget of the largest
fraction; the topic terms are given to every run but the one named "no topic terms" (breadth-first
ignores them by design: it is the yardstick).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import lxml.html

from bench.frontier_crawl import FAST, RUNS, served_order
from bench.realgold import content_regions
from bench.realrun import RANKCRAWL, fresh_valkey, run_crawl
from bench.realserver import ProxyServer
from bench.realsites import Site, Web
from bench.report import markdown_table, write_section
from rankcrawl.crawler.priority import topical

DEFAULT_TERMS = "database,sql"


def content_text(body: bytes, site: Site) -> str:
    """The text of the page's content region without its ``not_content`` parts ('' if it has none)."""
    try:
        doc = lxml.html.fromstring(body)
    except (lxml.etree.ParserError, ValueError):
        return ""
    regions, excluded = content_regions(doc, site)
    for e in excluded:
        e.drop_tree()
    return " ".join(r.text_content() for r in regions)


def on_topic(web: Web, urls: list[str], terms: frozenset[str]) -> list[bool]:
    """Per page of ``urls``: its content region holds every topic term."""
    site_of = {s.base: s for s in web.sites}
    out = []
    for url in urls:
        site = next(s for base, s in site_of.items() if url.startswith(base))
        out.append(topical(content_text(web.entries[url].body(), site), terms) == 1.0)
    return out


def runs(terms: str, names: list[str]) -> dict[str, dict[str, str]]:
    """Label -> the settings of one crawl."""
    out = {}
    for name in names:
        if name == "pagerank-bias":
            out["pagerank + topic + bias to seeds"] = {**RUNS["pagerank"], "RANKCRAWL_TOPIC_TERMS": terms,
                                                       "RANKCRAWL_BIAS_TO_SEEDS": "True"}
        elif name == "pagerank-plain":
            out["pagerank, no topic terms"] = dict(RUNS["pagerank"])
        else:
            out[f"{name} + topic"] = {**RUNS[name], "RANKCRAWL_TOPIC_TERMS": terms}
    return out


def harvest(order: list[int], topic: list[bool], k: int) -> float:
    """Share of the first ``k`` pages of ``order`` that are on topic (of those served, if fewer)."""
    first = order[:k]
    return sum(topic[i] for i in first) / len(first) if first else float("nan")


def main(argv: list[str] | None = None) -> None:
    from bench.frontier_sim import real_web
    from bench.realsites import HELD_OUT_SITES, SITES

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--topic", default=DEFAULT_TERMS, help="comma-separated topic terms")
    ap.add_argument("--sites", choices=("main", "held-out"), default="main")
    ap.add_argument("--fractions", default="0.05,0.15,0.30")
    ap.add_argument("--frontiers", default="pagerank,opic,breadth-first,pagerank-bias,pagerank-plain",
                    help=f"of {', '.join(RUNS)}, pagerank-bias (seed-biased ranks), pagerank-plain (no topic terms)")
    ap.add_argument("--timeout", type=float, default=900.0)
    args = ap.parse_args(argv)
    terms = frozenset(t.strip().lower() for t in args.topic.split(",") if t.strip())
    names = [n for n in args.frontiers.split(",") if n]
    unknown = [n for n in names if n not in RUNS and n not in ("pagerank-bias", "pagerank-plain")]
    if not terms or unknown:
        raise SystemExit(f"unknown frontier {unknown[0]!r}" if unknown else "--topic needs at least one term")
    sites = list(SITES if args.sites == "main" else HELD_OUT_SITES)
    sim, urls = real_web(sites, with_urls=True)
    web = Web(sites)
    topic = on_topic(web, urls, terms)
    base = sum(topic) / len(topic)
    print(f"{sum(topic)} of {len(topic)} pages on topic ({base:.3f})", flush=True)
    fractions = [float(f) for f in args.fractions.split(",")]
    ks = [max(1, round(f * sim.n)) for f in fractions]
    budget = max(ks)
    index = {u: i for i, u in enumerate(urls)}
    seeds = [s.seed for s in sites]
    rows: list[list[object]] = [["base rate (all pages)", *([base] * len(ks)), sim.n, ""],
                                 ["best possible (on-topic pages first)", *(min(1.0, sum(topic) / k) for k in ks), "", ""]]
    work = Path(tempfile.mkdtemp(prefix="rankcrawl-topic-"))
    with ProxyServer(web) as proxy:
        for i, (label, extra) in enumerate(runs(",".join(sorted(terms)), names).items()):
            server, redis_url = fresh_valkey(work / f"valkey-{i}", persist=False)
            try:
                settings = {**FAST, **extra, "RANKCRAWL_MAX_PAGES": str(budget)}
                cmd = [*RANKCRAWL, "crawl", *seeds, "--redis-url", redis_url,
                       *sum((["-s", f"{k}={v}"] for k, v in settings.items()), [])]
                run = run_crawl(label, cmd, proxy, args.timeout, work / f"{i}.log")
            finally:
                server.stop()
            order = served_order(run, web, index)
            rates = [harvest(order, topic, k) for k in ks]
            rows.append([label, *rates, len(order), round(run.wall)])
            print(f"{label}: {len(order)} pages in {run.wall:.0f} s; harvest " + " ".join(f"{r:.3f}" for r in rates), flush=True)
    headers = ["frontier", *(f"harvest @ {f:.0%} ({k} pages)" for f, k in zip(fractions, ks, strict=True)),
               "pages served", "wall s"]
    table = markdown_table(headers, rows)
    print(table)
    command = "python -m bench.frontier_topic " + " ".join(argv if argv is not None else sys.argv[1:])
    write_section("frontier-topic", (
        f"Topical real crawls of the {args.sites} real sites ({sim.n} reachable pages), topic terms "
        f"`{','.join(sorted(terms))}`, page budget {budget}, 1 crawl process. A page is on topic when the "
        "lower-cased words of its gold content region (bench/realgold.py's selectors, `not_content` removed) "
        f"include every topic term ({sum(topic)} pages). harvest @ k = share of the first k pages the server "
        "served that are on topic; base rate = share of all reachable pages on topic. "
        f"Measured {time.strftime('%Y-%m-%d')} on {os.cpu_count()} cores. Command: `{command}`.\n\n" + table))


if __name__ == "__main__":
    main()
