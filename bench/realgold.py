"""Gold link graph of the real sites, from each generator's own content markup.

Rules (bench/realcrawl.py states them too):

- A page is a URL the server answers 200 with ``text/html``. Links are the ``href`` of every
  ``<a>``, resolved against the page URL and normalised with ``rankcrawl.settings.urls.normalize_url``
  (fragment dropped; non-http(s) links dropped).
- Content links: the ``<a href>`` inside the site's content region (the first of the site's CSS
  selectors that matches; outermost matches only), minus those inside its ``not_content`` parts.
- An edge (p, q): a link of p whose target lands, after the server's redirects, on a page q
  != p (so self-links and ``#fragment`` links are no edges); repeated targets count once.
  Gold content edges come from content links, all-links (naive) edges from every link.
- Frontier links of p: its links that leave the served pages without being broken, i.e. to a
  host that is not served (the crawl never fetches them) or landing on a 200 file that is not
  HTML. A crawler's graph holds their targets as pages without out-links (rankcrawl's does), so
  the PageRank figures count them as such on both sides (``content_frontier``/``all_frontier``).
- Index-like page: at least ``LINKED_SHARE`` of the words of its content region are link text,
  or its file name is a table of contents or index (``INDEX_NAMES``). Other pages are prose.
- Template link of a host: a link target that appears outside the content region (and not inside
  it) on at least ``TEMPLATE_SHARE`` of the host's pages; targets taken where they land (redirects
  followed), as the stored edges the leak figure checks are (``content_landing``/``outside_landing``).
- Reachable pages: pages reached from the seeds by following every link (redirects followed),
  the pages a crawler following every link fetches (robots.txt allows all).
"""

from __future__ import annotations

import re
from collections import Counter, deque
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import cache
from urllib.parse import urlsplit

import lxml.html
from lxml.cssselect import CSSSelector

from bench.realsites import Site, Web
from rankcrawl.settings.urls import normalize_url

LINKED_SHARE = 0.5
TEMPLATE_SHARE = 0.5
INDEX_NAMES = re.compile(r"^(genindex|py-modindex|modindex|index|contents|toc|sitemap|quickreference)([-.].*)?$")
WORD = re.compile(r"\w+")


@dataclass
class PageLinks:
    """One page's links as extracted from its HTML (targets normalised, not yet resolved)."""

    url: str
    site: str
    links: set[str]
    content: set[str]
    outside: set[str]
    has_region: bool
    words: int
    linked_words: int
    index_like: bool


def _words(text: str | None) -> int:
    return len(WORD.findall(text or ""))


def _outermost(elements: list) -> list:
    chosen = set(elements)
    return [e for e in elements if not any(a in chosen for a in e.iterancestors())]


@cache
def selector(css: str) -> CSSSelector:
    return CSSSelector(css)


def content_regions(doc: lxml.html.HtmlElement, site: Site) -> tuple[list, set]:
    """(region elements, excluded elements inside them) of ``doc`` by the site's selectors."""
    for css in site.content:
        regions = _outermost(selector(css)(doc))
        if regions:
            excluded = {e for r in regions for css_x in site.not_content for e in selector(css_x)(r)}
            return regions, excluded
    return [], set()


def is_index_name(url: str) -> bool:
    name = urlsplit(url).path.rsplit("/", 1)[-1]
    return bool(INDEX_NAMES.match(name))


