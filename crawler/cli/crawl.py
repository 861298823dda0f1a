"""``rankcrawl crawl SEED_URL... [--max-pages N] [-s NAME=VALUE] [--redis-url URL]`` (SPEC §6).

Exits non-zero with one line for a bad setting, an unreachable, full or read-only Redis, a crawl
that ended for another reason than its frontier or page budget, or pages not stored by the end.
"""

from __future__ import annotations

import click

from rankcrawl.crawler.cli.options import UserError, one_line_errors, redis_url_option


def parse_overrides(pairs: tuple[str, ...]) -> dict[str, str]:
    """``NAME=VALUE`` pairs as a dict; UserError for a pair without ``=`` or name."""
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise UserError(f"-s expects NAME=VALUE, got {pair!r}")
        out[name.strip()] = value
    return out


@click.command("crawl")
@click.argument("seeds", nargs=-1, required=True, metavar="SEED_URL...")
@click.option("--max-pages", type=click.IntRange(min=1), default=None, help="Page budget (pages fetched).")
@click.option("-s", "--set", "pairs", multiple=True, metavar="NAME=VALUE", help="A Scrapy/rankcrawl setting.")
@redis_url_option
@one_line_errors
def crawl(seeds: tuple[str, ...], max_pages: int | None, pairs: tuple[str, ...], redis_url: str | None) -> None:
    """A focused crawl from SEED_URL... with the rankcrawl plugin on; prints the crawl's figures."""
    from rankcrawl.crawler.runner import run_crawl
    from rankcrawl.crawler.safety import all_refused
    from rankcrawl.crawler.spider import check_seeds

    check_seeds(seeds)
    stats = run_crawl(list(seeds), max_pages=max_pages, overrides=parse_overrides(pairs), redis_url=redis_url)
    for name in sorted(k for k in stats if k.startswith("rankcrawl/")):
        click.echo(f"{name}\t{stats[name]}")
    reason = stats.get("finish_reason", "")
    click.echo(f"finish_reason\t{reason}")
    refused = all_refused(stats)
    if refused:
        raise UserError(refused)
    pages, edges = stats.get("rankcrawl/pages/unflushed", 0), stats.get("rankcrawl/edges/unflushed", 0)
    lost = f"{pages} pages ({edges} edges) could not be stored in Redis before the flush timeout" if pages or edges else ""
    if reason not in ("finished", "page_budget"):
        raise UserError(f"crawl ended: {reason or 'unknown reason'}" + (f"; {lost}" if lost else ""))
    if lost:
        raise UserError(lost)
    if failed := stats.get("rankcrawl/pages/failed", 0):
        raise UserError(f"{failed} pages could not be stored (corrupt values in Redis or write errors: see the log)")
    if unwritten := stats.get("rankcrawl/site/unwritten", 0):
        raise UserError(f"the site-level state of {unwritten} pages could not be written to Redis before the flush timeout "
                        "(their edges used the per-page decision)")
