"""Redirects become aliases in the graph (SPEC §2.7): links to them count for the target.

Two downloader middlewares (set by the add-on) see each redirect before Scrapy follows it — also
when the dupefilter then drops the redirected request because the target was fetched already
(``/docs`` → ``/docs/``), which the final response's ``redirect_urls`` would never show:
``RedirectAliasMiddleware`` (650, above RedirectMiddleware's 600) for 3xx + ``Location``, and
``MetaRefreshAliasMiddleware`` (585: below HttpCompression's 590, so it reads the decoded body;
above MetaRefreshMiddleware's 580) for ``<meta http-equiv=refresh>`` with the same rules as Scrapy
(METAREFRESH_ENABLED, METAREFRESH_MAXDELAY, METAREFRESH_IGNORE_TAGS). Each hop is stored with
``GraphStore.put_redirect`` through the crawl's ``EdgeSink``; the graph resolves chains. robots.txt
requests are left out. Stat: ``rankcrawl/pages/redirects``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urljoin

from scrapy import Request
from scrapy.exceptions import NotConfigured
from scrapy.http import HtmlResponse, Response
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.response import get_meta_refresh
from w3lib.url import safe_url_string

from rankcrawl.pipelines.edges.sink import EdgeSink
from rankcrawl.settings.config import RankcrawlConfig
from rankcrawl.settings.urls import normalize_url

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})


def redirect_target(request: Request, response: Response) -> str | None:
    """The absolute http(s) URL a redirect response points to (as RedirectMiddleware joins it), else None."""
    location = response.headers.get(b"Location")
    if response.status not in REDIRECT_STATUSES or not location:
        return None
    target = urljoin(request.url, safe_url_string(location.decode("latin-1")))
    return target if normalize_url(target) else None


class RedirectAliasMiddleware:
    """Downloader middleware: store each HTTP redirect's URL as an alias of its Location."""

    def __init__(self, crawler: Any) -> None:
        self.sink = EdgeSink.of(crawler)

    @classmethod
    def from_crawler(cls, crawler: Any) -> RedirectAliasMiddleware:
        if not RankcrawlConfig.of(crawler).enabled:
            raise NotConfigured("RANKCRAWL_ENABLED is False")
        return cls(crawler)

    async def process_response(self, request: Request, response: Response) -> Response:
        target = redirect_target(request, response)
        if target is not None and request.callback is not NO_CALLBACK:
            await self.sink.put_redirects([request.url], target)
        return response


class MetaRefreshAliasMiddleware(RedirectAliasMiddleware):
    """Downloader middleware: store a meta-refresh page's URL as an alias of its refresh target."""

    def __init__(self, crawler: Any) -> None:
        super().__init__(crawler)
        settings = crawler.settings
        if not settings.getbool("METAREFRESH_ENABLED"):
            raise NotConfigured("METAREFRESH_ENABLED is False")
        self.ignore_tags = settings.getlist("METAREFRESH_IGNORE_TAGS")
        self.max_delay = settings.getint("METAREFRESH_MAXDELAY")

    async def process_response(self, request: Request, response: Response) -> Response:
        if isinstance(response, HtmlResponse) and request.callback is not NO_CALLBACK:
            interval, url = get_meta_refresh(response, ignore_tags=self.ignore_tags)
            if url and normalize_url(url) and float(interval or 0) < self.max_delay:
                await self.sink.put_redirects([request.url], url)
        return response
