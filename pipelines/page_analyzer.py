"""``PageAnalyzer``: one fetched page → its content edges, the links to follow, and figures.

The one entry point that every crawl path calls (the spider middleware for any spider, the item
pipeline for items that carry a body). Per-page analysis (SPEC §2.1–2.3, capped at ``max_bytes``)
runs in worker processes (``workers.pool.AnalysisPool``, RANKCRAWL_ANALYSIS_WORKERS, default one per
core) and returns ``PageFacts``; the per-host ``SiteAnalyzer`` (§2.4–2.7) then runs in a process
of its own (``workers.site_process``) — one Redis round trip per page — so the reactor thread only awaits.

Follow ≠ count: ``PageResult.edges`` are the links that count as graph edges (``edge_scope``);
``PageResult.follow`` lists every followable http(s) link of the page with ``counted`` telling
whether it is one of the edges and ``template`` whether the site-level step found it in a host
template, so a crawler can fetch the whole site and still order content links first. Links to the
page itself are neither. Each page's analysis runs within RANKCRAWL_ANALYSIS_TIMEOUT (``budget``):
past it the page's prefix is analysed (``PageResult.prefix``), else it is skipped. Repeated links to one target make one edge
(RANKCRAWL_SUM_REPEATED_LINKS sums them). ``repush`` carries earlier pages whose edges the
site-level step changed. ``close()`` must be awaited at the end of the crawl: it stops the
workers, replays site-level state Redis missed during an outage (stat ``rankcrawl/site/unwritten``:
pages whose state could not be written, a dead site-level process's backlog included; its restarts are
``rankcrawl/site/restarts``; corrupt values of that state, each repaired, ``rankcrawl/site/corrupt``)
and writes the last re-pushes.
"""

from __future__ import annotations

import logging
import resource
import time
from typing import Any

import redis
from scrapy import signals
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.threads import deferToThread

from rankcrawl.pipelines.page.classifiers import FILTERS
from rankcrawl.pipelines.page.steps import PRESETS, preset
from rankcrawl.pipelines.site.analyzer import REDIS_AWAY, SiteAnalyzer
from rankcrawl.pipelines.site.decide import decide, page_keys
from rankcrawl.pipelines.site.facts import FactOptions, PageFacts, analyze_page
from rankcrawl.pipelines.site.result import Edges, PageResult, result_of
from rankcrawl.pipelines.workers.pool import AnalysisPool, WorkerCrashed
from rankcrawl.pipelines.workers.site_process import SITE_TIMEOUT, SiteProcess, SiteSpec, SiteThread
from rankcrawl.ranker.store.graphstore import GraphStore, PageRecord
from rankcrawl.settings.config import RankcrawlConfig, per_crawler
from rankcrawl.settings.connection import RedisUnavailable, connect, embedded_server, retry_until
from rankcrawl.settings.defaults import DEFAULTS

logger = logging.getLogger(__name__)

