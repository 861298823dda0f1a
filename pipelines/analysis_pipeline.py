"""Item pipeline: a fetched page → per-page analysis → site-level analysis → edges and links to follow.

Runs ``analyze`` (SPEC §2.1–2.3, capped at RANKCRAWL_MAX_PAGE_BYTES) and then the per-host
``SiteAnalyzer`` (§2.4–2.6) in a worker thread, so neither parsing nor the site analyzer's Redis
calls block the reactor. RANKCRAWL_LINK_SCOPE names the links that count — as graph edges and as
links to follow: ``content`` (content-region links), ``non-template`` (every link outside
template pagelets/segments), ``all``. The item gets ``edges`` (target → summed weight),
``follow`` ((url, anchor + block text, weight) of the counted links) and ``repush`` (earlier pages
of the host whose edges the site-level step recomputed, e.g. once a template was discovered).
Without site-level analysis, ``non-template`` falls back to every link. Non-HTML or binary
responses and HTTP errors are dropped with a stat, never a crash.

Stats: ``rankcrawl/pages/{analysed,truncated,near_duplicates,repushed}``,
``rankcrawl/blocks``, ``rankcrawl/blocks/{boilerplate,template}``, ``rankcrawl/boilerplate_share``,
``rankcrawl/links/{seen,kept}``, ``rankcrawl/links/dropped/{boilerplate,template,duplicate}``,
``rankcrawl/dropped/{non_html,http_error}``, ``rankcrawl/pages/analysis_{prefix,skipped}`` (pages over
RANKCRAWL_ANALYSIS_TIMEOUT: analysed on their prefix, or dropped; ``budget.analyze_within``).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from itemadapter import ItemAdapter
from scrapy.exceptions import DropItem, NotConfigured
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.threads import deferToThread

from rankcrawl.pipelines.budget import analysis_timeout, analyze_within
from rankcrawl.pipelines.document import Document, Link
from rankcrawl.pipelines.sitelevel import SiteAnalyzer
from rankcrawl.settings.connection import connect, resolve_redis_url
from rankcrawl.settings.defaults import DEFAULTS, check_choices

logger = logging.getLogger(__name__)

HTML_TYPES = ("text/html", "application/xhtml+xml")
SNIFF_BYTES = 1024


def is_html(content_type: str, body: bytes) -> bool:
    """HTML by its Content-Type, or — without one — by a sniff of the first bytes."""
    ctype = content_type.split(";", 1)[0].strip().lower()
    if ctype:
        return ctype in HTML_TYPES
    head = body[:SNIFF_BYTES].lstrip().lower()
    return b"\x00" not in head and (head.startswith(b"<!doctype html") or b"<html" in head)


def edges_of(links: list[Link]) -> list[tuple[str, float]]:
    """One edge per target URL, weights of repeated links summed, in first-seen order."""
    weights: dict[str, float] = defaultdict(float)
    for link in links:
        weights[link.url] += link.weight
    return [(url, w) for url, w in weights.items() if w > 0]


def follow_of(doc: Document, links: list[Link]) -> list[tuple[str, str, float]]:
    """(url, anchor + block text, weight) of ``links``, one per URL."""
    seen: dict[str, tuple[str, str, float]] = {}
    for link in links:
        if link.url not in seen:
            block = doc.blocks[link.block].text if 0 <= link.block < len(doc.blocks) else ""
            seen[link.url] = (link.url, f"{link.text} {block}", link.weight)
    return list(seen.values())


@dataclass
class Analysis:
    """What the worker thread found for one page."""

    doc: Document
    counted: list[Link]
    edges: list[tuple[str, float]]
    template_links: int = 0
    template_blocks: int = 0
    duplicate: bool = False
    repush: list[tuple[str, list[tuple[str, float]]]] = field(default_factory=list)
    outcome: str = "complete"


class AnalysisPipeline:
    """Per-page and site-level analysis of every crawled page."""

    def __init__(self, crawler: Any) -> None:
        s = crawler.settings
        self.stats = crawler.stats
        check_choices(s)
        self.scope = s.get("RANKCRAWL_LINK_SCOPE") or DEFAULTS["RANKCRAWL_LINK_SCOPE"]
        self.max_bytes = s.getint("RANKCRAWL_MAX_PAGE_BYTES", DEFAULTS["RANKCRAWL_MAX_PAGE_BYTES"])
        self.classifier = s.get("RANKCRAWL_CLASSIFIER") or DEFAULTS["RANKCRAWL_CLASSIFIER"]
        self.timeout = analysis_timeout(s)
        self.site: SiteAnalyzer | None = None
        if s.getbool("RANKCRAWL_SITE_LEVEL", DEFAULTS["RANKCRAWL_SITE_LEVEL"]):
            self.site = site_analyzer(
                resolve_redis_url(None, s),
                s.get("RANKCRAWL_KEY_PREFIX") or DEFAULTS["RANKCRAWL_KEY_PREFIX"],
                s.get("RANKCRAWL_LINK_WEIGHTING") or DEFAULTS["RANKCRAWL_LINK_WEIGHTING"],
                self.scope,
            )
        self.n_blocks = self.n_boiler = 0

    @classmethod
    def from_crawler(cls, crawler: Any) -> "AnalysisPipeline":
        if not crawler.settings.getbool("RANKCRAWL_ENABLED", DEFAULTS["RANKCRAWL_ENABLED"]):
            raise NotConfigured("RANKCRAWL_ENABLED is False")
        return cls(crawler)

    async def process_item(self, item: Any) -> Any:
        a = ItemAdapter(item)
        if int(a.get("status") or 200) >= 400:
            self.stats.inc_value("rankcrawl/dropped/http_error")
            raise DropItem(f"HTTP {a.get('status')}: {a['url']}")
        body = a.get("body") or b""
        if not is_html(a.get("content_type") or "", body):
            self.stats.inc_value("rankcrawl/dropped/non_html")
            raise DropItem(f"not HTML ({a.get('content_type') or 'no content type'}): {a['url']}")
        result = await maybe_deferred_to_future(deferToThread(self._analyze, a["url"], body, a.get("encoding")))
        if result is None:
            self.stats.inc_value("rankcrawl/pages/analysis_skipped")
            raise DropItem(f"analysis over its {self.timeout:g} s budget (RANKCRAWL_ANALYSIS_TIMEOUT): {a['url']}")
        a["title"] = result.doc.title
        a["edges"] = result.edges
        a["follow"] = follow_of(result.doc, result.counted)
        a["repush"] = result.repush
        self._count(result)
        return item

    def _analyze(self, url: str, body: bytes, encoding: str | None) -> Analysis | None:
        """Worker thread: parse and classify within the time budget (None: skipped), then apply the
        host's site-level decision."""
        opts = {"classifier": self.classifier} if self.classifier else {}
        budgeted = analyze_within(body, url=url, encoding=encoding, timeout=self.timeout, max_bytes=self.max_bytes, **opts)
        doc = budgeted.doc
        if doc is None:
            return None
        if self.site is None:
            counted = doc.links if self.scope == "content" else doc.all_links
            return Analysis(doc, counted, edges_of(counted), outcome=budgeted.outcome)
        decision = self.site.process(doc)
        counted = [link for link, w in zip(doc.all_links, decision.link_weights) if w > 0]
        repush = [(u, self.site.edges_for(u)) for u in decision.stale]
        return Analysis(doc, counted, decision.edges, len(decision.template_links), len(decision.template_blocks),
                        decision.duplicate_of is not None, repush, budgeted.outcome)

    def _count(self, r: Analysis) -> None:
        inc = self.stats.inc_value
        blocks = r.doc.blocks
        content = sum(b.is_content for b in blocks)
        seen, kept = len(r.doc.all_links), len(r.counted)
        self.n_blocks += len(blocks)
        self.n_boiler += len(blocks) - content
        inc("rankcrawl/pages/analysed")
        inc("rankcrawl/pages/truncated", int(r.doc.truncated))
        inc("rankcrawl/pages/analysis_prefix", int(r.outcome == "prefix"))
        inc("rankcrawl/pages/near_duplicates", int(r.duplicate))
        inc("rankcrawl/pages/repushed", len(r.repush))
        inc("rankcrawl/blocks", len(blocks))
        inc("rankcrawl/blocks/boilerplate", len(blocks) - content)
        inc("rankcrawl/blocks/template", r.template_blocks)
        inc("rankcrawl/links/seen", seen)
        inc("rankcrawl/links/kept", kept)
        if r.duplicate:
            inc("rankcrawl/links/dropped/duplicate", seen)
        else:
            inc("rankcrawl/links/dropped/template", r.template_links)
            inc("rankcrawl/links/dropped/boilerplate", max(seen - kept - r.template_links, 0))
        if self.n_blocks:
            self.stats.set_value("rankcrawl/boilerplate_share", round(self.n_boiler / self.n_blocks, 4))


def site_analyzer(redis_url: str | None, prefix: str, weighting: str, scope: str) -> SiteAnalyzer:
    """The per-host SiteAnalyzer over its own Redis client."""
    return SiteAnalyzer(connect(redis_url), prefix=prefix, weighting=weighting, scope=scope)
