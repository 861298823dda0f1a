"""``PageAnalyzer``: one fetched page → its edges stored, the links to follow, and figures.

The one entry point that every crawl path calls (the spider middleware for any spider, the item
pipeline for items that carry a body). The page goes to the analysis worker of its host
(``workers.pool.AnalysisPool``, RANKCRAWL_ANALYSIS_WORKERS, default one per core; 0 = one worker in a
thread of this process), which analyses it (SPEC §2.1–2.3, capped at ``max_bytes``), runs the
site-level step (§2.4–2.7) with its host's memory and stores the page's edges; the reactor thread
only awaits the ``PageResult``.

Follow ≠ count: ``PageResult.edges`` are the links that count as graph edges (``edge_scope``);
``PageResult.follow`` lists every followable http(s) link of the page with ``counted`` telling
whether it is one of the edges and ``template`` whether the site-level step found it in a host
template, so a crawler can fetch the whole site and still order content links first. Links to the
page itself are neither. Each page's analysis runs within RANKCRAWL_ANALYSIS_TIMEOUT (``budget``):
past it the page's prefix is analysed (``PageResult.prefix``), else it is skipped. Repeated links to one target make one edge
(RANKCRAWL_SUM_REPEATED_LINKS sums them). ``repush`` carries earlier pages whose edges the
site-level step changed (stored by the worker already). ``close()`` must be awaited at the end of the
crawl: the workers replay site-level state Redis missed during an outage (stat ``rankcrawl/site/unwritten``:
pages whose state could not be written), flush their edges and stop (``workers.pool``: its stats).
"""

from __future__ import annotations

import logging
import resource
from collections import OrderedDict
from typing import Any

from scrapy import signals

from rankcrawl.pipelines.page.classifiers import FILTERS
from rankcrawl.pipelines.page.steps import PRESETS, preset
from rankcrawl.pipelines.site.result import PageResult
from rankcrawl.pipelines.workers.pool import AnalysisPool, WorkerCrashed
from rankcrawl.pipelines.workers.worker import Page
from rankcrawl.settings.config import RankcrawlConfig, per_crawler
from rankcrawl.settings.defaults import DEFAULTS

logger = logging.getLogger(__name__)

HTML_TYPES = ("text/html", "application/xhtml+xml")
SNIFF_BYTES = 1024
RECENT_PAGES = 4096


