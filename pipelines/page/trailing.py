"""A heading that ends the content introduces nothing: the title of a box whose body is not content.

When a page's content ends with a section heading, the section it names was left out (a footer's
``Browse by category`` above a list of links, a tab's title above an empty panel). As trafilatura's
extractor does (it removes the headings and links that would end its output: ``NOT_AT_THE_END``),
the last content block leaves the text where it is one ``<h2>``–``<h6>`` element and nothing else
(no block fused into it). The ``<h1>`` stays: it is the page's headline, kept even where nothing
follows it. So does a heading of a series (another content block shares its ``repeats.shape``:
the item titles of a listing), and the rule runs once, not until a non-heading ends the text. Only
pages that declare or name themselves an article, a forum thread, a product or a listing
(``page_type``) lose that heading: a documentation index ends with the headings of its link lists.
Only the text changes: the heading's anchors keep their own content decision (``link_classifier``).
"""

from __future__ import annotations

import numpy as np

from rankcrawl.pipelines.page.document import TextBlock
from rankcrawl.pipelines.page.dropping import kept
from rankcrawl.pipelines.page.page_type import WRITTEN_TYPES
from rankcrawl.pipelines.page.repeats import shape

HEADINGS = frozenset({"h2", "h3", "h4", "h5", "h6"})


def trailing_heading(blocks: list[TextBlock], flags: np.ndarray, dropped: list[bool], kind: str) -> int | None:
    """Index of the last content block (``flags``, outside the ``dropped`` subtrees) where it is a lone
    ``HEADINGS`` element that no other content block shares a shape with; None otherwise, and on a page
    whose type ``kind`` is not one of ``page_type.WRITTEN_TYPES``."""
    if kind not in WRITTEN_TYPES:
        return None
    content = kept(flags, dropped)
    if not content:
        return None
    last = blocks[content[-1]]
    if last.tag not in HEADINGS or last.n_atomic != 1:
        return None
    template = shape(last)
    if any(shape(blocks[i]) == template for i in content[:-1]):
        return None
    return content[-1]
