"""Reader comment sections after an article: not the article's text, and their links are not its links.

A candidate is an element whose ``id``/``class`` words or ARIA role name a comment section — the
vocabulary of trafilatura's ``COMMENTS_XPATH`` and ``REMOVE_COMMENTS_XPATH`` (``comments``,
``commentlist``, ``respond``, ``disqus_thread`` …) and of readability's ``unlikelyCandidates``
(``comment``, ``disqus``, ``replies``, ``remark``). Like trafilatura, which removes the comments only
after it has found the main text, a candidate goes only where it follows an article: it starts
after at least ``ARTICLE_WORDS`` words of prose outside every candidate (navigation, link-dense,
does not count), however long the thread. Forum threads and products (``page_type``) keep
theirs: there the posts and the reviews are the content.
"""

from __future__ import annotations

from typing import Any

from rankcrawl.pipelines.document import TextBlock
from rankcrawl.pipelines.dom_features import tokens
from rankcrawl.pipelines.dropping import root_of

COMMENT_WORDS = frozenset("comment comments commentlist commentlists respond disqus dsq replies remark remarks "
                          "discussion".split())
COMMENT_ROLES = frozenset({"comment"})
FILLER_WORDS = frozenset("list lists area section wrap wrapper container thread threads block box form widget "
                         "content contents body holder outer inner main all post article entry page user users "
                         "js wp fb embed root app module component panel region title heading count number "
                         "template single item items new".split())
NAME_WORDS = COMMENT_WORDS | FILLER_WORDS
ARTICLE_WORDS = 80
"""Prose words (blocks of ``PROSE_WORDS`` or more words, link density at most ``PROSE_LINK_DENSITY``)
outside every comment section that must come before a section for it to go."""
PROSE_WORDS = 10
PROSE_LINK_DENSITY = 0.3
CANDIDATES = "//body//*[@id or @class or @role]"
KEEPS_COMMENTS = frozenset({"forum", "product"})
"""Page types whose comment sections are content: a forum's posts, a product's reviews."""


def names_comments(el: Any) -> bool:
    """Whether ``el``'s role, its id or one of its class names names a comment section: a name of
    comment words and ``FILLER_WORDS`` only (``comments-area``, ``post-comments``, ``disqus_thread``;
    not ``respond-to-review-comments``, an id made from a heading)."""
    if (el.get("role") or "").strip().lower() in COMMENT_ROLES:
        return True
    for name in [el.get("id") or "", *(el.get("class") or "").split()]:
        words = tokens(name)
        if words and not words.isdisjoint(COMMENT_WORDS) and words <= NAME_WORDS:
            return True
    return False


def comment_sections(root: Any, blocks: list[TextBlock], kind: str) -> list[Any]:
    """The outermost comment sections of ``root``'s tree that follow an article, given the page's
    ``blocks`` in document order; none on a page of type ``kind`` that keeps them."""
    if root is None or kind in KEEPS_COMMENTS or not blocks:
        return []
    found = {el for el in root.xpath(CANDIDATES) if el.tag != "body" and names_comments(el)}
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
