"""``PageAnalyzer``: one fetched page → its content edges, the links to follow, and figures.

The one entry point that every crawl path calls (the spider middleware for any spider, the item
pipeline for items that carry a body): per-page analysis (SPEC §2.1–2.3, capped at
``max_bytes``) and then the per-host ``SiteAnalyzer`` (§2.4–2.6), off the reactor thread.

Follow ≠ count: ``PageResult.edges`` are the links that count as graph edges (``edge_scope``);
``PageResult.follow`` lists every followable http(s) link of the page with ``counted`` telling
whether it is one of the edges and ``template`` whether the site-level step found it in a host
template, so a crawler can fetch the whole site and still order content links first.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.threads import deferToThread

from rankcrawl.pipelines.budget import analyze_within
from rankcrawl.pipelines.classifiers import FILTERS
from rankcrawl.pipelines.document import Document, Link
from rankcrawl.pipelines.sitelevel import SiteAnalyzer
from rankcrawl.pipelines.steps import PRESETS, preset
from rankcrawl.settings.config import RankcrawlConfig, per_crawler
from rankcrawl.settings.connection import connect
from rankcrawl.settings.defaults import DEFAULTS

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


def edges_of(links: list[Link]) -> list[tuple[str, float]]:
    """One edge per target URL, weights of repeated links summed, in first-seen order."""
    weights: dict[str, float] = defaultdict(float)
    for link in links:
        weights[link.url] += link.weight
    return [(url, w) for url, w in weights.items() if w > 0]


@dataclass
class FollowLink:
    """A link the crawler may schedule: target, anchor + block text, weight, counted as an edge,
    flagged template by the site-level step."""

    url: str
    text: str
    weight: float
    counted: bool
    template: bool = False


@dataclass
class PageResult:
    """What the analysis found for one page."""

    url: str
    title: str
    edges: list[tuple[str, float]]
    follow: list[FollowLink]
    repush: list[tuple[str, list[tuple[str, float]]]] = field(default_factory=list)
    blocks: int = 0
    boilerplate_blocks: int = 0
    template_blocks: int = 0
    links_seen: int = 0
    links_kept: int = 0
    template_links: int = 0
    duplicate: bool = False
    truncated: bool = False
    prefix: bool = False


def follow_of(doc: Document, counted: list[Link], template: frozenset[int] = frozenset()) -> list[FollowLink]:
    """Every link of the page once (first occurrence), flagged counted (an edge) and template (every
    occurrence is one of the ``template`` indices into ``doc.all_links``)."""
    kept = {link.url for link in counted}
    elsewhere = {link.url for i, link in enumerate(doc.all_links) if i not in template}
    seen: dict[str, FollowLink] = {}
    for link in doc.all_links:
        if link.url not in seen:
            block = doc.blocks[link.block].text if 0 <= link.block < len(doc.blocks) else ""
            seen[link.url] = FollowLink(link.url, f"{link.text} {block}", link.weight, link.url in kept,
                                        link.url not in elsewhere)
    return list(seen.values())


def check_classifier(spec: str) -> None:
    """ValueError naming the allowed values unless ``spec`` is a classifier, optionally ``+filter``
    (RANKCRAWL_CLASSIFIER)."""
    try:
        preset(spec)
    except ValueError:
        raise ValueError(f"one of {', '.join(sorted(PRESETS))}, optionally +{' or +'.join(FILTERS)}") from None


class PageAnalyzer:
    """Per-page and site-level analysis of fetched pages, run off the reactor thread."""

    def __init__(self, *, scope: str = "content", max_bytes: int = 2_000_000, classifier: str | None = None,
                 site: SiteAnalyzer | None = None, timeout: float = DEFAULTS["RANKCRAWL_ANALYSIS_TIMEOUT"]) -> None:
        self.scope, self.max_bytes, self.classifier, self.site = scope, max_bytes, classifier, site
        self.timeout = timeout

    @classmethod
    def from_settings(cls, settings: Any) -> PageAnalyzer:
        """The analyzer a crawl's ``RANKCRAWL_*`` settings describe (site-level state in its Redis)."""
        return cls.from_config(RankcrawlConfig.from_settings(settings))

    @classmethod
    def from_config(cls, config: RankcrawlConfig) -> PageAnalyzer:
        """The analyzer of a checked config (edge scope, classifier, byte cap, site-level step)."""
        site = None
        if config.site_level:
            site = SiteAnalyzer(connect(config.redis_url), prefix=config.key_prefix,
                                weighting=config.link_weighting, scope=config.edge_scope)
        return cls(scope=config.edge_scope, max_bytes=config.max_page_bytes, classifier=config.classifier, site=site,
                   timeout=config.analysis_timeout)

    @classmethod
    def of(cls, crawler: Any) -> PageAnalyzer:
        """The crawl's one analyzer, shared by its components (built on first use)."""
        return per_crawler(crawler, cls, lambda: cls.from_config(RankcrawlConfig.of(crawler)))

    async def analyze(self, url: str, body: bytes, *, status: int = 200, encoding: str | None = None,
                      content_type: str = "") -> PageResult:
        """Analyse one fetched page; ``NotAnalysed`` for HTTP errors, non-HTML bodies and pages over the
        analysis time budget (even on their prefix)."""
        if status >= 400:
            raise NotAnalysed("http_error", f"HTTP {status}: {url}")
        if not is_html(content_type, body):
            raise NotAnalysed("non_html", f"not HTML ({content_type or 'no content type'}): {url}")
        return await maybe_deferred_to_future(deferToThread(self.analyze_sync, url, body, encoding))

    def analyze_sync(self, url: str, body: bytes, encoding: str | None = None) -> PageResult:
        """The blocking part: parse and classify within the time budget, then apply the host's site-level decision."""
        opts: dict[str, Any] = {"classifier": self.classifier} if self.classifier else {}
        budgeted = analyze_within(body, url=url, encoding=encoding, timeout=self.timeout, max_bytes=self.max_bytes, **opts)
        doc = budgeted.doc
        if doc is None:
            raise NotAnalysed("analysis_timeout",
                              f"analysis over its {self.timeout:g} s budget (RANKCRAWL_ANALYSIS_TIMEOUT): {url}")
        template_links = template_blocks = 0
        template: frozenset[int] = frozenset()
        duplicate = False
        repush: list[tuple[str, list[tuple[str, float]]]] = []
        if self.site is None:
            counted = doc.links if self.scope == "content" else doc.all_links
            edges = edges_of(counted)
        else:
            decision = self.site.process(doc)
            counted = [link for link, w in zip(doc.all_links, decision.link_weights) if w > 0]
            edges = decision.edges
            repush = [(u, self.site.edges_for(u)) for u in decision.stale]
            template = frozenset(decision.template_links)
            template_links, template_blocks = len(decision.template_links), len(decision.template_blocks)
            duplicate = decision.duplicate_of is not None
        content = sum(b.is_content for b in doc.blocks)
        return PageResult(
            url=url, title=doc.title, edges=edges, follow=follow_of(doc, counted, template), repush=repush,
            blocks=len(doc.blocks), boilerplate_blocks=len(doc.blocks) - content, template_blocks=template_blocks,
            links_seen=len(doc.all_links), links_kept=len(counted), template_links=template_links,
            duplicate=duplicate, truncated=doc.truncated, prefix=budgeted.outcome == "prefix",
        )


