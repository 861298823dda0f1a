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
"""

from __future__ import annotations

import re

import numpy as np

from rankcrawl.pipelines.page.document import TextBlock
from rankcrawl.pipelines.page.dropping import kept
from rankcrawl.pipelines.page.page_type import WRITTEN_TYPES

MIN_WORDS = 8
POSITION = re.compile(r"\[\d+\]|#[^.]*")
"""An element's position and id in a path label (``div[2]#s-intro.section``): what a template's
instances do not share."""


def shape(block: TextBlock) -> tuple[str, ...]:
    """The block's DOM path without the elements' positions and ids (``div.card/h3.title``): its template."""
    return tuple(POSITION.sub("", label) for label in block.path)


def copied_blocks(blocks: list[TextBlock], flags: np.ndarray, dropped: list[bool], kind: str) -> list[int]:
    """Indices of the content blocks (``flags``, outside the ``dropped`` subtrees) of ``MIN_WORDS`` or
    more words whose text the first content block of another ``shape`` already holds; none unless the
    page's type ``kind`` is one of ``page_type.WRITTEN_TYPES``."""
    if kind not in WRITTEN_TYPES:
        return []
    first: dict[str, TextBlock] = {}
    found: list[int] = []
    for i in kept(flags, dropped):
        b = blocks[i]
        original = first.setdefault(" ".join(b.text.split()).lower(), b)
        if original is not b and b.n_words >= MIN_WORDS and shape(b) != shape(original):
            found.append(i)
    return found
