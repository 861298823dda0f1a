"""Cookie-consent banners and dialogs: a notice about the site's cookies, never the page's text.

A candidate's id or a class name is made of consent words (``cookie``, ``consent``, ``gdpr`` and the
names of the consent platforms' widgets) and the words of a banner or a dialog (``cookie-banner``,
``onetrust-consent-sdk``, ``gdpr-consent-dialog``): trafilatura's discard XPath removes the same
``cookie`` / ``consent`` boxes, uBlock's "annoyances" lists hide them. A consent box asks for the
reader's choice, so it holds a button or a form control; a section about cookies in a manual (an id
made from its heading, ``csrf-cookie-name``, or a lone ``cookie`` anchor) does not. The box is dropped
wherever it sits (the dialog is often the page's largest block of prose, after the article or
before it), unless it holds the page's own frame: a wrapper around the headline or the main region
names where a banner goes, not what the page is.
"""

from __future__ import annotations

from typing import Any

from rankcrawl.pipelines.page.after_article import named

CONSENT_WORDS = frozenset("cookie cookies consent gdpr ccpa onetrust cookiebot cookielaw cookieconsent".split())
BOX_WORDS = frozenset("banner bar notice notification dialog modal popup overlay layer sdk wrapper wrap container "
                      "box message msg alert policy preferences preference settings manager center law bottom "
                      "fixed".split())
"""Words a consent box's name may have besides consent and ``after_article.FILLER_WORDS`` ones."""
CONTROLS = ("button", "input", "select")
PAGE_FRAME = ("h1", "main", "article")
"""Elements a consent box never holds: a box around one of them wraps the page itself."""


def holds_frame(el: Any) -> bool:
    """Whether ``el`` holds one of ``PAGE_FRAME`` or an element of role ``main``."""
    return any(True for _ in el.iter(*PAGE_FRAME)) or bool(el.xpath(".//*[@role='main']"))


def asks_consent(el: Any) -> bool:
    """Whether ``el`` holds a control (a button or a form field) and not the page's frame."""
    if holds_frame(el):
        return False
    return any(True for _ in el.iter(*CONTROLS)) or bool(el.xpath(".//*[@role='button']"))


def consent_boxes(candidates: list[Any]) -> list[Any]:
    """The consent boxes among ``candidates`` (``after_article.section_candidates``, document order)."""
    return [el for el in candidates if named(el, CONSENT_WORDS, BOX_WORDS) and asks_consent(el)]
