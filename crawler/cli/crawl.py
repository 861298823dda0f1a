"""``rankcrawl crawl SEED_URL... [--max-pages N] [-s NAME=VALUE] [-a NAME=VALUE] [-o|-O FILE[:FORMAT]]
[-L LEVEL | --nolog] [--redis-url URL]`` (SPEC §6). ``-s``, ``-a``, ``-o``/``-O``, ``-L`` and ``--nolog``
are Scrapy's ``crawl`` options.

In a terminal the crawl is a live panel (``live_panel``) with Scrapy's log in a file, and ends with a
summary and the top fetched pages; otherwise the log goes to stderr as usual and the ``rankcrawl/…``
stats and ``finish_reason`` are printed as ``name<TAB>value`` lines.

Exits non-zero with one line for a bad setting or ``-o``/``-O``, an unreachable, full or read-only
Redis, a crawl that ended for another reason than its frontier or page budget, or pages not stored
by the end.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click
from scrapy.exceptions import UsageError
from scrapy.settings import Settings
from scrapy.utils.conf import feed_process_params_from_cli

from rankcrawl.crawler.cli.options import UserError, one_line_errors, redis_url_option
from rankcrawl.settings.connection import home_dir

LOG_LEVELS = ("CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG")


def parse_overrides(pairs: tuple[str, ...], option: str = "-s") -> dict[str, str]:
    """``NAME=VALUE`` pairs as a dict; UserError for a pair without ``=`` or name."""
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise UserError(f"{option} expects NAME=VALUE, got {pair!r}")
        out[name.strip()] = value
    return out


def log_settings(level: str | None, nolog: bool) -> dict[str, str | bool]:
    """Scrapy's ``-L LEVEL`` / ``--nolog`` as settings."""
    return {"LOG_ENABLED": False} if nolog else {"LOG_LEVEL": level.upper()} if level else {}


