"""Copies: a content block that repeats an earlier content block from another template adds nothing.

Responsive pages write a region twice (a desktop and a mobile copy, one of them hidden by a style
sheet the analysis does not read), forums repeat posts as previews, card grids repeat their cards in
a carousel; a reader sees one copy, and the page's text holds it once. As trafilatura's
``duplicate_test`` (its ``deduplicate`` option drops an element whose text it has seen before), a
content block of at least ``MIN_WORDS`` words whose text (white space collapsed, lower case) equals
an earlier content block's leaves the text — where the two sit in different templates: their DOM
paths differ beyond the positions and ids of their elements (``shape``). Items of one list that share
a phrase (a pricing plan's features under each plan) have one shape and stay, and so do short labels.
Only pages that declare or name themselves an article, a forum thread, a product or a listing
(``page_type``) lose their copies: reference documentation repeats on purpose (a summary table's
line opens the entry it summarises, an inherited method is documented under each class, the tabs of
one step repeat its prose), and each repeat is content there. Only the text changes: the anchors keep
their own content decision (``link_classifier``).

A near copy goes too: a block of ``MIN_WORDS`` or more words at least ``NEAR_SHARE`` of whose word
``NGRAM``-grams (w-shingles) one earlier such block of another shape held first — Broder's containment
of shingles, the near-duplicate test of web crawlers, applied to trafilatura's duplicate test: a
product's description written again in a details tab with a line added, a forum post quoting an
earlier post of the thread. Each n-gram counts for the first block holding it, so the test is one
pass over the page's n-grams.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

from rankcrawl.pipelines.page.document import TextBlock
from rankcrawl.pipelines.page.dropping import kept
from rankcrawl.pipelines.page.page_type import WRITTEN_TYPES

MIN_WORDS = 8
NGRAM = 4
NEAR_SHARE = 0.7
"""A block is a near copy when an earlier block of another template held this share of its ``NGRAM``-grams
first (on WCXB-dev 0.5–0.8 and 3- to 10-grams all gained on product pages; 0.5 lost on articles)."""
POSITION = re.compile(r"\[\d+\]|#[^.]*")
"""An element's position and id in a path label (``div[2]#s-intro.section``): what a template's
instances do not share."""


def shape(block: TextBlock) -> tuple[str, ...]:
    """The block's DOM path without the elements' positions and ids (``div.card/h3.title``): its template."""
    return tuple(POSITION.sub("", label) for label in block.path)


def ngrams(text: str) -> set[tuple[str, ...]]:
    """The ``NGRAM``-grams of ``text``'s lower-cased whitespace tokens (its w-shingles)."""
    words = text.lower().split()
    return set(zip(*(words[k:] for k in range(NGRAM))))


def copied_blocks(blocks: list[TextBlock], flags: np.ndarray, dropped: list[bool], kind: str) -> list[int]:
    """Indices of the content blocks (``flags``, outside the ``dropped`` subtrees) of ``MIN_WORDS`` or
    more words whose text the first such block of another ``shape`` already holds, or at least
    ``NEAR_SHARE`` of whose ``ngrams`` one earlier such block of another shape held first; none unless
    the page's type ``kind`` is one of ``page_type.WRITTEN_TYPES``."""
    if kind not in WRITTEN_TYPES:
        return []
    first: dict[str, int] = {}
    holder: dict[tuple[str, ...], int] = {}   # each n-gram → the first of these blocks that holds it
    found: list[int] = []
    for i in kept(flags, dropped):
        b = blocks[i]
        if b.n_words < MIN_WORDS:
            continue
        text = " ".join(b.text.split()).lower()
        original = first.setdefault(text, i)
        if original != i and shape(b) != shape(blocks[original]):
            found.append(i)
            continue
        grams = ngrams(text)
        shared = Counter(map(holder.get, grams))
        if any(j is not None and n >= NEAR_SHARE * len(grams) and shape(b) != shape(blocks[j]) for j, n in shared.items()):
            found.append(i)
            continue
        for g in grams:
            holder.setdefault(g, i)
    return found
