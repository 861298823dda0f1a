"""The peer of bench/realcrawl.py: a plain Scrapy spider that follows every link, nothing else.

Same politeness as ``rankcrawl crawl`` (rankcrawl's add-on values: robots.txt obeyed,
per-domain concurrency, delay, AutoThrottle, FIFO order, user agent), same seeds and allowed
hosts; ``-s NAME=VALUE`` overrides them as for ``rankcrawl crawl``. Proxy from the
``http_proxy``/``https_proxy`` environment (Scrapy's HttpProxyMiddleware).

    python bench/plainspider.py SEED_URL... [-s NAME=VALUE]...
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import scrapy
from scrapy.crawler import CrawlerProcess
from scrapy.http import Response, TextResponse
from scrapy.linkextractors import LinkExtractor

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rankcrawl.settings.addon import CRAWLING  # noqa: E402
from rankcrawl.settings.urls import host_of  # noqa: E402


class PlainSpider(scrapy.Spider):
    name = "plain"
    custom_settings: dict[str, Any] | None = {"CONCURRENT_ITEMS": 1}
    """As rankcrawl's FocusedSpider, which also yields requests only: the same Scrapy settings."""

    def __init__(self, seeds: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.seeds = seeds
        self.allowed_domains = sorted({host_of(u) for u in seeds})
        self.extractor = LinkExtractor()

    async def start(self):  # type: ignore[override]
        for url in self.seeds:
            yield scrapy.Request(url, callback=self.parse)

    def parse(self, response: Response) -> Iterable[scrapy.Request]:
        if isinstance(response, TextResponse):
            for link in self.extractor.extract_links(response):
                yield scrapy.Request(link.url, callback=self.parse)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seeds", nargs="+")
    parser.add_argument("-s", dest="pairs", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args()
    settings = {**CRAWLING, "TELNETCONSOLE_ENABLED": False, "REMOTE_CONTROL_ENABLED": False, "LOG_LEVEL": "INFO"}
    for pair in args.pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            parser.error(f"-s expects NAME=VALUE, got {pair!r}")
        settings[name] = value
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(PlainSpider)
    process.crawl(crawler, seeds=args.seeds)
    process.start()
    reason = crawler.stats.get_value("finish_reason")
    print(f"finish_reason\t{reason}")
    if reason != "finished":
        raise SystemExit(f"plain crawl ended: {reason}")


if __name__ == "__main__":
    main()
