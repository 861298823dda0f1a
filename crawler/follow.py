"""``FollowMiddleware``: analysis, edges and rank-aware following for any spider.

A spider middleware (``SPIDER_MIDDLEWARES`` order 950, set by the add-on). For every response the
spider handles it first passes the spider's own output on unchanged, then analyses the response
with the crawl's one ``PageAnalyzer``, whose worker stores the page's edges (whether or not the spider
yields items; nothing is added to its items), and yields one
``Request`` per link RANKCRAWL_FOLLOW_SCOPE selects, with a rank-aware priority
(``crawler/priority.py``: content links and live ranks first, links that are no edge last).
The requests travel the normal spider-output path, so DepthMiddleware (DEPTH_LIMIT),
RefererMiddleware, UrlLengthMiddleware, the offsite filter (``allowed_domains``), every spider
middleware with a lower order and the dupefilter apply. They carry no callback: the spider's
default callback (``parse``; a CrawlSpider's rules) gets their responses. Links the spider itself
requested from the same page are not requested twice. A page whose callback raises is not
analysed (Scrapy reports the spider error).

A link to a URL that rankcrawl's frontier (``RankedScheduler``) holds queued already, or handed out
before, is credited to it directly (``RankedScheduler.credit``: the evidence the request would carry),
without a request that the frontier or its dupefilter would drop as a duplicate: most links of a page
lead to URLs seen before, and a request costs the reactor far more than the entry's update (the spider
middlewares, the scheduling signals, the fingerprint). Likewise a request Scrapy's offsite filter would drop is asked
of it (``OffsiteFilter``, once per host) before it is made: pages link out of the allowed domains a lot, and
each such request would cost the reactor as much as one it keeps.

RANKCRAWL_MAX_PAGES (``PageBudget``) counts the responses that reach the spider; at the limit the
crawl closes with reason ``page_budget`` and no more links are followed (pages in flight finish).

Graph conventions: a response >= 400 (through an errback, ``handle_httpstatus_*`` or
HttpErrorMiddleware's HttpError) is stored as gone, so the URL gets no rank (redirects become
aliases in ``crawler/redirects.py``).

Stats: ``page_analyzer.record_stats``'s, ``rankcrawl/dropped/{non_html,http_error}``,
``rankcrawl/follow/requests`` (links followed), ``rankcrawl/follow/content`` (of them, links that are
edges), ``rankcrawl/follow/credited`` (of them, links credited to a queued or handed-out URL instead of requested).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

from scrapy import Request, signals
from scrapy.downloadermiddlewares.offsite import OffsiteMiddleware
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import Response, TextResponse
from scrapy.spidermiddlewares.httperror import HttpError
from scrapy.utils.defer import deferred_from_coro
from scrapy.utils.misc import load_object

from rankcrawl.crawler.budget import PageBudget
from rankcrawl.crawler.frontier_scores import LINK_META, VALUE_META
from rankcrawl.crawler.priority import TOPIC_GAIN, Prioritizer, RankCache, topical
from rankcrawl.crawler.scheduler import RankedScheduler
from rankcrawl.pipelines.edges.sink import EdgeSink
from rankcrawl.pipelines.page_analyzer import NotAnalysed, PageAnalyzer, record_stats
from rankcrawl.pipelines.site.result import FollowLink, PageResult
from rankcrawl.ranker.store.records import GONE_STATUS
from rankcrawl.settings.config import RankcrawlConfig, shared_if_built
from rankcrawl.settings.urls import host_of, normalize_url


def selected(link: FollowLink, scope: str) -> bool:
    """Whether RANKCRAWL_FOLLOW_SCOPE ``scope`` follows ``link``."""
    if scope == "all":
        return True
    if scope == "non-template":
        return not link.template
    return scope == "content" and link.counted


class OffsiteFilter:
    """Whether Scrapy's offsite filter drops a request to a URL: the crawl's ``OffsiteMiddleware`` (a
    downloader middleware that drops requests on ``request_scheduled``, subclasses with their own
    ``should_follow`` included) asked directly, with its stats and log line as ever, so the request
    need not travel the spider middlewares and the engine to be dropped there. Never, without one.

    Scrapy's own class decides by the host name alone (``allowed_domains``), so its verdict is asked
    once per host (while the spider's ``allowed_domains`` stay the same, at most ``MAX_HOSTS`` kept)
    and a later request it would drop is counted in ``offsite/filtered`` as it counts it, without a
    ``Request``; a subclass is asked for every request."""

    MAX_HOSTS = 100_000

    def __init__(self, crawler: Any) -> None:
        try:
            found = [mw for mw in crawler.engine.downloader.middleware.middlewares if isinstance(mw, OffsiteMiddleware)]
        except (AttributeError, RuntimeError):  # no engine or downloader (yet), or another Scrapy's internals
            found = []
        self.crawler, self.found = crawler, found
        self.by_host = all(type(mw) is OffsiteMiddleware for mw in found)
        self.verdicts: dict[str, bool] = {}
        self.domains: tuple[str, ...] | None = None

    def __call__(self, url: str) -> bool:
        if not self.found:
            return False
        if not self.by_host:
            return self._ask(url)
        domains = tuple(getattr(self.crawler.spider, "allowed_domains", None) or ())
        if domains != self.domains or len(self.verdicts) >= self.MAX_HOSTS:
            self.verdicts.clear()
            self.domains = domains
        host = host_of(url)
        verdict = self.verdicts.get(host)
        if verdict is None:
            verdict = self.verdicts[host] = self._ask(url)
        elif verdict:
            self.crawler.stats.inc_value("offsite/filtered")
        return verdict

    def _ask(self, url: str) -> bool:
        request = Request(url)
        try:
            for mw in self.found:
                mw.request_scheduled(request, self.crawler.spider)
        except IgnoreRequest:
            return True
        return False


class FollowMiddleware:
    """Spider middleware: analyse every response, store its edges, follow its links by priority."""

    def __init__(self, crawler: Any, config: RankcrawlConfig) -> None:
        self.crawler, self.stats, self.config = crawler, crawler.stats, config
        self.analyzer = PageAnalyzer.of(crawler)
        self.sink = EdgeSink.of(crawler)
        self.budget = PageBudget(crawler, config.max_pages)
        self.rank_cache = RankCache(config.redis_url, config.key_prefix, config.rank_refresh)
        self.prioritizer = Prioritizer(self.rank_cache, config.topic_terms)
        self.offsite = OffsiteFilter(None)

    @classmethod
    def from_crawler(cls, crawler: Any) -> FollowMiddleware:
        config = RankcrawlConfig.of(crawler)
        if not config.enabled:
            raise NotConfigured("RANKCRAWL_ENABLED is False")
        mw = cls(crawler, config)
        crawler.signals.connect(mw.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(mw.spider_closed, signal=signals.spider_closed)
        return mw

    def spider_opened(self, spider: Any) -> None:
        """Add the spider's own topic terms (``spider.topic_terms``) and start reading ranks."""
        self.prioritizer = Prioritizer(self.rank_cache, (*self.config.topic_terms, *getattr(spider, "topic_terms", ())))
        self.offsite = OffsiteFilter(self.crawler)
        if self.config.follow_scope != "none" and self._priorities_matter():
            self.rank_cache.start()

    def _priorities_matter(self) -> bool:
        """Whether request priorities order the crawl: another scheduler, or the ``static`` frontier
        (the other strategies score queued URLs themselves, so no rank is read for priorities)."""
        scheduler = load_object(self.crawler.settings["SCHEDULER"])
        return not (isinstance(scheduler, type) and issubclass(scheduler, RankedScheduler)) or self.config.frontier == "static"

    def spider_closed(self, spider: Any) -> None:
        self.rank_cache.stop()

    def process_spider_input(self, response: Response) -> None:
        self.budget.count()

    async def process_spider_output(self, response: Response, result: AsyncIterator[Any]) -> AsyncIterator[Any]:
        requested = {normalize_url(response.url) or response.url}
        own: list[Request] = []
        async for output in result:
            if isinstance(output, Request):
                requested.add(normalize_url(output.url) or output.url)
                own.append(output)
            else:
                yield output
        page = await self._analyse(response)
        votes = self._votes(response, page)
        for request in own:  # the spider's own requests carry the evidence of the page's links too
            vote = votes.get(normalize_url(request.url) or request.url)
            if vote is not None:
                request.meta.setdefault(LINK_META, vote)
            yield request
        if page is None or self.budget.spent() or self.config.follow_scope == "none":
            return
        followed = content = credited = 0   # counted once per page: Scrapy's stats calls cost more than the loop
        frontier = shared_if_built(self.crawler, RankedScheduler)
        try:
            for link in page.follow:
                if link.url in requested or not selected(link, self.config.follow_scope):
                    continue
                requested.add(link.url)
                followed += 1
                content += link.counted
                if frontier is not None and frontier.credit(link.url, votes[link.url]):
                    credited += 1
                    continue
                if self.offsite(link.url):
                    continue
                request = Request(link.url, meta={LINK_META: votes[link.url]})
                request.priority = self.prioritizer.priority(page.url, link.url, link.weight, link.text, link.counted)
                yield request
        finally:
            self.stats.inc_value("rankcrawl/follow/requests", followed)
            self.stats.inc_value("rankcrawl/follow/content", content)
            self.stats.inc_value("rankcrawl/follow/credited", credited)

    def _votes(self, response: Response, page: PageResult | None) -> dict[str, list[float]]:
        """Per link target of the page: [the page's value, the link's share of its vote, its topic
        boost] (the frontier's in-link evidence; share = weight / total weight of the page's counted
        links, 0 if not counted; boost = 1 + TOPIC_GAIN · the share of the topic terms in its text)."""
        if page is None:
            return {}
        value = response.meta.get(VALUE_META, 0.0)
        total = sum(link.weight for link in page.follow if link.counted and link.weight > 0)
        terms = self.prioritizer.terms
        return {link.url: [value, link.weight / total if link.counted and total > 0 and link.weight > 0 else 0.0,
                           1.0 + TOPIC_GAIN * topical(link.text, terms) if terms else 1.0]
                for link in page.follow}

    def process_spider_exception(self, response: Response, exception: Exception) -> None:
        """A response HttpErrorMiddleware refused (4xx/5xx, no errback): store the URL as gone
        (in the background: Scrapy wants None here; HttpErrorMiddleware then logs and drops it)."""
        if isinstance(exception, HttpError):
            deferred_from_coro(self._store_fetch(response))

    async def _store_fetch(self, response: Response) -> None:
        """An answer >= 400 makes the URL gone: no edges, no rank (redirects: ``crawler/redirects.py``)."""
        if response.status >= GONE_STATUS:
            await self.sink.put_gone(response.url, self._meta(response))

    @staticmethod
    def _meta(response: Response) -> dict[str, Any]:
        return {"status": response.status, "depth": int(response.meta.get("depth", 0)), "fetched_at": time.time()}

    async def _analyse(self, response: Response) -> PageResult | None:
        """Analyse the page (its worker stores it); None when it is no HTML page (counted in a stat)."""
        await self._store_fetch(response)
        try:
            page = await self.analyzer.analyze(
                response.url, response.body, status=response.status,
                encoding=response.encoding if isinstance(response, TextResponse) else None,
                content_type=(response.headers.get(b"Content-Type") or b"").decode("latin-1"), meta=self._meta(response))
        except NotAnalysed as exc:
            self.stats.inc_value(f"rankcrawl/dropped/{exc.reason}")
            return None
        record_stats(self.stats, page)
        return page
