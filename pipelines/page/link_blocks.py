"""On a page without an article, blocks made of content links are content text: a listing's item titles.

The block model judges a block by its own shallow features, and a run of linked titles looks like
navigation to it (boilerpipe's and Resiliparse's link density); the link model judges the same
anchors with their list, their region and the page (``link_classifier``), and keeps the lists that
are the page's content. Where the block model found no article (under ``after_article.ARTICLE_WORDS``
words of prose among the content blocks left after the drop rules) and the lists below outweigh
what prose there is, the page is a listing, an index or a grid: a link-dense block (link density at least ``MIN_LINK_DENSITY``) most of whose
anchors (``MIN_KEPT_SHARE``) are kept content links inside the page's content region and under no
template role (``link_classifier.TEMPLATE_ROLES``) is content, so the page keeps the titles of the
items it links, as it keeps their links. Beside an article the same lists are its related links,
which the block model's verdict keeps out of the text.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankcrawl.pipelines.page.after_article import ARTICLE_WORDS, PROSE_LINK_DENSITY, PROSE_WORDS
from rankcrawl.pipelines.page.document import TextBlock
from rankcrawl.pipelines.page.link_classifier import TEMPLATE_ROLES
from rankcrawl.pipelines.page.link_features import AnchorRows

MIN_LINK_DENSITY = 0.5
MIN_KEPT_SHARE = 0.5


def prose_words(blocks: list[TextBlock], flags: np.ndarray, dropped: list[bool]) -> int:
    """Words of the content prose blocks (``after_article``'s prose) outside the dropped subtrees."""
    return sum(b.n_words for i, b in enumerate(blocks) if flags[i] and not dropped[i]
               and b.n_words >= PROSE_WORDS and b.link_density <= PROSE_LINK_DENSITY)


def content_link_blocks(blocks: list[TextBlock], flags: np.ndarray, link_content: dict[Any, bool],
                        rows: AnchorRows, dropped: list[bool]) -> int:
    """On a page with under ``ARTICLE_WORDS`` words of prose, set ``flags[i]`` of each link-dense block
    whose anchors (in ``rows``' order: the blocks' anchors in turn) are mostly kept by ``link_content``
    inside the content region and under no template role, where those blocks hold more words than the
    prose; returns how many blocks it turned."""
    prose = prose_words(blocks, flags, dropped)
    if prose >= ARTICLE_WORDS:
        return 0
    placed = rows.in_region.astype(bool) & ((rows.roles & TEMPLATE_ROLES) == 0)
    found: list[int] = []
    start = 0
    for i, b in enumerate(blocks):
        n = len(b.anchors)
        first, start = start, start + n
        if flags[i] or not n or b.link_density < MIN_LINK_DENSITY:
            continue
        kept = sum(1 for k, a in enumerate(b.anchors) if link_content.get(a) and placed[first + k])
        if kept and kept >= MIN_KEPT_SHARE * n:
            found.append(i)
    if sum(blocks[i].n_words for i in found) <= prose:
        return 0
    flags[found] = True
    return len(found)
