"""The ``rankcrawl`` command: the root group, with each package's commands imported on first use.

Lazy loading (click's documented ``LazyGroup`` pattern) keeps ``rankcrawl extract`` from
importing numba, Scrapy and the ranker it does not need.
"""

from __future__ import annotations

import importlib

import click

COMMANDS = {
    "extract": "rankcrawl.crawler.cli.extract:extract",
    "crawl": "rankcrawl.crawler.cli.crawl:crawl",
    "demo": "rankcrawl.crawler.cli.demo:demo",
    "ranker": "rankcrawl.crawler.cli.ranking:ranker",
    "top": "rankcrawl.crawler.cli.ranking:top",
    "rank": "rankcrawl.crawler.cli.ranking:rank",
    "graph": "rankcrawl.crawler.cli.ranking:graph",
    "ranks": "rankcrawl.crawler.cli.ranking:ranks",
    "server": "rankcrawl.crawler.cli.server:server",
    "reset": "rankcrawl.crawler.cli.server:reset",
}


class LazyGroup(click.Group):
    """A group whose subcommands are ``module:attribute`` strings imported when invoked."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, attribute = COMMANDS[cmd_name].split(":")
        return getattr(importlib.import_module(module), attribute)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="rankcrawl")
def main() -> None:
    """Focused Scrapy crawls with live PageRank over content links, stored in Redis."""
