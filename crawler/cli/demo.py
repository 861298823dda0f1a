"""``rankcrawl demo``: crawl a generated multi-host web on this machine while ranking it live.

The demo web (``rankcrawl.crawler.demoweb.web``) is served on loopback ports; ``rankcrawl crawl``
runs in a subprocess (Twisted's reactor runs once per process) with the add-on on and private
addresses allowed; the ranker service runs in a thread of this process. A rich live view shows
pages fetched, pages and edges stored, and the ranker's epochs. At the end: the top pages and
hosts, and — because the generator knows which links are content — the precision and recall of
the stored edges against the ground truth. Everything stops by itself.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
from rich.console import Console, Group
from rich.live import Live
from rich.table import Table

from rankcrawl.crawler.cli.options import UserError, one_line_errors, redis_url_option
from rankcrawl.crawler.cli.tables import figures_table, ranks_table
from rankcrawl.crawler.demoweb.web import MIN_PAGES_PER_HOST, DemoWeb
from rankcrawl.ranker.progress import Progress
from rankcrawl.ranker.service import RankerService
from rankcrawl.ranker.store.graphstore import GraphStore
from rankcrawl.ranker.store.queries import RankQueries
from rankcrawl.settings.connection import embedded_server, redis_client, resolve_redis_url

PREFIX = "rcdemo:"
CRAWL_SETTINGS = {
    "RANKCRAWL_KEY_PREFIX": PREFIX,
    "RANKCRAWL_ALLOW_PRIVATE": "True",  # the demo web lives on 127.0.0.1
    "RANKCRAWL_RANKER": "False",  # the demo runs the ranker service itself
    "DOWNLOAD_DELAY": "0",  # every host is 127.0.0.1 here, so Scrapy sees one slot: no throttling
    "AUTOTHROTTLE_ENABLED": "False",
    "CONCURRENT_REQUESTS_PER_DOMAIN": "16",
    "LOG_LEVEL": "WARNING",
}


@dataclass
class LiveState:
    """What the live view shows; the ranker thread and the poll loop update it."""

    fetched: int = 0
    hosts: int = 0
    pages_with_edges: int = 0
    edges: int = 0
    epoch: int = 0
    iterations: int = 0
    solve_seconds: float = 0.0
    solving: bool = False
    crawl: str = "starting"

    def table(self, total: int) -> Table:
        ranker = f"epoch {self.epoch}, {self.iterations} iterations, {self.solve_seconds:.2f} s"
        return figures_table([
            ("crawl", self.crawl),
            ("fetched / served", f"{self.fetched} / {total}"),
            ("hosts stored", str(self.hosts)),
            ("pages with out-edges", str(self.pages_with_edges)),
            ("edges (last solve)", str(self.edges)),
            ("ranker", ranker + (" — solving…" if self.solving else "")),
        ], title="rankcrawl demo")


class LiveProgress(Progress):
    """The ranker's progress, reported into the live view instead of the log."""

    def __init__(self, state: LiveState) -> None:
        super().__init__(Console(quiet=True))
        self.state = state

    def loaded(self, hosts: int, pages: int, edges: int, reloaded: int) -> None:
        self.state.edges = edges

    @contextmanager
    def solving(self) -> Iterator[None]:
        self.state.solving = True
        try:
            yield
        finally:
            self.state.solving = False

    def published(self, report: Any) -> None:
        self.state.epoch, self.state.iterations = report.epoch, report.iterations
        self.state.solve_seconds = report.seconds


@dataclass
class DemoResult:
    """The demo's figures against the generator's ground truth."""

    fetched: int
    reachable: int
    pages: int
    stored_edges: int
    precision: float
    recall: float
    template_share: float
    robots_violations: int
    authorities_in_top: int
    n_authorities: int
    top_pages: list[tuple[str, float]] = field(default_factory=list)
    top_hosts: list[tuple[str, float]] = field(default_factory=list)
    seconds: float = 0.0


def clear_prefix(client: Any, prefix: str) -> None:
    """Delete every key under ``prefix`` (the demo's own namespace, never the user's graph)."""
    batch: list[bytes] = []
    for key in client.scan_iter(match=f"{prefix}*", count=1000):
        batch.append(key)
        if len(batch) >= 500:
            client.delete(*batch)
            batch.clear()
    for key in batch:
        client.delete(key)


