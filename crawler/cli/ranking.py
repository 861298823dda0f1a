"""Graph and rank commands: ``graph``, ``ranks``, ``ranker``, ``top``, ``rank``."""

from __future__ import annotations

import gc
import logging
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import TextIO

import click

from rankcrawl.crawler.cli.listing import emit, format_option
from rankcrawl.crawler.cli.options import UserError, one_line_errors, redis_url_option
from rankcrawl.ranker.parameters import ALPHA, TOL, checked
from rankcrawl.ranker.store.graphstore import GraphStore
from rankcrawl.ranker.store.queries import RankQueries
from rankcrawl.settings.connection import connect, probe_writable
from rankcrawl.settings.keys import DEFAULT_PREFIX

prefix_option = click.option(
    "--key-prefix", envvar="RANKCRAWL_KEY_PREFIX", default=DEFAULT_PREFIX, show_default=True,
    help="Prefix of every Redis key rankcrawl uses.",
)


@click.group("graph")
def graph() -> None:
    """Import or export the link graph (src_url<TAB>dst_url[<TAB>weight])."""


@graph.command("import")
@click.argument("edges", type=click.File("r", encoding="utf-8", errors="surrogateescape"))
@redis_url_option
@prefix_option
@one_line_errors
def graph_import(edges: TextIO, redis_url: str | None, key_prefix: str) -> None:
    """Import EDGES.tsv ('-' for stdin); a source's edges replace the ones stored for it."""
    from rankcrawl.ranker.store.bulk import import_edges  # numba kernels: only this command loads them

    client = connect(redis_url)
    probe_writable(client, key_prefix)  # a read-only replica or a full server: one line, nothing half-imported
    store = GraphStore(client, key_prefix)
    report = import_edges(store, edges, lambda number, problem: click.echo(f"line {number}: {problem}", err=True))
    click.echo(f"imported {report.edges} edges from {report.pages} pages"
               + (f"; {report.bad} bad lines skipped" if report.bad else ""), err=True)
    if report.bad and not report.pages:
        raise UserError("no valid edge in the input")


@graph.command("export")
@click.option("--resolved", is_flag=True, help="The edges as the ranker counts them: redirects followed to their "
              "target, links into or out of gone (4xx/5xx) pages and self-links left out.")
@redis_url_option
@prefix_option
@one_line_errors
def graph_export(resolved: bool, redis_url: str | None, key_prefix: str) -> None:
    """Write every stored edge as src_url<TAB>dst_url<TAB>weight."""
    for src, dst, w in GraphStore(connect(redis_url), key_prefix).iter_edges(resolved=resolved):
        click.echo(f"{src}\t{dst}\t{w:g}")


@click.group("ranks")
def ranks() -> None:
    """Published ranks."""


@ranks.command("export")
@format_option
@redis_url_option
@prefix_option
@one_line_errors
def ranks_export(fmt: str, redis_url: str | None, key_prefix: str) -> None:
    """Write url<TAB>rank for every ranked page (the ranks sum to 1)."""
    emit(published(redis_url, key_prefix).export(), fmt)


def published(redis_url: str | None, key_prefix: str) -> RankQueries:
    """Queries over the published epoch; UserError saying why there is none yet."""
    queries = RankQueries(connect(redis_url), key_prefix)
    if queries.epoch() is None:
        raise UserError(why_no_epoch(queries.store, key_prefix))
    return queries


def why_no_epoch(store: GraphStore, key_prefix: str) -> str:
    """What a user can do while no epoch is published: crawl or import, wait for a ranker, or run one."""
    if not store.client.hlen(store.keys.hosts):
        return (f"no ranks yet: no page is stored under the prefix {key_prefix!r} "
                "(crawl with `rankcrawl crawl` or the add-on, or `rankcrawl graph import`)")
    if store.client.exists(store.keys.lease):
        return "no ranks published yet: a ranker is solving the first epoch; ask again in a few seconds"
    return ("no ranks published yet: a crawl's ranker publishes the first epoch seconds after its first pages; "
            "with no crawl or ranker running, run `rankcrawl ranker --once`")


def read_urls(path: str) -> list[str]:
    with click.open_file(path, encoding="utf-8") as f:
        urls = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    if not urls:
        raise UserError(f"{path}: no URLs")
    return urls


