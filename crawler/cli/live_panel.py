"""The live panel of ``rankcrawl crawl`` in a terminal, and the summary it leaves at the end.

``CrawlPanel.watch(crawler)`` follows one crawl from ``spider_opened`` until the engine stops: each
second a LoopingCall in the reactor copies the crawler's stats, frontier size and the in-crawl
ranker's last epoch (all in memory) into ``CrawlFigures``; a thread reads the published epoch and
the top fetched pages and hosts from Redis every two seconds; rich's ``Live`` redraws the panel from
its own thread. While it is shown, Scrapy's log goes to a file and records at WARNING and above are
printed above the panel.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import timedelta
from types import TracebackType
from typing import Any

import redis
from rich.columns import Columns
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.logging import RichHandler
from rich.progress_bar import ProgressBar
from rich.text import Text
from scrapy import signals
from scrapy.utils.asyncio import create_looping_call

from rankcrawl.crawler.cli.ranking import crawled_hosts, crawled_pages
from rankcrawl.crawler.cli.tables import figures_table, ranks_table
from rankcrawl.crawler.epoch_log import EpochLog
from rankcrawl.crawler.progress_log import frontier_size
from rankcrawl.ranker.store.epochs import current
from rankcrawl.ranker.store.queries import RankQueries
from rankcrawl.settings.config import RankcrawlConfig, per_crawler
from rankcrawl.settings.connection import RedisUnavailable, connect

TICK = 1.0
"""Seconds between reads of the crawler's stats (in the reactor)."""
RANKS_EVERY = 2.0
"""Seconds between reads of the published ranks (in a thread)."""
RATE_WINDOW = 5.0
"""Seconds of history behind the pages/s figure."""
SHOWN = 5
"""Top pages and hosts in the live panel."""
SCANNED = 500
"""Entries of the published top lists searched for fetched pages and hosts."""
REDIS_FAULTS = (RedisUnavailable, redis.RedisError, OSError, ValueError)


class RecordsAbove(RichHandler):
    """Log records printed above the live panel, a message each: tracebacks stay in the log file."""

    def format(self, record: logging.LogRecord) -> str:
        return record.getMessage() + (" (traceback in the log file)" if record.exc_info else "")


@dataclass
class CrawlFigures:
    """What the panel shows; the reactor tick and the ranks thread fill it in."""

    budget: int | None = None
    log: str = ""
    footer: str = ""
    status: str = "starting"
    pages: int = 0
    rate: float = 0.0
    analysed: int = 0
    edges: int = 0
    frontier: int | None = None
    first_epoch: int | None = None
    epoch: int | None = None
    epoch_published_at: float | None = None
    solve_seconds: float | None = None
    elapsed: float = 0.0
    top_pages: list[tuple[str, float]] = field(default_factory=list)
    top_hosts: list[tuple[str, float]] = field(default_factory=list)

    @property
    def epochs(self) -> int:
        """Epochs published since the crawl started."""
        return max((self.epoch or 0) - (self.first_epoch or 0), 0)

    def last_epoch(self, now: float | None = None) -> str:
        if self.epoch is None or not self.epochs:
            return "none yet"
        solve = f", {self.solve_seconds:.2f} s solve" if self.solve_seconds is not None else ""
        age = f", {max((now or time.time()) - self.epoch_published_at, 0):.0f} s ago" if self.epoch_published_at else ""
        return f"{self.epochs} (last: epoch {self.epoch}{solve}{age})"


def elapsed(seconds: float) -> str:
    """Seconds as H:MM:SS."""
    return str(timedelta(seconds=round(seconds)))


def render(figures: CrawlFigures, now: float | None = None) -> RenderableType:
    """The live panel: the page budget's progress, the crawl's figures, the top fetched pages and hosts."""
    pages = f"{figures.pages} / {figures.budget}" if figures.budget else f"{figures.pages} (no page budget)"
    parts: list[RenderableType] = []
    if figures.budget:
        bar = ProgressBar(total=figures.budget, completed=min(figures.pages, figures.budget), width=40)
        parts.append(Columns([bar, Text(f"{min(figures.pages / figures.budget, 1.0):.0%} of the page budget")]))
    parts.append(figures_table([
        ("status", figures.status),
        ("pages fetched", pages),
        ("pages/s", f"{figures.rate:.1f}"),
        ("pages analysed", str(figures.analysed)),
        ("edges stored", str(figures.edges)),
        ("frontier", "—" if figures.frontier is None else str(figures.frontier)),
        ("epochs published", figures.last_epoch(now)),
        ("elapsed", elapsed(figures.elapsed)),
    ], title="rankcrawl crawl"))
    parts.append(Columns([ranks_table(figures.top_pages, "top fetched pages"),
                          ranks_table(figures.top_hosts, "top fetched hosts", "host")]))
    parts.append(Text(figures.footer or figures.log, style="dim"))
    return Group(*parts)


