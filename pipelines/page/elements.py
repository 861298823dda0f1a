"""The whole-tree element search of a page: what the analysis looks up besides the blocks, in one pass.

The analysis needs the page's ``<title>``, ``<base>``, ``<meta>`` and ``<script>`` elements, its
``itemtype`` values, and the elements whose ``href`` is too long (or past the link cap) to keep.
Walking libxml2's tree costs about a cache miss per node, in C as in lxml's ``iter`` and XPath, so
five searches cost five walks; ``search_page`` makes one, compiled (``_blockwalk``) where that
extension was built, else by lxml's searches with the same results. ``compiled_walk`` is the one
place that decides whether the extension serves a tree: it was built, and the tree is lxml's plain
elements (``parsing.parse_html``'s), not ``lxml.html``'s classes.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, NamedTuple

from lxml import etree

from rankcrawl.pipelines.page.extensions import optional

_blockwalk = optional("rankcrawl.pipelines.page._blockwalk")  # None where not built: lxml's own searches


MAX_HREF = 2083
"""Longest ``href`` kept (Scrapy's ``URLLENGTH_LIMIT`` default: a longer URL is never requested);
a longer one is removed after parsing, so its element is no link and no step pays for it (one
100 kB ``data:`` or 3000-parameter href cost up to 0.1 s to normalise, each)."""
MAX_LINKS = 10_000
"""Links (``<a href>``) kept per page, the first ones in document order; the href of every later
one is removed. The 2,365 labelled pages have at most 1,777; real keyword indexes have more
(javadoc's ``index-all.html`` 7,929, gtk-doc's ``api-index-full.html`` 5,340). The link model
spends 30-60 µs on each, within the page's analysis timeout (``RANKCRAWL_ANALYSIS_TIMEOUT``)."""

class PageSearch(NamedTuple):
    """A page's elements of interest, each list in document order."""

    titles: list[Any]
    bases: list[Any]
    declarations: list[Any]
    """``<meta>`` and ``<script>`` elements (og:type, JSON-LD)."""
    itemtypes: list[str]
    overlong: list[Any]
    """Elements whose ``href`` goes: over ``max_href`` characters, or an ``<a>`` past the first ``max_links``
    on a page of more than ``max_links`` hrefs."""


def compiled_walk(root: Any) -> ModuleType | None:
    """The compiled walk's module when it can serve ``root``'s tree, else None."""
    return _blockwalk if _blockwalk is not None and type(root) is etree._Element else None


def search_page(root: Any, max_href: int = MAX_HREF, max_links: int = MAX_LINKS) -> PageSearch:
    """The search of the document whose top element is ``root``."""
    walk = compiled_walk(root)
    if walk is not None:
        return PageSearch(*walk.search_page(root, max_href, max_links))
    hrefs = root.xpath("//@href")
    overlong = [h.getparent() for h in hrefs if len(h) > max_href]
    if len(hrefs) > max_links:
        seen = set(overlong)
        overlong += [el for el in root.xpath(f"(//a[@href])[position() > {max_links}]") if el not in seen]
    return PageSearch(list(root.iter("title")), list(root.iter("base")), list(root.iter("meta", "script")),
                      root.xpath("//@itemtype", smart_strings=False), overlong)