def parameter(ctx: click.Context, param: click.Parameter, value: float) -> float:
    """``--alpha``/``--tol`` checked as their settings are (``ranker.parameters``): a usage error otherwise."""
    try:
        return checked(str(param.name), value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


@click.command("ranker")
@click.option("--once", is_flag=True, help="Solve once, publish, exit.")
@redis_url_option
@prefix_option
@click.option("--alpha", type=float, default=ALPHA, show_default=True, callback=parameter,
              help="Damping factor: the share of rank that follows links (the rest teleports).")
@click.option("--tol", type=float, default=TOL, show_default=True, callback=parameter,
              help="Certified bound on the L1 error of the published ranks.")
@click.option("--partitions", type=click.IntRange(1), default=None,
              help="Threads of a cold solve, each sweeping a block of hosts (default: one per core, up to 4, "
                   "from 500,000 links).")
@click.option("--teleport-from", "teleport_from", type=click.Path(dir_okay=False), default=None,
              help="File of biasing-set URLs (one per line): topic-specific PageRank.")
@click.option("--interim-tol", type=click.FloatRange(0, min_open=True), default=None,
              help="Looser certified L1 bound for epochs published while changes keep arriving (default: --tol).")
@click.option("--poll-interval", type=click.FloatRange(0.05), default=1.0, show_default=True,
              help="Seconds per wait for changes.")
@click.option("--lease-wait", type=click.FloatRange(0), default=60.0, show_default=True,
              help="--once: seconds to wait while another ranker holds the publishing lease.")
@one_line_errors
def ranker(once: bool, redis_url: str | None, key_prefix: str, alpha: float, tol: float, partitions: int | None,
           teleport_from: str | None, interim_tol: float | None, poll_interval: float, lease_wait: float) -> None:
    """Keep PageRank current with the graph: solve on changes, publish epochs (tol: certified L1 bound)."""
    if interim_tol is not None and interim_tol < tol:
        raise UserError("--interim-tol must be at least --tol")
    teleport = read_urls(teleport_from) if teleport_from else None
    with one_shot() if once else nullcontext():
        from rankcrawl.ranker.service import RankerService  # numba and the solver: only this command loads them

        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
        service = RankerService(connect(redis_url), alpha=alpha, tol=tol, partitions=partitions,
                                teleport_urls=teleport, prefix=key_prefix, interim_tol=interim_tol,
                                lease_wait=lease_wait if once else 0.0)
        if once:
            from rankcrawl.ranker.store.lease import LeaseLost

            try:
                report = service.solve_once(last=True)
            except LeaseLost as exc:
                raise UserError(f"{exc}; nothing published") from None
            if report is None:
                if service.graph is None:
                    raise UserError(f"another ranker held the publishing lease for {lease_wait:g} s")
                raise UserError("the graph is empty: import edges or crawl first")
            return
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())  # SIGTERM (kill) ends like Ctrl-C: the loop stops within
    try:                                                  # a poll interval, then the embedded server it started stops
        service.run(stop, poll_interval)
    except KeyboardInterrupt:
        stop.set()
    finally:
        service.store.client.close()  # the embedded server is stopped at exit only when no client is left


@contextmanager
def one_shot() -> Iterator[None]:
    """A command that does one job, then the process ends: no cyclic collection while it runs (its
    passes over numba's objects only cost), and the objects frozen for the interpreter's teardown,
    which would otherwise walk them again (≈0.5 s at exit)."""
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


@click.command("top")
@click.option("-n", "n", type=click.IntRange(1), default=10, show_default=True,
              help="How many pages (or hosts) to list, best first.")
@click.option("--hosts", is_flag=True, help="Rank hosts (summed page ranks) instead of pages.")
@click.option("--crawled", is_flag=True, help="Only pages (hosts) that were fetched or imported; the others are "
              "link targets never fetched, ranked by the links into them.")
@format_option
@redis_url_option
@prefix_option
@one_line_errors
def top(n: int, hosts: bool, crawled: bool, fmt: str, redis_url: str | None, key_prefix: str) -> None:
    """The best pages (or hosts) of the published epoch: url<TAB>rank."""
    queries = published(redis_url, key_prefix)
    if not crawled:
        rows = queries.top_hosts(n) if hosts else queries.top(n)
    else:
        rows = crawled_hosts(queries, n) if hosts else crawled_pages(queries, n)
    emit(rows, fmt, "host" if hosts else "url")


def crawled_pages(queries: RankQueries, n: int, scan: int | None = None) -> list[tuple[str, float]]:
    """The ``n`` best pages of the published top list (its first ``scan`` entries; default: all) that have
    stored metadata (fetched or imported)."""
    from rankcrawl.ranker.store.epochs import TOP_K

    out: list[tuple[str, float]] = []
    for url, value in queries.top(scan or TOP_K):
        if len(out) == n:
            break
        if queries.store.meta(url) is not None:
            out.append((url, value))
    return out


def crawled_hosts(queries: RankQueries, n: int, scan: int | None = None) -> list[tuple[str, float]]:
    """The ``n`` best hosts of the published host list (its first ``scan`` entries; default: all) with at
    least one page with stored metadata."""
    from rankcrawl.ranker.store.epochs import TOP_K

    rows = queries.top_hosts(scan or TOP_K)
    ids = queries.store.host_ids([host for host, _ in rows], create=False)
    client, keys = queries.store.client, queries.store.keys
    out: list[tuple[str, float]] = []
    for host, value in rows:
        if len(out) == n:
            break
        if host in ids and client.hlen(keys.meta(ids[host])):
            out.append((host, value))
    return out


@click.command("rank")
@click.argument("urls", nargs=-1, required=True)
@format_option
@redis_url_option
@prefix_option
@one_line_errors
def rank(urls: tuple[str, ...], fmt: str, redis_url: str | None, key_prefix: str) -> None:
    """Rank of the given pages (url<TAB>rank); exits non-zero if any is not ranked."""
    found = published(redis_url, key_prefix).rank(urls)
    emit([(url, value) for url, value in found.items() if value is not None], fmt)
    missing = [url for url, value in found.items() if value is None]
    for url in missing:
        click.echo(f"{url}: not ranked (unknown page or not in the published epoch)", err=True)
    if missing:
        sys.exit(1)

