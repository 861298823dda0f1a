"""``rankcrawl crawl SEED_URL... [--max-pages N] [-s NAME=VALUE] [-a NAME=VALUE] [-L LEVEL | --nolog]
[--redis-url URL]`` (SPEC §6). ``-s``, ``-a``, ``-L`` and ``--nolog`` are Scrapy's ``crawl`` options.

Exits non-zero with one line for a bad setting, an unreachable, full or read-only Redis, a crawl
that ended for another reason than its frontier or page budget, or pages not stored by the end.
"""

from __future__ import annotations

import click

from rankcrawl.crawler.cli.options import UserError, one_line_errors, redis_url_option

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


@click.command("crawl")
@click.argument("seeds", nargs=-1, required=True, metavar="SEED_URL...")
@click.option("--max-pages", type=click.IntRange(min=1), default=None, help="Page budget (pages fetched).")
@click.option("-s", "--set", "pairs", multiple=True, metavar="NAME=VALUE", help="A Scrapy/rankcrawl setting.")
@click.option("-a", "arguments", multiple=True, metavar="NAME=VALUE",
              help="A spider argument: allowed_domains=host,host or topic=word,word.")
@click.option("-L", "--loglevel", type=click.Choice(LOG_LEVELS, case_sensitive=False), default=None,
              help="Log level (default: INFO).")
@click.option("--nolog", is_flag=True, help="No log at all (the figures are still printed).")
@redis_url_option
@one_line_errors
def crawl(seeds: tuple[str, ...], max_pages: int | None, pairs: tuple[str, ...], arguments: tuple[str, ...],
          loglevel: str | None, nolog: bool, redis_url: str | None) -> None:
    """A focused crawl from SEED_URL... with the rankcrawl plugin on; prints the crawl's figures."""
    from rankcrawl.crawler.crawl_outcome import nothing_fetched
    from rankcrawl.crawler.runner import run_crawl
    from rankcrawl.crawler.spider import check_seeds
    from rankcrawl.pipelines.edge_pipeline import REDIS_UNAVAILABLE

    check_seeds(seeds)
    spider_args = parse_overrides(arguments, "-a")
    if "seeds" in spider_args:
        raise UserError("give the seeds as SEED_URL arguments, not -a seeds=")
    overrides = {**parse_overrides(pairs), **log_settings(loglevel, nolog)}
    stats = run_crawl(list(seeds), max_pages=max_pages, overrides=overrides, redis_url=redis_url,
                      spider_args=spider_args)
    for name in sorted(k for k in stats if k.startswith("rankcrawl/")):
        click.echo(f"{name}\t{stats[name]}")
    reason = stats.get("finish_reason", "")
    click.echo(f"finish_reason\t{reason}")
    if failed := nothing_fetched(stats):
        raise UserError(failed)
    pages, edges = stats.get("rankcrawl/pages/unflushed", 0), stats.get("rankcrawl/edges/unflushed", 0)
    lost = f"{pages} pages ({edges} edges) could not be stored in Redis before the flush timeout" if pages or edges else ""
    if reason == REDIS_UNAVAILABLE:
        raise UserError(f"crawl stopped: Redis was unreachable (no write for RANKCRAWL_FLUSH_TIMEOUT); {pages} pages "
                        f"({edges} edges) fetched were not stored")
    if reason not in ("finished", "page_budget"):
        raise UserError(f"crawl ended: {reason or 'unknown reason'}" + (f"; {lost}" if lost else ""))
    if lost:
        raise UserError(lost)
    if failed := stats.get("rankcrawl/pages/failed", 0):
        raise UserError(f"{failed} pages could not be stored (corrupt values in Redis or write errors: see the log)")
    if unwritten := stats.get("rankcrawl/site/unwritten", 0):
        raise UserError(f"the site-level state of {unwritten} pages could not be written to Redis before the flush timeout "
                        "(their edges used the per-page decision)")