HTML_TYPES = ("text/html", "application/xhtml+xml")
SNIFF_BYTES = 1024


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
    """Per-page analysis in worker processes, then the site-level step in a process of its own.

    ``site``: a ``SiteAnalyzer`` runs in one thread of this process; a ``SiteSpec`` builds one in
    the site-level process (in a thread when ``workers`` is 0); None: no site-level step.
    """

    def __init__(self, *, scope: str = "content", max_bytes: int = 2_000_000, classifier: str | None = None,
                 site: SiteAnalyzer | SiteSpec | None = None, timeout: float = DEFAULTS["RANKCRAWL_ANALYSIS_TIMEOUT"],
                 workers: int = 0, sum_repeated: bool = False, redis_url: str | None = None, prefix: str = "rc:",
                 flush_timeout: float = 60.0) -> None:
        self.scope, self.sum_repeated, self.timeout = scope, sum_repeated, timeout
        self.redis_url, self.prefix, self.flush_timeout = redis_url, prefix, flush_timeout
        self.site: SiteThread | SiteProcess | None = None
        if isinstance(site, SiteSpec):
            self.site = SiteProcess(site) if workers else SiteThread(site.build())
        elif site is not None:
            self.site = SiteThread(site)
        self.options = FactOptions(site=site is not None, weighting=site.weighting if site else "uniform",
                                   classifier=classifier, max_bytes=max_bytes, timeout=timeout)
        self.closed = False
        self.pool = AnalysisPool(workers, self.options)

    @classmethod
    def from_settings(cls, settings: Any) -> PageAnalyzer:
        """The analyzer a crawl's ``RANKCRAWL_*`` settings describe (site-level state in its Redis)."""
        return cls.from_config(RankcrawlConfig.from_settings(settings))

    @classmethod
    def from_config(cls, config: RankcrawlConfig) -> PageAnalyzer:
        """The analyzer of a checked config; its worker processes (and the site-level one) start at once."""
        site = None
        if config.site_level:
            url = config.redis_url or embedded_server().ensure_running()
            connect(url, socket_timeout=SITE_TIMEOUT).close()  # unreachable: one line, now
            site = SiteSpec(url, config.key_prefix, config.link_weighting, config.edge_scope,
                            config.sum_repeated_links, config.edge_buffer)
        analyzer = cls(scope=config.edge_scope, max_bytes=config.max_page_bytes, classifier=config.classifier, site=site,
                       timeout=config.analysis_timeout, workers=config.workers,
                       sum_repeated=config.sum_repeated_links, redis_url=config.redis_url, prefix=config.key_prefix,
                       flush_timeout=config.flush_timeout)
        analyzer.pool.start()
        if isinstance(analyzer.site, SiteProcess):
            analyzer.site.start()
        return analyzer

    @classmethod
    def of(cls, crawler: Any) -> PageAnalyzer:
        """The crawl's one analyzer, shared by its components (built on first use), closed when the
        spider closes."""
        def build() -> PageAnalyzer:
            analyzer = cls.from_config(RankcrawlConfig.of(crawler))

            async def spider_closed() -> None:
                await analyzer.close(crawler.stats)

            crawler.signals.connect(spider_closed, signal=signals.spider_closed, weak=False)
            return analyzer

        return per_crawler(crawler, cls, build)

    async def analyze(self, url: str, body: bytes, *, status: int = 200, encoding: str | None = None,
                      content_type: str = "") -> PageResult:
        """Analyse one fetched page; ``NotAnalysed`` for HTTP errors, non-HTML bodies, pages over the
        analysis time budget (even on their prefix) and crashed workers."""
        if status >= 400:
            raise NotAnalysed("http_error", f"HTTP {status}: {url}")
        if not is_html(content_type, body):
            raise NotAnalysed("non_html", f"not HTML ({content_type or 'no content type'}): {url}")
        try:
            facts = await self.pool.run(url, body, encoding)
        except WorkerCrashed as exc:
            raise NotAnalysed("worker_crashed", str(exc)) from None
        self._check(facts)
        if self.site is None:
            return self.decide(facts)
        try:
            return await self.site.decide(facts)
        except WorkerCrashed as exc:
            raise NotAnalysed("worker_crashed", str(exc)) from None

    def analyze_sync(self, url: str, body: bytes, encoding: str | None = None) -> PageResult:
        """Everything in the calling thread (tests, tools)."""
        facts = analyze_page(url, body, encoding, self.options)
        self._check(facts)
        return self.decide(facts) if self.site is None else self.site.decide_sync(facts)

    def _check(self, facts: PageFacts) -> None:
        if facts.outcome == "skipped":
            raise NotAnalysed("analysis_timeout",
                              f"analysis over its {self.timeout:g} s budget (RANKCRAWL_ANALYSIS_TIMEOUT): {facts.url}")

    def decide(self, facts: PageFacts) -> PageResult:
        """The page's edges and follow links from its facts alone (no site-level step)."""
        d = decide(facts, page_keys(facts), lambda k: False, False, False, [1.0] * len(facts.links), self.scope,
                   self.sum_repeated)
        return result_of(facts, d, [])

    async def close(self, stats: Any = None) -> None:
        """Stop the workers, replay the site-level backlog, write the last re-pushes; final stats (once)."""
        if self.closed:
            return
        self.closed = True
        await maybe_deferred_to_future(deferToThread(self._close, stats))

    def _close(self, stats: Any) -> None:
        self.pool.close()
        if self.site is None:
            return
        site = self.site.close(self.flush_timeout)
        left = self._write(site.repush) if site.repush else 0
        if stats is not None:
            counts = site.figures
            for name, value in (("rankcrawl/site/round_trips", counts.round_trips),
                                ("rankcrawl/site/fallback", counts.fallbacks),
                                ("rankcrawl/site/replayed", counts.replayed),
                                ("rankcrawl/site/unwritten", counts.unwritten + left),
                                ("rankcrawl/site/corrupt", counts.corrupt),
                                ("rankcrawl/site/restarts", self.site.restarts),
                                ("rankcrawl/analysis/workers", self.pool.workers),
                                ("rankcrawl/analysis/worker_restarts", self.pool.restarts),
                                ("rankcrawl/analysis/in_flight_max", self.pool.peak),
                                ("rankcrawl/analysis/slowest_ms", round(self.pool.slowest * 1000)),
                                ("rankcrawl/analysis/cpu_s", round(self.pool.cpu, 1)),
                                ("rankcrawl/crawl_process/cpu_s", round(process_cpu(), 1))):
                stats.set_value(name, value)

    def _write(self, repush: list[tuple[str, Edges]]) -> int:
        """Store re-pushed edges left at close directly (the edge pipeline may be closed); pages left."""
        def write() -> None:
            store = GraphStore(connect(self.redis_url), self.prefix)
            store.put_pages([PageRecord(u, list(e), store.meta(u) or {}) for u, e in repush])

        try:
            retry_until(time.monotonic() + self.flush_timeout, write, (*REDIS_AWAY, redis.RedisError, RedisUnavailable))
            return 0
        except (*REDIS_AWAY, redis.RedisError, RedisUnavailable) as exc:
            logger.error("rankcrawl: %d re-pushed pages not stored: %s", len(repush), exc)
            return len(repush)


def process_cpu() -> float:
    """CPU seconds (user + system) of this process so far: the reactor, the edge writer and
    everything else the crawl process runs, its worker processes (analysis, site level) not included."""
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
