"""``PageAnalyzer``: one fetched page → its content edges, the links to follow, and figures.

The one entry point that every crawl path calls (the spider middleware for any spider, the item
pipeline for items that carry a body). Per-page analysis (SPEC §2.1–2.3, capped at ``max_bytes``)
runs in worker processes (``workers.AnalysisPool``, RANKCRAWL_ANALYSIS_WORKERS, default one per
core) and returns ``PageFacts``; the per-host ``SiteAnalyzer`` (§2.4–2.7) then runs in one
dedicated thread — one Redis round trip per page — so the reactor thread only awaits.

Follow ≠ count: ``PageResult.edges`` are the links that count as graph edges (``edge_scope``);
``PageResult.follow`` lists every followable http(s) link of the page with ``counted`` telling
whether it is one of the edges, so a crawler can fetch the whole site and still order content
links first. Links to the page itself are neither. Repeated links to one target make one edge
(RANKCRAWL_SUM_REPEATED_LINKS sums them). ``repush`` carries earlier pages whose edges the
site-level step changed. ``close()`` must be awaited at the end of the crawl: it stops the
workers, replays site-level state Redis missed during an outage (stat ``rankcrawl/site/unwritten``:
pages whose state could not be written) and writes the last re-pushes.
"""

from __future__ import annotations

import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import redis
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.threads import deferToThread

from rankcrawl.pipelines.pagefacts import FactOptions, PageFacts, analyze_page
from rankcrawl.pipelines.sitedecide import Decision, decide, page_keys
from rankcrawl.pipelines.sitelevel import REDIS_AWAY, SiteAnalyzer
from rankcrawl.pipelines.workers import AnalysisPool, WorkerCrashed, in_thread
from rankcrawl.ranker.store.graphstore import GraphStore, PageRecord
from rankcrawl.settings.connection import connect, resolve_redis_url
from rankcrawl.settings.defaults import DEFAULTS, check_choices

logger = logging.getLogger(__name__)

HTML_TYPES = ("text/html", "application/xhtml+xml")
SNIFF_BYTES = 1024
SITE_TIMEOUT = 5.0
"""Seconds a site-level Redis call may take before the page falls back to its per-page decision."""
Edges = list[tuple[str, float]]


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


@dataclass
class FollowLink:
    """A link the crawler may schedule: target, anchor + block text, weight, counted as an edge."""

    url: str
    text: str
    weight: float
    counted: bool


@dataclass
class PageResult:
    """What the analysis found for one page."""

    url: str
    title: str
    edges: Edges
    follow: list[FollowLink]
    repush: list[tuple[str, Edges]] = field(default_factory=list)
    blocks: int = 0
    boilerplate_blocks: int = 0
    template_blocks: int = 0
    links_seen: int = 0
    links_kept: int = 0
    template_links: int = 0
    self_links: int = 0
    duplicate: bool = False
    truncated: bool = False
    fallback: bool = False


def follow_of(f: PageFacts, weights: list[float]) -> list[FollowLink]:
    """Every link of the page once (first occurrence), counted links flagged."""
    kept = {url for url, w in zip(f.links, weights) if w > 0}
    seen: dict[str, FollowLink] = {}
    for url, anchor, b, w in zip(f.links, f.anchors, f.link_block, weights):
        if url not in seen:
            block = f.block_text[b] if 0 <= b < len(f.block_text) else ""
            seen[url] = FollowLink(url, f"{anchor} {block}", w, url in kept)
    return list(seen.values())


def result_of(f: PageFacts, d: Decision, repush: list[tuple[str, Edges]]) -> PageResult:
    content = sum(ct and i not in set(d.template_blocks) for i, ct in enumerate(f.block_content))
    return PageResult(
        url=f.url, title=f.title, edges=d.edges, follow=follow_of(f, d.link_weights), repush=repush,
        blocks=len(f.block_content), boilerplate_blocks=len(f.block_content) - content,
        template_blocks=len(d.template_blocks), links_seen=len(f.links) + f.self_links,
        links_kept=sum(w > 0 for w in d.link_weights), template_links=len(d.template_links),
        self_links=f.self_links, duplicate=d.duplicate, truncated=f.truncated, fallback=d.fallback)


