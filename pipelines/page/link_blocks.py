"""On a listing without prose, blocks made of content links are content text: the item titles.

The block model judges a block by its own shallow features, and a run of linked titles looks like
navigation to it (boilerpipe's and Resiliparse's link density); the link model judges the same
anchors with their list, their region and the page (``link_classifier``), and keeps the lists that
are the page's content. Where the block model found no article (under ``after_article.ARTICLE_WORDS``
words of prose among the content blocks left after the drop rules) and the lists below outweigh
what prose there is, the page is a listing, an index or a grid: a link-dense block (link density at
least ``MIN_LINK_DENSITY``) after the page's headline (its first ``<h1>`` block, where it has one: a
list above the headline is the site's menu) most of whose anchors (``MIN_KEPT_SHARE``) are kept
content links inside the page's content region and under no template role
(``link_classifier.TEMPLATE_ROLES``) is content, so the page keeps the titles of the items it
links, as it keeps their links (the record lists of MDR, Liu et al. 2003, are a page's content).
Beside an article the same lists are its related links, which the block model's verdict keeps out
of the text. Only pages that declare or name themselves a listing or an article (``page_type``)
turn their lists: a page declared an article with under ``ARTICLE_WORDS`` words of prose is a
section front or a recipe index. A page of no declared type keeps the block model's verdict:
documentation generators declare nothing, and their class and hierarchy pages hold short
descriptions beside member and tree lists that are navigation to the site-level analysis.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankcrawl.pipelines.page.after_article import ARTICLE_WORDS, PROSE_LINK_DENSITY, PROSE_WORDS
from rankcrawl.pipelines.page.document import TextBlock
from rankcrawl.pipelines.page.dropping import kept
from rankcrawl.pipelines.page.link_classifier import TEMPLATE_ROLES
from rankcrawl.pipelines.page.link_features import AnchorRows

MIN_LINK_DENSITY = 0.5
MIN_KEPT_SHARE = 0.5
LISTS_ON = frozenset({"listing", "article"})
HEADLINE = "h1["
"""The DOM-path label of a headline block (``blocks``' labels: tag, sibling index, id and classes)."""


def prose_words(blocks: list[TextBlock], flags: np.ndarray, dropped: list[bool]) -> int:
    """Words of the content prose blocks (``after_article``'s prose) outside the dropped subtrees."""
    return sum(blocks[i].n_words for i in kept(flags, dropped)
               if blocks[i].n_words >= PROSE_WORDS and blocks[i].link_density <= PROSE_LINK_DENSITY)


def content_link_blocks(blocks: list[TextBlock], flags: np.ndarray, link_content: dict[Any, bool],
                        rows: AnchorRows, dropped: list[bool], kind: str) -> int:
    """On a page of type ``kind`` in ``LISTS_ON`` with under ``ARTICLE_WORDS`` words of prose, set
    ``flags[i]`` of each link-dense block after the first ``<h1>`` block whose anchors (in ``rows``'
    order: the blocks' anchors in turn) are mostly kept by ``link_content`` inside the content region
    and under no template role, where those blocks hold more words than the prose; returns how many
    blocks it turned."""
    if kind not in LISTS_ON:
        return 0
    prose = prose_words(blocks, flags, dropped)
    if prose >= ARTICLE_WORDS:
        return 0
    placed = rows.in_region.astype(bool) & ((rows.roles & TEMPLATE_ROLES) == 0)
    headline = next((i for i, b in enumerate(blocks) if b.path and b.path[-1].startswith(HEADLINE)), 0)
    found: list[int] = []
    start = 0
    for i, b in enumerate(blocks):
        n = len(b.anchors)
        first, start = start, start + n
        if flags[i] or not n or b.link_density < MIN_LINK_DENSITY or i < headline:
            continue
        kept = sum(1 for k, a in enumerate(b.anchors) if link_content.get(a) and placed[first + k])
        if kept and kept >= MIN_KEPT_SHARE * n:
            found.append(i)
    if sum(blocks[i].n_words for i in found) <= prose:
        return 0
    flags[found] = True
    return len(found)
