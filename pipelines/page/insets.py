"""Boxes set into an article page that are not its text: the author's bio, a newsletter sign-up, a dialog.

A candidate's ARIA role is a dialog's, or its id or one of its class names has an ``INSET_WORDS`` word
among its letter runs (``dom_features.tokens``: ``author-bio``, ``newsletterSignup``, ``modal-content``):
the ``author``, ``byline``, ``newsletter`` and ``modal-content`` names of trafilatura's discard XPath, the
``popup`` of readability's ``unlikelyCandidates``, and the advertiser-disclosure and disclaimer notes of
review sites. A closed dialog is hidden by the page's style sheet, which the analysis does not read
(``hidden`` sees inline markers only); a bio, a sign-up box and a disclosure are about the site or the
writer, not the story.

Only article pages (``page_type``) lose these boxes, wherever they sit, and only a box of ``MIN_WORDS``
words or more (a byline of a name and a date is part of the text for some readers), of less than
``MAX_SHARE`` of the page's words, and not holding the page's frame (``consent.holds_frame``: a theme
that names the post's wrapper ``author-…`` or opens the story in a ``modal`` wraps the article itself).
"""

from __future__ import annotations

from typing import Any

from rankcrawl.pipelines.page.consent import holds_frame
from rankcrawl.pipelines.page.document import TextBlock
from rankcrawl.pipelines.page.dom_features import tokens
from rankcrawl.pipelines.page.dropping import words_inside
from rankcrawl.pipelines.page.name_sieve import NameSieve

INSET_WORDS = frozenset("author authors bio biography byline vcard writer newsletter newsletters subscribe subscription "
                        "signup optin modal modals popup popups lightbox dialog disclaimer disclosure disclosures".split())
INSET_ROLES = frozenset({"dialog", "alertdialog"})
CANDIDATES = NameSieve("author bio byline vcard writer newsletter subscri signup optin modal popup lightbox dialog "
                       "disclaimer disclosure".split(), INSET_ROLES)
"""Every word of ``INSET_WORDS`` contains one of these stems."""
MIN_WORDS = 8
MAX_SHARE = 0.3
ON_TYPES = frozenset({"article"})


def names_inset(el: Any) -> bool:
    """Whether ``el``'s role is a dialog's or its id or a class name has an ``INSET_WORDS`` word."""
    if (el.get("role") or "").strip().lower() in INSET_ROLES:
        return True
    return any(not INSET_WORDS.isdisjoint(tokens(name)) for name in [el.get("id") or "", *(el.get("class") or "").split()])


def inset_boxes(root: Any, blocks: list[TextBlock], kind: str) -> list[Any]:
    """The outermost inset boxes of the page ``root`` of type ``kind``, given its ``blocks`` in document order."""
    if kind not in ON_TYPES or not blocks:
        return []
    found = [el for el in CANDIDATES(root) if names_inset(el) and not holds_frame(el)]
    if not found:
        return []
    inside = words_inside(blocks, found)
    limit = MAX_SHARE * sum(b.n_words for b in blocks)
    return [el for el, words in inside.items() if MIN_WORDS <= words < limit]
