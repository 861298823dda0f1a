"""Share and follow bars: short runs of links to social networks' share endpoints, often repeated.

A share link is an ``<a>`` whose target is a share endpoint (``facebook.com/sharer``,
``twitter.com/intent``, ``wa.me``, ``pinterest.com/pin/create`` …: the share intents every share
widget uses, whatever the site) or whose own id/class words say share. The bar is the largest
ancestor, at most ``MAX_CLIMB`` levels up, that still holds at most ``MAX_WORDS`` words and no
more text outside its links than ``MAX_FREE_WORDS`` and no heading or paragraph: the short, link-dense box that trafilatura's
discard XPath finds by its ``share``/``social`` class words and Resiliparse's main-content filter by
its link density. A box found this way is dropped wherever it sits, between paragraphs too.
"""

from __future__ import annotations

import re
from typing import Any

from rankcrawl.pipelines.page.dom_features import tokens

SHARE_HREF = re.compile(
    r"^(?:https?:)?//(?:[\w-]+\.)*(?:"
    r"facebook\.com/(?:sharer|share\.php|dialog/(?:share|feed|send))|"
    r"(?:twitter|x)\.com/(?:intent/(?:tweet|post)|share)|"
    r"(?:api\.)?whatsapp\.com/send|wa\.me/|"
    r"pinterest\.[a-z.]+/pin/create|"
    r"linkedin\.com/(?:sharing/share-offsite|shareArticle|cws/share)|"
    r"reddit\.com/submit|"
    r"t\.me/share|telegram\.me/share|"
    r"(?:www\.)?tumblr\.com/(?:share|widgets/share)|"
    r"vk\.com/share\.php|"
    r"news\.ycombinator\.com/submitlink|"
    r"bsky\.app/intent/compose|"
    r"(?:mail\.google\.com/mail/.*[?&]view=cm)"
    r")|^(?:whatsapp|fb-messenger|sms):|^mailto:\?",
    re.IGNORECASE,
)
SHARE_WORDS = frozenset("share sharing sharebar sharethis addthis addtoany sharedaddy shariff social "
                        "socials".split())
MAX_CLIMB = 4
MAX_WORDS = 30
MAX_FREE_WORDS = 6
"""Words of a bar outside its links ("Share this:", a count)."""
HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6", "p")
"""A box holding a heading or a paragraph is more than a bar."""


def is_share_link(a: Any) -> bool:
    """Whether the ``<a>`` element ``a`` shares the page (by its target or its own id/class words)."""
    if SHARE_HREF.search((a.get("href") or "").strip()):
        return True
    return not tokens(f"{a.get('id') or ''} {a.get('class') or ''}").isdisjoint(SHARE_WORDS)


def _words(el: Any) -> tuple[int, int]:
    """(all words, words outside links) of ``el``'s text."""
    total = len(" ".join(el.itertext()).split())
    linked = sum(len(" ".join(a.itertext()).split()) for a in el.iter("a"))
    return total, total - linked


def share_bars(root: Any) -> list[Any]:
    """The share bars of ``root``'s tree (outermost boxes, document order)."""
    if root is None:
        return []
    bars: list[Any] = []
    chosen: set[Any] = set()
    for a in root.iter("a"):
        if not is_share_link(a):
            continue
        box, el = None, a
        for _ in range(MAX_CLIMB):
            el = el.getparent()
            if el is None or el.tag in ("body", "html"):
                break
            total, free = _words(el)
            if total > MAX_WORDS or free > MAX_FREE_WORDS or any(True for _ in el.iter(*HEADINGS)):
                break
            box = el
        if box is not None and box not in chosen:
            chosen.add(box)
            bars.append(box)
    return bars
