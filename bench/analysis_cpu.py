"""CPU per page of the crawl's page analysis, in process, on real pages; and a decision check.

    python -m bench.analysis_cpu [--per-site 20] [--wcxb 60] [--repeat 1] [--profile N]
                                 [--save FILE | --check FILE]

The sample: every ``k``-th HTML page (sorted by URL) of each real documentation site of
``bench/realsites.py`` (the download cache of bench/realcrawl.py, fetched on first use), up to
``--per-site``, plus the first ``--wcxb`` WCXB-dev pages (``bench.datasets``; skipped where the data
is absent). Each page goes through exactly what a crawl worker runs (``site.facts.analyze_page`` with
the crawl's default ``FactOptions``: site level on, ``uniform`` weighting, the default classifier
and time budget; the result pickled as it crosses the worker boundary) and through ``rankcrawl
extract``'s ``analyze`` (here with the crawl workers' compiled tree walk loaded; ``bench.extraction``
times the real CLI); CPU seconds of this process (``time.process_time``) are summed per source.

``--save FILE`` writes, per page, a SHA-256 of every ``PageFacts`` field (all but the wall and CPU times) and
of the extract JSON row; ``--check FILE`` compares a run against such a file and exits 1 on any
difference, naming the page and field: a speed change must leave both identical. ``--profile N``
prints the top ``N`` functions of a cProfile run (by own time and by cumulative time).
The peer in the same run is trafilatura on the same pages (``bench.extraction_peers``). A timing run
with the default sample writes the section "analysis-cpu" of docs/BENCHMARKS.md.
"""

from __future__ import annotations

import cProfile
import hashlib
import json
import pickle
import pstats
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

import click

from bench.report import markdown_table, write_section
from rankcrawl.pipelines.site.facts import FactOptions, PageFacts, analyze_page
from rankcrawl.settings.defaults import DEFAULTS


