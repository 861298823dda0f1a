"""Graph and rank commands: ``graph``, ``ranks``, ``ranker``, ``top``, ``rank``."""

from __future__ import annotations

import logging
import math
import sys
import threading
from collections import defaultdict
from typing import Iterable, TextIO

import click

from rankcrawl.ranker.store.graphstore import GraphStore, PageRecord
from rankcrawl.settings.keys import DEFAULT_PREFIX
from rankcrawl.ranker.store.queries import RankQueries
from rankcrawl.ranker.service import RankerService
from rankcrawl.settings.urls import normalize_url
from rankcrawl.crawler.cli.options import UserError, one_line_errors, redis_url_option
from rankcrawl.settings.connection import connect, probe_writable

prefix_option = click.option(
    "--key-prefix", envvar="RANKCRAWL_KEY_PREFIX", default=DEFAULT_PREFIX, show_default=True,
    help="Prefix of every Redis key rankcrawl uses.",
)


def parse_edges(lines: Iterable[str], err: TextIO) -> tuple[dict[str, list[tuple[str, float]]], int]:
    """Links per source URL from ``src<TAB>dst[<TAB>weight]`` lines; bad lines reported, counted."""
    links: dict[str, list[tuple[str, float]]] = defaultdict(list)
    bad = 0
    for number, line in enumerate(lines, 1):
        line = line.rstrip("\r\n")
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        problem = None
        if len(fields) not in (2, 3):
            problem = f"expected 2 or 3 tab-separated fields, got {len(fields)}"
        else:
            src, dst = normalize_url(fields[0]), normalize_url(fields[1])
            weight = 1.0
            if len(fields) == 3:
                try:
                    weight = float(fields[2])
                except ValueError:
                    weight = math.nan
            if src is None or dst is None:
                problem = f"not an http(s) URL: {fields[0] if src is None else fields[1]!r}"
            elif not (math.isfinite(weight) and weight > 0):
                problem = f"weight must be a positive number: {fields[2]!r}"
        if problem:
            bad += 1
            click.echo(f"line {number}: {problem}", file=err)
            continue
        links[src].append((dst, weight))
    return links, bad


@click.group("graph")
def graph() -> None:
    """Import or export the link graph (src_url<TAB>dst_url[<TAB>weight])."""


@graph.command("import")
@click.argument("edges", type=click.File("r", encoding="utf-8", errors="replace"))
@redis_url_option
@prefix_option
@one_line_errors
def graph_import(edges: TextIO, redis_url: str | None, key_prefix: str) -> None:
    """Import EDGES.tsv ('-' for stdin); a source's edges replace the ones stored for it."""
    links, bad = parse_edges(edges, sys.stderr)
    client = connect(redis_url)
    probe_writable(client, key_prefix)  # a read-only replica or a full server: one line, nothing half-imported
    store = GraphStore(client, key_prefix)
    stored = store.put_pages(PageRecord(src, ls) for src, ls in links.items())
    click.echo(f"imported {sum(map(len, links.values()))} edges from {stored} pages" + (f"; {bad} bad lines skipped" if bad else ""), err=True)
    if bad and not stored:
        raise UserError("no valid edge in the input")


@graph.command("export")
@redis_url_option
@prefix_option
@one_line_errors
def graph_export(redis_url: str | None, key_prefix: str) -> None:
    """Write every stored edge as src_url<TAB>dst_url<TAB>weight."""
    for src, dst, w in GraphStore(connect(redis_url), key_prefix).iter_edges():
        click.echo(f"{src}\t{dst}\t{w:g}")


@click.group("ranks")
def ranks() -> None:
    """Published ranks."""


@ranks.command("export")
@redis_url_option
@prefix_option
@one_line_errors
def ranks_export(redis_url: str | None, key_prefix: str) -> None:
    """Write url<TAB>rank for every ranked page (the ranks sum to 1)."""
    queries = RankQueries(connect(redis_url), key_prefix)
    if queries.epoch() is None:
        raise UserError("no ranks published yet: run `rankcrawl ranker --once`")
    for url, rank in queries.export():
        click.echo(f"{url}\t{rank!r}")


def read_urls(path: str) -> list[str]:
    with click.open_file(path, encoding="utf-8") as f:
        urls = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    if not urls:
        raise UserError(f"{path}: no URLs")
    return urls


@click.command("ranker")
@click.option("--once", is_flag=True, help="Solve once, publish, exit.")
@redis_url_option
@prefix_option
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.85, show_default=True)
@click.option("--tol", type=click.FloatRange(0, min_open=True), default=1e-10, show_default=True, help="L1 stopping tolerance.")
@click.option("--partitions", type=click.IntRange(1), default=1, show_default=True, help="Host partitions of the solver.")
@click.option("--teleport-from", "teleport_from", type=click.Path(dir_okay=False), default=None,
              help="File of biasing-set URLs (one per line): topic-specific PageRank.")
@click.option("--poll-interval", type=click.FloatRange(0.05), default=1.0, show_default=True, help="Seconds per wait for changes.")
@one_line_errors
def ranker(once: bool, redis_url: str | None, key_prefix: str, alpha: float, tol: float, partitions: int,
           teleport_from: str | None, poll_interval: float) -> None:
    """Keep PageRank current with the graph: solve on changes, publish epochs."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    teleport = read_urls(teleport_from) if teleport_from else None
    service = RankerService(connect(redis_url), alpha=alpha, tol=tol, partitions=partitions,
                            teleport_urls=teleport, prefix=key_prefix)
    if once:
        if service.solve_once() is None:
            raise UserError("the graph is empty: import edges or crawl first")
        return
    stop = threading.Event()
    try:
        service.run(stop, poll_interval)
    except KeyboardInterrupt:
        stop.set()


@click.command("top")
@click.option("-n", "n", type=click.IntRange(1), default=10, show_default=True)
@click.option("--hosts", is_flag=True, help="Rank hosts (summed page ranks) instead of pages.")
@redis_url_option
@prefix_option
@one_line_errors
def top(n: int, hosts: bool, redis_url: str | None, key_prefix: str) -> None:
    """The best pages (or hosts) of the published epoch."""
    queries = RankQueries(connect(redis_url), key_prefix)
    if queries.epoch() is None:
        raise UserError("no ranks published yet: run `rankcrawl ranker --once`")
    for name, score in (queries.top_hosts(n) if hosts else queries.top(n)):
        click.echo(f"{score:.6e}\t{name}")


@click.command("rank")
@click.argument("urls", nargs=-1, required=True)
@redis_url_option
@prefix_option
@one_line_errors
def rank(urls: tuple[str, ...], redis_url: str | None, key_prefix: str) -> None:
    """Rank of the given pages; exits non-zero if any is not ranked."""
    queries = RankQueries(connect(redis_url), key_prefix)
    if queries.epoch() is None:
        raise UserError("no ranks published yet: run `rankcrawl ranker --once`")
    missing = 0
    for url, value in queries.rank(urls).items():
        if value is None:
            missing += 1
            click.echo(f"{url}: not ranked (unknown page or not in the published epoch)", err=True)
        else:
            click.echo(f"{value!r}\t{url}")
    if missing:
        sys.exit(1)

