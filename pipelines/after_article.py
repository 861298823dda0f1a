"""Which named sections of a page follow its article: the position test of the drop rules.

Trafilatura removes comment and related-post boxes only after it has found the main text, and
Resiliparse keeps comment sections out of the main content unless asked; here a section "follows
an article" when at least ``ARTICLE_WORDS`` words of prose (blocks of ``PROSE_WORDS`` or more words,
link density at most ``PROSE_LINK_DENSITY``: navigation does not count) outside every candidate
come before its first block. A box above the article (a comment count beside the headline) stays.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rankcrawl.pipelines.document import TextBlock
from rankcrawl.pipelines.dom_features import tokens
from rankcrawl.pipelines.dropping import root_of

ARTICLE_WORDS = 80
PROSE_WORDS = 10
PROSE_LINK_DENSITY = 0.3
NAMED = "//body//*[@id or @class or @role]"
FILLER_WORDS = frozenset("list lists area section wrap wrapper container thread threads block box form widget "
                         "widgets content contents body holder outer inner main all post posts article articles entry "
                         "page user users js wp fb embed root app module component panel region title heading count "
                         "number template single item items new top more links".split())
"""Words a section's name may have besides its own vocabulary (``comments-area``, ``related-posts``)."""


def named(el: Any, vocabulary: frozenset[str]) -> bool:
    """Whether ``el``'s id or one of its class names is made of ``vocabulary`` words (one at least) and
    ``FILLER_WORDS`` only: ``post-comments`` is, ``respond-to-review-comments`` (an id made from a
    heading) is not."""
    allowed = vocabulary | FILLER_WORDS
    for name in [el.get("id") or "", *(el.get("class") or "").split()]:
        words = tokens(name)
        if words and not words.isdisjoint(vocabulary) and words <= allowed:
            return True
    return False


def following_sections(root: Any, blocks: list[TextBlock], is_section: Callable[[Any], bool]) -> list[Any]:
    """The outermost elements of ``root``'s tree (below ``<body>``, with an id, class or role) that
    ``is_section`` accepts and that follow an article, given the page's ``blocks`` in document order."""
    found = {el for el in root.xpath(NAMED) if el.tag != "body" and is_section(el)}
    if not found:
        return []
    memo: dict[Any, Any] = {}
    prose = 0
    after: list[Any] = []
    seen: set[Any] = set()
    for b in blocks:
        section = root_of(b.element, found, memo) if b.element is not None else None
        if section is None:
            if b.n_words >= PROSE_WORDS and b.link_density <= PROSE_LINK_DENSITY:
                prose += b.n_words
            continue
        if section not in seen:
            seen.add(section)
            if prose >= ARTICLE_WORDS:
                after.append(section)
    return after