def real_pages(per_site: int) -> list[tuple[str, str, bytes]]:
    """(source, url, body) of up to ``per_site`` HTML pages of every real site, evenly spread."""
    from bench.realsites import SITES, site_map

    out = []
    for site in SITES:
        html = sorted((u, e) for u, e in site_map(site).items() if e.status == 200 and e.content_type == "text/html")
        step = max(1, len(html) // per_site) if per_site else len(html) + 1
        out += [(site.name, u, e.body()) for u, e in html[::step][:per_site]]
    return out


def wcxb_pages(limit: int) -> list[tuple[str, str, bytes]]:
    """(``"wcxb"``, url, body) of the first ``limit`` WCXB-dev pages (none without the data)."""
    from bench.datasets import DATA, load

    if not limit or not (DATA / "wcxb-dev").is_dir():
        return []
    return [("wcxb", p.url, p.html_bytes()) for p in load("wcxb-dev", limit=limit)]


def commit() -> str:
    """The checked-out commit (short), ``+`` when the work tree has changes."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True).stdout
    return (head or "?") + ("+" if dirty.strip() else "")


def digest(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=repr).encode()).hexdigest()[:16]


DEFAULT_PER_SITE, DEFAULT_WCXB = 20, 60
CRAWL_OPTIONS = FactOptions(timeout=DEFAULTS["RANKCRAWL_ANALYSIS_TIMEOUT"])


def crawl_facts(url: str, body: bytes) -> PageFacts:
    """What a crawl worker computes for the page, through the pickle the pool sends it back in."""
    return pickle.loads(pickle.dumps(analyze_page(url, body, None, CRAWL_OPTIONS)))


def extract_row(url: str, body: bytes) -> dict[str, object]:
    from rankcrawl.pipelines.page.analyze import analyze

    return analyze(body, url=url).to_json(url)


def fingerprints(pages: list[tuple[str, str, bytes]]) -> dict[str, dict[str, str]]:
    """Per page URL: a digest per PageFacts field and one of the extract row."""
    out = {}
    for _source, url, body in pages:
        facts = asdict(crawl_facts(url, body))
        if facts.pop("outcome") != "complete":
            raise click.ClickException(f"{url}: not analysed within the budget; rerun on a quieter machine")
        facts.pop("seconds")
        facts.pop("cpu", None)
        row = {name: digest(v) for name, v in facts.items()}
        row["extract"] = digest(extract_row(url, body))
        out[url] = row
    return out


def cpu_per_page(pages: list[tuple[str, str, bytes]], repeat: int) -> dict[str, tuple[int, float, float]]:
    """Per source: (pages, crawl analysis CPU ms/page, extract CPU ms/page), best of ``repeat``."""
    sources: dict[str, list[tuple[str, bytes]]] = {}
    for source, url, body in pages:
        sources.setdefault(source, []).append((url, body))
    out = {}
    for source, items in sources.items():
        crawl = extract = float("inf")
        for _ in range(repeat):
            t0 = time.process_time()
            for url, body in items:
                crawl_facts(url, body)
            t1 = time.process_time()
            for url, body in items:
                extract_row(url, body)
            t2 = time.process_time()
            crawl, extract = min(crawl, t1 - t0), min(extract, t2 - t1)
        out[source] = (len(items), 1000 * crawl / len(items), 1000 * extract / len(items))
    return out


def peer_per_page(pages: list[tuple[str, str, bytes]]) -> float:
    """trafilatura's CPU ms/page on the same pages (NaN where it is not installed)."""
    try:
        from bench.extraction_peers import PEERS
    except ImportError:
        return float("nan")
    extract = PEERS["trafilatura"][1]
    t0 = time.process_time()
    for _source, url, body in pages:
        extract(body.decode("utf-8", errors="replace"), url)
    return 1000 * (time.process_time() - t0) / len(pages)


@click.command()
@click.option("--per-site", default=DEFAULT_PER_SITE, show_default=True, help="Pages per real site.")
@click.option("--wcxb", default=DEFAULT_WCXB, show_default=True, help="WCXB-dev pages.")
@click.option("--repeat", default=1, show_default=True, help="Timing runs; the best counts.")
@click.option("--profile", "top", default=0, help="Print the top N functions of a cProfile run of the crawl analysis.")
@click.option("--save", type=click.Path(dir_okay=False), help="Write the decision fingerprints to this JSON file.")
@click.option("--check", type=click.Path(exists=True, dir_okay=False), help="Compare with fingerprints saved earlier.")
def main(per_site: int, wcxb: int, repeat: int, top: int, save: str | None, check: str | None) -> None:
    pages = real_pages(per_site) + wcxb_pages(wcxb)
    if not pages:
        raise click.ClickException("no pages")
    for _source, url, body in pages[:3]:  # warm: classifier read, kernels compiled
        crawl_facts(url, body)
        extract_row(url, body)
    if save or check:
        found = fingerprints(pages)
        if save:
            Path(save).write_text(json.dumps(found, indent=0, sort_keys=True))
            print(f"saved fingerprints of {len(found)} pages to {save}")
        if check:
            expected = json.loads(Path(check).read_text())
            diffs = [(url, name) for url, row in expected.items() for name, v in row.items()
                     if url in found and found[url].get(name) != v]
            missing = [url for url in expected if url not in found]
            for url, name in diffs[:30]:
                print(f"DIFFERENT {name}: {url}")
            print(f"checked {len(expected) - len(missing)} pages: {len(diffs)} differences, {len(missing)} not in sample")
            if diffs or missing:
                sys.exit(1)
        return
    if top:
        prof = cProfile.Profile()
        prof.enable()
        for _source, url, body in pages:
            crawl_facts(url, body)
        prof.disable()
        stats = pstats.Stats(prof)
        stats.sort_stats("tottime").print_stats(top)
        stats.sort_stats("cumulative").print_stats(top)
        return
    per = cpu_per_page(pages, repeat)
    n = sum(v[0] for v in per.values())
    crawl = sum(v[0] * v[1] for v in per.values()) / n
    extract = sum(v[0] * v[2] for v in per.values()) / n
    peer = peer_per_page(pages)
    rows = [[s, k, c, e] for s, (k, c, e) in per.items()] + [["all", n, crawl, extract]]
    table = markdown_table(["source", "pages", "crawl analysis CPU ms/page", "extract CPU ms/page"], rows)
    summary = (f"trafilatura on the same pages: {peer:.1f} CPU ms/page; rankcrawl extract in process "
               f"**{peer / extract:.2f}x** its pages per CPU second, the crawl's page analysis {peer / crawl:.2f}x.")
    print(f"{table}\n{summary}")
    if (per_site, wcxb) == (DEFAULT_PER_SITE, DEFAULT_WCXB):
        write_section("analysis-cpu", f"## CPU per page of the page analysis\n\nCommand: `python -m bench.analysis_cpu "
                      f"--repeat {repeat}` at commit {commit()} (best of {repeat}; CPU time of one process, so fair "
                      f"under load). Crawl analysis: `site.facts.analyze_page` with the crawl's default options and the "
                      f"pickle back from the worker; extract: `analyze` as `rankcrawl extract` runs it, but with the "
                      f"compiled tree walk loaded (`bench.extraction` times the CLI).\n\n"
                      f"{table}\n\n{summary}")


if __name__ == "__main__":
    main()
