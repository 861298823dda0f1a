"""The ``rankcrawl`` command: the root group, assembled from each package's commands."""

from __future__ import annotations

import click

from rankcrawl.crawler.crawl_command import crawl
from rankcrawl.crawler.demo import demo
from rankcrawl.pipelines import cli as pipelines_cli
from rankcrawl.ranker import cli as ranker_cli


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="rankcrawl")
def main() -> None:
    """Focused Scrapy crawls with live PageRank over content links, stored in Redis."""


for command in (*pipelines_cli.COMMANDS, *ranker_cli.COMMANDS):
    main.add_command(command)

main.add_command(crawl)
main.add_command(demo)