class PageAnalyzer:
    """Per-page analysis in worker processes, then the site-level step in one thread."""

    def __init__(self, *, scope: str = "content", max_bytes: int = 2_000_000, classifier: str | None = None,
                 site: SiteAnalyzer | None = None, workers: int = 0, sum_repeated: bool = False,
                 redis_url: str | None = None, prefix: str = "rc:", flush_timeout: float = 60.0) -> None:
        self.scope, self.site, self.sum_repeated = scope, site, sum_repeated
        self.redis_url, self.prefix, self.flush_timeout = redis_url, prefix, flush_timeout
        self.options = FactOptions(site=site is not None, weighting=site.weighting if site else "uniform",
                                   classifier=classifier, max_bytes=max_bytes)
        self.pool = AnalysisPool(workers, self.options)
        self.site_thread = ThreadPoolExecutor(1, thread_name_prefix="rankcrawl-site") if site else None

    @classmethod
    def from_settings(cls, settings: Any) -> "PageAnalyzer":
        """The analyzer a crawl's ``RANKCRAWL_*`` settings describe (site-level state in its Redis)."""
        check_choices(settings)
        scope = settings.get("RANKCRAWL_LINK_SCOPE") or DEFAULTS["RANKCRAWL_LINK_SCOPE"]
        prefix = settings.get("RANKCRAWL_KEY_PREFIX") or DEFAULTS["RANKCRAWL_KEY_PREFIX"]
        sum_repeated = settings.getbool("RANKCRAWL_SUM_REPEATED_LINKS", DEFAULTS["RANKCRAWL_SUM_REPEATED_LINKS"])
        url = resolve_redis_url(None, settings)
        site = None
        if settings.getbool("RANKCRAWL_SITE_LEVEL", DEFAULTS["RANKCRAWL_SITE_LEVEL"]):
            site = SiteAnalyzer(
                connect(url, socket_timeout=SITE_TIMEOUT), prefix=prefix, scope=scope, sum_repeated=sum_repeated,
                weighting=settings.get("RANKCRAWL_LINK_WEIGHTING") or DEFAULTS["RANKCRAWL_LINK_WEIGHTING"],
                buffer=settings.getint("RANKCRAWL_EDGE_BUFFER", DEFAULTS["RANKCRAWL_EDGE_BUFFER"]))
        workers = settings.get("RANKCRAWL_ANALYSIS_WORKERS", DEFAULTS["RANKCRAWL_ANALYSIS_WORKERS"])
        analyzer = cls(scope=scope, max_bytes=settings.getint("RANKCRAWL_MAX_PAGE_BYTES", DEFAULTS["RANKCRAWL_MAX_PAGE_BYTES"]),
                   classifier=settings.get("RANKCRAWL_CLASSIFIER") or DEFAULTS["RANKCRAWL_CLASSIFIER"], site=site,
                   workers=(os.cpu_count() or 1) if workers is None else int(workers), sum_repeated=sum_repeated,
                   redis_url=url, prefix=prefix,
                   flush_timeout=settings.getfloat("RANKCRAWL_FLUSH_TIMEOUT", DEFAULTS["RANKCRAWL_FLUSH_TIMEOUT"]))
        analyzer.pool.start()  # the workers warm up while the crawl starts
        return analyzer

    async def analyze(self, url: str, body: bytes, *, status: int = 200, encoding: str | None = None,
                      content_type: str = "") -> PageResult:
        """Analyse one fetched page; ``NotAnalysed`` for HTTP errors, non-HTML bodies and crashed workers."""
        if status >= 400:
            raise NotAnalysed("http_error", f"HTTP {status}: {url}")
        if not is_html(content_type, body):
            raise NotAnalysed("non_html", f"not HTML ({content_type or 'no content type'}): {url}")
        try:
            facts = await self.pool.run(url, body, encoding)
        except WorkerCrashed as exc:
            raise NotAnalysed("worker_crashed", str(exc)) from None
        if self.site_thread is None:
            return self.decide(facts)
        return await in_thread(self.site_thread, self.decide, facts)

    def analyze_sync(self, url: str, body: bytes, encoding: str | None = None) -> PageResult:
        """Everything in the calling thread (tests, tools)."""
        return self.decide(analyze_page(url, body, encoding, self.options))

    def decide(self, facts: PageFacts) -> PageResult:
        """The page's edges and follow links from its facts (site-level step when enabled)."""
        if self.site is None:
            keys = page_keys(facts)
            d = decide(facts, keys, lambda k: False, False, False, [1.0] * len(facts.links), self.scope,
                       self.sum_repeated)
            return result_of(facts, d, [])
        d = self.site.process(facts)
        return result_of(facts, d, self.site.take_repush())

    async def close(self, stats: Any = None) -> None:
        """Stop the workers, replay the site-level backlog, write the last re-pushes; final stats."""
        await maybe_deferred_to_future(deferToThread(self._close, stats))

    def _close(self, stats: Any) -> None:
        self.pool.close()
        if self.site is None or self.site_thread is None:
            return
        site = self.site
        self.site_thread.submit(site.close, self.flush_timeout).result()
        self.site_thread.shutdown()
        repush = site.take_repush()
        left = self._write(repush) if repush else 0
        if stats is not None:
            for name, value in (("rankcrawl/site/round_trips", site.round_trips),
                                ("rankcrawl/site/fallback", site.fallbacks),
                                ("rankcrawl/site/replayed", site.replayed),
                                ("rankcrawl/site/unwritten", site.unwritten + left),
                                ("rankcrawl/analysis/workers", self.pool.workers),
                                ("rankcrawl/analysis/worker_restarts", self.pool.restarts),
                                ("rankcrawl/analysis/in_flight_max", self.pool.peak)):
                stats.set_value(name, value)

    def _write(self, repush: list[tuple[str, Edges]]) -> int:
        """Store re-pushed edges left at close directly (the edge pipeline may be closed); pages left."""
        deadline = time.monotonic() + self.flush_timeout
        while True:
            try:
                store = GraphStore(connect(self.redis_url), self.prefix)
                records = [PageRecord(u, list(e), store.meta(u) or {}) for u, e in repush]
                store.put_pages(records)
                return 0
            except (*REDIS_AWAY, redis.RedisError) as exc:
                if time.monotonic() > deadline:
                    logger.error("rankcrawl: %d re-pushed pages not stored: %s", len(repush), exc)
                    return len(repush)
                time.sleep(0.5)


def record_stats(stats: Any, r: PageResult) -> None:
    """Add one page's figures to Scrapy's stats (``rankcrawl/...``)."""
    inc = stats.inc_value
    inc("rankcrawl/pages/analysed")
    inc("rankcrawl/pages/truncated", int(r.truncated))
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
        inc("rankcrawl/links/dropped/duplicate", r.links_seen - r.self_links)
    else:
        inc("rankcrawl/links/dropped/template", r.template_links)
        inc("rankcrawl/links/dropped/boilerplate",
            max(r.links_seen - r.self_links - r.links_kept - r.template_links, 0))
    blocks = stats.get_value("rankcrawl/blocks") or 0
    if blocks:
        stats.set_value("rankcrawl/boilerplate_share", round((stats.get_value("rankcrawl/blocks/boilerplate") or 0) / blocks, 4))