class NotAnalysed(Exception):
    """The page is not analysed (HTTP error, not HTML); ``reason`` names the stat."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def is_html(content_type: str, body: bytes) -> bool:
    """HTML by its Content-Type, or — without one — by a sniff of the first bytes."""
    ctype = content_type.split(";", 1)[0].strip().lower()
    if ctype:
        return ctype in HTML_TYPES
    head = body[:SNIFF_BYTES].lstrip().lower()
    return b"\x00" not in head and (head.startswith(b"<!doctype html") or b"<html" in head)


def check_classifier(spec: str) -> None:
    """ValueError naming the allowed values unless ``spec`` is a classifier, optionally ``+filter``
    (RANKCRAWL_CLASSIFIER)."""
    try:
        preset(spec)
    except ValueError:
        raise ValueError(f"one of {', '.join(sorted(PRESETS))}, optionally +{' or +'.join(FILTERS)}") from None


class PageAnalyzer:
    """A fetched page to its host's analysis worker; what comes back is what the crawl follows."""

    def __init__(self, pool: AnalysisPool, timeout: float = DEFAULTS["RANKCRAWL_ANALYSIS_TIMEOUT"]) -> None:
        self.pool, self.timeout = pool, timeout
        self.recent: OrderedDict[str, None] = OrderedDict()

    @classmethod
    def from_settings(cls, settings: Any) -> PageAnalyzer:
        """The analyzer a crawl's ``RANKCRAWL_*`` settings describe (site-level state in its Redis)."""
        return cls.from_config(RankcrawlConfig.from_settings(settings))

    @classmethod
    def from_config(cls, config: RankcrawlConfig) -> PageAnalyzer:
        """The analyzer of a checked config; its worker processes start at once."""
        return cls(AnalysisPool.from_config(config), config.analysis_timeout)

    @classmethod
    def of(cls, crawler: Any) -> PageAnalyzer:
        """The crawl's one analyzer, over the crawl's one pool (built on first use), closed when the
        spider closes."""
        def build() -> PageAnalyzer:
            analyzer = cls(AnalysisPool.of(crawler), RankcrawlConfig.of(crawler).analysis_timeout)

            async def spider_closed() -> None:
                await analyzer.close(crawler.stats)

            crawler.signals.connect(spider_closed, signal=signals.spider_closed, weak=False)
            return analyzer

        return per_crawler(crawler, cls, build)

    def stored(self, url: str) -> bool:
        """True when this crawl recently analysed and stored ``url``'s page (so an item for it needs no analysis)."""
        return url in self.recent

    async def analyze(self, url: str, body: bytes, *, status: int = 200, encoding: str | None = None,
                      content_type: str = "", meta: dict[str, Any] | None = None) -> PageResult:
        """Analyse one fetched page; its worker stores its edges with ``meta`` (status, depth, fetch time;
        None: store nothing). ``NotAnalysed`` for HTTP errors, non-HTML bodies, pages over the analysis
        time budget (even on their prefix) and pages whose worker died under them."""
        if status >= 400:
            raise NotAnalysed("http_error", f"HTTP {status}: {url}")
        if not is_html(content_type, body):
            raise NotAnalysed("non_html", f"not HTML ({content_type or 'no content type'}): {url}")
        try:
            result = await self.pool.run(url, body, encoding, meta)
        except WorkerCrashed as exc:
            raise NotAnalysed("worker_crashed", str(exc)) from None
        return self._checked(url, result, meta)

    def analyze_sync(self, url: str, body: bytes, encoding: str | None = None,
                     meta: dict[str, Any] | None = None) -> PageResult:
        """Everything in the calling thread, with a worker of this process (tests, tools)."""
        lane = self.pool.lane(url)
        return self._checked(url, lane.local().page(Page(0, url, body, encoding, meta)), meta)

    def _checked(self, url: str, result: PageResult | None, meta: dict[str, Any] | None) -> PageResult:
        if result is None:
            raise NotAnalysed("analysis_timeout",
                              f"analysis over its {self.timeout:g} s budget (RANKCRAWL_ANALYSIS_TIMEOUT): {url}")
        if meta is not None:
            self.recent[url] = None
            if len(self.recent) > RECENT_PAGES:
                self.recent.popitem(last=False)
        return result

    async def close(self, stats: Any = None) -> None:
        """The workers' end (``AnalysisPool.close``: replay, flush, stop); final stats."""
        await self.pool.close()
        if stats is not None:
            for name, value in self.pool.stats().items():
                stats.set_value(name, value)
            stats.set_value("rankcrawl/crawl_process/cpu_s", round(process_cpu(), 1))


def process_cpu() -> float:
    """CPU seconds (user + system) of this process so far: the reactor and everything else the crawl
    process runs, its analysis worker processes (analysis, site level, edge writes) not included."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def record_stats(stats: Any, r: PageResult) -> None:
    """Add one page's figures to Scrapy's stats (``rankcrawl/...``)."""
    inc = stats.inc_value
    inc("rankcrawl/pages/analysed")
    inc("rankcrawl/pages/truncated", int(r.truncated))
    inc("rankcrawl/pages/analysis_prefix", int(r.prefix))
    inc("rankcrawl/pages/near_duplicates", int(r.duplicate))
    inc("rankcrawl/pages/repushed", len(r.repush))
    inc("rankcrawl/pages/site_fallback", int(r.fallback))
    inc("rankcrawl/blocks", r.blocks)
    inc("rankcrawl/blocks/boilerplate", r.boilerplate_blocks)
    inc("rankcrawl/blocks/template", r.template_blocks)
    inc("rankcrawl/links/seen", r.links_seen)
    inc("rankcrawl/links/kept", r.links_kept)
    inc("rankcrawl/links/dropped/self", r.self_links)
    if r.duplicate:
        inc("rankcrawl/links/dropped/duplicate", max(r.links_seen - r.self_links - r.links_kept, 0))
    else:
        inc("rankcrawl/links/dropped/template", r.template_links)
        inc("rankcrawl/links/dropped/boilerplate",
            max(r.links_seen - r.self_links - r.links_kept - r.template_links, 0))
    blocks = stats.get_value("rankcrawl/blocks") or 0
    if blocks:
        stats.set_value("rankcrawl/boilerplate_share", round((stats.get_value("rankcrawl/blocks/boilerplate") or 0) / blocks, 4))
