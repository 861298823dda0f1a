"""Teaser boxes after an article: related / popular / trending stories, archive and tag widgets.

A candidate's id or a class name is made of teaser words (``after_article.named``): the
``related``, ``viral``, ``most-popular``, ``next-post``, ``side-stories``, ``outbrain``/``taboola``
and ``tags`` names of trafilatura's discard XPath and the ``related``/``sidebar``/``widget``-side
``unlikelyCandidates`` of readability, plus archive widgets. It goes where it follows an article
(``after_article``) and is a list of links (link density of its words at least
``MIN_LINK_DENSITY``, as Resiliparse and boilerpipe judge navigation boxes), on pages whose lists are
not their content (a listing keeps its item links).
"""

from __future__ import annotations

from typing import Any

from rankcrawl.pipelines.page.after_article import following_sections, named
from rankcrawl.pipelines.page.document import TextBlock
from rankcrawl.pipelines.page.dropping import owners

TEASER_WORDS = frozenset("related recommended recommendations recommend trending popular viral suggested "
                         "outbrain taboola archive archives tagcloud tags".split())
MIN_LINK_DENSITY = 0.5
KEEPS_LISTS = frozenset({"listing", "product", "forum", "documentation"})


def teaser_sections(candidates: list[Any], blocks: list[TextBlock], kind: str) -> list[Any]:
    """The outermost link-dense teaser boxes among ``candidates`` (``after_article.section_candidates``)
    that follow an article, given the page's ``blocks`` in document order; none on a page of type
    ``kind`` whose lists are content."""
    if kind in KEEPS_LISTS or not blocks:
        return []
    found = following_sections(candidates, blocks, lambda el: named(el, TEASER_WORDS))
    if not found:
        return []
    owner = owners(found)
    words: dict[Any, list[int]] = {}
    for b in blocks:
        if (box := owner.get(b.element)) is not None:
            counts = words.setdefault(box, [0, 0])
            counts[0] += b.n_words
            counts[1] += b.n_linked_words
    return [el for el in found if el in words and words[el][1] >= MIN_LINK_DENSITY * words[el][0]]