def feed_settings(output: tuple[str, ...], overwrite: tuple[str, ...], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Scrapy's ``-o``/``-O`` as the FEEDS setting (format from ``FILE:FORMAT`` or the extension), by Scrapy's
    own rules; UserError for both options at once or an unknown format."""
    if not output and not overwrite:
        return {}
    settings = Settings()
    settings.setdict(dict(overrides), priority="cmdline")
    try:
        return {"FEEDS": feed_process_params_from_cli(settings, list(output), overwrite_output=list(overwrite))}
    except UsageError as exc:
        raise UserError(str(exc)) from None


def tilde(path: str) -> str:
    """``path`` with the user's home folder written ``~``."""
    try:
        return str(Path("~") / Path(path).relative_to(Path.home()))
    except ValueError:
        return path


def panel_log(overrides: Mapping[str, Any], nolog: bool) -> tuple[dict[str, Any], str, int | None]:
    """While the live panel is shown: the log settings, where the log goes (``log: PATH``), and the level
    of the records printed above the panel (None: no log)."""
    if nolog:
        return {}, "log: off (--nolog)", None
    level = logging.getLevelName(str(overrides.get("LOG_LEVEL", "INFO")).upper())
    above = level if isinstance(level, int) else logging.INFO
    path = overrides.get("LOG_FILE")
    extra: dict[str, Any] = {}
    if not path:
        home_dir().mkdir(parents=True, exist_ok=True)
        path = str(home_dir() / "crawl.log")
        extra = {"LOG_FILE": path, "LOG_FILE_APPEND": False}
    return extra, f"log: {tilde(str(path))}", above


SIGNALLED = "shutdown"
"""Scrapy's finish reason for a crawl a signal ended (SIGINT, SIGTERM, SIGBREAK)."""
INTERRUPTED = 130
"""Exit status of a crawl a signal ended: 128 + SIGINT, as a shell reports an interrupted command."""


@click.command("crawl")
@click.argument("seeds", nargs=-1, required=True, metavar="SEED_URL...")
@click.option("--max-pages", type=click.IntRange(min=1), default=None, help="Page budget (pages fetched).")
@click.option("-s", "--set", "pairs", multiple=True, metavar="NAME=VALUE", help="A Scrapy/rankcrawl setting.")
@click.option("-a", "arguments", multiple=True, metavar="NAME=VALUE",
              help="A spider argument: allowed_domains=host,host or topic=word,word.")
@click.option("-o", "--output", multiple=True, metavar="FILE[:FORMAT]",
              help="Append the pages fetched (url, status, depth, title) to FILE (format from the extension).")
@click.option("-O", "--overwrite-output", "overwrite", multiple=True, metavar="FILE[:FORMAT]",
              help="Like -o, but overwrite FILE.")
@click.option("-L", "--loglevel", type=click.Choice(LOG_LEVELS, case_sensitive=False), default=None,
              help="Log level (default: INFO).")
@click.option("--nolog", is_flag=True, help="No log at all (the figures are still printed).")
@redis_url_option
@one_line_errors
def crawl(seeds: tuple[str, ...], max_pages: int | None, pairs: tuple[str, ...], arguments: tuple[str, ...],
          output: tuple[str, ...], overwrite: tuple[str, ...], loglevel: str | None, nolog: bool,
          redis_url: str | None) -> None:
    """A focused crawl from SEED_URL... with the rankcrawl plugin on: a live panel in a terminal, the
    crawl's figures at the end."""
    from rankcrawl.crawler.crawl_outcome import nothing_fetched
    from rankcrawl.crawler.runner import run_crawl
    from rankcrawl.crawler.spider import check_seeds
    from rankcrawl.pipelines.edges.sink import REDIS_UNAVAILABLE
    from rankcrawl.pipelines.workers.processes import tune_collector

    tune_collector()
    check_seeds(seeds)
    spider_args = parse_overrides(arguments, "-a")
    if "seeds" in spider_args:
        raise UserError("give the seeds as SEED_URL arguments, not -a seeds=")
    overrides = {**parse_overrides(pairs), **log_settings(loglevel, nolog)}
    overrides.update(feed_settings(output, overwrite, overrides))
    if sys.stdout.isatty():
        stats = crawl_in_terminal(list(seeds), max_pages, overrides, redis_url, spider_args, nolog)
    else:
        stats = run_crawl(list(seeds), max_pages=max_pages, overrides=overrides, redis_url=redis_url,
                          spider_args=spider_args)
        for name in sorted(k for k in stats if k.startswith("rankcrawl/")):
            click.echo(f"{name}\t{stats[name]}")
        click.echo(f"finish_reason\t{stats.get('finish_reason', '')}")
    reason = stats.get("finish_reason", "")
    if failed := nothing_fetched(stats):
        raise UserError(failed)
    pages, edges = stats.get("rankcrawl/pages/unflushed", 0), stats.get("rankcrawl/edges/unflushed", 0)
    lost = f"{pages} pages ({edges} edges) could not be stored in Redis before the flush timeout" if pages or edges else ""
    if reason == REDIS_UNAVAILABLE:
        raise UserError(f"crawl stopped: Redis was unreachable (no write for RANKCRAWL_FLUSH_TIMEOUT); {pages} pages "
                        f"({edges} edges) fetched were not stored")
    if reason == SIGNALLED:
        click.echo("rankcrawl: crawl stopped by a signal (Ctrl-C or SIGTERM); the pages analysed so far are "
                   "stored and ranked" + (f", but {lost}" if lost else ""), err=True)
        raise SystemExit(INTERRUPTED)
    if reason not in ("finished", "page_budget"):
        raise UserError(f"crawl ended: {reason or 'unknown reason'}" + (f"; {lost}" if lost else ""))
    if lost:
        raise UserError(lost)
    if failed := stats.get("rankcrawl/pages/failed", 0):
        raise UserError(f"{failed} pages could not be stored (corrupt values in Redis or write errors: see the log)")
    if unwritten := stats.get("rankcrawl/site/unwritten", 0):
        raise UserError(f"the site-level state of {unwritten} pages could not be written to Redis before the flush timeout "
                        "(their edges used the per-page decision)")


def crawl_in_terminal(seeds: list[str], max_pages: int | None, overrides: dict[str, Any], redis_url: str | None,
                      spider_args: dict[str, str], nolog: bool) -> dict[str, Any]:
    """The crawl under the live panel, then its summary and top fetched pages; the final stats."""
    from rich.console import Console

    from rankcrawl.crawler.cli.live_panel import CrawlPanel, render_summary
    from rankcrawl.crawler.runner import run_crawl

    extra, note, above = panel_log(overrides, nolog)
    console = Console()
    with CrawlPanel(console, max_pages, note, above) as panel:
        stats = run_crawl(seeds, max_pages=max_pages, overrides={**overrides, **extra}, redis_url=redis_url,
                          spider_args=spider_args, on_crawler=panel.watch)
    console.print(render_summary(panel.figures, stats.get("finish_reason", ""), panel.final_top()))
    return stats