def extract(url: str, body: bytes, site: Site) -> PageLinks:
    """The links of one page: all, inside and outside the content region; word counts."""
    try:
        doc = lxml.html.fromstring(body)
    except (lxml.etree.ParserError, ValueError):
        return PageLinks(url, site.name, set(), set(), set(), False, 0, 0, is_index_name(url))
    regions, excluded = content_regions(doc, site)
    region_set = set(regions)
    links, content, outside = set(), set(), set()
    words = sum(_words(r.text_content()) for r in regions) - sum(_words(e.text_content()) for e in excluded)
    linked_words = 0
    for a in doc.iter("a"):
        target = normalize_url(a.get("href") or "", base=url)
        if target is None:
            continue
        links.add(target)
        ancestors = list(a.iterancestors())
        if any(e in region_set for e in ancestors) and not any(e in excluded for e in ancestors):
            content.add(target)
            linked_words += _words(a.text_content())
        else:
            outside.add(target)
    share = linked_words / words if words else 0.0
    index_like = share >= LINKED_SHARE or is_index_name(url)
    return PageLinks(url, site.name, links, content, outside, bool(regions), words, linked_words, index_like)


def edges(web: Web, src: str, targets: Iterable[str]) -> set[str]:
    """Targets that land (redirects followed) on a page other than ``src``."""
    out = set()
    for t in targets:
        q = web.resolve(t)
        if q is not None and q != src and web.is_page(q):
            out.add(q)
    return out


def frontier(web: Web, targets: Iterable[str]) -> set[str]:
    """Targets off the served pages that are not broken: a host not served, or a 200 non-HTML file."""
    out = set()
    for t in targets:
        if urlsplit(t).netloc not in web.hosts:
            out.add(t)
        else:
            q = web.resolve(t)
            if q is not None and not web.is_page(q):
                out.add(q)
    return out


def reachable(web: Web, pages: dict[str, PageLinks], seeds: Iterable[str]) -> list[str]:
    """Pages reached from ``seeds`` following every link, in breadth-first order."""
    order, seen = [], set()
    queue = deque(s for s in seeds)
    while queue:
        q = web.resolve(queue.popleft())
        if q is None or q in seen or not web.is_page(q):
            continue
        seen.add(q)
        order.append(q)
        if q in pages:
            queue.extend(sorted(pages[q].links))
    return order


def template_targets(pages: Iterable[PageLinks]) -> dict[str, set[str]]:
    """Per host (``urlsplit().netloc``): link targets outside the content region of ≥ TEMPLATE_SHARE of its pages."""
    per_host: dict[str, Counter[str]] = {}
    n_pages: Counter[str] = Counter()
    for p in pages:
        host = urlsplit(p.url).netloc
        n_pages[host] += 1
        per_host.setdefault(host, Counter()).update(p.outside - p.content)
    return {h: {t for t, n in c.items() if n >= TEMPLATE_SHARE * n_pages[h]} for h, c in per_host.items()}


@dataclass
class Gold:
    """The gold graph over the reachable pages, the all-links graph, and per-page facts."""

    pages: dict[str, PageLinks]
    reachable: list[str]
    content_edges: dict[str, set[str]] = field(default_factory=dict)
    all_edges: dict[str, set[str]] = field(default_factory=dict)
    template: dict[str, set[str]] = field(default_factory=dict)
    content_frontier: dict[str, set[str]] = field(default_factory=dict)
    all_frontier: dict[str, set[str]] = field(default_factory=dict)
    content_landing: dict[str, set[str]] = field(default_factory=dict)
    outside_landing: dict[str, set[str]] = field(default_factory=dict)

    @classmethod
    def build(cls, web: Web, pages: dict[str, PageLinks], seeds: Iterable[str]) -> Gold:
        order = reachable(web, pages, seeds)
        nodes = set(order)
        gold = cls(pages, order)
        for url in order:
            p = pages[url]
            gold.content_edges[url] = edges(web, url, p.content) & nodes
            gold.all_edges[url] = edges(web, url, p.links) & nodes
            gold.content_frontier[url] = frontier(web, p.content)
            gold.all_frontier[url] = frontier(web, p.links)
            gold.content_landing[url] = {web.resolve(t) or t for t in p.content}
            gold.outside_landing[url] = {web.resolve(t) or t for t in p.outside}
        gold.template = template_targets(replace(pages[u], content=gold.content_landing[u], outside=gold.outside_landing[u])
                                         for u in order)
        return gold