def crawl_command(web: DemoWeb, redis_url: str, max_pages: int | None = None, **overrides: str) -> list[str]:
    """``rankcrawl crawl`` of the demo web's seeds with the demo's settings (and ``overrides``).

    The page budget defaults to the size of the web.
    """
    settings = {**CRAWL_SETTINGS, "RANKCRAWL_REDIS_URL": redis_url, **overrides}
    command = [sys.executable, "-c", "from rankcrawl.crawler.cli.main import main; main()", "crawl", *web.seeds,
               "--max-pages", str(max_pages or len(web.pages))]
    for name, value in settings.items():
        command += ["-s", f"{name}={value}"]
    return command


def evaluate(web: DemoWeb, store: GraphStore) -> tuple[int, float, float, float]:
    """(stored edges, precision, recall, template-only share) of stored edges vs ground truth.

    The truth is the content links of the pages that were fetched; an edge counts once.
    """
    fetched = {u for u, p in web.pages.items() if web.hits[u]}
    stored = {(s, d) for s, d, _ in store.iter_edges()}
    truth = {(u, d) for u in fetched for d in web.pages[u].content_links}
    template = {(u, d) for u in fetched for d in web.pages[u].template_links} - truth
    hit = len(stored & truth)
    precision = hit / len(stored) if stored else 0.0
    recall = hit / len(truth) if truth else 0.0
    share = len(stored & template) / len(stored) if stored else 0.0
    return len(stored), precision, recall, share


def run_demo(seed: int = 0, n_hosts: int = 6, pages_per_host: int = 30, redis_url: str | None = None,
             timeout: float = 120.0, console: Console | None = None) -> DemoResult:
    """Serve, crawl, rank and evaluate the demo web; returns the figures (printed on ``console``)."""
    console = console or Console()
    started = time.monotonic()
    url = resolve_redis_url(redis_url) or embedded_server().ensure_running()
    with redis_client(url) as client:
        result = _crawl_and_rank(seed, n_hosts, pages_per_host, client, url, timeout, console, started)
    show(result, console)
    return result


def _crawl_and_rank(seed: int, n_hosts: int, pages_per_host: int, client: Any, url: str, timeout: float,
                    console: Console, started: float) -> DemoResult:
    """Serve the web, crawl it in a subprocess with the ranker in a thread, score the result."""
    clear_prefix(client, PREFIX)
    state = LiveState()
    stop = threading.Event()
    service = RankerService(client, prefix=PREFIX, progress=LiveProgress(state), debounce=0.3)
    store = GraphStore(client, PREFIX)
    with DemoWeb(seed, n_hosts, pages_per_host).serve() as web, tempfile.TemporaryFile("w+") as log:
        failures: list[BaseException] = []

        def rank() -> None:
            try:
                service.run(stop, poll_interval=0.5)
            except Exception as exc:  # reported after the crawl, in the main thread
                failures.append(exc)

        ranker = threading.Thread(target=rank, name="rankcrawl demo ranker", daemon=True)
        ranker.start()
        crawl = subprocess.Popen(crawl_command(web, url), stdout=log, stderr=subprocess.STDOUT)
        state.crawl = "running"
        deadline = started + timeout
        try:
            with Live(state.table(len(web.pages)), console=console, refresh_per_second=4, transient=False) as live:
                while crawl.poll() is None and time.monotonic() < deadline:
                    _poll(state, web, store)
                    live.update(state.table(len(web.pages)))
                    time.sleep(0.25)
                if crawl.poll() is None:
                    raise UserError(f"the demo crawl did not finish within {timeout:.0f} s")
                state.crawl = f"finished (exit {crawl.returncode})"
                stop.set()
                ranker.join(timeout=30)
                if failures:
                    raise failures[0]
                if ranker.is_alive():
                    raise UserError("the ranker did not stop within 30 s")
                if service.pending():
                    service.solve_once()
                _poll(state, web, store)
                live.update(state.table(len(web.pages)))
        finally:
            stop.set()
            _stop(crawl)
        if crawl.returncode != 0:
            log.seek(0)
            tail = [line for line in log.read().splitlines() if line.strip()][-1:] or ["no output"]
            raise UserError(f"the demo crawl failed (exit {crawl.returncode}): {tail[0]}")
        return _result(web, store, client, started)


