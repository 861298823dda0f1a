"""Where an article's body ends, its text ends: content after the body's container is the page's, not the story's.

Trafilatura looks for the article's body by the names publishing systems give its container
(``itemprop="articleBody"``, ``entry-content``, ``post-content``, ``article-body`` …) before it falls
back to the whole page, and readability keeps the best candidate's subtree and its siblings only.
Here, on pages ``page_type`` calls articles, the container named so (``BODY_NAMES`` in its id or
class, or ``itemprop="articleBody"``) that holds the most content words is the body where it holds at
least ``BODY_SHARE`` of them; the content blocks that come after its last content block, outside it,
leave the content: a newsletter box, related and popular posts, the author's card, an FAQ appended
for search engines, the sources list. Content before the body (the headline, the lead, the byline)
stays, and so does every page without such a container. Their anchors leave the content too, as the
boxes of ``dropping`` do: they are the links that inflate ranks on news sites.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from lxml import etree

from rankcrawl.pipelines.page.document import TextBlock
from rankcrawl.pipelines.page.dropping import kept, owners
from rankcrawl.pipelines.page.name_sieve import NameSieve

BODY_NAMES = ["entry-content", "entry-body", "entry__content", "post-content", "post__content", "post-body",
              "post-entry", "article-content", "article__content", "article-body", "article__body", "articlebody",
              "article-text", "story-body", "story-content", "single-content", "blog-content", "blog-post-content"]
"""Substrings of the lower-cased id or class of an article body's container."""
BODIES = NameSieve(BODY_NAMES, frozenset())
ITEMPROP_BODY = etree.XPath("//body//*[@itemprop='articleBody']")
BODY_SHARE = 0.5
ON_TYPES = frozenset({"article"})


def after_body(root: Any, blocks: list[TextBlock], flags: np.ndarray, dropped: list[bool], kind: str) -> list[int]:
    """Indices of the content blocks (``flags``, outside the ``dropped`` subtrees) after the body container
    of the article page ``root`` (of type ``kind``) and outside it; none without such a body."""
    if kind not in ON_TYPES or root is None:
        return []
    candidates = BODIES(root) + ITEMPROP_BODY(root)
    content = kept(flags, dropped)
    total = sum(blocks[i].n_words for i in content)
    if not candidates or not total:
        return []
    best: list[int] = []
    best_words = 0
    for el in candidates:
        holding = owners([el]).keys() | set(el.iterancestors())    # a fused block may span the container's edge
        held = [i for i in content if blocks[i].element in holding]
        words = sum(blocks[i].n_words for i in held)
        if words > best_words:
            best, best_words = held, words
    if best_words < BODY_SHARE * total:
        return []
    return [i for i in content if i > best[-1]]
