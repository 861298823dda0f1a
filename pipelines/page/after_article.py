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

from rankcrawl.pipelines.page.document import TextBlock
from rankcrawl.pipelines.page.dom_features import tokens
from rankcrawl.pipelines.page.dropping import owners
from rankcrawl.pipelines.page.name_sieve import NameSieve

ARTICLE_WORDS = 80
PROSE_WORDS = 10
PROSE_LINK_DENSITY = 0.3
FILLER_WORDS = frozenset("list lists area section wrap wrapper container thread threads block box form widget "
                         "widgets content contents body holder outer inner main all post posts article articles entry "
                         "page user users js wp fb embed root app module component panel region title heading count "
                         "number template single item items new top more links".split())
"""Words a section's name may have besides its own vocabulary (``comments-area``, ``related-posts``)."""




STEMS = ("comment respond disqus dsq replies remark discussion related recommend trending popular viral "
         "suggested outbrain taboola archive tagcloud tags cookie consent gdpr ccpa onetrust").split()
"""Every word of ``comments.COMMENT_WORDS``, ``teasers.TEASER_WORDS`` and ``consent.CONSENT_WORDS``
contains one of these."""
SECTION_ROLES = frozenset({"comment"})


SECTIONS = NameSieve(STEMS, SECTION_ROLES)


def section_candidates(root: Any) -> list[Any]:
    """The elements below ``<body>`` that ``SECTIONS`` passes (``STEMS``, role ``comment``), for ``comments``,
    ``teasers`` and ``consent``."""
    return SECTIONS(root)


def named(el: Any, vocabulary: frozenset[str], extra: frozenset[str] = frozenset()) -> bool:
    """Whether ``el``'s id or one of its class names is made of ``vocabulary`` words (one at least),
    ``extra`` and ``FILLER_WORDS`` only: ``post-comments`` is, ``respond-to-review-comments`` (an id made
    from a heading) is not."""
    allowed = vocabulary | extra | FILLER_WORDS
    for name in [el.get("id") or "", *(el.get("class") or "").split()]:
        words = tokens(name)
        if words and not words.isdisjoint(vocabulary) and words <= allowed:
            return True
    return False


def following_sections(found: list[Any], blocks: list[TextBlock], is_section: Callable[[Any], bool]) -> list[Any]:
    """The outermost elements of ``found`` (in document order) that ``is_section`` accepts and that
    follow an article, given the page's ``blocks`` in document order."""
    owner = owners(el for el in found if is_section(el))
    if not owner:
        return []
    prose = 0
    after: list[Any] = []
    seen: set[Any] = set()
    for b in blocks:
        section = owner.get(b.element)
        if section is None:
            if b.n_words >= PROSE_WORDS and b.link_density <= PROSE_LINK_DENSITY:
                prose += b.n_words
            continue
        if section not in seen:
            seen.add(section)
            if prose >= ARTICLE_WORDS:
                after.append(section)
    return after