def record_stats(stats: Any, r: PageResult) -> None:
    """Add one page's figures to Scrapy's stats (``rankcrawl/...``)."""
    inc = stats.inc_value
    inc("rankcrawl/pages/analysed")
    inc("rankcrawl/pages/truncated", int(r.truncated))
    inc("rankcrawl/pages/analysis_prefix", int(r.prefix))
    inc("rankcrawl/pages/near_duplicates", int(r.duplicate))
    inc("rankcrawl/pages/repushed", len(r.repush))
    inc("rankcrawl/blocks", r.blocks)
    inc("rankcrawl/blocks/boilerplate", r.boilerplate_blocks)
    inc("rankcrawl/blocks/template", r.template_blocks)
    inc("rankcrawl/links/seen", r.links_seen)
    inc("rankcrawl/links/kept", r.links_kept)
    if r.duplicate:
        inc("rankcrawl/links/dropped/duplicate", r.links_seen)
    else:
        inc("rankcrawl/links/dropped/template", r.template_links)
        inc("rankcrawl/links/dropped/boilerplate", max(r.links_seen - r.links_kept - r.template_links, 0))
    blocks = stats.get_value("rankcrawl/blocks") or 0
    if blocks:
        stats.set_value("rankcrawl/boilerplate_share", round((stats.get_value("rankcrawl/blocks/boilerplate") or 0) / blocks, 4))