def _stop(process: subprocess.Popen) -> None:
    """Terminate a still-running subprocess, killing it after 10 s."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def content_reachable(web: DemoWeb) -> set[str]:
    """Pages reachable from the seeds through ground-truth content links (a content-scope crawl's reach)."""
    seen, todo = set(web.seeds), list(web.seeds)
    while todo:
        for link in web.pages[todo.pop()].content_links:
            if link not in seen:
                seen.add(link)
                todo.append(link)
    return seen


def _poll(state: LiveState, web: DemoWeb, store: GraphStore) -> None:
    state.fetched = sum(1 for u in web.pages if web.hits[u])
    hids = store.all_host_ids()
    state.hosts = len(hids)
    pipe = store.client.pipeline(transaction=False)
    for hid in hids:
        pipe.hlen(store.keys.out(hid))
    state.pages_with_edges = sum(pipe.execute()) if hids else 0


def _result(web: DemoWeb, store: GraphStore, client: Any, started: float) -> DemoResult:
    n_stored, precision, recall, share = evaluate(web, store)
    queries = RankQueries(client, prefix=PREFIX)
    top_pages, top_hosts = queries.top(10), queries.top_hosts(len(web.origins))
    top20 = {url for url, _ in queries.top(20)}
    return DemoResult(
        fetched=sum(1 for u in web.pages if web.hits[u]), reachable=len(content_reachable(web)),
        pages=len(web.pages), stored_edges=n_stored,
        precision=precision, recall=recall, template_share=share,
        robots_violations=sum(web.hits[u] for u in web.robots_disallowed),
        authorities_in_top=len(top20 & set(web.authorities)), n_authorities=len(web.authorities),
        top_pages=top_pages, top_hosts=top_hosts, seconds=time.monotonic() - started,
    )


def show(result: DemoResult, console: Console) -> None:
    """Print the top pages and hosts and the ground-truth figures."""
    pages = ranks_table(result.top_pages, "Top pages (PageRank over content links)")
    hosts = ranks_table(result.top_hosts, "Top hosts", "host")
    truth = Table("figure", "value", title="Against the generator's ground truth")
    truth.add_row("pages fetched", str(result.fetched))
    truth.add_row("pages reachable through content links", str(result.reachable))
    truth.add_row("pages served", str(result.pages))
    truth.add_row("edges stored", str(result.stored_edges))
    truth.add_row("content-link precision", f"{result.precision:.3f}")
    truth.add_row("content-link recall", f"{result.recall:.3f}")
    truth.add_row("stored edges that are template links", f"{result.template_share:.3f}")
    truth.add_row("authority articles in the top 20", f"{result.authorities_in_top} / {result.n_authorities}")
    truth.add_row("robots.txt-disallowed pages fetched", str(result.robots_violations))
    truth.add_row("seconds", f"{result.seconds:.1f}")
    console.print()
    console.print(Group(pages, hosts, truth))


@click.command("demo")
@click.option("--hosts", "n_hosts", type=click.IntRange(2, 64), default=6, show_default=True, help="Hosts of the demo web.")
@click.option("--pages-per-host", type=click.IntRange(MIN_PAGES_PER_HOST, 500), default=30, show_default=True, help="Pages per host.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the generated web.")
@click.option("--timeout", type=click.FloatRange(5, 3600), default=120.0, show_default=True,
              help="Seconds before the crawl is stopped and the demo fails.")
@click.option("--home", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder of the embedded Valkey (default: $RANKCRAWL_HOME or ~/.rankcrawl).")
@redis_url_option
@one_line_errors
def demo(n_hosts: int, pages_per_host: int, seed: int, timeout: float, home: Path | None, redis_url: str | None) -> None:
    """Crawl and rank a generated multi-host web served on 127.0.0.1 — no network needed.

    Keys live under the prefix ``rcdemo:`` (cleared at the start), never the default graph.
    """
    if home is not None:
        os.environ["RANKCRAWL_HOME"] = str(home.expanduser().resolve())
    run_demo(seed, n_hosts, pages_per_host, redis_url, timeout)