def render_summary(figures: CrawlFigures, reason: str, top_pages: list[tuple[str, float]]) -> RenderableType:
    """What stays on the terminal after the crawl: its figures and the top fetched pages."""
    return Group(
        figures_table([
            ("finish reason", reason or "unknown"),
            ("pages fetched", str(figures.pages)),
            ("pages analysed", str(figures.analysed)),
            ("edges stored", str(figures.edges)),
            ("epochs published", figures.last_epoch()),
            ("time", elapsed(figures.elapsed)),
        ], title="rankcrawl crawl"),
        ranks_table(top_pages, "top fetched pages"),
        Text(figures.log, style="dim"),
    )


class CrawlPanel:
    """Shows one crawl live on ``console``; a context manager that stops everything it started."""

    def __init__(self, console: Console, budget: int | None, log_note: str, log_level: int | None) -> None:
        above = " · warnings and errors above" if log_level is not None else ""
        self.figures = CrawlFigures(budget=budget, log=log_note, footer=f"{log_note}{above} · Ctrl-C stops the crawl")
        self.live = Live(console=console, get_renderable=lambda: render(self.figures), refresh_per_second=2,
                         transient=True)
        self.handler = RecordsAbove(console=console, level=max(logging.WARNING, log_level), show_path=False) \
            if log_level is not None else None
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None
        self.task: Any = None
        self.crawler: Any = None
        self.epoch_log: EpochLog | None = None
        self.queries: RankQueries | None = None
        self.config: RankcrawlConfig | None = None
        self.started = time.monotonic()
        self.history: deque[tuple[float, int]] = deque()

    def watch(self, crawler: Any) -> None:
        """Follow ``crawler``: its signals start and stop the panel."""
        self.crawler = crawler
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)
        crawler.signals.connect(self.engine_stopped, signal=signals.engine_stopped)
        if self.handler is not None:
            logging.getLogger().addHandler(self.handler)

    def spider_opened(self, spider: Any) -> None:
        self.config = RankcrawlConfig.of(self.crawler)
        self.epoch_log = per_crawler(self.crawler, EpochLog, EpochLog) if self.config.ranker else None
        self.started = time.monotonic()
        self.figures.status = "crawling"
        self.tick()
        self.live.start()
        self.task = create_looping_call(self.tick)
        self.task.start(TICK, now=False)
        self.thread = threading.Thread(target=self._read_ranks_until_stopped, name="rankcrawl-panel", daemon=True)
        self.thread.start()

    def spider_closed(self, spider: Any, reason: str) -> None:
        self.figures.status = f"closing ({reason}): storing the last edges, final epoch"

    def engine_stopped(self) -> None:
        self.tick()
        self._stop()

    def tick(self) -> None:
        """Copy the crawler's in-memory figures (runs in the reactor)."""
        stats, now = self.crawler.stats, time.monotonic()
        pages = int(stats.get_value("response_received_count", 0))
        self.history.append((now, pages))
        while now - self.history[0][0] > RATE_WINDOW:
            self.history.popleft()
        then, before = self.history[0]
        figures = self.figures
        figures.pages, figures.rate = pages, (pages - before) / (now - then) if now > then else 0.0
        figures.analysed = int(stats.get_value("rankcrawl/pages/analysed", 0))
        figures.edges = int(stats.get_value("rankcrawl/edges/pushed", 0))
        figures.frontier = frontier_size(self.crawler)
        figures.elapsed = now - self.started
        if self.epoch_log is not None and self.epoch_log.last is not None:
            figures.solve_seconds = self.epoch_log.last.seconds

    def read_ranks(self) -> None:
        """Read the published epoch and the top fetched pages and hosts (a Redis fault keeps the last ones)."""
        if self.config is None:
            return
        try:
            if self.queries is None:
                self.queries = RankQueries(connect(self.config.redis_url), prefix=self.config.key_prefix)
            state = current(self.queries.store)
            pages, hosts = crawled_pages(self.queries, SHOWN, SCANNED), crawled_hosts(self.queries, SHOWN, SCANNED)
        except REDIS_FAULTS:
            self._disconnect()
            return
        figures = self.figures
        epoch = state.epoch if state is not None else 0
        if figures.first_epoch is None:
            figures.first_epoch = epoch
        figures.epoch = epoch
        figures.epoch_published_at = float(state.fields.get("published_at", 0)) if state is not None else None
        figures.top_pages, figures.top_hosts = pages, hosts

    def final_top(self, n: int = 10) -> list[tuple[str, float]]:
        """The top ``n`` fetched pages of the last published epoch (none if Redis cannot be read)."""
        if self.thread is not None and self.thread.is_alive():
            return []  # the ranks thread still holds the connection (Redis slower than the join timeout)
        self.read_ranks()
        try:
            return crawled_pages(self.queries, n) if self.queries is not None else []
        except REDIS_FAULTS:
            return []
        finally:
            self._disconnect()

    def _read_ranks_until_stopped(self) -> None:
        while True:
            self.read_ranks()
            if self.stop.wait(RANKS_EVERY):
                return

    def _disconnect(self) -> None:
        if self.queries is not None:
            self.queries.store.client.close()
            self.queries = None

    def _stop(self) -> None:
        self.stop.set()
        if self.task is not None and self.task.running:
            self.task.stop()
        if self.thread is not None:
            self.thread.join(RANKS_EVERY + 5)
        self.live.stop()
        if self.handler is not None:
            logging.getLogger().removeHandler(self.handler)

    def __enter__(self) -> CrawlPanel:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._stop()
