"""Reader comment sections after an article: not the article's text, and their links are not its links.

A candidate is an element whose ARIA role is ``comment`` or whose id or a class name is made of
comment words (``after_article.named``) — the vocabulary of trafilatura's ``COMMENTS_XPATH`` and
``REMOVE_COMMENTS_XPATH`` (``comments``, ``commentlist``, ``respond``, ``disqus_thread`` …) and of
readability's ``unlikelyCandidates`` (``comment``, ``disqus``, ``replies``, ``remark``). It goes
only where it follows an article (``after_article``), however long the thread. Forum threads and
products (``page_type``) keep theirs: there the posts and the reviews are the content.
"""

from __future__ import annotations

from typing import Any

from rankcrawl.pipelines.page.after_article import following_sections, named
from rankcrawl.pipelines.page.document import TextBlock

COMMENT_WORDS = frozenset("comment comments commentlist commentlists respond disqus dsq replies remark remarks "
                          "discussion".split())
COMMENT_ROLES = frozenset({"comment"})
KEEPS_COMMENTS = frozenset({"forum", "product"})
"""Page types whose comment sections are content: a forum's posts, a product's reviews."""


def names_comments(el: Any) -> bool:
    """Whether ``el``'s role, its id or one of its class names names a comment section."""
    return (el.get("role") or "").strip().lower() in COMMENT_ROLES or named(el, COMMENT_WORDS)


def comment_sections(candidates: list[Any], blocks: list[TextBlock], kind: str) -> list[Any]:
    """The outermost comment sections among ``candidates`` (``after_article.section_candidates``) that
    follow an article, given the page's ``blocks`` in document order; none on a page of type ``kind``
    that keeps them."""
    if kind in KEEPS_COMMENTS or not blocks:
        return []
    return following_sections(candidates, blocks, names_comments)
