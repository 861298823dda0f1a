"""``PageResult``: what the analysis of one page hands the crawler (edges, links to follow, figures).

Built from the page's ``PageFacts`` and its site-level ``Decision`` (``result_of``) in the page's analysis
worker (``workers/worker.py``), which sends it to the crawl process.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rankcrawl.pipelines.site.decide import Decision
from rankcrawl.pipelines.site.facts import PageFacts

Edges = list[tuple[str, float]]


@dataclass
class FollowLink:
    """A link the crawler may schedule: target, anchor + block text, weight, counted as an edge,
    flagged template by the site-level step (every occurrence of it on the page is in a template)."""

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
    prefix: bool = False
    fallback: bool = False


def follow_of(f: PageFacts, weights: list[float], template: list[int]) -> list[FollowLink]:
    """Every link of the page once (first occurrence), flagged counted (an edge) and template (every
    occurrence is one of the ``template`` link indices)."""
    kept = {url for url, w in zip(f.links, weights) if w > 0}
    flagged = set(template)
    elsewhere = {url for j, url in enumerate(f.links) if j not in flagged}
    seen: dict[str, FollowLink] = {}
    for url, anchor, b, w in zip(f.links, f.anchors, f.link_block, weights):
        if url not in seen:
            block = f.block_text[b] if 0 <= b < len(f.block_text) else ""
            seen[url] = FollowLink(url, f"{anchor} {block}", w, url in kept, url not in elsewhere)
    return list(seen.values())


def result_of(f: PageFacts, d: Decision, repush: list[tuple[str, Edges]]) -> PageResult:
    """The page's result from its facts, its decision and the earlier pages the decision re-pushes."""
    template = set(d.template_blocks)
    content = sum(ct and i not in template for i, ct in enumerate(f.block_content))
    return PageResult(
        url=f.url, title=f.title, edges=d.edges, follow=follow_of(f, d.link_weights, d.template_links), repush=repush,
        blocks=len(f.block_content), boilerplate_blocks=len(f.block_content) - content,
        template_blocks=len(d.template_blocks), links_seen=len(f.links) + f.self_links,
        links_kept=sum(w > 0 for w in d.link_weights), template_links=len(d.template_links),
        self_links=f.self_links, duplicate=d.duplicate, truncated=f.truncated, prefix=f.outcome == "prefix",
        fallback=d.fallback)
